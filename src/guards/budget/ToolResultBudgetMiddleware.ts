import type { AIMessage, ToolMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { readMark } from "../../core/marks.js";
import { getConfig } from "@langchain/langgraph";
import type { Command } from "@langchain/langgraph";
import type { ToolCallHandler } from "langchain";
import { parseOptions } from "../../core/baseOptions.js";
import { rewriteToolMessage, type ToolMessageMark } from "../../core/answers.js";
import { messageKind, toolCallsOf } from "../../core/messages.js";
import { emitSignal, type SignalCode, type SignalHandler } from "../../core/signals.js";
import { currentTaskState } from "../../hooks/taskState.js";
import type { QuietJudge } from "../../hooks/quietJudge.js";
import type { GuardState } from "../../hooks/carry.js";
import { createMeasure, type Measure } from "./measure.js";
import {
  emergencyCutText,
  RETRIEVAL_TOOL_NAME,
  retrievalToolHint,
  storeFailureReason,
  type PreviewOutcome,
} from "./texts.js";
import { assessContent, MIN_LIMIT, planBudget, renderBudgeted, type BudgetAssessment } from "./plan.js";
import { offloadDigestInput, offloadKey } from "../../offload/keys.js";
import type { LineReader, OffloadStore } from "../../offload/OffloadStore.js";
import { fields } from "../../core/fields.js";
import { cutReadBack, firstLineTooLong, fittingLineWindow, lineStart } from "./lineWindow.js";
import { promisedCall } from "../../core/maybePromise.js";
import { hasStoredResults } from "./storedSoFar.js";
import { createRetrievalTool } from "./retrievalTool.js";
import { pairSafeEnd } from "./pairs.js";
import { threadIdOf } from "../../offload/threads.js";
import { storeName, withStoreTimeout } from "../../offload/timeouts.js";
import { contentText } from "../../observe/content.js";
import { loadHasher } from "../../observe/hash.js";
import { resultFingerprint } from "../../observe/resultFingerprint.js";
import { MiddlewareBase } from "../../hooks/middlewareBase.js";
import { TOOL_RESULT_BUDGET_DEFAULTS, toolResultBudgetOptions, type ToolResultBudgetOptions } from "./options.js";
import { resultGuardHook, type ToolRequest } from "../../hooks/resultGuard.js";
import type { ToolCallResult, ToolMessageRewrite } from "../../core/toolResults.js";

export { TOOL_RESULT_BUDGET_DEFAULTS, type ToolResultBudgetOptions };

/** How the result was changed, as recorded in `response_metadata.harness_kit.budget.action`. */
export type BudgetAction = "offload" | "truncate" | "drop-media";

/**
 * Keeps each tool result within a budget. An oversized result is stored in `store` and replaced
 * by a preview: its head and tail around `[... N characters omitted ...]`, its total size, and how
 * to read the rest (the `read_stored_result` tool this middleware registers, or the store's own
 * hint, such as deepagents' `read_file`). Media blocks count by their base64 size; one that does
 * not fit is replaced by a note. Without a store, or when the store fails, the result is cut and
 * the notice says plainly that the rest was not kept. The ToolMessage keeps its id, name, status,
 * artifact and metadata, and records the original's fingerprint and size in
 * `response_metadata.harness_kit.original` for the loop guards.
 *
 * Order: list it after the loop guards and before `BinaryReadGuardMiddleware`, so the binary
 * guard judges the raw result first (wrapToolCall: earlier = outer).
 *
 * @example
 * const agent = createAgent({
 *   model, tools,
 *   middleware: [
 *     new ProgressAwareLoopGuardMiddleware(),
 *     new ToolResultBudgetMiddleware({ limit: 20_000, store: new MemoryOffloadStore() }),
 *     new BinaryReadGuardMiddleware(),
 *   ],
 * });
 */
export class ToolResultBudgetMiddleware extends MiddlewareBase {
  readonly name = "ToolResultBudgetMiddleware";
  /** The retrieval tool when a store is set, else none. */
  readonly tools: StructuredToolInterface[];
  private readonly limit: number;
  /** The smallest limit of the unit: a turn's share never goes below it. */
  private readonly minimum: number;
  private readonly measure: Measure;
  private readonly toolLimits: ReadonlyMap<string, number>;
  /**
   * The least limit a call of each tool can get (`limitFor`: its own, or with `turnLimit` no
   * less than its own or the unit's minimum, whichever is smaller); `floor` for the other tools.
   */
  private readonly toolFloors: ReadonlyMap<string, number>;
  private readonly floor: number;
  /** Whether the store may say a call reads back what it keeps (`readBackOf`). */
  private readonly readsBack: boolean;
  private readonly excluded: ReadonlySet<string>;
  private readonly turnLimit: number | undefined;
  private readonly store: OffloadStore | undefined;
  private readonly storeTimeoutMs: number;
  private readonly observeOnly: boolean;
  private readonly onSignal: SignalHandler | undefined;
  /**
   * Fits each result to its limit. Observe-only is the budget's own (it must store nothing and
   * signals `over_budget`); a failure of the budget falls back to a plain cut.
   */
  readonly wrapToolCall: (request: ToolRequest, handler: ToolCallHandler) => Promise<ToolCallResult>;

  constructor(options: ToolResultBudgetOptions = {}) {
    super();
    const settings = parseOptions(this.name, toolResultBudgetOptions, options);
    this.minimum = MIN_LIMIT[settings.unit];
    this.measure = createMeasure(settings.unit, settings.countTokens);
    this.limit = settings.limit ?? TOOL_RESULT_BUDGET_DEFAULTS.limit[settings.unit];
    this.toolLimits = new Map(Object.entries(settings.toolLimits));
    this.turnLimit = settings.turnLimit;
    this.excluded = new Set([...settings.excludeTools, RETRIEVAL_TOOL_NAME]);
    this.store = settings.store;
    this.storeTimeoutMs = settings.storeTimeoutMs;
    this.observeOnly = settings.observeOnly;
    this.onSignal = settings.onSignal;
    const floorOf = (own: number) => (this.turnLimit === undefined ? own : Math.min(own, this.minimum));
    this.floor = floorOf(this.limit);
    this.toolFloors = new Map([...this.toolLimits].map(([tool, limit]) => [tool, floorOf(limit)]));
    this.readsBack = !this.observeOnly && typeof this.store?.lineReaderFor === "function";
    // Observe-only stores nothing, so there is nothing to read back: offering the tool would change the agent.
    this.tools =
      this.store && !this.observeOnly
        ? [
            createRetrievalTool(this.store, {
              limit: this.limit,
              measure: this.measure,
              timeoutMs: this.storeTimeoutMs,
            }),
          ]
        : [];
    this.wrapToolCall = resultGuardHook({
      guard: this.name,
      onSignal: this.onSignal,
      failureReason: "budget_failed",
      rewrite: (message, request) => {
        const tool = request.toolCall.name;
        if (this.fitsAsItIs(message, tool)) return undefined;
        const readBack = this.readsBack ? this.readBackOf(request.toolCall) : undefined;
        return this.fit(message, tool, this.limitFor(request), readBack);
      },
      afterFailure: (message, request) => this.plainCut(message, this.limitFor(request)),
    });
  }

  /**
   * Offers \`read_stored_result\` to the model only once the thread has something stored (or a
   * summary that may name a key): until then it is a tool the model can do nothing with, in every
   * request. The tool stays registered, so a call to it is always answered.
   */
  readonly wrapModelCall = <R extends RetrievalOfferRequest>(
    request: R,
    handler: (request: R) => AIMessage | Command | Promise<AIMessage | Command>,
  ): Promise<AIMessage | Command> => promisedCall(handler, this.offeredIn(request));

  /**
   * A result it leaves alone; a request goes on without the retrieval tool, since the quiet path
   * asks only in a thread where nothing was stored and no summary may name a stored key.
   */
  readonly quiet: QuietJudge = {
    readsThread: true,
    keepsAnswer: (answer, call) => this.fitsAsItIs(answer, call.name),
    passesRequest: (request) => this.offeredIn(request, true),
  };

  /** Nearly every result: an excluded tool's, or text no longer than the least limit its call can get, measured or not. */
  private fitsAsItIs(message: ToolMessage, tool: string): boolean {
    if (this.excluded.has(tool)) return true;
    const floor = this.toolFloors.get(tool) ?? this.floor;
    return typeof message.content === "string" && message.content.length <= floor && this.measure.atMostChars === true;
  }

  /** The request as the model gets it: the retrieval tool only once something is stored. */
  private offeredIn<R extends RetrievalOfferRequest>(request: R, nothingStored = false): R {
    return this.tools.length === 0 ||
      !request.tools?.length ||
      (!nothingStored && hasStoredResults(request.state?.messages ?? []))
      ? request
      : { ...request, tools: this.offered.get(request.tools) ?? this.withoutRetrieval(request.tools) };
  }

  /**
   * `tools` without the retrieval tool, kept in `offered` for the list, so every step hands on the
   * same array: caches keyed by the request's tools (the repair guard's specs, a model's bound
   * tools) keep working.
   */
  private withoutRetrieval(tools: readonly unknown[]): unknown[] {
    // A loop, not a filter: its callback would be one more function to run.
    const offered: unknown[] = [];
    for (const tool of tools) if ((tool as { name?: unknown }).name !== RETRIEVAL_TOOL_NAME) offered.push(tool);
    this.offered.set(tools, offered);
    return offered;
  }

  private readonly offered = new WeakMap<object, unknown[]>();

  /** The tool's limit, lowered to an equal share of `turnLimit` among the calls of its turn. */
  private limitFor(request: ToolRequest): number {
    const tool = request.toolCall.name;
    const callId = request.toolCall.id;
    const messages: unknown[] | undefined = request.state?.messages;
    const own = this.toolLimits.get(tool) ?? this.limit;
    if (this.turnLimit === undefined) return own;
    const calls = messages ? turnCalls(messages, callId).filter((name) => !this.excluded.has(name)).length : 1;
    return Math.min(own, Math.max(this.minimum, Math.floor(this.turnLimit / Math.max(calls, 1))));
  }

  /** The store's reader when this call reads back a result it keeps (deepagents' `read_file` of a stored file). */
  private readBackOf(call: ToolRequest["toolCall"]): LineReader | undefined {
    if (this.observeOnly || !this.store?.lineReaderFor) return undefined;
    return this.store.lineReaderFor(call.name, fields(call.args));
  }

  /** Nothing to do (nearly every result) is decided without a promise. */
  private fit(
    message: ToolMessage,
    tool: string,
    limit: number,
    readBack: LineReader | undefined,
  ): Promise<ToolMessageRewrite | undefined> | undefined {
    if (typeof message.content === "string" && this.measure.text(message.content) <= limit) return undefined;
    const assessment = assessContent(message.content, this.measure);
    if (assessment.size <= limit) return undefined;
    // What the budget stored is not stored again: the read is cut to the lines that fit.
    if (readBack && assessment.split.media.length === 0)
      return this.cutReadBack(message, tool, limit, assessment, readBack);
    return this.fitOver(message, tool, limit, assessment);
  }

  private async cutReadBack(
    message: ToolMessage,
    tool: string,
    limit: number,
    assessment: BudgetAssessment,
    reader: LineReader,
  ): Promise<ToolMessageRewrite> {
    const read = assessment.split.text;
    const startLine = reader.startLine ?? 0;
    const text = cutReadBack(
      read,
      startLine,
      limit,
      this.measure,
      reader,
      await this.readOnInLine(read, limit, reader),
    );
    const hash = await loadHasher();
    const original = {
      fingerprint: resultFingerprint(message.content, hash),
      size: contentText(message.content).length,
    };
    const budget = { action: "truncate" as BudgetAction, limit, unit: this.measure.unit, readBack: true };
    const content = assessment.split.blocks ? [{ type: "text", text }] : text;
    const rewritten = rewriteToolMessage(message, {
      content: content as ToolMessage["content"],
      mark: this.markFor(message, "result_truncated", { original, budget }),
    });
    await emitSignal(
      {
        guard: this.name,
        action: "warn",
        toolCallId: message.tool_call_id,
        tool,
        code: "result_truncated",
        reason: "result_truncated",
        detail: { ...budget, size: assessment.size, chars: original.size },
      },
      this.onSignal,
    );
    return { message: rewritten };
  }

  /**
   * For a read back whose first line alone is over the budget (minified JSON): the retrieval
   * tool's call that reads on inside that line, found in the stored result; the reader's own
   * window would skip the rest of the line.
   */
  private async readOnInLine(
    read: string,
    limit: number,
    reader: LineReader,
  ): Promise<((shownChars: number) => string) | undefined> {
    const key = reader.key;
    if (key === undefined || this.tools.length === 0 || !this.store || !firstLineTooLong(read, limit, this.measure))
      return undefined;
    try {
      const context = { toolName: reader.tool, toolCallId: "", threadId: currentThreadId(), state: currentTaskState() };
      const stored = await withStoreTimeout(
        Promise.resolve().then(() => this.store!.get(key, context)),
        this.storeTimeoutMs,
        storeName(this.store),
        key,
        "read",
      );
      const start = stored === undefined ? undefined : lineStart(stored, reader.startLine ?? 0);
      return start === undefined ? undefined : (shown) => retrievalToolHint(key, start + shown);
    } catch {
      return undefined; // the reader's own window still moves on
    }
  }

  /**
   * The read_file window (or the reader's) from a character of `text` on, sized to the reader's own
   * budget. A line too long for it (minified JSON) cannot be read on by lines: the retrieval tool
   * reads it by characters.
   */
  private windowsOf(reader: LineReader, text: string, key: string): (from: number) => string {
    const budget = this.toolLimits.get(reader.tool) ?? this.limit;
    return (from) => {
      const { offset, limit, lineTooLong } = fittingLineWindow(text, from, budget, this.measure);
      if (lineTooLong && this.tools.length > 0) return retrievalToolHint(key, from);
      return reader.window(offset, limit);
    };
  }

  /** After a failure of the budget itself: neither crash the run nor let the flood through. */
  private plainCut(message: ToolMessage, limit: number): ToolMessageRewrite | undefined {
    let text: string;
    try {
      text = contentText(message.content);
    } catch {
      return undefined; // content that cannot even be read cannot be measured either
    }
    if (text.length <= limit) return undefined;
    const kept = text.slice(0, pairSafeEnd(text, Math.floor(limit / 2)));
    const budget = { action: "truncate", limit, unit: this.measure.unit };
    return {
      message: rewriteToolMessage(message, {
        content: emergencyCutText(kept, text.length),
        mark: this.markFor(message, "budget_failed", { budget }),
      }),
    };
  }

  private async fitOver(
    message: ToolMessage,
    tool: string,
    limit: number,
    assessment: BudgetAssessment,
  ): Promise<ToolMessageRewrite | undefined> {
    if (this.observeOnly) {
      const detail = { limit, unit: this.measure.unit, size: assessment.size, observeOnly: true };
      await emitSignal(
        {
          guard: this.name,
          action: "warn",
          toolCallId: message.tool_call_id,
          tool,
          code: "over_budget",
          reason: "over_budget",
          detail,
        },
        this.onSignal,
      );
      return undefined;
    }
    const plan = planBudget(assessment, limit, this.measure);

    const hash = await loadHasher();
    const key = offloadKey(
      tool,
      message.tool_call_id,
      hash(offloadDigestInput(tool, message.tool_call_id, assessment.split.text)),
    );
    const { outcome, stateUpdate } = plan.cutText
      ? await this.offload(key, assessment.split.text, tool, message.tool_call_id)
      : NOTHING_STORED;
    const facts = {
      tool,
      chars: assessment.split.text.length,
      size: assessment.textSize,
      unit: this.measure.unit,
      limit,
      outcome,
    };
    const { content, cut } = renderBudgeted(assessment, plan, facts, this.measure);

    const action: BudgetAction = !plan.cutText ? "drop-media" : outcome.kind === "stored" ? "offload" : "truncate";
    const original = {
      fingerprint: resultFingerprint(message.content, hash),
      size: contentText(message.content).length,
      ...(outcome.kind === "stored"
        ? { offloadKey: key, ...(outcome.readHint !== undefined ? { readHint: outcome.readHint } : {}) }
        : {}),
    };
    const budget = {
      action,
      limit,
      unit: this.measure.unit,
      ...(cut ? { head: cut.head.length, tail: cut.tail.length, omitted: cut.omitted } : {}),
      ...(plan.dropped.length > 0 ? { mediaRemoved: plan.dropped.length } : {}),
    };
    const reason = signalReason(action, outcome);
    const rewritten = rewriteToolMessage(message, {
      content: content as ToolMessage["content"],
      mark: this.markFor(message, reason, { original, budget }),
    });

    await emitSignal(
      {
        guard: this.name,
        action: "warn",
        toolCallId: message.tool_call_id,
        tool,
        code: reason,
        reason,
        detail: {
          ...budget,
          size: assessment.size,
          chars: original.size,
          ...(outcome.kind === "stored" ? { key } : { notKept: outcome.reason ?? "no store" }),
        },
      },
      this.onSignal,
    );
    return stateUpdate ? { message: rewritten, stateUpdate } : { message: rewritten };
  }

  /** Keeps the full text in the store; a failing or silent store becomes the reason the notice gives. */
  private async offload(key: string, text: string, toolName: string, toolCallId: string): Promise<Offloaded> {
    if (!this.store) return NOTHING_STORED;
    try {
      const context = { toolName, toolCallId, threadId: currentThreadId(), state: currentTaskState() };
      const receipt = await withStoreTimeout(
        Promise.resolve().then(() => this.store!.put(key, text, context)),
        this.storeTimeoutMs,
        storeName(this.store),
        key,
        "put",
      );
      const readFrom = receipt?.lineReader ? this.windowsOf(receipt.lineReader, text, key) : undefined;
      return {
        outcome: { kind: "stored", key, readHint: receipt?.readHint, ...(readFrom ? { readFrom } : {}) },
        stateUpdate: receipt?.stateUpdate,
      };
    } catch (error) {
      return { outcome: { kind: "not-stored", reason: storeFailureReason(error) } };
    }
  }

  /**
   * The budget's mark is a "warn": the call ran and its result reached the model, so the loop
   * guards must not count it as refused. Another guard's mark on the message is kept, with the
   * budget's fields added.
   */
  private markFor(message: ToolMessage, reason: string, fields: Record<string, unknown>): ToolMessageMark {
    const existing = readMark(message);
    if (existing) return { ...existing, reason: existing.reason ?? reason, ...fields };
    return { guard: this.name, action: "warn", reason, ...fields };
  }
}

/** The part of LangChain's model request the retrieval offer reads and changes. */
interface RetrievalOfferRequest {
  tools?: unknown[];
  state?: Partial<GuardState>;
}

interface Offloaded {
  outcome: PreviewOutcome;
  stateUpdate?: Record<string, unknown>;
}

const NOTHING_STORED: Offloaded = { outcome: { kind: "not-stored", reason: undefined } };

function signalReason(action: BudgetAction, outcome: PreviewOutcome): SignalCode {
  if (action === "offload") return "result_offloaded";
  if (action === "drop-media") return "media_removed";
  return outcome.kind === "not-stored" && outcome.reason ? "store_failed" : "result_truncated";
}

/** Names of the calls in the AI message that made `callId` (the turn running in parallel). */
function turnCalls(messages: readonly unknown[], callId: string | undefined): string[] {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messageKind(messages[i]) !== "ai") continue;
    const calls = toolCallsOf(messages[i]);
    if (callId === undefined || calls.some((call) => call.id === callId)) return calls.map((call) => call.name);
  }
  return [];
}

/** The thread of the running graph (stores keep each thread's results apart). */
function currentThreadId(): string | undefined {
  try {
    return threadIdOf(getConfig());
  } catch {
    return undefined;
  }
}
