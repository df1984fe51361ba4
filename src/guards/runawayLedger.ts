import { contentOf, markOf, messageKind, toolCallsOf } from "../core/messages.js";
import { canonicalJson } from "../observe/canonical.js";

/** Where a token count comes from: the providers' `usage_metadata`, or characters / 4. */
export type TokenSource = "usage_metadata" | "estimate";

/** The rough rule LangChain's `countTokensApproximately` uses too. */
export const CHARS_PER_TOKEN = 4;

/**
 * Token spend of a stretch of model calls (a run or a whole thread), counted both ways at once.
 * Usage figures are read only when every call reported them: a sum that mixed provider counts
 * (system prompt and tool schemas included) with estimates (messages only) would mean nothing.
 */
class Spend {
  modelCalls = 0;
  callsWithoutUsage = 0;
  usageTokens = 0;
  estimatedChars = 0;
  lastUsageTokens = 0;
  lastEstimatedChars = 0;

  add(usageTokens: number | undefined, estimatedChars: number): void {
    this.modelCalls++;
    if (usageTokens === undefined) this.callsWithoutUsage++;
    this.lastUsageTokens = usageTokens ?? 0;
    this.usageTokens += this.lastUsageTokens;
    this.lastEstimatedChars = estimatedChars;
    this.estimatedChars += estimatedChars;
  }

  get source(): TokenSource {
    return this.modelCalls > 0 && this.callsWithoutUsage === 0 ? "usage_metadata" : "estimate";
  }

  /** Tokens of every call, or of every call but the latest one. */
  tokens(withLatest = true): number {
    if (this.source === "usage_metadata") return this.usageTokens - (withLatest ? 0 : this.lastUsageTokens);
    return (this.estimatedChars - (withLatest ? 0 : this.lastEstimatedChars)) / CHARS_PER_TOKEN;
  }
}

class RunTally {
  readonly spend = new Spend();
  /** What the run's first model call read: its reported input tokens, and the estimated context. */
  inputUsageTokens: number | undefined;
  inputChars = 0;
  toolCalls = 0;
  /** Tool name -> 0-based index (among the run's model calls) of the call that first asked for it. */
  readonly firstAskedAt = new Map<string, number>();
  readonly callsByTool = new Map<string, number>();
  /** Tool name -> `subagent_type` argument -> calls, for tools that delegate to subagents. */
  readonly subagentsByTool = new Map<string, Map<string, number>>();
}

/** Token measures of the current run (see RunawayGuardMiddleware for the definitions). */
export interface RunMeasure {
  source: TokenSource;
  /** Tokens the run's model calls consumed: input + output of each call. */
  tokens: number;
  /** Input of the run's first model call, raised to the floor the caller asked for. */
  inputTokens: number;
  /** tokens / inputTokens; 0 before the run's first model call. */
  factor: number;
  /** The factor before the latest model call. */
  factorBefore: number;
  modelCalls: number;
  toolCalls: number;
}

export interface ThreadMeasure {
  source: TokenSource;
  tokens: number;
  modelCalls: number;
}

/**
 * Token accounting of one message history, kept up to date incrementally: `update` processes
 * only the messages added since the last call. When the history was rewritten instead of
 * extended (summarised, trimmed, its last message replaced) it rebuilds, so it equals a full
 * rebuild. Like the observation store, it tells the two apart by the first and the last message
 * it processed.
 *
 * A model call is an AIMessage that no harness-kit guard wrote. The run is everything after the
 * last HumanMessage (a summary written by LangChain's summarizationMiddleware does not start one).
 */
export class RunawayLedger {
  private count = 0;
  private first: unknown;
  private last: unknown;
  private contextChars = 0;
  private thread = new Spend();
  private run = new RunTally();

  update(messages: readonly unknown[]): this {
    if (!this.extends(messages)) this.reset();
    for (let i = this.count; i < messages.length; i++) this.add(messages[i]);
    this.count = messages.length;
    this.first = messages[0];
    this.last = messages[messages.length - 1];
    return this;
  }

  /** `minInputTokens`: the input counts as at least this many tokens (at least 1). */
  measureRun(minInputTokens = 1): RunMeasure {
    const { spend } = this.run;
    const source = spend.source;
    const measured = source === "usage_metadata" ? (this.run.inputUsageTokens ?? 0) : this.run.inputChars / CHARS_PER_TOKEN;
    const inputTokens = Math.max(1, minInputTokens, measured);
    const tokens = spend.tokens();
    return {
      source,
      tokens,
      inputTokens,
      factor: spend.modelCalls === 0 ? 0 : tokens / inputTokens,
      factorBefore: spend.modelCalls === 0 ? 0 : spend.tokens(false) / inputTokens,
      modelCalls: spend.modelCalls,
      toolCalls: this.run.toolCalls,
    };
  }

  measureThread(): ThreadMeasure {
    return { source: this.thread.source, tokens: this.thread.tokens(), modelCalls: this.thread.modelCalls };
  }

  /** Whether `tool` was asked for by a model call of this run before the latest one. */
  askedBeforeLatestCall(tool: string): boolean {
    const at = this.run.firstAskedAt.get(tool);
    return at !== undefined && at < this.run.spend.modelCalls - 1;
  }

  /** Calls per tool name in this run. */
  get runCallsByTool(): ReadonlyMap<string, number> {
    return this.run.callsByTool;
  }

  /** `subagent_type` arguments per tool name in this run. */
  get runSubagentsByTool(): ReadonlyMap<string, ReadonlyMap<string, number>> {
    return this.run.subagentsByTool;
  }

  private extends(messages: readonly unknown[]): boolean {
    if (this.count === 0) return true;
    return messages.length >= this.count && messages[0] === this.first && messages[this.count - 1] === this.last;
  }

  private reset(): void {
    this.count = 0;
    this.contextChars = 0;
    this.thread = new Spend();
    this.run = new RunTally();
  }

  private add(message: unknown): void {
    const chars = estimatedChars(message);
    const kind = messageKind(message);
    if (kind === "human" && !isSummary(message)) this.run = new RunTally();
    if (kind === "ai" && markOf(message) === undefined) this.addModelCall(message, chars);
    this.contextChars += chars;
  }

  private addModelCall(message: unknown, chars: number): void {
    const usage = usageOf(message);
    const run = this.run;
    if (run.spend.modelCalls === 0) {
      run.inputUsageTokens = usage?.input;
      run.inputChars = this.contextChars;
    }
    const ordinal = run.spend.modelCalls;
    run.spend.add(usage?.total, this.contextChars + chars);
    this.thread.add(usage?.total, this.contextChars + chars);
    for (const call of toolCallsOf(message)) {
      run.toolCalls++;
      if (!run.firstAskedAt.has(call.name)) run.firstAskedAt.set(call.name, ordinal);
      run.callsByTool.set(call.name, (run.callsByTool.get(call.name) ?? 0) + 1);
      const subagent = subagentTypeOf(call.args);
      if (subagent !== undefined) {
        let types = run.subagentsByTool.get(call.name);
        if (!types) run.subagentsByTool.set(call.name, (types = new Map()));
        types.set(subagent, (types.get(subagent) ?? 0) + 1);
      }
    }
  }
}

type Loose = Record<string, unknown>;

function fields(value: unknown): Loose {
  return value !== null && typeof value === "object" ? (value as Loose) : {};
}

function isSummary(message: unknown): boolean {
  return fields(fields(message).additional_kwargs).lc_source === "summarization";
}

function subagentTypeOf(args: unknown): string | undefined {
  const type = fields(args).subagent_type;
  return typeof type === "string" ? type : undefined;
}

const isCount = (n: unknown): n is number => typeof n === "number" && Number.isFinite(n) && n >= 0;

/** A model call's reported input tokens and input + output tokens, when it reported both. */
export function usageOf(message: unknown): { input: number; total: number } | undefined {
  const usage = fields(fields(message).usage_metadata);
  const { input_tokens: input, output_tokens: output } = usage;
  return isCount(input) && isCount(output) ? { input, total: input + output } : undefined;
}

/**
 * Characters a message puts into a model's context, by LangChain's approximate rule: text
 * content and tool-call arguments count; binary blocks (images, files) do not, since providers
 * bill them by other measures than their base64 length.
 */
export function estimatedChars(message: unknown): number {
  let chars = contentChars(contentOf(message));
  for (const call of toolCallsOf(message)) chars += call.name.length + jsonLength(call.args ?? {});
  return chars;
}

/** Length of the arguments as JSON; key order does not change it, so JSON.stringify will do. */
function jsonLength(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    return canonicalJson(value).length; // BigInt or a cycle: still a stable count
  }
}

function contentChars(content: unknown): number {
  if (typeof content === "string") return content.length;
  if (content === null || content === undefined) return 0;
  if (!Array.isArray(content)) return canonicalJson(content).length;
  let chars = 0;
  for (const block of content) {
    if (typeof block === "string") chars += block.length;
    else if (fields(block).type === "text" && typeof fields(block).text === "string") chars += (fields(block).text as string).length;
  }
  return chars;
}

const ledgers = new WeakMap<object, RunawayLedger>();

/**
 * The ledger of a history, up to date. It is a cache, not state: ledgers are found by the
 * history's first message, and one that does not match the history rebuilds itself.
 */
export function ledgerFor(messages: readonly unknown[]): RunawayLedger {
  const head = messages[0];
  if (head === null || typeof head !== "object") return new RunawayLedger().update(messages);
  let ledger = ledgers.get(head);
  if (!ledger) {
    ledger = new RunawayLedger();
    ledgers.set(head, ledger);
  }
  return ledger.update(messages);
}
