import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { Command, isGraphBubbleUp } from "@langchain/langgraph";
import { z } from "zod";
import { stopNotice } from "../../core/answers.js";
import { firstLineOf, InvalidOptionsError } from "../../core/errors.js";
import { readMark } from "../../core/marks.js";
import { isSummary, messageKind, nameOf, toolCallIdOf } from "../../core/messages.js";
import { emitSignal, type SignalHandler } from "../../core/signals.js";
import { createMeasure, type CountTokens, type Measure } from "../budget/measure.js";
import { storeFailureReason } from "../budget/texts.js";
import { MIN_LIMIT } from "../budget/plan.js";
import { MESSAGE_OVERHEAD, RequestMeter } from "./estimate.js";
import { groupsOf, planShrink, type PlanEntry, type ShrinkPlan } from "./plan.js";
import { isContextOverflowError, overflowNumbers } from "./providerErrors.js";
import { CONTEXT_RECORD_KEY, contextRecord, type ContextRecord, type RemovedPart } from "./record.js";
import { keptAt, noteMessage, PLACEHOLDER_WHERE, previewResult, resultParts, stubbedText, stubMessage, stubResult } from "./replacements.js";
import { droppedSpanNote, overflowStopExplanation, signalReason, transcriptOf, type ContextOverflowCode, type KeptWhere, type SpanPart } from "./texts.js";
import { answerReserve, calibration, profileWindow, providerWindowIn } from "./window.js";
import { currentTaskState } from "../../hooks/taskState.js";
import { loadHasher, type Hasher } from "../../observe/hash.js";
import { MemoryOffloadStore } from "../../offload/MemoryOffloadStore.js";
import type { OffloadStore } from "../../offload/OffloadStore.js";
import { offloadDigestInput, offloadKey } from "../../offload/keys.js";
import { createRetrievalTool } from "../budget/retrievalTool.js";
import { threadIdOf } from "../../offload/threads.js";
import { DEFAULT_STORE_TIMEOUT_MS, storeName, withStoreTimeout } from "../../offload/timeouts.js";
import { MiddlewareBase } from "../../hooks/middlewareBase.js";
import { mergeValue } from "../../hooks/toolResults.js";

const GUARD = "ContextOverflowGuardMiddleware";

const positive = (what: string) => z.number().int(`${what} must be a whole number`).positive(`${what} must be > 0`);

/** Options, their defaults and their meaning in one place; bad options fail at construction. */
export const contextOverflowGuardOptions = z.object({
  maxInputTokens: positive("maxInputTokens").optional().describe("The model's input window in tokens. Default: the model's `profile.maxInputTokens`; without either, nothing is shrunk before sending (a provider's refusal is still recovered from)."),
  reserveTokens: z.number().int().nonnegative().optional().describe("Tokens kept free for the answer. Default: the model's `maxTokens`, else 4,096; at most a quarter of the window."),
  shrinkTo: z.number().gt(0).lte(1).default(0.9).describe("A request over the limit is shrunk to this share of it, leaving room for the estimate's error."),
  largeResultTokens: positive("largeResultTokens").default(1000).describe("Tool results above this many tokens are the first to be offloaded (oldest first)."),
  previewTokens: z.number().int().min(MIN_LIMIT.tokens).default(500).describe("Size of the preview (head and tail) an offloaded large result keeps in the request."),
  countTokens: z.custom<CountTokens>((v) => typeof v === "function", "must be a function (text) => number").optional().describe("Counts the tokens of a text, e.g. your model's tokenizer. Default: an estimate that errs high, calibrated by the provider's reported input tokens."),
  store: z.custom<OffloadStore>((v) => v !== null && typeof v === "object" && typeof (v as OffloadStore).put === "function" && typeof (v as OffloadStore).get === "function", "must be an OffloadStore (put and get)").optional().describe("Where offloaded content is kept. Default: a MemoryOffloadStore (this process only)."),
  retrievalTool: z
    .union([z.boolean(), z.custom<StructuredToolInterface>((v) => v !== null && typeof v === "object" && typeof (v as { name?: unknown }).name === "string", "must be a boolean or a tool")])
    .default(true)
    .describe("`true`: register `read_stored_result` for the store. A tool: the one another middleware registers for the same store (a ToolResultBudgetMiddleware's `tools[0]`), offered again in a shrunk request that lacks it. `false`: neither."),
  storeTimeoutMs: positive("storeTimeoutMs").default(DEFAULT_STORE_TIMEOUT_MS).describe("How long to wait for the store; a store that does not answer counts as failed."),
  observeOnly: z.boolean().default(false).describe("Signal requests over the limit and provider refusals, but change nothing."),
  onSignal: z.custom<SignalHandler>((v) => typeof v === "function", "must be a function").optional().describe("Receives every signal."),
});

export type ContextOverflowGuardOptions = z.input<typeof contextOverflowGuardOptions>;
type Settings = z.output<typeof contextOverflowGuardOptions>;

/**
 * Below this share of the limit, a request is accepted on the running total of its history (see
 * `RequestMeter.summary`); at or above it, every message is measured again.
 */
const FAST_ACCEPT_SHARE = 0.5;
/**
 * A dropped span is stored in parts of this many groups, aligned on the history's groups: a full
 * part holds the same messages at every later step, so it is stored once, and what the store
 * holds grows with the history, not with its square.
 */
const GROUPS_PER_PART = 16;
/** Largest answer of the registered retrieval tool, in tokens. */
const RETRIEVAL_TOKENS = 5000;
/** Puts remembered per process, so a result offloaded at one step is not written again at the next. */
const MAX_REMEMBERED_PUTS = 10_000;

/** The parts of LangChain's model request the guard reads and rewrites. */
interface ModelRequestLike {
  model?: unknown;
  messages: BaseMessage[];
  systemMessage?: unknown;
  tools?: readonly unknown[];
  state?: unknown;
  runtime?: unknown;
}
type ModelHandler<R> = (request: R) => AIMessage | Command | Promise<AIMessage | Command>;

/** The recovery's target after a refusal, and the window the refusal stated. */
interface Forced {
  target: number;
  window: number | undefined;
  reserve: number;
  providerWindow: number | undefined;
}

/** A request measured: it fits as it is, or it is over the limit by these numbers. */
type Assessed<R> =
  | { kind: "fits"; prepared: Extract<Prepared<R>, { kind: "send" }> }
  | {
      kind: "over";
      unchanged: Extract<Prepared<R>, { kind: "send" }>;
      forced: Forced | undefined;
      fixedTokens: number;
      fullTokens: number;
      factor: number;
      limit: number | undefined;
      window: number | undefined;
      reserve: number;
      providerWindow: number | undefined;
    };

/** A request ready to send, with what the guard did to it. */
type Prepared<R> =
  | { kind: "send"; request: R; record?: ContextRecord; sentTokens: number; window: number | undefined; reserve: number; providerWindow: number | undefined }
  | { kind: "stop"; minimum: number; window?: number };

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
 * Anthropic "prompt is too long", LangChain's `ContextOverflowError`), the guard shrinks once
 * more, to what the provider's numbers say fits, and retries; if that is refused too, the run
 * ends with a final message that says why (no exception).
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
  private readonly store: OffloadStore;
  private readonly meter: RequestMeter;
  private readonly measure: Measure;
  /** Puts already done in this process, by thread and key (a cache: a missing entry only costs a put). */
  private readonly puts = new Map<string, Promise<KeptWhere>>();
  /** Per message: its sizes once shortened, the keys of what it leaves out, its last shortened form (caches). */
  private readonly sizes = new WeakMap<object, { stub: number; preview?: number }>();
  private readonly keys = new WeakMap<object, Map<string, string>>();
  private readonly renders = new WeakMap<object, { id: string; message: BaseMessage }>();
  /** Loaded at the first shrink: most runs never need it. */
  private hasher: Hasher | undefined;

  constructor(options: ContextOverflowGuardOptions = {}) {
    super();
    const parsed = contextOverflowGuardOptions.safeParse(options);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new InvalidOptionsError(GUARD, issue.path.join(".") || "options", issue.message);
    }
    this.settings = parsed.data;
    this.store = parsed.data.store ?? new MemoryOffloadStore();
    this.meter = new RequestMeter(parsed.data.countTokens);
    this.measure = createMeasure("tokens", (text) => this.meter.text(text));
    const retrieval = parsed.data.retrievalTool;
    this.tools = retrieval === true ? [createRetrievalTool(this.store, { limit: RETRIEVAL_TOKENS, measure: this.measure, timeoutMs: parsed.data.storeTimeoutMs })] : [];
    this.retrieval = retrieval === true ? this.tools[0] : retrieval === false ? undefined : retrieval;
  }

  readonly wrapModelCall = <R extends ModelRequestLike>(request: R, handler: ModelHandler<R>): Promise<AIMessage | Command> => {
    let assessed: Assessed<R>;
    try {
      assessed = this.assess(request, undefined);
    } catch (error) {
      return this.failedOpen(request, handler, error);
    }
    // Nearly every step: the request fits, and the guard adds one promise, to catch a refusal.
    if (assessed.kind === "fits") return Promise.resolve(handler(request)).catch((error: unknown) => this.refused(request, handler, assessed.prepared, error, []));
    return this.overLimit(request, handler, assessed);
  };

  private async overLimit<R extends ModelRequestLike>(request: R, handler: ModelHandler<R>, assessed: Extract<Assessed<R>, { kind: "over" }>): Promise<AIMessage | Command> {
    const collected: Record<string, unknown>[] = [];
    let first: Prepared<R>;
    try {
      first = await this.shrink(request, assessed, collected);
    } catch (error) {
      return this.failedOpen(request, handler, error);
    }
    if (first.kind === "stop") return this.stop("cannot_fit", first.window, first.minimum);
    try {
      return this.answered(await handler(first.request), first, collected);
    } catch (error) {
      return this.refused(request, handler, first, error, collected);
    }
  }

  /** The guard's own failure never stops the run: the request goes as it is. */
  private async failedOpen<R extends ModelRequestLike>(request: R, handler: ModelHandler<R>, error: unknown): Promise<AIMessage | Command> {
    await this.signal("warn", "guard_failed", { error: String(error) });
    return handler(request);
  }

  /** A model call failed: a refusal as too long is recovered from, anything else goes on up. */
  private async refused<R extends ModelRequestLike>(
    request: R,
    handler: ModelHandler<R>,
    sent: Extract<Prepared<R>, { kind: "send" }>,
    error: unknown,
    collected: Record<string, unknown>[],
  ): Promise<AIMessage | Command> {
    if (isGraphBubbleUp(error) || !isContextOverflowError(error)) throw error;
    return this.recover(request, handler, sent, error, collected);
  }

  /** After the provider refused the request as too long: shrink to what its numbers say fits, retry once. */
  private async recover<R extends ModelRequestLike>(
    request: R,
    handler: ModelHandler<R>,
    refused: Extract<Prepared<R>, { kind: "send" }>,
    error: unknown,
    collected: Record<string, unknown>[],
  ): Promise<AIMessage | Command> {
    const numbers = overflowNumbers(error);
    const detail = { sentTokens: refused.sentTokens, window: refused.window, providerLimit: numbers.limit, providerCount: numbers.requested, error: firstLineOf(error).slice(0, 300) };
    if (this.settings.observeOnly) {
      await this.signal("warn", "provider_refused", { ...detail, observeOnly: true });
      throw error;
    }
    const window = numbers.limit ?? refused.window;
    const reserve = window === undefined ? 0 : numbers.limit !== undefined ? this.reserveFor(request.model, window) : refused.reserve;
    // How many provider tokens an estimated one turned out to be; without numbers, assume twice.
    const ratio = numbers.requested !== undefined && refused.sentTokens > 0 ? Math.max(1, numbers.requested / refused.sentTokens) : 2;
    const fromWindow = window === undefined ? Infinity : Math.floor(((window - reserve) * this.settings.shrinkTo) / ratio);
    const target = Math.max(0, Math.min(fromWindow, Math.floor(refused.sentTokens * 0.75)));
    await this.signal("warn", "provider_refused", { ...detail, retryTarget: target });

    let second: Prepared<R>;
    try {
      const forced = { target, window, reserve, providerWindow: numbers.limit ?? refused.providerWindow };
      second = await this.shrink(request, this.assess(request, forced) as Extract<Assessed<R>, { kind: "over" }>, collected);
    } catch (failure) {
      await this.signal("warn", "guard_failed", { error: String(failure) });
      return this.stop("still_refused", window, refused.sentTokens);
    }
    if (second.kind === "stop") return this.stop("cannot_fit", second.window, second.minimum);
    try {
      return this.answered(await handler(second.request), second, collected, "overflow_recovered");
    } catch (again) {
      if (isGraphBubbleUp(again) || !isContextOverflowError(again)) throw again;
      return this.stop("still_refused", window, second.sentTokens);
    }
  }

  /**
   * Whether the request fits as it is (nearly every step, decided from the running total of the
   * history, without a promise), or what shrinking it needs. `forced` is the recovery's target
   * after a refusal, which always shrinks.
   */
  private assess<R extends ModelRequestLike>(request: R, forced: Forced | undefined): Assessed<R> {
    const messages = request.messages ?? [];
    const fixedTokens = this.meter.fixed(request.systemMessage, request.tools);
    const history = this.meter.summary(messages, providerWindowIn);
    const providerWindow = forced ? forced.providerWindow : history.learnedWindow;
    const configured = this.settings.maxInputTokens ?? profileWindow(request.model);
    const window = forced ? forced.window : providerWindow !== undefined && (configured === undefined || providerWindow < configured) ? providerWindow : configured;
    const reserve = forced ? forced.reserve : window === undefined ? 0 : this.reserveFor(request.model, window);
    const sent = { window, reserve, providerWindow };
    const unchanged = (tokens: number) => ({ kind: "send" as const, request, sentTokens: tokens, ...sent });
    if (window === undefined && !forced) return { kind: "fits", prepared: unchanged(fixedTokens + history.tokens) };
    const factor = calibration(messages, (end) => this.meter.summary(messages, providerWindowIn, end).tokens, fixedTokens);
    const limit = window === undefined ? undefined : window - reserve;
    // Far below the limit the running total decides; nearer to it, every message is measured again.
    if (!forced && (fixedTokens + history.tokens) * factor <= limit! * FAST_ACCEPT_SHARE) return { kind: "fits", prepared: unchanged(fixedTokens + history.tokens) };
    const fullTokens = fixedTokens + this.meter.messages(messages);
    if (!forced && fullTokens * factor <= limit!) return { kind: "fits", prepared: unchanged(fullTokens) };
    return { kind: "over", unchanged: unchanged(fullTokens), forced, fixedTokens, fullTokens, factor, limit, ...sent };
  }

  /** The request shrunk to its target: content stored, shortened messages in place of the originals. */
  private async shrink<R extends ModelRequestLike>(request: R, over: Extract<Assessed<R>, { kind: "over" }>, collected: Record<string, unknown>[]): Promise<Prepared<R>> {
    const { forced, fixedTokens, fullTokens, factor, limit, window, reserve, providerWindow } = over;
    const messages = request.messages ?? [];
    const detail = { window, reserve, limit, estimatedTokens: Math.ceil(fullTokens * factor), calibration: round(factor) };
    if (this.settings.observeOnly) {
      await this.signal("warn", "over_window", { ...detail, observeOnly: true });
      return over.unchanged;
    }
    const target = forced ? forced.target : Math.floor((limit! * this.settings.shrinkTo) / factor);
    const entries = this.entriesOf(messages);
    // The retrieval tool may join the request's tools: its schema is counted in advance.
    const offered = this.withRetrieval(request.tools, true);
    const fixedSent = offered === request.tools ? fixedTokens : this.meter.fixed(request.systemMessage, offered);
    const plan = planShrink(entries, fixedSent, target, { largeTokens: this.settings.largeResultTokens, noteTokens: this.noteBound });
    if (!plan.fits) {
      await this.signal("stop", "context_overflow", { ...detail, cause: "cannot_fit", minimumTokens: Math.ceil(plan.after * factor) });
      return { kind: "stop", minimum: Math.ceil(plan.after * factor), window };
    }
    const { shrunk, removed } = await this.apply(messages, entries, plan, collected, threadIdOf(request.runtime));
    const tools = this.withRetrieval(request.tools, removed.some((part) => part.key !== undefined));
    const sentTokens = (tools === request.tools ? fixedTokens : fixedSent) + this.meter.messages(shrunk);
    const record = contextRecord({ guard: GUARD, reason: "request_shrunk", window, ...(providerWindow !== undefined ? { providerWindow } : {}), limit, fullTokens, sentTokens, removed });
    await this.signal("warn", "request_shrunk", {
      ...detail,
      afterRefusal: forced !== undefined,
      sentTokens,
      previewed: count(removed, "preview"),
      stubbed: count(removed, "stub"),
      dropped: count(removed, "drop"),
      keys: [...new Set(removed.flatMap((r) => (r.key ? [r.key] : [])))].slice(0, 20),
    });
    return { kind: "send", request: { ...request, messages: shrunk, tools }, record, sentTokens, window, reserve, providerWindow };
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

  private reserveFor(model: unknown, window: number): number {
    return this.settings.reserveTokens !== undefined ? Math.min(this.settings.reserveTokens, window - 1) : answerReserve(model, window);
  }

  /** Each message sized as it is, as a preview and as a stub (stubs measured with the longest key and hint). */
  private entriesOf(messages: readonly BaseMessage[]): PlanEntry[] {
    const kinds = messages.map(planKind);
    const groups = groupsOf(kinds);
    const latestUser = lastIndex(messages, (m) => messageKind(m) === "human" && !isSummary(m));
    const lastAi = lastIndex(messages, (m) => messageKind(m) === "ai");
    return messages.map((message, i) => {
      const kind = kinds[i]!;
      const tokens = this.meter.message(message);
      const fixed = kind === "system" || i === latestUser;
      const entry: PlanEntry = { kind, tokens, fixed, group: groups[i]!, stubTokens: tokens };
      if (fixed || kind === "other" || tokens <= this.settings.previewTokens / 2) return entry;
      // The last AI message is what the model is answering now: its reasoning and calls stay.
      if (kind === "ai" && i === lastAi) return entry;
      const shortened = this.shortenedSizes(message, kind === "tool");
      entry.stubTokens = Math.min(tokens, shortened.stub);
      if (shortened.preview !== undefined) entry.previewTokens = shortened.preview;
      return entry;
    });
  }

  /** The most a message costs as a preview (tool results) and as a stub, measured with the longest key and hint; once per message. */
  private shortenedSizes(message: BaseMessage, tool: boolean): { stub: number; preview?: number } {
    let sizes = this.sizes.get(message);
    if (!sizes) {
      if (tool) {
        const { media } = resultParts(message as ToolMessage);
        sizes = { preview: MESSAGE_OVERHEAD + this.settings.previewTokens + this.meter.content(media), stub: this.meter.message(stubResult(message as ToolMessage, PLACEHOLDER_WHERE)) };
      } else {
        sizes = { stub: this.meter.message(stubMessage(message, PLACEHOLDER_WHERE)) };
      }
      this.sizes.set(message, sizes);
    }
    return sizes;
  }

  /** The largest note a dropped span of `groups` groups can get (its parts: see `partsOf`). */
  private readonly noteBound = (groups: number): number => {
    const parts = Math.ceil(groups / GROUPS_PER_PART) + 1;
    const placeholder = Array.from({ length: parts }, () => ({ first: 999_999, last: 999_999, where: PLACEHOLDER_WHERE }));
    return MESSAGE_OVERHEAD + this.meter.text(droppedSpanNote(999_999, 999_999, placeholder));
  };

  /** The plan carried out: content stored first, then the shortened messages in place of the originals. */
  private async apply(
    messages: readonly BaseMessage[],
    entries: readonly PlanEntry[],
    plan: ShrinkPlan,
    collected: Record<string, unknown>[],
    threadId: string | undefined,
  ): Promise<{ shrunk: BaseMessage[]; removed: RemovedPart[] }> {
    const hash = (this.hasher ??= await loadHasher());
    const removed: RemovedPart[] = [];
    const replaced = new Map<number, BaseMessage>();
    const spanAt = new Map(plan.droppedSpans.map(([from, to]) => [from, to]));

    await Promise.all(
      plan.actions.map(async (action, i) => {
        if (action === undefined || action === "drop") return;
        const message = messages[i]!;
        const part = partOf(message, i, entries[i]!, action);
        const tool = ToolMessage.isInstance(message) ? message : undefined;
        const stored = tool
          ? { name: nameOf(tool) ?? "tool", id: tool.tool_call_id, text: () => (action === "preview" ? resultParts(tool).text : stubbedText(tool)) }
          : { name: `${part.kind}_message`, id: message.id ?? `message-${i}`, text: () => transcriptOf([message], i) };
        // A transcript names positions: its key is kept per position.
        const where = await this.keep(message, tool ? action : `${action}:${i}`, stored, collected, threadId, hash);
        replaced.set(
          i,
          this.rendered(message, action, where, () =>
            tool ? (action === "preview" ? previewResult(tool, where, this.settings.previewTokens, this.measure) : stubResult(tool, where)) : stubMessage(message, where),
          ),
        );
        removed.push({ ...part, ...(where.key ? { key: where.key } : {}) });
      }),
    );

    const shrunk: BaseMessage[] = [];
    for (let i = 0; i < messages.length; i++) {
      const to = spanAt.get(i);
      if (to !== undefined) {
        const span = messages.slice(i, to);
        const parts: SpanPart[] = [];
        for (const [from, end] of partsOf(entries, i, to)) {
          const stored = { name: "earlier_messages", id: messages[from]!.id ?? `message-${from}`, text: () => transcriptOf(messages.slice(from, end), from) };
          const where = await this.keep(messages[from]!, `part:${from}-${end}:${messages[end - 1]!.id ?? ""}`, stored, collected, threadId, hash);
          parts.push({ first: from, last: end - 1, where });
          for (let k = from; k < end; k++) removed.push({ ...partOf(messages[k]!, k, entries[k]!, "drop"), ...(where.key ? { key: where.key } : {}) });
        }
        const toolResults = span.filter((m) => messageKind(m) === "tool").length;
        shrunk.push(noteMessage(droppedSpanNote(span.length, toolResults, parts)));
        i = to - 1;
        continue;
      }
      shrunk.push(replaced.get(i) ?? messages[i]!);
    }
    removed.sort((a, b) => a.index - b.index);
    return { shrunk, removed };
  }

  /**
   * Stores what `owner` leaves out for `purpose` under its key (once per process and thread) and
   * says where it is, or why it is not. The key is a hash of the content, computed once per
   * message and purpose; the content itself is only built when it has to be written.
   */
  private keep(
    owner: object,
    purpose: string,
    stored: { name: string; id: string; text: () => string },
    collected: Record<string, unknown>[],
    threadId: string | undefined,
    hash: Hasher,
  ): Promise<KeptWhere> {
    let keys = this.keys.get(owner);
    if (!keys) this.keys.set(owner, (keys = new Map()));
    let text: string | undefined;
    let key = keys.get(purpose);
    if (key === undefined) {
      text = stored.text();
      key = offloadKey(stored.name, stored.id, hash(offloadDigestInput(stored.name, stored.id, text)));
      keys.set(purpose, key);
    }
    const memo = `${threadId ?? ""}\u0000${key}`;
    const known = this.puts.get(memo);
    if (known) return known;
    const content = text ?? stored.text();
    const context = { toolName: stored.name, toolCallId: stored.id, threadId, state: currentTaskState() };
    const put = withStoreTimeout(Promise.resolve().then(() => this.store.put(key, content, context)), this.settings.storeTimeoutMs, storeName(this.store), key, "put").then(
      (receipt) => {
        // A store that writes graph state (deepagents' files) is written again with every request that needs it.
        if (receipt?.stateUpdate) {
          collected.push(receipt.stateUpdate);
          this.puts.delete(memo);
        }
        return keptAt(key, receipt?.readHint);
      },
      (error: unknown) => {
        this.puts.delete(memo);
        return { failure: storeFailureReason(error).replace(/^storing them failed: /, "") } as KeptWhere;
      },
    );
    this.puts.set(memo, put);
    if (this.puts.size > MAX_REMEMBERED_PUTS) this.puts.delete(this.puts.keys().next().value!);
    return put;
  }

  /** The shortened message for `message`, `action` and `where`, built once while they stay the same. */
  private rendered(message: BaseMessage, action: string, where: KeptWhere, render: () => BaseMessage): BaseMessage {
    const id = `${action}\u0000${where.key !== undefined ? `${where.key}\u0000${where.howToRead}` : where.failure}`;
    const known = this.renders.get(message);
    if (known?.id === id) return known.message;
    const made = render();
    this.renders.set(message, { id, message: made });
    return made;
  }

  /** The model's answer, with the record of what its request lacked; a Command when the store wrote state. */
  private answered(response: AIMessage | Command, prepared: Extract<Prepared<ModelRequestLike>, { kind: "send" }>, collected: Record<string, unknown>[], reason?: ContextRecord["reason"]): AIMessage | Command {
    const record = prepared.record && reason ? { ...prepared.record, reason } : prepared.record;
    if (!record || !AIMessage.isInstance(response) || readMark(response)?.action === "stop") return response;
    // The answer is a fresh object from this call, not yet in state: the record is written onto it.
    const metadata = { ...response.response_metadata, [CONTEXT_RECORD_KEY]: record };
    response.response_metadata = metadata;
    (response as unknown as { lc_kwargs: Record<string, unknown> }).lc_kwargs.response_metadata = metadata;
    if (collected.length === 0) return response;
    return new Command({ update: mergeUpdates(collected) });
  }

  private async stop(cause: "cannot_fit" | "still_refused", window: number | undefined, tokens: number): Promise<AIMessage> {
    if (cause === "still_refused") await this.signal("stop", "context_overflow", { cause, window, sentTokens: tokens });
    return stopNotice(GUARD, "context_overflow", overflowStopExplanation(cause, window, tokens));
  }

  private signal(action: "warn" | "stop", code: ContextOverflowCode, detail: Record<string, unknown>): Promise<void> {
    return emitSignal({ guard: GUARD, action, code, reason: signalReason(code, detail), detail }, this.settings.onSignal);
  }
}

/** `[from, to)` runs of a span's entries that share a part (`GROUPS_PER_PART` groups, aligned on group numbers). */
function partsOf(entries: readonly PlanEntry[], from: number, to: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let i = from; i < to; ) {
    const part = Math.floor(entries[i]!.group / GROUPS_PER_PART);
    let j = i + 1;
    while (j < to && Math.floor(entries[j]!.group / GROUPS_PER_PART) === part) j++;
    out.push([i, j]);
    i = j;
  }
  return out;
}

function planKind(message: BaseMessage): PlanEntry["kind"] {
  const kind = messageKind(message);
  return kind === "ai" || kind === "tool" || kind === "human" || kind === "system" ? kind : "other";
}

function partOf(message: BaseMessage, index: number, entry: PlanEntry, action: RemovedPart["action"]): RemovedPart {
  const kind = entry.kind === "system" ? "other" : entry.kind;
  const part: RemovedPart = { index, kind, action, tokens: entry.tokens };
  if (kind === "tool") {
    const id = toolCallIdOf(message);
    const tool = nameOf(message);
    if (id !== undefined) part.toolCallId = id;
    if (tool !== undefined) part.tool = tool;
  }
  return part;
}

function lastIndex(messages: readonly BaseMessage[], test: (m: BaseMessage) => boolean): number {
  for (let i = messages.length - 1; i >= 0; i--) if (test(messages[i]!)) return i;
  return -1;
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

