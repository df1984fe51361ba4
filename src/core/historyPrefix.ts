/**
 * The part of a message history an incremental cache has already processed. Between graph steps
 * LangGraph's history only grows (the same objects at the same positions), so the cache goes on
 * from where it stopped; a history that was rewritten instead (summarised, trimmed, its last
 * message replaced) no longer starts with the processed part, and the cache starts over. The two
 * are told apart by the first and the last message processed: two reads per step, whatever the
 * history's length.
 */
export class HistoryPrefix {
  /** How many messages were processed. */
  length = 0;
  private first: unknown;
  private last: unknown;

  /** Whether `messages` extends what was processed (always, when nothing was). */
  continues(messages: readonly unknown[]): boolean {
    if (this.length === 0) return true;
    return messages.length >= this.length && messages[0] === this.first && messages[this.length - 1] === this.last;
  }

  /** Every message of `messages` is processed now. */
  reach(messages: readonly unknown[]): void {
    this.length = messages.length;
    this.first = messages[0];
    this.last = messages[messages.length - 1];
  }

  /** Nothing is processed: the cache starts over. */
  clear(): void {
    this.length = 0;
  }
}
