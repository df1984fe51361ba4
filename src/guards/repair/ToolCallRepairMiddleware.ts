import type { AIMessage, BaseMessage, ToolMessage } from "@langchain/core/messages";
import type { Command } from "@langchain/langgraph";
import type { ToolCallHandler, ToolCallRequest } from "langchain";
import { reviewedCallsDecider } from "./decideReviewedCalls.js";
import { readableToolCall } from "./readableToolCall.js";
import type { RepairGuard } from "./repairGuard.js";
import { plainResponses, responseReviewer, type ReviewedRequest } from "./reviewResponse.js";
import { reviewsOf } from "./reviewTurn.js";
import { degradedResult } from "./degradedResult.js";
import { toolSpecsCache } from "./toolSpecs.js";
import { MiddlewareBase } from "../../hooks/middlewareBase.js";
import { parseOptions } from "../../core/baseOptions.js";
import { batchGuard, type BatchGuardHooks, type ModelHandler, type ModelRequestLike } from "../../hooks/batchGuard.js";
import { carryStateSchema } from "../../hooks/carry.js";
import { passOn, type QuietJudge } from "../../hooks/quietJudge.js";
import { toolCallRepairOptions, type ToolCallRepairOptions } from "./options.js";

/** The agent state every createAgent graph has; typed so instances fit any agent's middleware list. */
type AgentState = { messages: BaseMessage[] };

export type { ToolCallRepairOptions };

/** A model request as the review reads it (reviewResponse.ts), and as the batch guard's hook does. */
interface ReviewRequest extends ModelRequestLike, ReviewedRequest {}

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
  /** Answers the calls the review rejected (and stops at `stopAt`); runs the others next to the tool (readableToolCall.ts). */
  readonly wrapToolCall: (
    request: ToolCallRequest<AgentState>,
    handler: ToolCallHandler<AgentState>,
  ) => Promise<ToolMessage | Command>;
  /**
   * Reviews the model's turn where the tools are known, before it enters state (reviewResponse.ts),
   * in the batch guard's own promise step. After a batch this guard stopped, the run's final
   * message is returned instead of calling the model.
   */
  readonly wrapModelCall: <R extends ReviewRequest>(
    request: R,
    handler: ModelHandler<R>,
  ) => Promise<AIMessage | Command>;

  constructor(options: ToolCallRepairOptions = {}) {
    super();
    const { stopAt, exitBehavior, formatToolError, observeOnly, onSignal } = parseOptions(
      this.name,
      toolCallRepairOptions,
      options,
    );
    const guard: RepairGuard = { guard: this.name, observeOnly, onSignal };
    // One cache of the offered tools' specs for the review and for the quiet path's look at a response.
    const specsOf = toolSpecsCache();
    this.batch = batchGuard({
      guard: this.name,
      exitBehavior,
      observeOnly,
      onSignal,
      judgesUnusableCalls: true,
      decide: reviewedCallsDecider({ stopAt }),
      review: responseReviewer<ReviewRequest>(guard, specsOf),
      // Next to the tool, the calls it lets through run in its readable wrapper, which contains
      // and stamps them as runToolSafely would (the same probe) and makes their answers readable.
      run: readableToolCall(guard, formatToolError),
    });
    // The batch guard's hooks themselves: the review and the readable wrapper are its settings.
    ({ wrapToolCall: this.wrapToolCall, wrapModelCall: this.wrapModelCall } = this.batch);
    const plain = plainResponses(specsOf);
    this.quiet = {
      passesCall: (_call, asking) => reviewsOf(asking).length === 0,
      keepsAnswer: (answer) => answer.status === "error" || degradedResult(answer.content) === undefined,
      passesRequest: passOn,
      keepsResponse: (response, request) => plain(response, request),
    };
  }

  /**
   * A turn the review left as it was lets every call run; the readable wrapper keeps an answer
   * LangChain turned into text; a response whose calls are plain needs no review.
   */
  readonly quiet: QuietJudge;
}
