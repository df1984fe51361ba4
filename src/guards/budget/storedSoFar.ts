import { readMark } from "../../core/marks.js";
import { HistoryPrefix } from "../../core/historyPrefix.js";
import { isSummary } from "../../core/messages.js";

/** What one history showed so far: the messages looked at, and whether one of them was evidence. */
interface Seen {
  prefix: HistoryPrefix;
  found: boolean;
}

// A cache, not state: found by the history's first message, and a history rewritten since
// (summarised, trimmed) no longer continues the prefix and is looked at afresh.
const seen = new WeakMap<object, Seen>();

/**
 * Whether a history holds something `read_stored_result` can read back: a result the budget
 * stored, or a summary that may name a key. Each message is looked at once as the history grows,
 * so a model call costs what the step added, not the thread's length.
 */
export function hasStoredResults(messages: readonly unknown[]): boolean {
  const head = messages[0];
  if (head === null || typeof head !== "object") return messages.some(isEvidence);
  let entry = seen.get(head);
  if (!entry || !entry.prefix.continues(messages)) {
    entry = { prefix: new HistoryPrefix(), found: false };
    seen.set(head, entry);
  }
  for (let i = entry.prefix.length; i < messages.length && !entry.found; i++) entry.found = isEvidence(messages[i]);
  entry.prefix.reach(messages);
  return entry.found;
}

function isEvidence(message: unknown): boolean {
  return (
    isSummary(message) ||
    typeof (readMark(message)?.original as { offloadKey?: unknown } | undefined)?.offloadKey === "string"
  );
}
