import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { isSummary, lastAiIndex, messageKind, toolCallsOf } from "../../core/messages.js";
import type { OffloadStore } from "../../offload/OffloadStore.js";
import { MESSAGE_OVERHEAD, type RequestMeter } from "./estimate.js";
import { groupsOf, type PlanEntry } from "./plan.js";
import {
  PLACEHOLDER_WHERE,
  previewOrigin,
  readBackOrigin,
  resultParts,
  stubMessage,
  stubReadBack,
  stubResult,
  type ReadBackOrigin,
} from "./replacements.js";
import { maxPartsOf } from "./spanParts.js";
import { droppedSpanNote } from "./texts.js";

/**
 * The planner's view of a request: each message sized as it is, as a preview and as a stub.
 * Stubs are measured with the longest key and hint, before anything is stored, so a plan that
 * fits still fits once the real keys are in; each message is measured once (a cache by object).
 */
export class EntrySizer {
  private readonly sizes = new WeakMap<object, { stub: number; preview?: number }>();

  /** Per tool result: where it reads back from, when it is a read back (null: it is not). */
  private readonly origins = new WeakMap<object, ReadBackOrigin | null>();

  /**
   * `retrievalName` and `store`: the tool that reads the store back and the store, whose line
   * reader knows its own read backs (deepagents' `read_file`); a read back is stored already, so
   * it is never previewed, and a stub points to where it was read.
   */
  constructor(
    private readonly meter: RequestMeter,
    private readonly previewTokens: number,
    private readonly retrievalName: string,
    private readonly store: OffloadStore | undefined,
  ) {}

  /** Where `message` was read back from, when it is a read back (known once `entriesOf` has seen it). */
  readonly readBackOf = (message: BaseMessage): ReadBackOrigin | undefined => this.origins.get(message) ?? undefined;

  entriesOf(messages: readonly BaseMessage[]): PlanEntry[] {
    this.findReadBacks(messages);
    const kinds = messages.map(planKind);
    const groups = groupsOf(kinds);
    const latestUser = lastIndex(messages, (m) => messageKind(m) === "human" && !isSummary(m));
    const lastAi = lastAiIndex(messages);
    return messages.map((message, i) => {
      const kind = kinds[i]!;
      const tokens = this.meter.message(message);
      const fixed = kind === "system" || i === latestUser;
      const entry: PlanEntry = { kind, tokens, fixed, group: groups[i]!, stubTokens: tokens };
      if (fixed || kind === "other" || tokens <= this.previewTokens / 2) return entry;
      // The last AI message is what the model is answering now: its reasoning and calls stay.
      if (kind === "ai" && i === lastAi) return entry;
      const shortened = this.shortenedSizes(message, kind === "tool");
      entry.stubTokens = Math.min(tokens, shortened.stub);
      if (shortened.preview !== undefined) entry.previewTokens = shortened.preview;
      return entry;
    });
  }

  /** Finds the read backs among tool results not seen before (the calls they answer are looked up only then). */
  private findReadBacks(messages: readonly BaseMessage[]): void {
    let calls: ReturnType<typeof callsById> | undefined;
    for (const message of messages) {
      if (!ToolMessage.isInstance(message) || this.origins.has(message)) continue;
      calls ??= callsById(messages);
      this.origins.set(
        message,
        previewOrigin(message) ??
          readBackOrigin(message, calls.get(message.tool_call_id), this.retrievalName, this.store) ??
          null,
      );
    }
  }

  /** The largest note a dropped span of `groups` groups can get (its parts: see spanParts.ts). */
  readonly noteBound = (groups: number): number => {
    const placeholder = Array.from({ length: maxPartsOf(groups) }, () => ({
      first: 999_999,
      last: 999_999,
      where: PLACEHOLDER_WHERE,
    }));
    return MESSAGE_OVERHEAD + this.meter.text(droppedSpanNote(999_999, 999_999, placeholder));
  };

  /** The most a message costs as a preview (tool results other than read backs) and as a stub. */
  private shortenedSizes(message: BaseMessage, tool: boolean): { stub: number; preview?: number } {
    let sizes = this.sizes.get(message);
    if (!sizes) {
      const readBack = tool ? this.readBackOf(message) : undefined;
      if (readBack) {
        sizes = { stub: this.meter.message(stubReadBack(message as ToolMessage, readBack)) };
      } else if (tool) {
        const { media } = resultParts(message as ToolMessage);
        sizes = {
          preview: MESSAGE_OVERHEAD + this.previewTokens + this.meter.content(media),
          stub: this.meter.message(stubResult(message as ToolMessage, PLACEHOLDER_WHERE)),
        };
      } else {
        sizes = { stub: this.meter.message(stubMessage(message, PLACEHOLDER_WHERE)) };
      }
      this.sizes.set(message, sizes);
    }
    return sizes;
  }
}

/** The calls of the AI messages, by id: what a tool result answers. */
function callsById(
  messages: readonly BaseMessage[],
): Map<string, { name: string; args: Readonly<Record<string, unknown>> }> {
  const calls = new Map<string, { name: string; args: Readonly<Record<string, unknown>> }>();
  for (const message of messages) {
    if (messageKind(message) !== "ai") continue;
    for (const call of toolCallsOf(message))
      if (call.id) calls.set(call.id, { name: call.name, args: (call.args ?? {}) as Record<string, unknown> });
  }
  return calls;
}

function planKind(message: BaseMessage): PlanEntry["kind"] {
  const kind = messageKind(message);
  return kind === "ai" || kind === "tool" || kind === "human" || kind === "system" ? kind : "other";
}

function lastIndex(messages: readonly BaseMessage[], test: (m: BaseMessage) => boolean): number {
  for (let i = messages.length - 1; i >= 0; i--) if (test(messages[i]!)) return i;
  return -1;
}
