import { fields } from "../../core/fields.js";

/**
 * What the context-overflow guard left out of a request, recorded on the model's answer to that
 * request (`response_metadata.harness_kit_context`), so a saved thread shows it: `harness-kit
 * inspect` lists it, and the next step calibrates its estimate from it. The guard changes only
 * the request, never the state, so the answer is the one message of the thread it can write to.
 * A key of its own, beside the `harness_kit` mark, because the answer is the model's, not a guard's.
 */
export const CONTEXT_RECORD_KEY = "harness_kit_context";
export const CONTEXT_RECORD_VERSION = 1;

/** How one message of the request was shortened. */
export type ShrinkAction = "preview" | "stub" | "drop";

export interface RemovedPart {
  /** Position of the message in the request's messages (the state's messages, after any summary). */
  index: number;
  kind: "tool" | "ai" | "human" | "other";
  action: ShrinkAction;
  toolCallId?: string;
  tool?: string;
  /** Where the full content can be read back; absent when it could not be stored. */
  key?: string;
  /** Estimated tokens the message had. */
  tokens: number;
}

export interface ContextRecord {
  v: number;
  guard: string;
  /** `request_shrunk` before sending; `overflow_recovered` after the provider refused the first request. */
  reason: "request_shrunk" | "overflow_recovered";
  window: number | undefined;
  /** The window a provider's refusal stated, used from then on in place of the configured one. */
  providerWindow?: number;
  /** The answer's room a provider's refusal counted against its window (Anthropic's `max_tokens`), kept free from then on. */
  providerReserve?: number;
  /** Window minus the answer's reserve: the most the request may use. */
  limit: number | undefined;
  /** Estimated tokens of the whole request, as the state holds it. */
  fullTokens: number;
  /** Estimated tokens of the request that was sent. */
  sentTokens: number;
  /** Every shortened message (at most `MAX_LISTED`; `removedCount` counts all). */
  removed: RemovedPart[];
  removedCount: number;
}

const MAX_LISTED = 200;

export function contextRecord(
  facts: Omit<ContextRecord, "v" | "removedCount" | "removed"> & { removed: readonly RemovedPart[] },
): ContextRecord {
  return {
    ...facts,
    v: CONTEXT_RECORD_VERSION,
    removed: facts.removed.slice(0, MAX_LISTED),
    removedCount: facts.removed.length,
  };
}

/** The record on a model answer, instances and plain dicts alike. */
export function readContextRecord(message: unknown): ContextRecord | undefined {
  const r: Partial<ContextRecord> = fields(fields(fields(message).response_metadata)[CONTEXT_RECORD_KEY]);
  return typeof r.guard === "string" && typeof r.sentTokens === "number" && Array.isArray(r.removed)
    ? (r as ContextRecord)
    : undefined;
}

/** One shrunk request of a thread, as `harness-kit inspect` lists it. */
export interface ContextShrink {
  /** Index of the model answer that carries the record. */
  messageIndex: number;
  reason: ContextRecord["reason"];
  window: number | undefined;
  fullTokens: number;
  sentTokens: number;
  previewed: number;
  stubbed: number;
  dropped: number;
  /** Keys the left-out content is stored under, each once, in order. */
  keys: string[];
}

/** Every request of a thread the guard shrank, from the records on the model's answers. */
export function contextShrinksIn(messages: readonly unknown[]): ContextShrink[] {
  const out: ContextShrink[] = [];
  messages.forEach((message, messageIndex) => {
    const record = readContextRecord(message);
    if (!record) return;
    const counted = (action: ShrinkAction) => record.removed.filter((part) => part.action === action).length;
    out.push({
      messageIndex,
      reason: record.reason,
      window: record.window,
      fullTokens: record.fullTokens,
      sentTokens: record.sentTokens,
      previewed: counted("preview"),
      stubbed: counted("stub"),
      dropped: counted("drop"),
      keys: [...new Set(record.removed.flatMap((part) => (part.key ? [part.key] : [])))],
    });
  });
  return out;
}
