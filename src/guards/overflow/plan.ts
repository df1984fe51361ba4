import type { ShrinkAction } from "./record.js";

/** One message of the request, as the planner sees it. */
export interface PlanEntry {
  kind: "tool" | "ai" | "human" | "system" | "other";
  /** Estimated tokens as the message is. */
  tokens: number;
  /** Never changed: a system message, the latest user message. */
  fixed: boolean;
  /** An AI message and the ToolMessages that follow it share a group: they are dropped together. */
  group: number;
  /** Tokens after `preview` (tool results only: head and tail kept); undefined when not a candidate. */
  previewTokens?: number;
  /** Tokens after `stub` (the content replaced by a notice saying where it is kept). */
  stubTokens: number;
}

export interface ShrinkSizes {
  /** A tool result above this is "large": offloaded first, oldest first. */
  largeTokens: number;
  /** The most a note in place of a dropped span of this many groups costs. */
  noteTokens: (groups: number) => number;
}

export interface ShrinkPlan {
  /** Per entry: what to do with it (undefined: keep as is). */
  actions: (ShrinkAction | undefined)[];
  /** Estimated tokens before and after, fixed part included. */
  before: number;
  after: number;
  /** Whether `after` is within the target. */
  fits: boolean;
  /** Spans `[from, to)` of dropped entries, each replaced by one note. */
  droppedSpans: Array<[number, number]>;
  /** Per entry: its estimated tokens after its action (0 when dropped; notes not included). */
  sizes: number[];
}

/**
 * Which messages to shorten so the request fits `target` tokens, in this order, each step oldest
 * first and only as far as needed:
 * 1. preview large tool results (kept in the store, head and tail shown);
 * 2. stub what remains: tool results, then the text of AI and earlier user messages with large
 *    tool-call arguments (kept in the store, a notice with the key shown);
 * 3. drop whole groups (an AI message with its tool results, or one other message), replaced by
 *    a note per span saying where they are kept;
 * 4. only then the results of the latest turn (what the model just asked for): previewed, then
 *    stubbed.
 * Fixed entries (system messages, the latest user message) are never touched; the last group
 * (the AI message whose results the model is about to read) is never dropped. A plan that cannot
 * reach the target says so (`fits: false`): it is then the smallest request the guard can make.
 */
export function planShrink(
  entries: readonly PlanEntry[],
  fixedTokens: number,
  target: number,
  sizes: ShrinkSizes,
): ShrinkPlan {
  const actions: (ShrinkAction | undefined)[] = new Array(entries.length).fill(undefined);
  const current = entries.map((e) => e.tokens);
  const before = fixedTokens + current.reduce((sum, t) => sum + t, 0);
  let total = before;
  const done = (): boolean => total <= target;
  const apply = (i: number, action: ShrinkAction, tokens: number): void => {
    total -= current[i]! - tokens;
    current[i] = tokens;
    actions[i] = action;
  };
  const lastGroup = lastAiGroup(entries);
  const preview = (latest: boolean): void => {
    for (let i = 0; i < entries.length && !done(); i++) {
      const e = entries[i]!;
      if (e.fixed || e.kind !== "tool" || e.previewTokens === undefined || (e.group === lastGroup) !== latest) continue;
      if (e.tokens > sizes.largeTokens && e.previewTokens < e.tokens) apply(i, "preview", e.previewTokens);
    }
  };
  const stub = (latest: boolean, toolsFirst: boolean): void => {
    for (let i = 0; i < entries.length && !done(); i++) {
      const e = entries[i]!;
      if (
        e.fixed ||
        e.kind === "system" ||
        actions[i] === "stub" ||
        (e.kind === "tool") !== toolsFirst ||
        (e.group === lastGroup) !== latest
      )
        continue;
      if (e.stubTokens < current[i]!) apply(i, "stub", e.stubTokens);
    }
  };

  preview(false);
  stub(false, true);
  stub(false, false);
  const droppedSpans: Array<[number, number]> = [];
  if (!done()) {
    const groups = groupRanges(entries);
    let spanEnd = -1;
    let spanGroups = 0;
    for (const [group, from, to] of groups) {
      if (done()) break;
      if (group === lastGroup || entries.slice(from, to).some((e) => e.fixed || e.kind === "system")) continue;
      const joins = spanEnd === from;
      for (let i = from; i < to; i++) apply(i, "drop", 0);
      if (joins) {
        droppedSpans[droppedSpans.length - 1]![1] = to;
        total += sizes.noteTokens(spanGroups + 1) - sizes.noteTokens(spanGroups);
        spanGroups++;
      } else {
        droppedSpans.push([from, to]);
        total += sizes.noteTokens(1);
        spanGroups = 1;
      }
      spanEnd = to;
    }
  }
  preview(true);
  stub(true, true);
  return { actions, before, after: total, fits: done(), droppedSpans, sizes: current };
}

/** The group of the last AI message, or -1 when there is none. */
export function lastAiGroup(entries: readonly PlanEntry[]): number {
  for (let i = entries.length - 1; i >= 0; i--) if (entries[i]!.kind === "ai") return entries[i]!.group;
  return -1;
}

/** `[group, from, to)` for each run of entries sharing a group, in order. */
function groupRanges(entries: readonly PlanEntry[]): Array<[number, number, number]> {
  const out: Array<[number, number, number]> = [];
  for (let i = 0; i < entries.length;) {
    let j = i + 1;
    while (j < entries.length && entries[j]!.group === entries[i]!.group) j++;
    out.push([entries[i]!.group, i, j]);
    i = j;
  }
  return out;
}

/**
 * Group numbers for messages by kind: an AI message starts a group that the ToolMessages after it
 * join; every other message is a group of its own (as is a ToolMessage with no AI message before it).
 */
export function groupsOf(kinds: readonly PlanEntry["kind"][]): number[] {
  const groups: number[] = [];
  let group = -1;
  let inAiGroup = false;
  for (const kind of kinds) {
    if (kind === "tool" && inAiGroup) {
      groups.push(group);
      continue;
    }
    group++;
    inAiGroup = kind === "ai";
    groups.push(group);
  }
  return groups;
}
