import { ToolMessage, type AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { Command } from "@langchain/langgraph";
import type { ToolCallHandler } from "langchain";
import { guardToolMessage, rewriteToolMessage, stopNotice, type ToolMessageMark } from "../../core/answers.js";
import { InvalidOptionsError } from "../../core/errors.js";
import { rewriteToolMessages } from "../../hooks/toolResults.js";
import { type ToolCallView } from "../../core/messages.js";
import { markOf, readMark, REPLACED_RESULT } from "../../core/marks.js";
import { emitSignal, type SignalHandler } from "../../core/signals.js";
import { runToolSafely } from "../../core/toolErrors.js";
import type { LastKnownGoodCache, LastKnownGoodKey } from "./cache.js";
import { envelopeText, findInstructionLikeText } from "./envelope.js";
import { validatorMarkOf } from "./marks.js";
import { runStateOf, trailingToolBatchStart, type KillSwitchSettings, type RunStateSettings } from "./runState.js";
import { DEFAULT_ERROR_FIELDS, type InvalidOutputMode, type ResolvedSpec, type ToolOutputSpec } from "./spec.js";
import { invalidOutputStopText, invalidOutputText, lastKnownGoodText, unavailableText } from "./texts.js";
import { validateOutput, type OutputVerdict } from "./validate.js";
import { decideWriteCall } from "./writeGate.js";
import { contentText } from "../../observe/content.js";
import { loadHasher } from "../../observe/hash.js";
import { resultFingerprint } from "../../observe/resultFingerprint.js";
import { fingerprintArgs } from "../../observe/store.js";
import type { ModelHandler, ModelRequestLike } from "../../hooks/batchGuard.js";
import { carryStateSchema, historyOf, withCarry, type GuardState } from "../../hooks/carry.js";
import { RETRIEVAL_TOOL_NAME } from "../budget/texts.js";
import { MiddlewareBase, oneOf, positiveInteger } from "../../hooks/middlewareBase.js";

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

/** The stop reason of a run ended by a `stopRun` spec. */
export const INVALID_OUTPUT_STOP_REASON = "invalid_tool_output";

const MODES: readonly InvalidOutputMode[] = ["fail_closed", "degrade"];
const UNSPECIFIED: readonly ("pass" | "require-spec")[] = ["pass", "require-spec"];
const CONTENT_TYPES: readonly ("json" | "text")[] = ["json", "text"];

/** The verdict on an output of a tool that has no spec under `unspecifiedTools: "require-spec"`. */
const SPEC_MISSING: OutputVerdict = {
  valid: false,
  errorClass: "spec_missing",
  detail: "no output spec is declared for this tool",
  reason: "ToolOutputInvalid: spec_missing: no output spec is declared for this tool",
};

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
  private readonly specs = new Map<string, ResolvedSpec>();
  private readonly requireSpec: boolean;
  private readonly defaultMode: InvalidOutputMode;
  private readonly writeTools: ReadonlySet<string>;
  private readonly cache: LastKnownGoodCache | undefined;
  private readonly runSettings: RunStateSettings;
  private readonly envelope: (tool: string) => boolean;
  private readonly observeOnly: boolean;
  private readonly onSignal: SignalHandler | undefined;

  constructor(options: OutputValidatorOptions = {}) {
    super();
    this.requireSpec = oneOf(this.name, "unspecifiedTools", options.unspecifiedTools, UNSPECIFIED, OUTPUT_VALIDATOR_DEFAULTS.unspecifiedTools) === "require-spec";
    this.defaultMode = oneOf(this.name, "onInvalid", options.onInvalid, MODES, OUTPUT_VALIDATOR_DEFAULTS.onInvalid);
    for (const [tool, spec] of Object.entries(options.tools ?? {})) this.specs.set(tool, this.resolveSpec(tool, spec));
    this.writeTools = new Set(options.writeTools ?? []);
    this.cache = options.lastKnownGood;
    this.runSettings = {
      guard: this.name,
      isChecked: (tool) => this.requireSpec || this.specs.has(tool),
      killSwitch: this.resolveKillSwitch(options.killSwitch),
      instructionsPauseWrites: options.instructionsPauseWrites ?? false,
    };
    const envelope = options.envelope ?? false;
    const wrapped = new Set(Array.isArray(envelope) ? envelope : []);
    // The retrieval tool reads back offloaded results: wrapped whenever any tool's output is.
    if (wrapped.size > 0) wrapped.add(RETRIEVAL_TOOL_NAME);
    this.envelope = envelope === true ? () => true : (tool) => wrapped.has(tool);
    this.observeOnly = options.observeOnly ?? false;
    this.onSignal = options.onSignal;
  }

  /** The carried-history channel (hooks/carry.ts); `recommendedGuards` keeps one declaration per stack. */
  stateSchema?: typeof carryStateSchema = carryStateSchema;

  /** Judges the call's answer, and carries it so that safe mode and the kill switch survive a summary. */
  readonly wrapToolCall = async (request: Parameters<ToolCallHandler>[0], handler: ToolCallHandler): Promise<ToolMessage | Command> => {
    const answer = await this.answer(request, handler);
    return request.toolCall.id === undefined ? answer : withCarry(request.state as GuardState, request.toolCall.id, answer);
  };

  private async answer(request: Parameters<ToolCallHandler>[0], handler: ToolCallHandler): Promise<ToolMessage | Command> {
    const call: ToolCallView = { id: request.toolCall.id ?? "", name: request.toolCall.name, args: request.toolCall.args };
    if (this.writeTools.has(call.name)) {
      const refusal = await this.refusal(call, historyOf(request.state as GuardState));
      if (refusal) return refusal;
    }
    const result = await runToolSafely(request, handler);
    try {
      const rewritten = rewriteToolMessages(result, (message) => {
        if (message.tool_call_id !== call.id) return undefined;
        const judged = this.judge(call, message, threadIdOf(request.runtime));
        const asRewrite = (settled: ToolMessage) => (settled === message ? undefined : { message: settled });
        return judged instanceof Promise ? judged.then(asRewrite) : asRewrite(judged);
      });
      return rewritten instanceof Promise ? await rewritten : rewritten;
    } catch (error) {
      await this.guardFailed(call, error);
      return result;
    }
  }

  /** The answer to a write call that safe mode or the kill switch refuses; undefined lets it run. */
  private async refusal(call: ToolCallView, messages: readonly unknown[]): Promise<ToolMessage | undefined> {
    try {
      const decision = decideWriteCall(call.name, runStateOf(messages, this.runSettings));
      if (decision.action !== "directive") return undefined;
      await this.signal({
        action: "directive",
        toolCallId: call.id,
        tool: call.name,
        code: decision.code,
        reason: decision.reason,
        detail: this.observeOnly ? { ...decision.detail, observeOnly: true } : decision.detail,
      });
      if (this.observeOnly) return undefined;
      const mark: ToolMessageMark = { guard: this.name, action: "directive", reason: decision.reason, outcome: "blocked" };
      return rewriteToolMessage(guardToolMessage(call, this.name, "directive", decision.message), { mark });
    } catch (error) {
      await this.guardFailed(call, error);
      return undefined;
    }
  }

  /** The message the model reads for one tool result: unchanged, rewritten, or replaced. */
  private judge(call: ToolCallView, message: ToolMessage, threadId: string | undefined): ToolMessage | Promise<ToolMessage> {
    // A result another guard replaced (binary, unserialisable) is a bad output of a checked tool.
    const replaced = readMark(message);
    if (replaced?.outcome === REPLACED_RESULT && this.runSettings.isChecked(call.name)) {
      const spec = this.specs.get(call.name);
      const verdict = unusableVerdict(replaced.guard, replaced.reason ?? REPLACED_RESULT);
      return this.invalid(call, message, verdict, spec?.onInvalid ?? this.defaultMode, spec?.stopRun ?? false, threadId);
    }
    // Guards' answers are not tool output; the tool's own errors are honest failures, not data to check.
    if (markOf(message) || replaced?.outcome === REPLACED_RESULT) return message;
    if (message.status === "error") return this.wrapped(call, message, message.content);
    const spec = this.specs.get(call.name);
    if (!spec && !this.requireSpec) return this.wrapped(call, message, message.content);
    return this.judgeBySpec(call, message, spec, threadId);
  }

  private async judgeBySpec(call: ToolCallView, message: ToolMessage, spec: ResolvedSpec | undefined, threadId: string | undefined): Promise<ToolMessage> {
    const verdict = spec ? validateOutput(message.content, spec, call) : SPEC_MISSING;
    const mode = spec?.onInvalid ?? this.defaultMode;
    if (!verdict.valid) return this.invalid(call, message, verdict, mode, spec?.stopRun ?? false, threadId);

    const content = verdict.normalized ?? message.content;
    if (this.cache && mode === "degrade" && !this.observeOnly) await this.remember(call, threadId, contentText(content));
    return this.wrapped(call, message, content);
  }

  private async invalid(
    call: ToolCallView,
    message: ToolMessage,
    verdict: Extract<OutputVerdict, { valid: false }>,
    mode: InvalidOutputMode,
    stopRun: boolean,
    threadId: string | undefined,
  ): Promise<ToolMessage> {
    const chars = contentText(message.content).length;
    const hash = await loadHasher();
    const argsFingerprint = fingerprintArgs(call.args, hash);
    const action = mode === "fail_closed" && stopRun ? "stop" : "directive";
    await this.signal({
      action,
      toolCallId: call.id,
      tool: call.name,
      code: "invalid_output",
      reason: verdict.reason,
      detail: { errorClass: verdict.errorClass, argsFingerprint, mode, chars, ...(this.observeOnly ? { observeOnly: true } : {}) },
    });
    const mark: ToolMessageMark = {
      guard: this.name,
      action: this.observeOnly ? "warn" : action,
      reason: verdict.reason,
      outcome: "invalid_output",
      errorClass: verdict.errorClass,
      mode,
    };
    if (this.observeOnly) return rewriteToolMessage(message, { mark });
    // The loop guards keep comparing what the tool really returned (see resultFingerprint).
    mark.original = { fingerprint: resultFingerprint(message.content, hash), size: chars };

    // What the payload said about its own fault is tool text: it goes inside the tool's envelope.
    const quoted = verdict.quoted === undefined ? undefined : await this.wrappedText(call, verdict.quoted);
    let text: string;
    if (mode === "fail_closed") {
      text = invalidOutputText(call.name, verdict.reason, chars, quoted);
    } else {
      const pausesWrites = this.writeTools.size > 0;
      const cached = await this.recall({ tool: call.name, argsFingerprint, threadId });
      text = cached
        ? lastKnownGoodText(call.name, verdict.reason, cached.storedAt, await this.wrappedText(call, cached.content), pausesWrites)
        : unavailableText(call.name, verdict.reason, pausesWrites, quoted);
    }
    return rewriteToolMessage(message, { content: text, status: "error", mark });
  }

  /**
   * `message` with `content`, inside the untrusted-data envelope when that tool is wrapped.
   * Observe-only returns `message` as it came, after flagging instruction-like text.
   */
  private wrapped(call: ToolCallView, message: ToolMessage, content: ToolMessage["content"]): ToolMessage | Promise<ToolMessage> {
    if (!this.envelope(call.name)) return content === message.content ? message : rewriteToolMessage(message, { content });
    return this.enveloped(call, message, content);
  }

  private async enveloped(call: ToolCallView, message: ToolMessage, content: ToolMessage["content"]): Promise<ToolMessage> {
    const flagged = await this.flagInstructions(call, contentText(content));
    if (this.observeOnly) return message;
    // A flagged output is marked, so `instructionsPauseWrites` can pause writes from the history alone.
    const mark: ToolMessageMark | undefined =
      flagged.length > 0 ? { guard: this.name, action: "warn", reason: "instruction_like_text", outcome: "instructions_flagged", patterns: flagged } : undefined;
    if (typeof content === "string") return rewriteToolMessage(message, { content: envelopeText(call.name, content, flagged), mark });
    const blocks = content.map((block) => {
      const b = block as { type?: unknown; text?: unknown };
      return b.type === "text" && typeof b.text === "string" ? { ...b, text: envelopeText(call.name, b.text, flagged) } : block;
    });
    return rewriteToolMessage(message, { content: blocks as ToolMessage["content"], mark });
  }

  /** `text` inside the envelope, when this tool's output is wrapped. */
  private async wrappedText(call: ToolCallView, text: string): Promise<string> {
    if (!this.envelope(call.name)) return text;
    return envelopeText(call.name, text, await this.flagInstructions(call, text));
  }

  /** Names the instruction-like patterns in `text`, with a warn signal when there are any. */
  private async flagInstructions(call: ToolCallView, text: string): Promise<string[]> {
    const flagged = findInstructionLikeText(text);
    if (flagged.length > 0) {
      await this.signal({
        action: "warn",
        toolCallId: call.id,
        tool: call.name,
        code: "instruction_like_text",
        reason: `instruction_like_text: the output of "${call.name}" contains ${flagged.join(", ")}`,
        detail: { patterns: flagged, ...(this.observeOnly ? { observeOnly: true } : {}) },
      });
    }
    return flagged;
  }

  /**
   * Before each model call, after a tool batch: announces a kill-switch trip (once: only the batch
   * that tripped it), and when an output in the batch was marked to stop, returns the run's final
   * message instead of calling the model. Every call of the batch is already answered, so the
   * stop keeps pairing intact.
   */
  readonly wrapModelCall = async <R extends ModelRequestLike>(request: R, handler: ModelHandler<R>): Promise<AIMessage | Command> => {
    const messages = historyOf({ ...request.state, messages: request.state?.messages ?? [] });
    const start = trailingToolBatchStart(messages);
    // A batch this guard left unmarked (nearly every batch) needs no walk.
    if (start === messages.length || !messages.slice(start).some((m) => validatorMarkOf(m, this.name) !== undefined)) return handler(request);
    return (await this.judgeBatch(messages, start)) ?? handler(request);
  };

  private async judgeBatch(messages: readonly BaseMessage[], start: number): Promise<AIMessage | undefined> {
    try {
      const settings = this.runSettings;
      // Only an invalid output can trip the switch: skip the history walk for clean batches.
      const batchHasInvalid = messages.slice(start).some((m) => validatorMarkOf(m, this.name)?.outcome === "invalid_output");
      if (settings.killSwitch && batchHasInvalid) {
        const tripped = runStateOf(messages, settings).killSwitch;
        if (tripped && !runStateOf(messages, settings, start).killSwitch) {
          await this.signal({
            action: "warn",
            code: "kill_switch",
            reason: `kill_switch: ${tripped.invalid} of the last ${tripped.outOf} checked tool outputs were invalid; write tools are disabled for the rest of the run`,
            detail: { ...tripped, writeTools: [...this.writeTools], ...(this.observeOnly ? { observeOnly: true } : {}) },
          });
        }
      }
      for (let i = start; i < messages.length; i++) {
        const mark = validatorMarkOf(messages[i], this.name);
        if (mark?.action !== "stop") continue;
        const tool = messages[i]!.name ?? "a tool";
        return stopNotice(this.name, INVALID_OUTPUT_STOP_REASON, invalidOutputStopText(tool, mark.reason));
      }
    } catch (error) {
      await this.signal({ action: "warn", code: "guard_failed", reason: "guard_failed", detail: { error: String(error) } });
    }
    return undefined;
  }

  private async remember(call: ToolCallView, threadId: string | undefined, content: string): Promise<void> {
    try {
      const key: LastKnownGoodKey = { tool: call.name, argsFingerprint: fingerprintArgs(call.args, await loadHasher()), threadId };
      await this.cache?.set(key, { content, storedAt: Date.now() });
    } catch {
      // a failing cache costs the next degrade its fallback value, never this result
    }
  }

  private async recall(key: LastKnownGoodKey) {
    try {
      return (await this.cache?.get(key)) ?? undefined;
    } catch {
      return undefined;
    }
  }

  private signal(signal: Omit<Parameters<SignalHandler>[0], "guard">): Promise<void> {
    return emitSignal({ guard: this.name, ...signal }, this.onSignal);
  }

  private guardFailed(call: ToolCallView, error: unknown): Promise<void> {
    return this.signal({ action: "warn", toolCallId: call.id, tool: call.name, code: "guard_failed", reason: "guard_failed", detail: { error: String(error) } });
  }

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

/** The verdict on a result that `guard` had to replace before anyone could read it. */
function unusableVerdict(guard: string, why: string): Extract<OutputVerdict, { valid: false }> {
  const detail = `${guard} replaced the result (${why})`;
  return { valid: false, errorClass: "unusable_result", detail, reason: `ToolOutputInvalid: unusable_result: ${detail}` };
}

function threadIdOf(runtime: unknown): string | undefined {
  const configurable = (runtime as { configurable?: { thread_id?: unknown } } | undefined)?.configurable;
  return typeof configurable?.thread_id === "string" ? configurable.thread_id : undefined;
}
