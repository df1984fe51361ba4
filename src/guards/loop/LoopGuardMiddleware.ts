import type { BaseMessage } from "@langchain/core/messages";
import { parseOptions } from "../../core/baseOptions.js";
import type { CallDecision } from "../../core/decision.js";
import type { ToolCallView } from "../../core/messages.js";
import { decideIdenticalCalls, LOOP_GUARD, type IdenticalCallsOptions, type KeyedCall } from "./identicalCalls.js";
import { DEFAULT_OBSERVATION_OPTIONS, withObservations, type Observed } from "../../observe/shared.js";
import { argsKeyOf } from "../../observe/argsIdentity.js";
import { BatchGuardMiddleware } from "../../hooks/batchGuardMiddleware.js";
import { passOn, type QuietJudge } from "../../hooks/quietJudge.js";
import { loopGuardOptions, type LoopGuardOptions } from "./options.js";

export type { LoopGuardOptions };

/** A result with more new content than this (novelty.ts) is progress: the same as ProgressAwareLoopGuard's default. */
const PROGRESS_FLOOR = 0.02;

/**
 * Stops an agent that calls the same tool with the same arguments again and again while nothing
 * new comes back. Counts consecutive identical calls (name + normalised arguments: key order,
 * casing, whitespace and code comments aside), including duplicates inside one parallel batch,
 * since the call's result last brought something new: a job polled while its progress moves, or
 * a log tailed while it grows, is never counted. A new user message starts the count over.
 *
 * Ladder: `warn` signal at `warnAt`; at `stopAt`, `exitBehavior` (default: answer every pending
 * call and end the run with a final message stating why).
 *
 * @example
 * const agent = createAgent({ model, tools, middleware: [new LoopGuardMiddleware({ stopAt: 4 })] });
 */
export class LoopGuardMiddleware extends BatchGuardMiddleware {
  readonly name = LOOP_GUARD;
  private readonly settings: IdenticalCallsOptions;

  constructor(options: LoopGuardOptions = {}) {
    super();
    const { warnAt, stopAt, window, ignoreTools, ...mode } = parseOptions(this.name, loopGuardOptions, options);
    this.settings = { warnAt, stopAt, window, ignoreTools: new Set(ignoreTools), progressFloor: PROGRESS_FLOOR };
    this.attach(mode, "end", this.decideNow);
    this.quiet = {
      off: warnAt <= 1 || stopAt <= 1,
      readsThread: true,
      passesCall: (_call, _asking, batch) => batch.fresh,
      passesRequest: passOn,
    };
  }

  /** A call new to the thread counts once, which neither threshold reaches unless it is 1 (then never quiet). */
  readonly quiet: QuietJudge;

  /** `evaluate` without a promise once the hasher is loaded: the hook runs on every step. */
  private readonly decideNow = (
    messages: readonly BaseMessage[],
    pending: readonly ToolCallView[],
  ): CallDecision[] | Promise<CallDecision[]> =>
    withObservations(messages, DEFAULT_OBSERVATION_OPTIONS, this.decideWith, pending);

  private readonly decideWith = ({ store, hash }: Observed, pending: readonly ToolCallView[]): CallDecision[] => {
    // A loop, not a callback per call: this runs on every step.
    const batch: KeyedCall[] = [];
    for (const call of pending)
      batch.push({ call, key: store.pendingKeys(call.id)?.argsKey ?? argsKeyOf(call.name, call.args, hash) });
    return decideIdenticalCalls(store, batch, this.settings);
  };
}
