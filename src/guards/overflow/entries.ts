import type { BaseMessage, ToolMessage } from "@langchain/core/messages";
import { isSummary, messageKind } from "../../core/messages.js";
import { MESSAGE_OVERHEAD, type RequestMeter } from "./estimate.js";
import { groupsOf, type PlanEntry } from "./plan.js";
import { PLACEHOLDER_WHERE, readBackOf, resultParts, stubMessage, stubReadBack, stubResult } from "./replacements.js";
import { maxPartsOf } from "./spanParts.js";
import { droppedSpanNote } from "./texts.js";

/**
 * The planner's view of a request: each message sized as it is, as a preview and as a stub.
 * Stubs are measured with the longest key and hint, before anything is stored, so a plan that
 * fits still fits once the real keys are in; each message is measured once (a cache by object).
 */
export class EntrySizer {
  private readonly sizes = new WeakMap<object, { stub: number; preview?: number }>();

  /** `retrievalName`: the tool that reads the store back; its answers are already stored, so they are never previewed. */
  constructor(
    private readonly meter: RequestMeter,
    private readonly previewTokens: number,
    private readonly retrievalName: string,
  ) {}

  entriesOf(messages: readonly BaseMessage[]): PlanEntry[] {
    const kinds = messages.map(planKind);
    const groups = groupsOf(kinds);
    const latestUser = lastIndex(messages, (m) => messageKind(m) === "human" && !isSummary(m));
    const lastAi = lastIndex(messages, (m) => messageKind(m) === "ai");
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

  /** The largest note a dropped span of `groups` groups can get (its parts: see spanParts.ts). */
  readonly noteBound = (groups: number): number => {
    const placeholder = Array.from({ length: maxPartsOf(groups) }, () => ({ first: 999_999, last: 999_999, where: PLACEHOLDER_WHERE }));
    return MESSAGE_OVERHEAD + this.meter.text(droppedSpanNote(999_999, 999_999, placeholder));
  };

  /** The most a message costs as a preview (tool results other than read backs) and as a stub. */
  private shortenedSizes(message: BaseMessage, tool: boolean): { stub: number; preview?: number } {
    let sizes = this.sizes.get(message);
    if (!sizes) {
      const readBack = tool ? readBackOf(message as ToolMessage, this.retrievalName) : undefined;
      if (readBack) {
        sizes = { stub: this.meter.message(stubReadBack(message as ToolMessage, readBack)) };
      } else if (tool) {
        const { media } = resultParts(message as ToolMessage);
        sizes = { preview: MESSAGE_OVERHEAD + this.previewTokens + this.meter.content(media), stub: this.meter.message(stubResult(message as ToolMessage, PLACEHOLDER_WHERE)) };
      } else {
        sizes = { stub: this.meter.message(stubMessage(message, PLACEHOLDER_WHERE)) };
      }
      this.sizes.set(message, sizes);
    }
    return sizes;
  }
}

function planKind(message: BaseMessage): PlanEntry["kind"] {
  const kind = messageKind(message);
  return kind === "ai" || kind === "tool" || kind === "human" || kind === "system" ? kind : "other";
}

function lastIndex(messages: readonly BaseMessage[], test: (m: BaseMessage) => boolean): number {
  for (let i = messages.length - 1; i >= 0; i--) if (test(messages[i]!)) return i;
  return -1;
}
