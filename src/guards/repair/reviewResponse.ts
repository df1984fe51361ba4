import { AIMessage } from "@langchain/core/messages";
import { rawArgumentsOf } from "./rawArguments.js";
import { signalRepair, type RepairGuard } from "./repairGuard.js";
import { isPlainTurn } from "./plainTurn.js";
import { REVIEW_KEY, reviewTurn, type CallReview, type TurnReview } from "./reviewTurn.js";
import { structuredOutputTools, type StructuredOutputTools } from "./structuredOutput.js";
import type { ToolSpecs } from "./toolSpecs.js";
import type { MaybePromise } from "../../core/maybePromise.js";
import type { Signal } from "../../core/signals.js";

/** A model request as the review reads it: the tools it offers, and the response format whose tools createAgent adds. */
export interface ReviewedRequest {
  tools?: readonly unknown[];
  responseFormat?: unknown;
}

/**
 * The model side of the repair guard: reviews the tool calls of a model's response where the
 * offered tools are known, before the response enters state, so every other guard judges the
 * repaired calls and the verdicts stay on the message (`REVIEW_KEY`). Arguments that did not
 * parse are repaired or rejected, calls to unknown tools flagged; the answers and the stop at
 * `stopAt` follow from those verdicts (decideReviewedCalls.ts). A review that fails leaves the
 * response as it came, with a `guard_failed` warn.
 */
export function responseReviewer<Q extends ReviewedRequest>(
  guard: RepairGuard,
  specsOf: SpecsOf,
): <T>(response: T, request: Q) => MaybePromise<T | AIMessage> {
  // Caches, not state: keyed by the request's tool list and response format (toolSpecs.ts).
  const structuredOf = cachedBy((format: object) => structuredOutputTools(format));
  const structuredOutput = (format: unknown): StructuredOutputTools =>
    format !== null && typeof format === "object" ? structuredOf(format) : structuredOutputTools(format);

  return (response, request) => {
    if (!AIMessage.isInstance(response)) return response;
    const invalid = response.invalid_tool_calls ?? [];
    const calls = response.tool_calls ?? [];
    if (invalid.length === 0 && calls.length === 0) return response;
    try {
      const specs = specsOf(request.tools ?? []);
      // Nearly every turn: known to need nothing without the review (plainTurn.ts).
      if (isPlainResponse(response, specs)) return response;
      const reviewing = reviewTurn(
        calls,
        invalid,
        specs,
        (index) => `${response.id ?? "call"}_invalid_${index}`,
        rawArgumentsOf(response),
        structuredOutput(request.responseFormat),
      );
      // A review with nothing to repair needs no promise.
      return reviewing instanceof Promise
        ? reviewing
            .then((review) => reviewed(guard, response, review))
            .catch((error: unknown) => failed(guard, response, error))
        : reviewed(guard, response, reviewing);
    } catch (error) {
      return failed(guard, response, error);
    }
  };
}

/**
 * Whether a model's response needs no review (the quiet path asks, stack/quietPath.ts): no invalid
 * call, and every parsed call plain for the tools of the request that asked for it (plainTurn.ts).
 * Any doubt says no.
 */
export function plainResponses(specsOf: SpecsOf): (response: AIMessage, request: ReviewedRequest) => boolean {
  return (response, request) => {
    try {
      return isPlainResponse(response, specsOf(request.tools ?? []));
    } catch {
      return false;
    }
  };
}

/** The tool specs of a request's tool list, cached per list (`toolSpecsCache`): the review and the quiet path share one. */
type SpecsOf = (tools: readonly unknown[]) => ToolSpecs;

/** No invalid call, and every parsed call plain for `specs` (plainTurn.ts). */
function isPlainResponse(response: AIMessage, specs: ToolSpecs): boolean {
  return (response.invalid_tool_calls?.length ?? 0) === 0 && isPlainTurn(response.tool_calls ?? [], specs, response);
}

/** The model's turn as the review left it: as it is, or a copy with the repaired calls and the verdicts. */
function reviewed(guard: RepairGuard, response: AIMessage, review: TurnReview | undefined): MaybePromise<AIMessage> {
  if (!review) return response;
  if (guard.observeOnly) return signalAll(guard, review.reviews).then(() => response);
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
}

/** A review that failed leaves the turn as it is, and says so. */
async function failed(guard: RepairGuard, response: AIMessage, error: unknown): Promise<AIMessage> {
  await signalRepair(guard, {
    action: "warn",
    code: "guard_failed",
    reason: "guard_failed",
    detail: { error: String(error) },
  });
  return response;
}

/** Each verdict's observe-only signal, in order. */
async function signalAll(guard: RepairGuard, reviews: readonly CallReview[]): Promise<void> {
  for (const verdict of reviews) await signalRepair(guard, observedSignal(verdict));
}

/** The signal for a verdict reached in observe-only mode, where nothing is changed. */
function observedSignal(review: CallReview): Omit<Signal, "guard"> {
  const where = { toolCallId: review.id, tool: review.name };
  switch (review.verdict) {
    case "repaired":
      return {
        action: "warn",
        code: "repaired_arguments",
        reason: "repaired_arguments",
        ...where,
        detail: { repairs: review.repairs, observeOnly: true },
      };
    case "rejected":
      return {
        action: "directive",
        code: "unusable_arguments",
        reason: "unusable_arguments",
        ...where,
        detail: { problem: review.problem, observeOnly: true },
      };
    case "unknown_tool":
      return {
        action: "directive",
        code: "unknown_tool",
        reason: "unknown_tool",
        ...where,
        detail: { closest: review.closest, observeOnly: true },
      };
  }
}

function cachedBy<K extends object, V>(compute: (key: K) => V): (key: K) => V {
  const cache = new WeakMap<K, V>();
  return (key) => {
    if (!cache.has(key)) cache.set(key, compute(key));
    return cache.get(key)!;
  };
}
