import { AIMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { Command, isGraphBubbleUp } from "@langchain/langgraph";
import { z } from "zod";
import { stopNotice } from "../../core/answers.js";
import { parseOptions } from "../../core/baseOptions.js";
import { firstLineOf } from "../../core/errors.js";
import { readMark } from "../../core/marks.js";
import { emitSignal } from "../../core/signals.js";
import { loadHasher, type Hasher } from "../../observe/hash.js";
import { MemoryOffloadStore } from "../../offload/MemoryOffloadStore.js";
import { threadIdOf } from "../../offload/threads.js";
import { MiddlewareBase } from "../../hooks/middlewareBase.js";
import { currentTaskState } from "../../hooks/taskState.js";
import { mergeValue } from "../../core/toolResults.js";
import { createMeasure, type Measure } from "../budget/measure.js";
import { createRetrievalTool } from "../budget/retrievalTool.js";
import { RETRIEVAL_TOOL_NAME } from "../budget/texts.js";
import { PlanApplier } from "./apply.js";
import {
  assessRequest,
  provenOver,
  recoveryFor,
  sentUnmeasured,
  type Assessed,
  type RoomTaken,
  type ModelHandler,
  type ModelRequestLike,
  type Over,
  type Prepared,
  type Sendable,
} from "./assess.js";
import { EntrySizer } from "./entries.js";
import { RequestMeter } from "./estimate.js";
import { OffloadKeeper } from "./keep.js";
import { lastAiGroup, planShrink, type PlanEntry, type ShrinkPlan } from "./plan.js";
import { isContextOverflowError, overflowNumbers } from "./providerErrors.js";
import { contextOverflowGuardOptions, type ContextOverflowGuardOptions } from "./options.js";
import { CONTEXT_RECORD_KEY, contextRecord, type ContextRecord, type RemovedPart } from "./record.js";
import { overflowStopExplanation, signalReason, type ContextOverflowCode } from "./texts.js";
import type { QuietJudge } from "../../hooks/quietJudge.js";

const GUARD = "ContextOverflowGuardMiddleware";

export type { ContextOverflowGuardOptions };
type Settings = z.output<typeof contextOverflowGuardOptions>;

/** Largest answer of the registered retrieval tool, in tokens. */
const RETRIEVAL_TOKENS = 5000;

/**
 * Never sends a request the model cannot take. Before each model call it measures the request
 * (system prompt, tool schemas, messages); above the window minus a reserve for the answer, it
 * shrinks **the request only**, oldest first: large tool results are offloaded to the store and
 * previewed (the budget's preview), then what remains is replaced by notices that name the key
 * it is kept under, then whole early turns are left out behind a note. The system prompt and the
 * latest user message are never touched, and an AI message and its tool results are shortened
 * or left out together. The state keeps every message as it was, so the other guards, which
 * decide from history, see the run as it happened; what a request lacked is recorded on the
 * model's answer (`response_metadata.harness_kit_context`) for replay and `harness-kit inspect`.
 *
 * When the provider still refuses the request as too long (OpenAI `context_length_exceeded`,
 * both of Anthropic's refusals, LangChain's `ContextOverflowError`, every wording of
 * docs/provider-errors.md), the guard shrinks once more, to what the provider's numbers say fits
 * (its window, and the answer's room when it counts one), and retries; if that is refused too,
 * the run ends with a final message that says why (no exception). Short of its target, it sends
 * the smallest request it can make, and stops before sending only when that is proven over.
 *
 * Order: put it after the loop guards and before `ToolCallRepairMiddleware`, so a stop decided
 * by another guard costs no shrinking; `summarizationMiddleware` runs before any wrapModelCall,
 * so it compacts first and this guard only catches what is still too long.
 *
 * @example
 * const agent = createAgent({
 *   model: "openai:gpt-4.1",
 *   tools,
 *   middleware: [summarizationMiddleware({ model, trigger: { fraction: 0.8 } }), new ContextOverflowGuardMiddleware()],
 * });
 */
export class ContextOverflowGuardMiddleware extends MiddlewareBase {
  readonly name = GUARD;
  /** `read_stored_result`, with `retrievalTool: true`. */
  readonly tools: StructuredToolInterface[];
  /** The tool that reads the store back, offered in every request that names a key. */
  private readonly retrieval: StructuredToolInterface | undefined;
  private readonly settings: Settings;
  private readonly meter: RequestMeter;
  private readonly sizer: EntrySizer;
  private readonly applier: PlanApplier;
  /** Loaded at the first shrink: most runs never need it. */
  private hasher: Hasher | undefined;

  constructor(options: ContextOverflowGuardOptions = {}) {
    super();
    const settings = (this.settings = parseOptions(GUARD, contextOverflowGuardOptions, options));
    const store = settings.store ?? new MemoryOffloadStore();
    this.meter = new RequestMeter(settings.countTokens);
    const measure: Measure = createMeasure("tokens", (text) => this.meter.text(text));
    const retrieval = settings.retrievalTool;
    this.tools =
      retrieval === true
        ? [createRetrievalTool(store, { limit: RETRIEVAL_TOKENS, measure, timeoutMs: settings.storeTimeoutMs })]
        : [];
    this.retrieval = retrieval === true ? this.tools[0] : retrieval === false ? undefined : retrieval;
    const retrievalName = this.retrieval?.name ?? RETRIEVAL_TOOL_NAME;
    this.sizer = new EntrySizer(this.meter, settings.previewTokens, retrievalName, store);
    this.applier = new PlanApplier(
      new OffloadKeeper(store, settings.storeTimeoutMs, currentTaskState),
      settings.previewTokens,
      measure,
      this.sizer.readBackOf,
    );
  }

  /** A request that fits goes to the model as it is. */
  readonly quiet: QuietJudge = {
    passesRequest: (request) => {
      try {
        return assessRequest(request as unknown as ModelRequestLike, undefined, this.meter, this.settings).kind ===
          "fits"
          ? request
          : undefined;
      } catch {
        return undefined;
      }
    },
  };

  readonly wrapModelCall = <R extends ModelRequestLike>(
    request: R,
    handler: ModelHandler<R>,
  ): Promise<AIMessage | Command> => {
    let assessed: Assessed<R>;
    try {
      assessed = assessRequest(request, undefined, this.meter, this.settings);
    } catch (error) {
      return this.failedOpen(request, handler, error);
    }
    // Nearly every step: the request fits, and the guard adds one promise, to catch a refusal.
    if (assessed.kind === "fits")
      return Promise.resolve(handler(request)).catch((error: unknown) =>
        this.refused(request, handler, assessed.prepared, error, []),
      );
    return this.overLimit(request, handler, assessed);
  };

  private async overLimit<R extends ModelRequestLike>(
    request: R,
    handler: ModelHandler<R>,
    assessed: Over<R>,
  ): Promise<AIMessage | Command> {
    const collected: Record<string, unknown>[] = [];
    let first: Prepared<R>;
    try {
      first = await this.shrink(request, assessed, collected);
    } catch (error) {
      return this.failedOpen(request, handler, error);
    }
    if (first.kind === "stop") return this.stop("cannot_fit", first.window, first.room);
    try {
      return this.answered(await handler(first.request), first.record, collected);
    } catch (error) {
      return this.refused(request, handler, first, error, collected);
    }
  }

  /** The guard's own failure never stops the run: the request goes as it is. */
  private async failedOpen<R extends ModelRequestLike>(
    request: R,
    handler: ModelHandler<R>,
    error: unknown,
  ): Promise<AIMessage | Command> {
    await this.signal("warn", "guard_failed", { error: String(error) });
    return handler(request);
  }

  /**
   * A model call failed: a refusal as too long is recovered from, anything else goes on up.
   * `sent` undefined: a request with no window, measured only now (`Assessed`).
   */
  private async refused<R extends ModelRequestLike>(
    request: R,
    handler: ModelHandler<R>,
    sent: Sendable<R> | undefined,
    error: unknown,
    collected: Record<string, unknown>[],
  ): Promise<AIMessage | Command> {
    if (isGraphBubbleUp(error) || !isContextOverflowError(error)) throw error;
    return this.recover(request, handler, sent ?? sentUnmeasured(request, this.meter), error, collected);
  }

  /** After the provider refused the request as too long: shrink to what its numbers say fits, retry once. */
  private async recover<R extends ModelRequestLike>(
    request: R,
    handler: ModelHandler<R>,
    refused: Sendable<R>,
    error: unknown,
    collected: Record<string, unknown>[],
  ): Promise<AIMessage | Command> {
    const numbers = overflowNumbers(error);
    const detail = {
      sentTokens: refused.sentTokens,
      window: refused.window,
      providerLimit: numbers.limit,
      providerCount: numbers.requested,
      ...(numbers.reserve !== undefined ? { providerReserve: numbers.reserve } : {}),
      error: firstLineOf(error).slice(0, 300),
    };
    if (this.settings.observeOnly) {
      await this.signal("warn", "provider_refused", { ...detail, observeOnly: true });
      throw error;
    }
    const forced = recoveryFor(refused, numbers, request.model, this.settings);
    await this.signal("warn", "provider_refused", { ...detail, retryTarget: forced.target });

    let second: Prepared<R>;
    try {
      second = await this.shrink(
        request,
        assessRequest(request, forced, this.meter, this.settings) as Over<R>,
        collected,
      );
    } catch (failure) {
      await this.signal("warn", "guard_failed", { error: String(failure) });
      await this.signal("stop", "context_overflow", {
        cause: "still_refused",
        window: forced.window,
        sentTokens: refused.sentTokens,
      });
      return this.stop("still_refused", forced.window);
    }
    if (second.kind === "stop") return this.stop("cannot_fit", second.window, second.room);
    try {
      const record: ContextRecord | undefined = second.record && { ...second.record, reason: "overflow_recovered" };
      return this.answered(await handler(second.request), record, collected);
    } catch (again) {
      if (isGraphBubbleUp(again) || !isContextOverflowError(again)) throw again;
      await this.signal("stop", "context_overflow", {
        cause: "still_refused",
        window: forced.window,
        sentTokens: second.sentTokens,
      });
      return this.stop("still_refused", forced.window);
    }
  }

  /** The request shrunk to its target: content stored, shortened messages in place of the originals. */
  private async shrink<R extends ModelRequestLike>(
    request: R,
    over: Over<R>,
    collected: Record<string, unknown>[],
  ): Promise<Prepared<R>> {
    const { forced, fixedTokens, fullTokens, factor, limit, window, reserve, providerWindow, providerReserve } = over;
    const messages = request.messages ?? [];
    const detail = {
      window,
      reserve,
      limit,
      estimatedTokens: Math.ceil(fullTokens * factor),
      calibration: round(factor),
    };
    if (this.settings.observeOnly) {
      await this.signal("warn", "over_window", { ...detail, observeOnly: true });
      return over.unchanged;
    }
    const target = forced ? forced.target : Math.floor((limit! * this.settings.shrinkTo) / factor);
    const entries = this.sizer.entriesOf(messages);
    // The retrieval tool may join the request's tools: its schema is counted in advance.
    const offered = this.withRetrieval(request.tools, true);
    const fixedSent = offered === request.tools ? fixedTokens : this.meter.fixed(request.systemMessage, offered);
    const plan = planShrink(entries, fixedSent, target, {
      largeTokens: this.settings.largeResultTokens,
      noteTokens: this.sizer.noteBound,
    });
    // Short of the target, the plan is the smallest request the guard can make: it is sent unless it is proven over.
    const proof = plan.fits ? undefined : provenOver(plan.after, over);
    if (proof) {
      const room = roomTaken(entries, plan, fixedSent, factor, { limit, proof, providerReserve });
      await this.signal("stop", "context_overflow", {
        ...detail,
        cause: "cannot_fit",
        proof,
        minimumTokens: Math.ceil(plan.after * factor),
        room,
      });
      return { kind: "stop", window, room };
    }
    const hash = (this.hasher ??= await loadHasher());
    const { shrunk, removed } = await this.applier.apply(messages, entries, plan, {
      threadId: threadIdOf(request.runtime),
      hash,
      collected,
    });
    const tools = this.withRetrieval(
      request.tools,
      removed.some((part) => part.key !== undefined),
    );
    const sentTokens = (tools === request.tools ? fixedTokens : fixedSent) + this.meter.messages(shrunk);
    const record = contextRecord({
      guard: GUARD,
      reason: "request_shrunk",
      window,
      ...(providerWindow !== undefined ? { providerWindow } : {}),
      ...(providerReserve !== undefined ? { providerReserve } : {}),
      limit,
      fullTokens,
      sentTokens,
      removed,
    });
    await this.signal("warn", "request_shrunk", {
      ...detail,
      afterRefusal: forced !== undefined,
      ...(plan.fits ? {} : { smallest: true }),
      sentTokens,
      previewed: count(removed, "preview"),
      stubbed: count(removed, "stub"),
      dropped: count(removed, "drop"),
      keys: [...new Set(removed.flatMap((r) => (r.key ? [r.key] : [])))].slice(0, 20),
    });
    return {
      kind: "send",
      request: { ...request, messages: shrunk, tools },
      record,
      sentTokens,
      window,
      reserve,
      providerWindow,
      providerReserve,
    };
  }

  /**
   * The request's tools, with the retrieval tool when the request names a key (`namesKey`) and
   * another middleware left it out (the budget offers it only once its own offloads are in the
   * history).
   */
  private withRetrieval(tools: readonly unknown[] | undefined, namesKey: boolean): readonly unknown[] | undefined {
    const retrieval = this.retrieval;
    if (!retrieval || !tools || !namesKey) return tools;
    return tools.some((tool) => (tool as { name?: unknown }).name === retrieval.name) ? tools : [...tools, retrieval];
  }

  /** The model's answer, with the record of what its request lacked; a Command when the store wrote state. */
  private answered(
    response: AIMessage | Command,
    record: ContextRecord | undefined,
    collected: readonly Record<string, unknown>[],
  ): AIMessage | Command {
    if (!record || !AIMessage.isInstance(response) || readMark(response)?.action === "stop") return response;
    // The answer is a fresh object from this call, not yet in state: the record is written onto it.
    const metadata = { ...response.response_metadata, [CONTEXT_RECORD_KEY]: record };
    response.response_metadata = metadata;
    (response as unknown as { lc_kwargs: Record<string, unknown> }).lc_kwargs.response_metadata = metadata;
    if (collected.length === 0) return response;
    return new Command({ update: mergeUpdates(collected) });
  }

  private stop(cause: "cannot_fit" | "still_refused", window: number | undefined, room?: RoomTaken): AIMessage {
    return stopNotice(GUARD, "context_overflow", overflowStopExplanation(cause, window, room));
  }

  private signal(action: "warn" | "stop", code: ContextOverflowCode, detail: Record<string, unknown>): Promise<void> {
    return emitSignal(
      { guard: GUARD, action, code, reason: signalReason(code, detail), detail },
      this.settings.onSignal,
    );
  }
}

/** What takes the room of the smallest request, part by part, in the provider's tokens as the calibration has it. */
function roomTaken(
  entries: readonly PlanEntry[],
  plan: ShrinkPlan,
  fixedSent: number,
  factor: number,
  facts: Pick<RoomTaken, "limit" | "proof" | "providerReserve">,
): RoomTaken {
  const turn = lastAiGroup(entries);
  let fixed = fixedSent;
  let user = 0;
  let current = 0;
  entries.forEach((entry, i) => {
    if (entry.kind === "system") fixed += plan.sizes[i]!;
    else if (entry.fixed) user += plan.sizes[i]!;
    else if (entry.group === turn) current += plan.sizes[i]!;
  });
  const scaled = (n: number) => Math.ceil(n * factor);
  const room: RoomTaken = {
    fixed: scaled(fixed),
    user: scaled(user),
    turn: scaled(current),
    rest: scaled(Math.max(0, plan.after - fixed - user - current)),
    limit: facts.limit,
    proof: facts.proof,
  };
  if (facts.providerReserve !== undefined) room.providerReserve = facts.providerReserve;
  return room;
}

function count(removed: readonly RemovedPart[], action: RemovedPart["action"]): number {
  return removed.filter((r) => r.action === action).length;
}

/** Several updates of one key (deepagents' `files`) merged into one. */
function mergeUpdates(updates: readonly Record<string, unknown>[]): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  for (const update of updates) {
    for (const [key, value] of Object.entries(update)) {
      merged[key] = mergeValue(merged[key], value);
    }
  }
  return merged;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
