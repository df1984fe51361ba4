import { closestNames } from "./closestNames.js";
import { declaredKeys } from "./declaredKeys.js";
import { firstDuplicateKey } from "./duplicateKeys.js";
import { firstImpreciseNumber } from "./numberPrecision.js";
import { parseToolArguments } from "./parseArguments.js";
import type { SyntaxRepair } from "./scanArguments.js";
import { malformedCallText, repairedButInvalidText, unknownToolText } from "./texts.js";
import { checkArguments } from "./validateArguments.js";
import type { StructuredOutputTools } from "./structuredOutput.js";
import { REVIEW_KEY } from "../../core/marks.js";

/** What the model can call: a tool's name and its argument schema (Zod or JSON Schema). */
export interface ToolSpec {
  name: string;
  schema?: unknown;
}

/** The verdict on one call of a model turn, kept on the AI message (see `REVIEW_KEY`). */
export type CallReview =
  | { id: string; name: string; verdict: "repaired"; repairs: SyntaxRepair[] }
  | { id: string; name: string; verdict: "rejected"; problem: string; text: string }
  | { id: string; name: string; verdict: "unknown_tool"; closest: string[]; text: string };

export interface ReviewedCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

export interface TurnReview {
  /** Every call of the turn, the formerly invalid ones included, in a form providers accept. */
  toolCalls: ReviewedCall[];
  reviews: CallReview[];
}

interface CallLike {
  id?: string;
  name?: string;
  args?: unknown;
}

// The reviews of a turn's calls live on its AIMessage under REVIEW_KEY, so the answers to rejected
// calls and the escalation count derive from the history alone.
export { REVIEW_KEY };

/** The name given to an invalid call that arrived without one; it matches every provider's name pattern. */
export const UNNAMED_CALL = "unnamed_tool_call";

/** A tool the request offers, or one of the response format's. */
function isKnown(tools: ReadonlyMap<string, ToolSpec>, structuredOutput: StructuredOutputTools, name: string): boolean {
  return tools.has(name) || structuredOutput(name);
}

/**
 * Reviews one model turn: repairs each invalid call when that is safe, rejects it otherwise, and
 * flags calls to tools that do not exist. Every invalid call comes back as a regular call (with
 * empty arguments when rejected) because the provider converters drop `invalid_tool_calls`: an
 * answer to a call the provider never sees is an orphan the API refuses.
 * A parsed call whose wire text (`rawArguments`) is not strict JSON was completed by LangChain's
 * partial-JSON parser, and one with a duplicated key was decided by JSON.parse: both are reviewed
 * like an invalid call. `structuredOutput` names the response format's tools, which createAgent
 * binds beside `tools` (see structuredOutput.ts): never phantoms.
 * Returns undefined when the turn needs nothing.
 */
export function reviewTurn(
  toolCalls: readonly CallLike[],
  invalidToolCalls: readonly CallLike[],
  tools: ReadonlyMap<string, ToolSpec>,
  fallbackId: (index: number) => string,
  rawArguments: ReadonlyMap<string, string> = new Map(),
  structuredOutput: StructuredOutputTools = () => false,
): TurnReview | undefined | Promise<TurnReview | undefined> {
  const calls: ReviewedCall[] = [];
  const reviews: CallReview[] = [];
  const unparsed: UnparsedCall[] = [];

  for (const call of toolCalls) {
    const id = call.id ?? "";
    const name = call.name ?? "";
    const raw = rawArguments.get(id);
    if (raw !== undefined && isKnown(tools, structuredOutput, name) && !isUnambiguousJson(raw)) {
      unparsed.push({ id, name, raw, label: name });
      continue;
    }
    if (isKnown(tools, structuredOutput, name)) {
      calls.push({ id, name, args: (call.args ?? {}) as Record<string, unknown> });
      continue;
    }
    calls.push({ id, name: keptName(name), args: (call.args ?? {}) as Record<string, unknown> });
    reviews.push(unknownTool(id, name, [...tools.keys()]));
  }
  for (const [index, call] of invalidToolCalls.entries()) {
    unparsed.push({
      id: call.id || fallbackId(index),
      name: call.name || UNNAMED_CALL,
      raw: call.args,
      label: call.name ?? "",
    });
  }
  // A turn that needs nothing (nearly every turn) is known without a promise.
  if (unparsed.length === 0 && reviews.length === 0) return undefined;
  return reviewUnparsed(
    unparsed,
    calls,
    reviews,
    tools,
    (name) => isKnown(tools, structuredOutput, name),
    () => [...tools.keys()],
  );
}

interface UnparsedCall {
  id: string;
  name: string;
  raw: unknown;
  label: string;
}

async function reviewUnparsed(
  unparsed: readonly UnparsedCall[],
  calls: ReviewedCall[],
  reviews: CallReview[],
  tools: ReadonlyMap<string, ToolSpec>,
  known: (name: string) => boolean,
  names: () => string[],
): Promise<TurnReview> {
  for (const { id, name, raw, label } of unparsed) {
    const parsed = parseToolArguments(raw, { declaredKeys: declaredKeys(tools.get(name)?.schema) });
    if (!known(name)) {
      calls.push({ id, name: keptName(name), args: parsed.ok ? parsed.args : {} });
      reviews.push(unknownTool(id, label, names()));
      continue;
    }
    if (!parsed.ok) {
      calls.push({ id, name, args: {} });
      reviews.push({
        id,
        name,
        verdict: "rejected",
        problem: parsed.problem.kind,
        text: malformedCallText(name, parsed.problem, raw),
      });
      continue;
    }
    calls.push({ id, name, args: parsed.args });
    const check = await checkArguments(tools.get(name)?.schema, parsed.args);
    if (!check.ok) {
      reviews.push({
        id,
        name,
        verdict: "rejected",
        problem: "schema_mismatch",
        text: repairedButInvalidText(name, check.issues),
      });
      continue;
    }
    reviews.push({ id, name, verdict: "repaired", repairs: [...parsed.repairs] });
  }
  return { toolCalls: calls, reviews };
}

/**
 * Wire text the provider's parse could not have misread: strict JSON without duplicate keys
 * (JSON.parse silently keeps the last one) and without numbers it rounds (`9007199254740993`).
 * Empty text is how providers stream a call without arguments.
 */
function isUnambiguousJson(raw: string): boolean {
  if (raw.trim() === "") return true;
  try {
    JSON.parse(raw);
  } catch {
    return false;
  }
  return firstDuplicateKey(raw) === undefined && firstImpreciseNumber(raw) === undefined;
}

/** Names every provider accepts for a function (OpenAI and Anthropic: 1 to 64 of these characters). */
const PROVIDER_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** createAgent's router never sends a call named `extract-*` to the tools node: it takes them all for structured output. */
const ROUTED_AWAY_PREFIX = "extract-";

/**
 * The name a call to a tool that does not exist keeps in history: its own when providers accept
 * it, `UNNAMED_CALL` otherwise, so that an invented 5,000-character name is not sent back to the
 * model on every later turn (nor refused by the provider's name pattern), and an invented
 * `extract-user_info` reaches the tools node, where its answer is written.
 */
function keptName(name: string): string {
  return PROVIDER_NAME.test(name) && !name.startsWith(ROUTED_AWAY_PREFIX) ? name : UNNAMED_CALL;
}

function unknownTool(id: string, name: string, available: readonly string[]): CallReview {
  const closest = closestNames(name.slice(0, MAX_COMPARED_NAME), available);
  return { id, name: keptName(name), verdict: "unknown_tool", closest, text: unknownToolText(name, closest) };
}

/** Longest part of an invented name compared with the real ones: edit distance is quadratic. */
const MAX_COMPARED_NAME = 256;

/** The reviews kept on an AI message (instance or plain dict); empty when it was never reviewed. */
export function reviewsOf(message: unknown): CallReview[] {
  if (message === null || typeof message !== "object") return [];
  const meta = (message as { response_metadata?: Record<string, unknown> }).response_metadata;
  const reviews = meta?.[REVIEW_KEY];
  return Array.isArray(reviews) ? (reviews as CallReview[]) : [];
}
