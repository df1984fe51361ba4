import type { ToolMessage } from "@langchain/core/messages";
import type { Command } from "@langchain/langgraph";
import type { ToolCallHandler } from "langchain";
import { andThen, promised, promisedCall, type MaybePromise } from "../../core/maybePromise.js";
import { parseOptions } from "../../core/baseOptions.js";
import type { ToolCallView } from "../../core/messages.js";
import { stampTurn } from "../../core/ranStamps.js";
import { runToolSafely } from "../../core/toolErrors.js";
import { DataEnvelope, envelopedTools, envelopedToolNames } from "./dataEnvelope.js";
import type { KillSwitchSettings } from "./runState.js";
import { RunGate } from "./runGate.js";
import type { InvalidOutputMode, ResolvedSpec } from "./spec.js";
import { outputValidatorOptions, type OutputValidatorOptions } from "./options.js";
import { judgedTools, OutputValidation } from "./validation.js";
import type { ValidatorContext } from "./validatorSignals.js";
import { carryStateSchema, carriesNothing, withCarry, type GuardState } from "../../hooks/carry.js";
import { readyHistory, withReadyHistory, type ModelCallWithHistory } from "../../hooks/summaryRemovals.js";
import { MiddlewareBase } from "../../hooks/middlewareBase.js";
import { passOn, type QuietJudge } from "../../hooks/quietJudge.js";
import { guardResult, type ResultGuard, type ToolRequest } from "../../hooks/resultGuard.js";
import { threadIdOf } from "../../offload/threads.js";

export type { OutputValidatorOptions };

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
  /**
   * The tools whose calls the validator may change anything about: the write tools (the gate)
   * and the tools `judge` may rewrite (validation.ts); `true` for every tool.
   */
  private readonly actsOn: true | ReadonlySet<string>;
  /** The tools whose results `judge` may rewrite (validation.ts); `true` for every tool. */
  private readonly judged: true | ReadonlySet<string>;

  constructor(options: OutputValidatorOptions = {}) {
    super();
    const settings = parseOptions(this.name, outputValidatorOptions, options);
    const requireSpec = settings.unspecifiedTools === "require-spec";
    this.defaultMode = settings.onInvalid;
    const specs = new Map<string, ResolvedSpec>();
    for (const [tool, spec] of Object.entries(settings.tools))
      specs.set(tool, {
        ...spec,
        onInvalid: spec.onInvalid ?? this.defaultMode,
        maxChars: spec.maxChars ?? Number.POSITIVE_INFINITY,
      });
    const writeTools = new Set(settings.writeTools);
    const isChecked = (tool: string) => requireSpec || specs.has(tool);
    const context: ValidatorContext = {
      guard: this.name,
      onSignal: settings.onSignal,
      observeOnly: settings.observeOnly,
    };

    const envelope = new DataEnvelope(context, envelopedTools(settings.envelope));
    const judged = (this.judged = judgedTools(specs, requireSpec, envelopedToolNames(settings.envelope)));
    this.actsOn = judged === true ? true : new Set([...judged, ...writeTools]);
    const validation = new OutputValidation(
      {
        ...context,
        specs,
        requireSpec,
        isChecked,
        defaultMode: this.defaultMode,
        cache: settings.lastKnownGood,
        pausesWrites: writeTools.size > 0,
      },
      envelope,
    );
    this.gate = new RunGate({
      ...context,
      writeTools,
      run: {
        guard: this.name,
        isChecked,
        killSwitch: killSwitchOf(settings.killSwitch),
        instructionsPauseWrites: settings.instructionsPauseWrites,
      },
    });
    const acts = this.actsOn;
    this.quiet = {
      off: acts === true,
      passesCall: (call) => acts !== true && !acts.has(call.name),
      passesRequest: passOn,
    };
    // Observe-only is the validator's own: it leaves a warn mark, which the adapter's would drop.
    this.results = {
      guard: this.name,
      onSignal: settings.onSignal,
      rewrite: (message, request) => {
        if (this.judged !== true && !this.judged.has(request.toolCall.name)) return undefined; // judge would keep it
        const call = callOf(request);
        if (message.tool_call_id !== call.id) return undefined;
        const judged = validation.judge(call, message, threadIdOf(request.runtime));
        return judged instanceof Promise
          ? judged.then((settled) => rewriteOf(message, settled))
          : rewriteOf(message, judged);
      },
    };
  }

  /** The carried-history channel (hooks/carry.ts); `recommendedGuards` keeps one declaration per stack. */
  stateSchema?: typeof carryStateSchema = carryStateSchema;

  /**
   * A tool it neither gates nor judges only runs; after plain answers (no mark of its own) the
   * kill switch has nothing to announce and no stop to make.
   */
  readonly quiet: QuietJudge;

  /** Judges the call's answer, and carries it so that safe mode and the kill switch survive a summary. */
  readonly wrapToolCall = (request: ToolRequest, handler: ToolCallHandler): Promise<ToolMessage | Command> => {
    const id = request.toolCall.id;
    const state = request.state as GuardState;
    if (id === undefined || carriesNothing(state)) {
      // Nearly every call: a tool the validator neither gates nor judges, and no summary to carry.
      // It only runs, safely: `answer` would run it and keep its result as it came.
      if (this.actsOn !== true && !this.actsOn.has(request.toolCall.name)) return runToolSafely(request, handler);
      return promised(() => this.answer(request, handler));
    }
    return promised(() => andThen(this.answer(request, handler), (answer) => withCarry(state, id, answer)));
  };

  private answer(request: ToolRequest, handler: ToolCallHandler): MaybePromise<ToolMessage | Command> {
    if (!this.gate.gates(request.toolCall.name)) return this.run(request, handler);
    return andThen(
      readyHistory(request.state as GuardState),
      async (history) => (await this.gate.refusal(callOf(request), history)) ?? this.run(request, handler),
    );
  }

  /** The call run, and its answer judged. */
  private run(request: ToolRequest, handler: ToolCallHandler): Promise<ToolMessage | Command> {
    return runToolSafely(request, handler, (result) => guardResult(this.results, request, result));
  }

  /** The model call, once the history is ready: the stop the kill switch decided, if any, comes instead. */
  private readonly modelCall: ModelCallWithHistory = (request, handler, history) => {
    const stop = this.gate.afterBatch(history);
    return stop
      ? stop.then((notice) => notice ?? promisedCall(handler, request).then(stampTurn))
      : promisedCall(handler, request).then(stampTurn);
  };

  /** Before each model call, after a tool batch: a kill-switch trip is announced, and a stop ends the run here. */
  readonly wrapModelCall = withReadyHistory(this.modelCall);
}

/** The kill switch in invalid outputs among the last `window`: `threshold` of them, rounded up. */
function killSwitchOf(option: false | { window: number; threshold: number }): KillSwitchSettings | undefined {
  return option === false
    ? undefined
    : { window: option.window, minInvalid: Math.ceil(option.threshold * option.window) };
}

/** The validator's answer as a rewrite: none when it kept the tool's message. */
function rewriteOf(message: ToolMessage, settled: ToolMessage): { message: ToolMessage } | undefined {
  return settled === message ? undefined : { message: settled };
}

function callOf(request: ToolRequest): ToolCallView {
  return { id: request.toolCall.id ?? "", name: request.toolCall.name, args: request.toolCall.args };
}
