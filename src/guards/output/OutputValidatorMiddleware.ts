import type { AIMessage, ToolMessage } from "@langchain/core/messages";
import type { Command } from "@langchain/langgraph";
import type { ToolCallHandler } from "langchain";
import { InvalidOptionsError } from "../../core/errors.js";
import { andThen, promised, type MaybePromise } from "../../core/maybePromise.js";
import type { ToolCallView } from "../../core/messages.js";
import { stampTurn } from "../../core/ranStamps.js";
import { runToolSafely } from "../../core/toolErrors.js";
import type { SignalHandler } from "../../core/signals.js";
import type { LastKnownGoodCache } from "./cache.js";
import { DataEnvelope, envelopedTools } from "./dataEnvelope.js";
import type { KillSwitchSettings } from "./runState.js";
import { RunGate } from "./runGate.js";
import { DEFAULT_ERROR_FIELDS, type InvalidOutputMode, type ResolvedSpec, type ToolOutputSpec } from "./spec.js";
import { OutputValidation } from "./validation.js";
import type { ValidatorContext } from "./validatorSignals.js";
import type { ModelHandler, ModelRequestLike } from "../../hooks/batchGuard.js";
import { carryStateSchema, withCarry, type GuardState } from "../../hooks/carry.js";
import { readyHistory } from "../../hooks/summaryRemovals.js";
import { MiddlewareBase, oneOf, positiveInteger } from "../../hooks/middlewareBase.js";
import { guardResult, type ResultGuard, type ToolRequest } from "../../hooks/resultGuard.js";
import { threadIdOf } from "../../offload/threads.js";

export interface OutputValidatorOptions {
  /** What a valid output looks like, by tool name. */
  tools?: Readonly<Record<string, ToolOutputSpec>>;
  /** Tools without a spec: `"pass"` their output through, or treat it as invalid (`spec_missing`). Default `"pass"`. */
  unspecifiedTools?: "pass" | "require-spec";
  /** What an invalid output becomes, for specs that do not say. Default `"fail_closed"`. */
  onInvalid?: InvalidOutputMode;
  /** Tools that change things: refused in safe mode and once the kill switch trips. Default none. */
  writeTools?: readonly string[];
  /** Where `degrade` finds the last valid output of the same call. Default none: the partial says "unavailable". */
  lastKnownGood?: LastKnownGoodCache;
  /**
   * Blocks every write tool for the rest of the run once at least `threshold` × `window` of the last
   * `window` checked outputs were invalid. `false` turns it off. Default `{ window: 10, threshold: 0.5 }`.
   */
  killSwitch?: { window?: number; threshold?: number } | false;
  /**
   * Wrap tool output in a delimited untrusted-data envelope and signal instruction-like text:
   * `true` for every tool, or the tools to wrap. Default `false`.
   */
  envelope?: boolean | readonly string[];
  /**
   * Once an enveloped output was flagged for instruction-like text, refuse `writeTools` for the
   * rest of the run (a tripwire: it trusts the flags, which miss paraphrases). Default false.
   */
  instructionsPauseWrites?: boolean;
  /** Validate and emit signals only; never change a result or refuse a call. Default false. */
  observeOnly?: boolean;
  /** Receives every invalid output, refused call, kill-switch trip and instruction-like text. */
  onSignal?: SignalHandler;
}

export const OUTPUT_VALIDATOR_DEFAULTS = {
  unspecifiedTools: "pass",
  onInvalid: "fail_closed",
  killSwitch: { window: 10, threshold: 0.5 },
  contentType: "json",
  errorFields: DEFAULT_ERROR_FIELDS,
} as const;

const MODES: readonly InvalidOutputMode[] = ["fail_closed", "degrade"];
const UNSPECIFIED: readonly ("pass" | "require-spec")[] = ["pass", "require-spec"];
const CONTENT_TYPES: readonly ("json" | "text")[] = ["json", "text"];

/**
 * Treats tool output as untrusted input: checks each result against its tool's spec (size,
 * strict JSON and never HTML, zod schema, invariants) before the model reads it.
 *
 * Ladder for an invalid output, per tool: `fail_closed` replaces it by an error stating a
 * machine-readable reason (`ToolOutputInvalid: <class>: <detail>`), and with `stopRun` ends the
 * run (stop reason `invalid_tool_output`); `degrade` gives the last known good value of the same
 * call (or says the data is unavailable) and puts the run in safe mode, where `writeTools` are
 * refused until that tool returns a valid output or the user speaks again. When invalid outputs
 * reach the kill-switch rate, write tools stay refused for the rest of the run. Safe mode, the
 * kill switch and stops are derived from the messages, so they survive a restore in another process.
 *
 * @example
 * const agent = createAgent({
 *   model, tools,
 *   middleware: [new OutputValidatorMiddleware({
 *     tools: { get_account: { schema: z.object({ plan: z.enum(["free", "pro"]) }), onInvalid: "degrade" } },
 *     writeTools: ["update_account"],
 *     lastKnownGood: new InMemoryLastKnownGoodCache(),
 *   })],
 * });
 */
export class OutputValidatorMiddleware extends MiddlewareBase {
  readonly name = "OutputValidatorMiddleware";
  private readonly defaultMode: InvalidOutputMode;
  /** Validation and degrade (validation.ts), with the envelope (dataEnvelope.ts) around what passes. */
  private readonly results: ResultGuard;
  /** The write gate and the kill switch (runGate.ts). */
  private readonly gate: RunGate;

  constructor(options: OutputValidatorOptions = {}) {
    super();
    const requireSpec = oneOf(this.name, "unspecifiedTools", options.unspecifiedTools, UNSPECIFIED, OUTPUT_VALIDATOR_DEFAULTS.unspecifiedTools) === "require-spec";
    this.defaultMode = oneOf(this.name, "onInvalid", options.onInvalid, MODES, OUTPUT_VALIDATOR_DEFAULTS.onInvalid);
    const specs = new Map<string, ResolvedSpec>();
    for (const [tool, spec] of Object.entries(options.tools ?? {})) specs.set(tool, this.resolveSpec(tool, spec));
    const writeTools = new Set(options.writeTools ?? []);
    const isChecked = (tool: string) => requireSpec || specs.has(tool);
    const context: ValidatorContext = { guard: this.name, onSignal: options.onSignal, observeOnly: options.observeOnly ?? false };

    const envelope = new DataEnvelope(context, envelopedTools(options.envelope ?? false));
    const validation = new OutputValidation(
      { ...context, specs, requireSpec, isChecked, defaultMode: this.defaultMode, cache: options.lastKnownGood, pausesWrites: writeTools.size > 0 },
      envelope,
    );
    this.gate = new RunGate({
      ...context,
      writeTools,
      run: { guard: this.name, isChecked, killSwitch: this.resolveKillSwitch(options.killSwitch), instructionsPauseWrites: options.instructionsPauseWrites ?? false },
    });
    // Observe-only is the validator's own: it leaves a warn mark, which the adapter's would drop.
    this.results = {
      guard: this.name,
      onSignal: options.onSignal,
      rewriterFor: (request) => {
        const call = callOf(request);
        const threadId = threadIdOf(request.runtime);
        return (message) => {
          if (message.tool_call_id !== call.id) return undefined;
          const judged = validation.judge(call, message, threadId);
          const asRewrite = (settled: ToolMessage) => (settled === message ? undefined : { message: settled });
          return judged instanceof Promise ? judged.then(asRewrite) : asRewrite(judged);
        };
      },
    };
  }

  /** The carried-history channel (hooks/carry.ts); `recommendedGuards` keeps one declaration per stack. */
  stateSchema?: typeof carryStateSchema = carryStateSchema;

  /** Judges the call's answer, and carries it so that safe mode and the kill switch survive a summary. */
  readonly wrapToolCall = (request: ToolRequest, handler: ToolCallHandler): Promise<ToolMessage | Command> => {
    const id = request.toolCall.id;
    return promised(() => andThen(this.answer(request, handler), (answer) => (id === undefined ? answer : withCarry(request.state as GuardState, id, answer))));
  };

  private answer(request: ToolRequest, handler: ToolCallHandler): MaybePromise<ToolMessage | Command> {
    const run = () => runToolSafely(request, handler).then((result) => guardResult(this.results, request, result));
    if (!this.gate.gates(request.toolCall.name)) return run();
    return andThen(readyHistory(request.state as GuardState), async (history) => (await this.gate.refusal(callOf(request), history)) ?? run());
  }

  /** Before each model call, after a tool batch: a kill-switch trip is announced, and a stop ends the run here. */
  readonly wrapModelCall = <R extends ModelRequestLike>(request: R, handler: ModelHandler<R>): Promise<AIMessage | Command> =>
    promised(() =>
      andThen(readyHistory({ ...request.state, messages: request.state?.messages ?? [] }), (history) => {
        const stop = this.gate.afterBatch(history);
        const answer = () => promised(() => handler(request)).then(stampTurn);
        return stop ? stop.then((notice) => notice ?? answer()) : answer();
      }),
    );

  private resolveSpec(tool: string, spec: ToolOutputSpec): ResolvedSpec {
    const option = (field: string) => `tools.${tool}.${field}`;
    const contentType = oneOf(this.name, option("contentType"), spec.contentType, CONTENT_TYPES, OUTPUT_VALIDATOR_DEFAULTS.contentType);
    const onInvalid = oneOf(this.name, option("onInvalid"), spec.onInvalid, MODES, this.defaultMode);
    const stopRun = spec.stopRun ?? false;
    const normalize = spec.normalize ?? false;
    if (stopRun && onInvalid !== "fail_closed") throw new InvalidOptionsError(this.name, option("stopRun"), `needs onInvalid "fail_closed", got "${onInvalid}"`);
    if (normalize && contentType !== "json") throw new InvalidOptionsError(this.name, option("normalize"), `needs contentType "json"`);
    if (spec.schema !== undefined && typeof (spec.schema as { safeParse?: unknown }).safeParse !== "function") {
      throw new InvalidOptionsError(this.name, option("schema"), "must be a zod schema");
    }
    const invariants = spec.invariants ?? [];
    if (!invariants.every((check) => typeof check === "function")) throw new InvalidOptionsError(this.name, option("invariants"), "must be functions");
    return {
      contentType,
      maxChars: spec.maxChars === undefined ? Number.POSITIVE_INFINITY : positiveInteger(this.name, option("maxChars"), spec.maxChars, 1),
      schema: spec.schema,
      invariants,
      errorFields: spec.errorFields ?? OUTPUT_VALIDATOR_DEFAULTS.errorFields,
      onInvalid,
      stopRun,
      normalize,
    };
  }

  private resolveKillSwitch(option: OutputValidatorOptions["killSwitch"]): KillSwitchSettings | undefined {
    if (option === false) return undefined;
    const defaults = OUTPUT_VALIDATOR_DEFAULTS.killSwitch;
    const window = positiveInteger(this.name, "killSwitch.window", option?.window, defaults.window);
    const threshold = option?.threshold ?? defaults.threshold;
    if (!(threshold > 0 && threshold <= 1)) throw new InvalidOptionsError(this.name, "killSwitch.threshold", `must be in (0, 1], got ${String(threshold)}`);
    return { window, minInvalid: Math.ceil(threshold * window) };
  }
}

function callOf(request: ToolRequest): ToolCallView {
  return { id: request.toolCall.id ?? "", name: request.toolCall.name, args: request.toolCall.args };
}
