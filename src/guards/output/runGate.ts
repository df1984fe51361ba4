import type { AIMessage, BaseMessage, ToolMessage } from "@langchain/core/messages";
import { guardToolMessage, rewriteToolMessage, stopNotice, type ToolMessageMark } from "../../core/answers.js";
import type { ToolCallView } from "../../core/messages.js";
import { readMark } from "../../core/marks.js";
import { validatorMarkOf } from "./marks.js";
import { runStateOf, trailingToolBatchStart, type RunStateSettings } from "./runState.js";
import { invalidOutputStopText } from "./texts.js";
import { decideWriteCall } from "./writeGate.js";
import { signalFrom, type ValidatorContext } from "./validatorSignals.js";
import { observedDetail } from "../../core/signals.js";

/** The stop reason of a run ended by a `stopRun` spec. */
export const INVALID_OUTPUT_STOP_REASON = "invalid_tool_output";

export interface RunGateSettings extends ValidatorContext {
  /** Tools that change things: refused in safe mode and once the kill switch trips. */
  writeTools: ReadonlySet<string>;
  run: RunStateSettings;
}

/**
 * The write gate and the kill switch: what the run's history, as the validator marked it, does
 * to the next call. Before a write tool runs, safe mode, the kill switch or flagged instructions
 * may refuse it; before the next model call, a kill-switch trip is announced once and an output
 * marked to stop ends the run. Everything is derived from the messages, so it survives a
 * restore in another process.
 */
export class RunGate {
  constructor(private readonly settings: RunGateSettings) {}

  /** Whether calls to `tool` pass the gate (only write tools are gated). */
  gates(tool: string): boolean {
    return this.settings.writeTools.has(tool);
  }

  /** The answer to a write call that safe mode or the kill switch refuses; undefined lets it run. */
  async refusal(call: ToolCallView, messages: readonly unknown[]): Promise<ToolMessage | undefined> {
    const { guard, observeOnly } = this.settings;
    try {
      const decision = decideWriteCall(call.name, runStateOf(messages, this.settings.run));
      if (decision.action !== "directive") return undefined;
      await signalFrom(this.settings, {
        action: "directive",
        toolCallId: call.id,
        tool: call.name,
        code: decision.code,
        reason: decision.reason,
        detail: observedDetail(decision.detail, this.settings.observeOnly),
      });
      if (observeOnly) return undefined;
      const mark: ToolMessageMark = { guard, action: "directive", reason: decision.reason, outcome: "blocked" };
      return rewriteToolMessage(guardToolMessage(call, guard, "directive", decision.message), { mark });
    } catch (error) {
      await signalFrom(this.settings, {
        action: "warn",
        toolCallId: call.id,
        tool: call.name,
        code: "guard_failed",
        reason: "guard_failed",
        detail: { error: String(error) },
      });
      return undefined;
    }
  }

  /**
   * After a tool batch: announces a kill-switch trip (once: only the batch that tripped it), and
   * when an output in the batch was marked to stop, the run's final message. Every call of the
   * batch is already answered, so the stop keeps pairing intact. Undefined, without a promise,
   * for a batch the validator left unmarked (nearly every batch).
   */
  afterBatch(messages: readonly BaseMessage[]): Promise<AIMessage | undefined> | undefined {
    const start = trailingToolBatchStart(messages);
    const { guard } = this.settings;
    // A message with no mark of this guard (nearly every one) holds no validator mark either.
    for (let i = start; i < messages.length; i++)
      if (readMark(messages[i])?.guard === guard && validatorMarkOf(messages[i], guard) !== undefined)
        return this.judgeBatch(messages, start);
    return undefined;
  }

  private async judgeBatch(messages: readonly BaseMessage[], start: number): Promise<AIMessage | undefined> {
    const { guard, run } = this.settings;
    try {
      // Only an invalid output can trip the switch: skip the history walk for clean batches.
      const batchHasInvalid = messages
        .slice(start)
        .some((m) => validatorMarkOf(m, guard)?.outcome === "invalid_output");
      if (run.killSwitch && batchHasInvalid) {
        const tripped = runStateOf(messages, run).killSwitch;
        if (tripped && !runStateOf(messages, run, start).killSwitch) {
          await signalFrom(this.settings, {
            action: "warn",
            code: "kill_switch",
            reason: `kill_switch: ${tripped.invalid} of the last ${tripped.outOf} checked tool outputs were invalid; write tools are disabled for the rest of the run`,
            detail: observedDetail(
              { ...tripped, writeTools: [...this.settings.writeTools] },
              this.settings.observeOnly,
            ),
          });
        }
      }
      for (let i = start; i < messages.length; i++) {
        const mark = validatorMarkOf(messages[i], guard);
        if (mark?.action !== "stop") continue;
        const tool = messages[i]!.name ?? "a tool";
        return stopNotice(guard, INVALID_OUTPUT_STOP_REASON, invalidOutputStopText(tool, mark.reason));
      }
    } catch (error) {
      await signalFrom(this.settings, {
        action: "warn",
        code: "guard_failed",
        reason: "guard_failed",
        detail: { error: String(error) },
      });
    }
    return undefined;
  }
}
