import type { BaseMessage } from "@langchain/core/messages";
import type { CallDecision, ExitBehavior } from "../../core/decision.js";
import type { ToolCallView } from "../../core/messages.js";
import type { SignalHandler } from "../../core/signals.js";
import { changesStateByName, decideNoProgress, PROGRESS_GUARD, type NoProgressOptions } from "./noProgress.js";
import type { DeltaFunction } from "../../observe/novelty.js";
import { DEFAULT_OBSERVATION_OPTIONS, withObservations, type Observed } from "../../observe/shared.js";
import { argsKeyOf } from "../../observe/argsIdentity.js";
import { callKeyOf, type ObservationOptions } from "../../observe/store.js";
import { positiveInteger } from "../../hooks/middlewareBase.js";
import { BatchGuardMiddleware } from "../../hooks/batchGuardMiddleware.js";
import { InvalidOptionsError } from "../../core/errors.js";

export interface ProgressAwareLoopGuardOptions {
  /** Wasted repeats (errors count double) at which a run that already ignored a directive stops. Default 3. */
  stopAt?: number;
  /** A result whose share of new content is at most this brought nothing new. Default 0.02. */
  progressFloor?: number;
  /** Novelty functions per tool, e.g. `{ write_todos: makeSetMembershipDelta("todos", "content") }`. */
  deltaOverrides?: Readonly<Record<string, DeltaFunction>>;
  /**
   * Patterns replaced before results are compared (a pattern with the `m` flag drops the lines it
   * matches). Default: ISO timestamps, UUIDs, hex ids, request ids, relative times, counters of
   * the asking, visit-notice lines.
   */
  volatilePatterns?: readonly RegExp[];
  /** No-op tools that neither count nor break a chain. Default `["think"]`. */
  ignoreTools?: readonly string[];
  /** Tools that only read: calling them never justifies repeating another call. */
  readOnlyTools?: readonly string[];
  /** Tools that change the world: a new call to one starts every judgement afresh. */
  stateChangingTools?: readonly string[];
  /**
   * Tools polled until something changes (a job's status, a log being tailed). They only read;
   * while each answer brings something new they are never counted, and an unchanged answer is
   * waited on `pollPatience` times before a directive.
   */
  pollingTools?: readonly string[];
  /** Unchanged answers of a polling tool before a directive. Default 5. */
  pollPatience?: number;
  /** When the ladder reaches a stop: keep refusing with directives, end the run cleanly, or throw. Default `"end"`. */
  exitBehavior?: ExitBehavior;
  /** Emit signals only; never block or stop. Default false. */
  observeOnly?: boolean;
  onSignal?: SignalHandler;
}

export const PROGRESS_GUARD_DEFAULTS = { stopAt: 3, progressFloor: 0.02, ignoreTools: ["think"], pollPatience: 5, exitBehavior: "end" } as const;

/**
 * Intervenes only when a call repeats AND the history proves the repeat brings nothing new.
 * Polling that sees a change, pagination and tailing pass; a poll that differs only in a
 * timestamp, a retry that fails the same way, or an A-B-A-B cycle of stale reads does not.
 * A repeat need not be byte for byte: arguments are compared after normalisation (key order,
 * casing, whitespace, comments in code), and a reworded instruction or an added field counts
 * when the result is the same too; so does a retry of a failure that keeps every value the
 * error names. A state-changing call that did something new in between (an edit before
 * re-running tests) starts the judgement over; a user message about the call does too, except
 * for a call that keeps failing the same way. Tools without hints are judged by name: `get_*`,
 * `list_*`, `read_*`, `search_*` and similar only read; a shell command only of readers (`cat`,
 * `grep`, `find`) only reads; everything else may change state.
 *
 * Ladder: a `directive` ToolMessage instead of running the useless repeat (and for a duplicate
 * inside one parallel batch); once a directive was ignored and the waste reaches `stopAt`, a
 * clean stop that answers every pending call and ends with a message stating why.
 *
 * @example
 * const agent = createAgent({
 *   model, tools,
 *   middleware: [new ProgressAwareLoopGuardMiddleware({ readOnlyTools: ["job_status"] })],
 * });
 */
export class ProgressAwareLoopGuardMiddleware extends BatchGuardMiddleware {
  readonly name = PROGRESS_GUARD;
  private readonly settings: NoProgressOptions;
  private readonly observation: ObservationOptions;

  constructor(options: ProgressAwareLoopGuardOptions = {}) {
    super();
    const progressFloor = options.progressFloor ?? PROGRESS_GUARD_DEFAULTS.progressFloor;
    if (!(progressFloor >= 0 && progressFloor < 1)) {
      throw new InvalidOptionsError(this.name, "progressFloor", `must be in [0, 1), got ${String(options.progressFloor)}`);
    }
    this.settings = {
      stopAt: positiveInteger(this.name, "stopAt", options.stopAt, PROGRESS_GUARD_DEFAULTS.stopAt),
      progressFloor,
      ignoreTools: new Set(options.ignoreTools ?? PROGRESS_GUARD_DEFAULTS.ignoreTools),
      changesState: changesStateByName(new Set([...(options.readOnlyTools ?? []), ...(options.pollingTools ?? [])]), new Set(options.stateChangingTools)),
      pollingTools: new Set(options.pollingTools),
      pollPatience: positiveInteger(this.name, "pollPatience", options.pollPatience, PROGRESS_GUARD_DEFAULTS.pollPatience),
    };
    this.observation =
      options.deltaOverrides || options.volatilePatterns
        ? { deltaOverrides: options.deltaOverrides, volatilePatterns: options.volatilePatterns }
        : DEFAULT_OBSERVATION_OPTIONS;
    this.attach(options, PROGRESS_GUARD_DEFAULTS.exitBehavior, this.decideNow);
  }

  /**
   * The guard's decision for a batch of pending calls, given the history that precedes them.
   * The live hook and `harness-kit eval` both call this, so replay reproduces live decisions.
   */
  readonly evaluate = async (messages: readonly BaseMessage[], pending: readonly ToolCallView[]): Promise<CallDecision[]> => this.decideNow(messages, pending);

  /** `evaluate` without a promise once the hasher is loaded: the hook runs on every step. */
  private readonly decideNow = (messages: readonly BaseMessage[], pending: readonly ToolCallView[]): CallDecision[] | Promise<CallDecision[]> =>
    withObservations(messages, this.observation, (observed) => this.decideWith(observed, pending));

  private decideWith({ store, hash }: Observed, pending: readonly ToolCallView[]): CallDecision[] {
    const batch = pending.map((call) => {
      const keys = store.pendingKeys(call.id);
      return {
        call,
        key: keys?.callKey ?? callKeyOf(call.name, call.args, hash, this.observation.deltaOverrides),
        argsKey: keys?.argsKey ?? argsKeyOf(call.name, call.args, hash),
      };
    });
    return decideNoProgress(store, batch, this.settings);
  }
}
