import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { ToolInputParsingException } from "@langchain/core/tools";
import { isGraphBubbleUp, type Command } from "@langchain/langgraph";
import type { ToolCallHandler, ToolCallRequest } from "langchain";
import { guardToolMessage, rewriteToolMessage } from "../../core/answers.js";
import { REPLACED_RESULT } from "../../core/marks.js";
import type { ToolCallView } from "../../core/messages.js";
import { emitSignal, type Signal, type SignalHandler } from "../../core/signals.js";
import { defaultToolErrorMessage } from "../../core/toolErrors.js";
import { decideReviewedCalls } from "./decideReviewedCalls.js";
import { degradedResult } from "./degradedResult.js";
import { rawArgumentsOf } from "./rawArguments.js";
import { REVIEW_KEY, reviewTurn, type CallReview, type ToolSpec } from "./reviewTurn.js";
import { emptyResultText, lostResultText, schemaMismatchText, shortErrorText, toolFailedText } from "./texts.js";
import { checkArguments } from "./validateArguments.js";
import { describeBytes, hexPreview } from "../../core/renderValue.js";
import { MiddlewareBase, oneOf, positiveInteger } from "../../hooks/middlewareBase.js";
import { EXIT_BEHAVIORS, type ExitBehavior } from "../../core/decision.js";
import { batchGuard, type BatchGuardHooks, type ModelHandler, type ModelRequestLike } from "../../hooks/batchGuard.js";
import { carryStateSchema } from "../../hooks/carry.js";

/** The agent state every createAgent graph has; typed so instances fit any agent's middleware list. */
type AgentState = { messages: BaseMessage[] };

export interface ToolCallRepairOptions {
  /**
   * Unusable calls (a tool that does not exist, or arguments that are not valid JSON and cannot be
   * repaired safely) since the last user message at which `exitBehavior` applies. Default 3.
   */
  stopAt?: number;
  /** At `stopAt`: keep answering with directives, end the run cleanly, or throw `GuardStopError`. Default `"end"`. */
  exitBehavior?: ExitBehavior;
  /**
   * The text the model reads when a tool throws. Default: `Tool "<name>" failed: <error class>:
   * <message>`, without stack trace, at most 300 characters.
   */
  formatToolError?: (error: unknown, call: ToolCallView) => string;
  /**
   * Emit signals only (with `detail.observeOnly`): no repair, no answer in place of a call, no
   * stop, results untouched; tool exceptions become LangChain's usual error message. Default false.
   */
  observeOnly?: boolean;
  /** Receives every decision other than allow. */
  onSignal?: SignalHandler;
}

/** A model request as the review reads it: the tools it offers. */
interface ReviewRequest extends ModelRequestLike {
  tools?: readonly unknown[];
}

export const TOOL_CALL_REPAIR_DEFAULTS = { stopAt: 3, exitBehavior: "end" } as const;

/**
 * Makes bad tool calls visible to the model instead of fatal or silent:
 * - arguments that did not parse (`invalid_tool_calls`, which createAgent would end the run on)
 *   are repaired with `jsonrepair` when the repair only fixes syntax and the result matches the
 *   tool's schema; otherwise the model is told what is wrong and asked to resend. A streamed
 *   call that LangChain completed from cut-off JSON is treated the same way;
 * - a call to a tool that does not exist is answered with the closest real tool names;
 * - arguments the tool's schema refuses get a one-line answer naming each problem;
 * - a tool's exception becomes a short error ToolMessage, as LangChain's `toolErrorMiddleware`
 *   would write it (interrupts still propagate);
 * - a result LangChain could not turn into text ("[object Object]", "", one number per byte) is
 *   replaced by an explicit error or a bounded description.
 *
 * Ladder: directives for each unusable call; at `stopAt` unusable calls since the last user
 * message, `exitBehavior` (default: answer every pending call and end with a final message).
 *
 * Put it last in `middleware`: its wrapModelCall then sees every tool other middlewares add and
 * repairs the calls before they enter state (other guards judge the repaired calls), and its
 * wrapToolCall sits next to the tool.
 *
 * @example
 * const agent = createAgent({ model, tools, middleware: [new LoopGuardMiddleware(), new ToolCallRepairMiddleware()] });
 */
export class ToolCallRepairMiddleware extends MiddlewareBase {
  readonly name = "ToolCallRepairMiddleware";
  /** The carried-history channel (hooks/carry.ts); `recommendedGuards` keeps one declaration per stack. */
  stateSchema?: typeof carryStateSchema = carryStateSchema;
  private readonly batch: BatchGuardHooks;
  private readonly onSignal: SignalHandler | undefined;
  private readonly observeOnly: boolean;
  private readonly formatToolError: (error: unknown, call: ToolCallView) => string;
  private readonly specsByTools = new WeakMap<readonly unknown[], ReadonlyMap<string, ToolSpec>>();

  constructor(options: ToolCallRepairOptions = {}) {
    super();
    const stopAt = positiveInteger(this.name, "stopAt", options.stopAt, TOOL_CALL_REPAIR_DEFAULTS.stopAt);
    this.onSignal = options.onSignal;
    this.observeOnly = options.observeOnly ?? false;
    const custom = options.formatToolError;
    this.formatToolError = custom
      ? (error, call) => {
          try {
            return custom(error, call);
          } catch {
            return toolFailedText(call.name, error);
          }
        }
      : (error, call) => toolFailedText(call.name, error);
    this.batch = batchGuard({
      guard: this.name,
      exitBehavior: oneOf(this.name, "exitBehavior", options.exitBehavior, EXIT_BEHAVIORS, TOOL_CALL_REPAIR_DEFAULTS.exitBehavior),
      observeOnly: this.observeOnly,
      onSignal: options.onSignal,
      judgesUnusableCalls: true,
      decide: (messages: readonly BaseMessage[], batch: readonly ToolCallView[]) => decideReviewedCalls(messages, batch, { stopAt }),
    });
  }

  /**
   * Reviews the model's turn where the tools are known, before it enters state: every other guard
   * then judges the repaired calls, and the verdicts stay on the message. After a batch this
   * guard stopped, the run's final message is returned instead of calling the model.
   */
  readonly wrapModelCall = async <R extends ReviewRequest>(request: R, handler: ModelHandler<R>): Promise<AIMessage | Command> =>
    this.batch.wrapModelCall(request, (checked) => this.reviewed(checked, handler));

  private async reviewed<R extends ReviewRequest>(request: R, handler: ModelHandler<R>): Promise<AIMessage | Command> {
    const response = await handler(request);
    if (!AIMessage.isInstance(response)) return response;
    const invalid = response.invalid_tool_calls ?? [];
    const calls = response.tool_calls ?? [];
    if (invalid.length === 0 && calls.length === 0) return response;
    try {
      const fallbackId = (index: number) => `${response.id ?? "call"}_invalid_${index}`;
      const reviewing = reviewTurn(calls, invalid, this.specsOf(request.tools ?? []), fallbackId, rawArgumentsOf(response));
      const review = reviewing instanceof Promise ? await reviewing : reviewing;
      if (!review) return response;
      if (this.observeOnly) {
        for (const verdict of review.reviews) await this.signal(observedSignal(verdict));
        return response;
      }
      return new AIMessage({
        id: response.id,
        name: response.name,
        content: response.content,
        additional_kwargs: response.additional_kwargs,
        usage_metadata: response.usage_metadata,
        response_metadata: { ...response.response_metadata, [REVIEW_KEY]: review.reviews },
        tool_calls: review.toolCalls.map((call) => ({ ...call, type: "tool_call" as const })),
        invalid_tool_calls: [],
      });
    } catch (error) {
      await this.signal({ action: "warn", code: "guard_failed", reason: "guard_failed", detail: { error: String(error) } });
      return response;
    }
  }

  /** Answers the calls the review rejected (and stops at `stopAt`); runs the others next to the tool. */
  readonly wrapToolCall = async (request: ToolCallRequest<AgentState>, handler: ToolCallHandler<AgentState>): Promise<ToolMessage | Command> =>
    this.batch.wrapToolCall(request, (checked) => this.readableCall(checked, handler));

  private async readableCall(request: ToolCallRequest<AgentState>, handler: ToolCallHandler<AgentState>): Promise<ToolMessage | Command> {
    const call: ToolCallView = { id: request.toolCall.id ?? "", name: request.toolCall.name, args: request.toolCall.args };
    let result: ToolMessage | Command;
    try {
      result = await handler(request);
    } catch (error) {
      if (isGraphBubbleUp(error)) throw error;
      // The tool checks its arguments before it runs: only a refused call costs a second check,
      // whose issues make a one-line answer.
      const refusal = isInputParsingError(error) ? await this.schemaRefusal(call, request.tool) : undefined;
      if (this.observeOnly) return defaultToolErrorMessage(error, request.toolCall);
      return refusal ?? this.toolErrorMessage(error, call);
    }
    if (!ToolMessage.isInstance(result)) return result;
    if (this.observeOnly) {
      await this.readableResult(result, call);
      return result;
    }
    return this.readableResult(result, call);
  }

  /** What LangChain's `toolErrorMiddleware` would answer, with our short text. */
  private async toolErrorMessage(error: unknown, call: ToolCallView): Promise<ToolMessage> {
    await this.signal({ action: "warn", code: "tool_error", reason: "tool_error", toolCallId: call.id, tool: call.name, detail: { error: shortErrorText(error) } });
    return new ToolMessage({ content: this.formatToolError(error, call), tool_call_id: call.id, name: call.name, status: "error" });
  }

  private async schemaRefusal(call: ToolCallView, tool: unknown): Promise<ToolMessage | undefined> {
    if (tool === null || typeof tool !== "object") return undefined;
    let check;
    try {
      check = await checkArguments((tool as { schema?: unknown }).schema, call.args);
    } catch {
      return undefined; // the tool validates again itself; its error is caught like any other
    }
    if (check.ok) return undefined;
    await this.signal({ action: "directive", code: "schema_mismatch", reason: "schema_mismatch", toolCallId: call.id, tool: call.name, detail: { issues: check.issues, ...this.observed } });
    return guardToolMessage(call, this.name, "directive", schemaMismatchText(call.name, check.issues));
  }

  private async readableResult(result: ToolMessage, call: ToolCallView): Promise<ToolMessage> {
    if (result.status === "error") return result;
    const degraded = degradedResult(result.content);
    if (!degraded) return result;
    const where = { toolCallId: call.id, tool: call.name };
    switch (degraded.kind) {
      case "lost":
        await this.signal({ action: "directive", code: "unserialisable_result", reason: "unserialisable_result", ...where, detail: { hint: "wrap the tool with withSafeResults() to keep its result", ...this.observed } });
        return rewriteToolMessage(result, {
          content: lostResultText(call.name),
          status: "error",
          mark: { guard: this.name, action: "directive", reason: "unserialisable_result", outcome: REPLACED_RESULT },
        });
      case "empty":
        await this.signal({ action: "warn", code: "empty_result", reason: "empty_result", ...where, detail: { ...this.observed } });
        return rewriteToolMessage(result, { content: emptyResultText(call.name), mark: { guard: this.name, action: "warn", reason: "empty_result" } });
      case "binary":
        await this.signal({ action: "warn", code: "binary_result", reason: "binary_result", ...where, detail: { bytes: degraded.bytes.length, ...this.observed } });
        return rewriteToolMessage(result, {
          content: describeBytes(degraded.bytes.length, hexPreview(degraded.bytes)),
          mark: { guard: this.name, action: "warn", reason: "binary_result" },
        });
    }
  }

  private specsOf(tools: readonly unknown[]): ReadonlyMap<string, ToolSpec> {
    let specs = this.specsByTools.get(tools);
    if (!specs) {
      specs = toolSpecs(tools);
      this.specsByTools.set(tools, specs);
    }
    return specs;
  }

  /** Added to the detail of every signal in observe-only mode. */
  private get observed(): { observeOnly?: true } {
    return this.observeOnly ? { observeOnly: true } : {};
  }

  private signal(signal: Omit<Signal, "guard">): Promise<void> {
    return emitSignal({ guard: this.name, ...signal }, this.onSignal);
  }
}

/** The signal for a verdict reached in observe-only mode, where nothing is changed. */
function observedSignal(review: CallReview): Omit<Signal, "guard"> {
  const where = { toolCallId: review.id, tool: review.name };
  switch (review.verdict) {
    case "repaired":
      return { action: "warn", code: "repaired_arguments", reason: "repaired_arguments", ...where, detail: { repairs: review.repairs, observeOnly: true } };
    case "rejected":
      return { action: "directive", code: "unusable_arguments", reason: "unusable_arguments", ...where, detail: { problem: review.problem, observeOnly: true } };
    case "unknown_tool":
      return { action: "directive", code: "unknown_tool", reason: "unknown_tool", ...where, detail: { closest: review.closest, observeOnly: true } };
  }
}

/** Names and argument schemas of the tools a model request offers (client tools and function dicts). */
function toolSpecs(tools: readonly unknown[]): ReadonlyMap<string, ToolSpec> {
  const specs = new Map<string, ToolSpec>();
  for (const tool of tools) {
    if (tool === null || typeof tool !== "object") continue;
    const t = tool as { name?: unknown; schema?: unknown; function?: { name?: unknown; parameters?: unknown } };
    if (typeof t.name === "string") specs.set(t.name, { name: t.name, schema: t.schema });
    else if (typeof t.function?.name === "string") specs.set(t.function.name, { name: t.function.name, schema: t.function.parameters });
  }
  return specs;
}

/** The tool refused its arguments before running (ToolNode wraps that in a ToolInvocationError). */
function isInputParsingError(error: unknown): boolean {
  const inner = error !== null && typeof error === "object" && "toolError" in error ? error.toolError : error;
  return inner instanceof ToolInputParsingException;
}
