import type { AIMessage, BaseMessage, ToolMessage } from "@langchain/core/messages";
import type { Command } from "@langchain/langgraph";
import type { ToolCallHandler, ToolCallRequest } from "langchain";
import { andThen } from "../../core/maybePromise.js";
import type { ToolCallView } from "../../core/messages.js";
import type { SignalHandler } from "../../core/signals.js";
import { decideReviewedCalls } from "./decideReviewedCalls.js";
import { readableToolCall } from "./readableToolCall.js";
import type { RepairGuard } from "./repairGuard.js";
import { responseReviewer } from "./reviewResponse.js";
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

/** A model request as the review reads it: the tools it offers, and the response format whose tools createAgent adds. */
interface ReviewRequest extends ModelRequestLike {
  tools?: readonly unknown[];
  responseFormat?: unknown;
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
 *   would write it (interrupts still propagate, and so does an exception that came back through a
 *   middleware listed after this one, such as `toolRetryMiddleware`: docs/composing.md);
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
  private readonly reviewResponse: ReturnType<typeof responseReviewer>;
  private readonly readableCall: ReturnType<typeof readableToolCall>;

  constructor(options: ToolCallRepairOptions = {}) {
    super();
    const stopAt = positiveInteger(this.name, "stopAt", options.stopAt, TOOL_CALL_REPAIR_DEFAULTS.stopAt);
    const guard: RepairGuard = { guard: this.name, observeOnly: options.observeOnly ?? false, onSignal: options.onSignal };
    this.reviewResponse = responseReviewer(guard);
    this.readableCall = readableToolCall(guard, options.formatToolError);
    this.batch = batchGuard({
      guard: this.name,
      exitBehavior: oneOf(this.name, "exitBehavior", options.exitBehavior, EXIT_BEHAVIORS, TOOL_CALL_REPAIR_DEFAULTS.exitBehavior),
      observeOnly: guard.observeOnly,
      onSignal: options.onSignal,
      judgesUnusableCalls: true,
      decide: (messages: readonly BaseMessage[], batch: readonly ToolCallView[]) => decideReviewedCalls(messages, batch, { stopAt }),
    });
  }

  /**
   * Reviews the model's turn where the tools are known, before it enters state (reviewResponse.ts).
   * After a batch this guard stopped, the run's final message is returned instead of calling the model.
   */
  readonly wrapModelCall = <R extends ReviewRequest>(request: R, handler: ModelHandler<R>): Promise<AIMessage | Command> =>
    this.batch.wrapModelCall(request, (checked) => andThen(handler(checked), (response) => this.reviewResponse(response, checked.tools ?? [], checked.responseFormat)));

  /** Answers the calls the review rejected (and stops at `stopAt`); runs the others next to the tool (readableToolCall.ts). */
  readonly wrapToolCall = (request: ToolCallRequest<AgentState>, handler: ToolCallHandler<AgentState>): Promise<ToolMessage | Command> =>
    this.batch.wrapToolCall(request, (checked) => this.readableCall(checked, handler));
}
