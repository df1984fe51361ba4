import type { AIMessage, BaseMessage, ToolMessage } from "@langchain/core/messages";
import type { Command } from "@langchain/langgraph";
import { andThen, type MaybePromise } from "../core/maybePromise.js";
import { answerIdsAfter } from "../core/messages.js";
import { recordAnsweredBefore } from "../core/ranStamps.js";

/**
 * Which calls of a parallel batch were answered when the guards judged it, written once on an
 * answer of the batch (core/marks.ts ANSWERED_BEFORE_KEY). The guards judge a batch before its
 * calls run, and a middleware listed before them may answer a sibling without running it while
 * the others reach them: that sibling counted as a call of the batch, and only this record lets
 * replay tell it from one answered before the tools node.
 */

/** Per batch (its AIMessage): the ids still to write, or WRITTEN. */
const toWrite = new WeakMap<object, readonly string[]>();
const WRITTEN: readonly string[] = Object.freeze([]);

/** `answer` to a call of the batch `messages[at]` asked for, carrying the record if no answer carries it yet. */
export function withAnsweredBefore(
  messages: readonly BaseMessage[],
  at: number,
  callId: string,
  answer: MaybePromise<ToolMessage | Command>,
): MaybePromise<ToolMessage | Command> {
  const asking = messages[at] as AIMessage;
  // A lone call has no sibling to tell apart.
  if ((asking.tool_calls?.length ?? 0) < 2) return answer;
  let ids = toWrite.get(asking);
  if (ids === WRITTEN) return answer;
  // Every task of the tools node sees the same state: the answers in it were there when the guards judged.
  if (ids === undefined) toWrite.set(asking, (ids = answerIdsAfter(messages, at)));
  const record = ids;
  return andThen(answer, (settled) => {
    if (toWrite.get(asking) !== WRITTEN && recordAnsweredBefore(settled, record, callId)) toWrite.set(asking, WRITTEN);
    return settled;
  });
}
