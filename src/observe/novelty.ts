import { canonicalJson } from "./canonical.js";

/** One answered call as a novelty function sees it. */
export interface CallResultView {
  toolName: string;
  args: unknown;
  /** The result text after volatile-field normalisation. */
  text: string;
  status: "success" | "error";
}

/**
 * How much of `current` was not seen in `earlier` (results of the same call, oldest first),
 * in [0, 1]. A tool with a delta override is grouped by name alone, so its calls count as
 * "the same call" even when their arguments churn.
 */
export type DeltaFunction = (current: CallResultView, earlier: readonly CallResultView[]) => number;

/**
 * Share of the characters of `text` that sit on lines absent from `seen`. Lines are the unit
 * because tool output (logs, listings, pages, JSON documents) changes line by line.
 */
export function lineNovelty(text: string, seen: ReadonlySet<string>): number {
  if (text.length === 0) return 0;
  let fresh = 0;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    const line = text.slice(start, end);
    if (!seen.has(line)) fresh += line.length + 1;
    start = end + 1;
  }
  return Math.min(1, fresh / (text.length + 1));
}

export function addLines(text: string, seen: Set<string>): void {
  for (const line of text.split("\n")) seen.add(line);
}

/**
 * Novelty by set membership: the share of items in `listField` (of the arguments, else of the
 * JSON result) whose identity was not in any earlier call's list. Use it for tools that rewrite
 * a whole list each time, such as a todo list, where one changed word should not read as progress.
 *
 * @param listField field holding the array
 * @param itemKey field that identifies an item; the whole item (canonical JSON) when omitted
 * @example new ProgressAwareLoopGuardMiddleware({ deltaOverrides: { write_todos: makeSetMembershipDelta("todos", "content") } })
 */
export function makeSetMembershipDelta(listField: string, itemKey?: string): DeltaFunction {
  const identities = (view: CallResultView): string[] => {
    const list = listOf(view.args, listField) ?? listOf(parseJson(view.text), listField) ?? [];
    return list.map((item) => {
      const key = itemKey !== undefined && item !== null && typeof item === "object"
        ? (item as Record<string, unknown>)[itemKey]
        : item;
      return canonicalJson(key);
    });
  };
  return (current, earlier) => {
    const items = identities(current);
    if (items.length === 0) return 0;
    const seen = new Set<string>();
    for (const view of earlier) for (const id of identities(view)) seen.add(id);
    return items.filter((id) => !seen.has(id)).length / items.length;
  };
}

function listOf(source: unknown, field: string): unknown[] | undefined {
  if (source === null || typeof source !== "object") return undefined;
  const list = (source as Record<string, unknown>)[field];
  return Array.isArray(list) ? list : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
