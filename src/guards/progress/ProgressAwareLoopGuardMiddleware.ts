import type { BaseMessage } from "@langchain/core/messages";
import { parseOptions } from "../../core/baseOptions.js";
import type { CallDecision } from "../../core/decision.js";
import type { ToolCallView } from "../../core/messages.js";
import {
  changesStateByName,
  decideNoProgress,
  PROGRESS_GUARD,
  type NoProgressOptions,
  type ProgressKeyedCall,
} from "./noProgress.js";
import { DEFAULT_OBSERVATION_OPTIONS, withObservations, type Observed } from "../../observe/shared.js";
import { argsKeyOf } from "../../observe/argsIdentity.js";
import { callKeyOf, type ObservationOptions } from "../../observe/store.js";
import { BatchGuardMiddleware } from "../../hooks/batchGuardMiddleware.js";
import { passOn, type QuietJudge } from "../../hooks/quietJudge.js";
import { progressGuardOptions, type ProgressAwareLoopGuardOptions } from "./options.js";

export type { ProgressAwareLoopGuardOptions };

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
    const {
      stopAt,
      progressFloor,
      ignoreTools,
      readOnlyTools,
      stateChangingTools,
      pollingTools,
      pollPatience,
      deltaOverrides,
      volatilePatterns,
      ...mode
    } = parseOptions(this.name, progressGuardOptions, options);
    this.settings = {
      stopAt,
      progressFloor,
      ignoreTools: new Set(ignoreTools),
      changesState: changesStateByName(new Set([...readOnlyTools, ...pollingTools]), new Set(stateChangingTools)),
      pollingTools: new Set(pollingTools),
      pollPatience,
    };
    this.observation =
      deltaOverrides || volatilePatterns ? { deltaOverrides, volatilePatterns } : DEFAULT_OBSERVATION_OPTIONS;
    this.attach(mode, "end", this.decideNow);
  }

  /**
   * A call new to the thread with no near-duplicate has no chain to judge, which `decideNoProgress`
   * allows, but for a polling tool's or a tool that counts every call as one (a delta override).
   */
  readonly quiet: QuietJudge = {
    readsThread: true,
    passesCall: (call, _asking, batch) =>
      batch.fresh && !this.settings.pollingTools?.has(call.name) && !this.observation.deltaOverrides?.[call.name],
    passesRequest: passOn,
  };

  /** `evaluate` without a promise once the hasher is loaded: the hook runs on every step. */
  private readonly decideNow = (
    messages: readonly BaseMessage[],
    pending: readonly ToolCallView[],
  ): CallDecision[] | Promise<CallDecision[]> => withObservations(messages, this.observation, this.decideWith, pending);

  private readonly decideWith = ({ store, hash }: Observed, pending: readonly ToolCallView[]): CallDecision[] => {
    // A loop, not a callback per call: this runs on every step.
    const batch: ProgressKeyedCall[] = [];
    for (const call of pending) {
      const keys = store.pendingKeys(call.id);
      batch.push({
        call,
        key: keys?.callKey ?? callKeyOf(call.name, call.args, hash, this.observation.deltaOverrides),
        argsKey: keys?.argsKey ?? argsKeyOf(call.name, call.args, hash),
      });
    }
    return decideNoProgress(store, batch, this.settings);
  };
}
