import type { ToolMessage } from "@langchain/core/messages";
import { rewriteToolMessage, type ToolMessageMark } from "../../core/answers.js";
import type { ToolCallView } from "../../core/messages.js";
import { markOf, readMark, REPLACED_RESULT } from "../../core/marks.js";
import { contentText } from "../../observe/content.js";
import { loadHasher } from "../../observe/hash.js";
import { resultFingerprint } from "../../observe/resultFingerprint.js";
import { fingerprintArgs } from "../../observe/store.js";
import type { LastKnownGoodCache, LastKnownGoodKey } from "./cache.js";
import type { DataEnvelope } from "./dataEnvelope.js";
import type { InvalidOutputMode, ResolvedSpec } from "./spec.js";
import { invalidOutputText, lastKnownGoodText, unavailableText } from "./texts.js";
import { validateOutput, type OutputVerdict } from "./validate.js";
import { signalFrom, type ValidatorContext } from "./validatorSignals.js";
import { observedDetail } from "../../core/signals.js";

export interface ValidationSettings extends ValidatorContext {
  specs: ReadonlyMap<string, ResolvedSpec>;
  /** Outputs of tools without a spec are invalid (`spec_missing`). */
  requireSpec: boolean;
  /** Whether outputs of this tool are validated (and so count as valid or invalid). */
  isChecked: (tool: string) => boolean;
  defaultMode: InvalidOutputMode;
  cache: LastKnownGoodCache | undefined;
  /** Whether there are write tools, which a degraded output pauses (its text says so). */
  pausesWrites: boolean;
}

/** The verdict on an output of a tool that has no spec under `unspecifiedTools: "require-spec"`. */
const SPEC_MISSING: OutputVerdict = {
  valid: false,
  errorClass: "spec_missing",
  detail: "no output spec is declared for this tool",
  reason: "ToolOutputInvalid: spec_missing: no output spec is declared for this tool",
};

/**
 * The tools whose results `judge` may change: those with a spec (every tool under
 * `unspecifiedTools: "require-spec"`) and those whose output goes inside the envelope; `true` for
 * every tool. `judge` returns the result of any other tool as it came, whatever it holds (a
 * guard's answer, a replaced result, the tool's own error, plain data): the spec and the envelope
 * are its only two ways to change one. So the middleware need not ask it.
 */
export function judgedTools(
  specs: ReadonlyMap<string, unknown>,
  requireSpec: boolean,
  enveloped: true | ReadonlySet<string>,
): true | ReadonlySet<string> {
  if (requireSpec || enveloped === true) return true;
  return new Set([...specs.keys(), ...enveloped]);
}

/**
 * Validation and degrade: judges one tool result against its tool's spec and says what the
 * model reads instead. A valid output passes (normalised, enveloped where asked); an invalid one
 * becomes an error stating the reason (`fail_closed`, marked to stop the run with `stopRun`), or
 * the last known good value of the same call, or an explicit "unavailable" (`degrade`). The
 * marks it leaves are what safe mode and the kill switch are derived from.
 */
export class OutputValidation {
  constructor(
    private readonly settings: ValidationSettings,
    private readonly envelope: DataEnvelope,
  ) {}

  /** The message the model reads for one tool result: unchanged, rewritten, or replaced. */
  judge(call: ToolCallView, message: ToolMessage, threadId: string | undefined): ToolMessage | Promise<ToolMessage> {
    const { specs, requireSpec, defaultMode } = this.settings;
    // A result another guard replaced (binary, unserialisable) is a bad output of a checked tool.
    const replaced = readMark(message);
    if (replaced?.outcome === REPLACED_RESULT && this.settings.isChecked(call.name)) {
      const spec = specs.get(call.name);
      const verdict = unusableVerdict(replaced.guard, replaced.reason ?? REPLACED_RESULT);
      return this.invalid(call, message, verdict, spec?.onInvalid ?? defaultMode, spec?.stopRun ?? false, threadId);
    }
    // Guards' answers are not tool output; the tool's own errors are honest failures, not data to check.
    if (markOf(message) || replaced?.outcome === REPLACED_RESULT) return message;
    if (message.status === "error") return this.envelope.wrapped(call, message, message.content);
    const spec = specs.get(call.name);
    if (!spec && !requireSpec) return this.envelope.wrapped(call, message, message.content);
    return this.judgeBySpec(call, message, spec, threadId);
  }

  private async judgeBySpec(
    call: ToolCallView,
    message: ToolMessage,
    spec: ResolvedSpec | undefined,
    threadId: string | undefined,
  ): Promise<ToolMessage> {
    const verdict = spec ? validateOutput(message.content, spec, call) : SPEC_MISSING;
    const mode = spec?.onInvalid ?? this.settings.defaultMode;
    if (!verdict.valid) return this.invalid(call, message, verdict, mode, spec?.stopRun ?? false, threadId);

    const content = verdict.normalized ?? message.content;
    if (this.settings.cache && mode === "degrade" && !this.settings.observeOnly)
      await this.remember(call, threadId, contentText(content));
    return this.envelope.wrapped(call, message, content);
  }

  private async invalid(
    call: ToolCallView,
    message: ToolMessage,
    verdict: Extract<OutputVerdict, { valid: false }>,
    mode: InvalidOutputMode,
    stopRun: boolean,
    threadId: string | undefined,
  ): Promise<ToolMessage> {
    const { guard, observeOnly } = this.settings;
    const chars = contentText(message.content).length;
    const hash = await loadHasher();
    const argsFingerprint = fingerprintArgs(call.args, hash);
    const action = mode === "fail_closed" && stopRun ? "stop" : "directive";
    await signalFrom(this.settings, {
      action,
      toolCallId: call.id,
      tool: call.name,
      code: "invalid_output",
      reason: verdict.reason,
      detail: observedDetail(
        { errorClass: verdict.errorClass, argsFingerprint, mode, chars },
        this.settings.observeOnly,
      ),
    });
    const mark: ToolMessageMark = {
      guard,
      action: observeOnly ? "warn" : action,
      reason: verdict.reason,
      outcome: "invalid_output",
      errorClass: verdict.errorClass,
      mode,
    };
    if (observeOnly) return rewriteToolMessage(message, { mark });
    // The loop guards keep comparing what the tool really returned (see resultFingerprint).
    mark.original = { fingerprint: resultFingerprint(message.content, hash), size: chars };

    // What the payload said about its own fault is tool text: it goes inside the tool's envelope.
    const quoted = verdict.quoted === undefined ? undefined : await this.envelope.wrappedText(call, verdict.quoted);
    let text: string;
    if (mode === "fail_closed") {
      text = invalidOutputText(call.name, verdict.reason, chars, quoted);
    } else {
      const { pausesWrites } = this.settings;
      const cached = await this.recall({ tool: call.name, argsFingerprint, threadId });
      text = cached
        ? lastKnownGoodText(
            call.name,
            verdict.reason,
            cached.storedAt,
            await this.envelope.wrappedText(call, cached.content),
            pausesWrites,
          )
        : unavailableText(call.name, verdict.reason, pausesWrites, quoted);
    }
    return rewriteToolMessage(message, { content: text, status: "error", mark });
  }

  private async remember(call: ToolCallView, threadId: string | undefined, content: string): Promise<void> {
    try {
      const key: LastKnownGoodKey = {
        tool: call.name,
        argsFingerprint: fingerprintArgs(call.args, await loadHasher()),
        threadId,
      };
      await this.settings.cache?.set(key, { content, storedAt: Date.now() });
    } catch {
      // a failing cache costs the next degrade its fallback value, never this result
    }
  }

  private async recall(key: LastKnownGoodKey) {
    try {
      return (await this.settings.cache?.get(key)) ?? undefined;
    } catch {
      return undefined;
    }
  }
}

/** The verdict on a result that `guard` had to replace before anyone could read it. */
function unusableVerdict(guard: string, why: string): Extract<OutputVerdict, { valid: false }> {
  const detail = `${guard} replaced the result (${why})`;
  return {
    valid: false,
    errorClass: "unusable_result",
    detail,
    reason: `ToolOutputInvalid: unusable_result: ${detail}`,
  };
}
