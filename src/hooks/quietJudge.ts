import type { AIMessage, BaseMessage, ToolMessage } from "@langchain/core/messages";
import type { ToolCallView } from "../core/messages.js";

/**
 * What a guard tells the composed stack about a step it would only pass on (stack/quietPath.ts).
 * Each answer is a proof read from the guard's own code: `true` (or a request) only where its hook,
 * run in full, would pass the call or the model request on unchanged, signal nothing and stamp
 * nothing but the run stamps. Any doubt answers false, and the guard then judges in full.
 */
export interface QuietJudge {
  /** The guard, as configured, never vouches for a step: the stack takes no quiet path at all. */
  readonly off?: boolean;
  /** Its answers read the thread's facts (`BatchFacts`): the stack works them out only for such a judge. */
  readonly readsThread?: boolean;
  /** Before a call runs: whether the guard lets `call`, of the turn `asking`, run as sent. */
  passesCall?(call: ToolCallView, asking: AIMessage, batch: BatchFacts): boolean;
  /** After: whether it keeps the tool's answer as it came. */
  keepsAnswer?(answer: ToolMessage, call: ToolCallView): boolean;
  /** Before a model call: the request it hands on (the same, or rewritten as it always is), else undefined. */
  passesRequest?(request: QuietModelRequest, batch: BatchFacts): QuietModelRequest | undefined;
  /** After: whether it keeps the model's response as it came, given the request it handed on. */
  keepsResponse?(response: AIMessage, request: QuietModelRequest): boolean;
  /**
   * After a response every guard keeps: what its hook does besides, which changes nothing of the
   * response (the runaway guard's report at a run's end), given the history the guards judged.
   */
  settle?(response: AIMessage, history: readonly BaseMessage[]): Promise<void> | undefined;
}

/**
 * What the thread says of the latest model turn (observe/freshCalls.ts). The quiet path asks only
 * in a thread with no summary (and, with a judge that reads the thread, nothing stored by the
 * budget), and before a model call only after a turn whose every call a tool answered and every
 * guard left unmarked (or at a run's start). Without such a judge, `fresh` and `learned` are false.
 */
export interface BatchFacts {
  /** The history the guards judge, ending with the turn (or, at a run's start, the user's message). */
  history: readonly BaseMessage[];
  /** Every call of the turn is new to the thread, none like another or like its tool's recent calls. */
  fresh: boolean;
  /** The model call that wrote the turn began its run or read something new. */
  learned: boolean;
}

/** A model request, as the judges pass it on (each reads the parts it knows). */
export interface QuietModelRequest {
  tools?: unknown[];
  state?: any;
}

/** A middleware that may take part in the quiet path. */
export interface QuietMember {
  readonly quiet?: QuietJudge;
}

/**
 * The model side of a batch guard (batchGuard.ts) after plain answers: no stop mark of its own
 * among them, so it calls the model as asked and stamps the turn, as the quiet path does.
 */
export function passOn<R>(request: R): R {
  return request;
}
