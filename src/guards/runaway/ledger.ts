import {
  contentOf,
  isSummary,
  messageKind,
  textOfBlock,
  toolCallIdOf,
  toolCallsOf,
  type ToolCallView,
} from "../../core/messages.js";
import { markOf } from "../../core/marks.js";
import { fields } from "../../core/fields.js";
import { HistoryPrefix } from "../../core/historyPrefix.js";
import { CHARS_PER_TOKEN } from "../../core/tokens.js";
import { canonicalJson } from "../../observe/canonical.js";
import { loadHasher, type Hasher } from "../../observe/hash.js";
import { DEFAULT_OBSERVATION_OPTIONS, observationsNow } from "../../observe/shared.js";
import {
  fingerprintArgs,
  type ObservationOptions,
  type ObservationStore,
  type ToolCallObservation,
} from "../../observe/store.js";

/** Where a token count comes from: the providers' `usage_metadata`, or characters / 4. */
export type TokenSource = "usage_metadata" | "estimate";

/**
 * A result whose newInformationDelta is at most this brought nothing new: the progress guard's
 * default `progressFloor`, so both guards call the same results progress.
 */
export const NEW_INFORMATION_FLOOR = 0.02;

/**
 * Tokens counted both ways at once: from `usage_metadata`, and estimated from the messages.
 * Which one a measure reads is decided for the whole run (see `Spend.source`).
 */
class Tokens {
  usage = 0;
  chars = 0;

  add(usage: number, chars: number): void {
    this.usage += usage;
    this.chars += chars;
  }

  read(source: TokenSource): number {
    return tokensOf(this.usage, this.chars, source);
  }
}

/**
 * Token spend of a stretch of model calls (a run or a whole thread). Usage figures are read
 * only when every call reported them: a sum that mixed provider counts (system prompt and tool
 * schemas included) with estimates (messages only) would mean nothing.
 */
class Spend {
  modelCalls = 0;
  callsWithoutUsage = 0;
  readonly total = new Tokens();
  private readonly latest = new Tokens();

  add(usageTokens: number | undefined, estimatedChars: number): void {
    this.modelCalls++;
    if (usageTokens === undefined) this.callsWithoutUsage++;
    this.latest.usage = usageTokens ?? 0;
    this.latest.chars = estimatedChars;
    this.total.usage += this.latest.usage;
    this.total.chars += estimatedChars;
  }

  get source(): TokenSource {
    return this.modelCalls > 0 && this.callsWithoutUsage === 0 ? "usage_metadata" : "estimate";
  }

  /** Tokens of every call, or of every call but the latest one. */
  tokens(withLatest = true): number {
    const source = this.source;
    return this.total.read(source) - (withLatest ? 0 : this.latest.read(source));
  }
}

/**
 * A stretch of model calls that read nothing new, measured against the context of the last
 * model call that did (the base). Ended by the next tool result that brings something new.
 */
interface Stall {
  /** Model calls in the stall, and what they consumed (input + output each). */
  calls: number;
  readonly spent: Tokens;
  /** Input of the model call that last read something new (or of the run's first call). */
  readonly base: Tokens;
}

const newStall = (): Stall => ({ calls: 0, spent: new Tokens(), base: new Tokens() });

/**
 * What the tool results read by one model call brought, judged by the shared observation store.
 * Neutral: no results, or only results without text (a no-op `think`): counts neither way.
 * Nothing: every result repeated what its call returned before, or a guard answered instead of the tool.
 * New: at least one result brought something new.
 */
const Batch = { Neutral: 0, Nothing: 1, New: 2 } as const;
type Batch = (typeof Batch)[keyof typeof Batch];

class RunTally {
  readonly spend = new Spend();
  /** What the run's first model call read: its reported input tokens, and the estimated context. */
  inputUsageTokens: number | undefined;
  inputChars = 0;
  toolCalls = 0;
  /** What the results since the latest model call brought. */
  batch: Batch = Batch.Neutral;
  stall = newStall();
  /** The stall's figures before the latest model call, for the factor before it (updated in place each call). */
  readonly before = { calls: 0, usage: 0, chars: 0, baseUsage: 0, baseChars: 0 };
  /** Stalls that new information ended, kept for the run's peak factor in its report. */
  readonly endedStalls: Stall[] = [];
  /** Everything the run's stalls consumed. */
  readonly wasted = new Tokens();
  wastedCalls = 0;
  /** Calls (tool and arguments, as the observation store keys them) that this run's results answered. */
  readonly answeredCalls = new Set<string>();
  /** The calls that ran, in order: only the run's report counts them by tool and subagent. */
  readonly ranCalls: ToolCallView[] = [];
}

/** Token measures of the current run (see RunawayGuardMiddleware for the definitions). */
export interface RunMeasure {
  source: TokenSource;
  /** Tokens the run's model calls consumed: input + output of each. */
  tokens: number;
  /** Input of the run's first model call, raised to the floor the caller asked for. */
  inputTokens: number;
  /**
   * The runaway factor: tokens consumed by the model calls since a tool result last brought
   * something new, ÷ `baseTokens`. About the number of model calls that learned nothing in a row.
   */
  factor: number;
  /** The factor before the latest model call. */
  factorBefore: number;
  /** Model calls since a tool result last brought something new (neutral ones not counted). */
  stallCalls: number;
  /** What those calls consumed. */
  stallTokens: number;
  /** Input of the model call that last read something new (or of the run's first), raised to the floor. */
  baseTokens: number;
  modelCalls: number;
  toolCalls: number;
}

export interface ThreadMeasure {
  source: TokenSource;
  tokens: number;
  modelCalls: number;
}

/** What a run's report adds to its measure: the whole run's waste, and how close it came to the thresholds. */
export interface RunWaste {
  /** Tokens of every model call of the run that read nothing new. */
  wastedTokens: number;
  wastedCalls: number;
  /** The highest factor the run reached. */
  peakFactor: number;
}

/**
 * Token accounting of one message history, kept up to date incrementally: `update` processes
 * only the messages added since the last call. When the history was rewritten instead of
 * extended (summarised, trimmed, its last message replaced) it rebuilds, so it equals a full
 * rebuild, telling the two apart as the observation store does (core/historyPrefix.ts).
 *
 * A model call is an AIMessage that no harness-kit guard wrote. The run is everything after the
 * last HumanMessage (a summary written by LangChain's summarizationMiddleware does not start one).
 * Whether a tool result brought something new is the observation store's `newInformationDelta`,
 * the judgement every guard shares.
 */
export class RunawayLedger {
  private readonly processed = new HistoryPrefix();
  private contextChars = 0;
  private thread = new Spend();
  private run = new RunTally();
  /** Calls asked for and not yet answered, as the observation store pairs them, by id. */
  private pending = new Map<string, ToolCallView>();
  /** Observations consumed so far: the store lists one per answered call, in message order. */
  private observed = 0;
  private hash: Hasher = identity;
  private store: ObservationStore | undefined;

  update(messages: readonly unknown[]): this {
    // The shared observation store (the one the loop guards read). Until the hasher has loaded, a
    // store keyed by the texts themselves: it judges novelty exactly as the shared one does.
    let observed = observationsNow(messages, DEFAULT_OBSERVATION_OPTIONS);
    if (!observed) {
      void loadHasher();
      observed = observationsNow(messages, UNHASHED, identity)!;
    }
    const { store, hash } = observed;
    // Keys made with another hasher (before xxhash loaded) would not match: start over.
    if (hash !== this.hash || !this.processed.continues(messages)) this.reset();
    this.hash = hash;
    this.store = store;
    const observations = store.observations;
    for (let i = this.processed.length; i < messages.length; i++) this.add(messages[i], observations);
    this.processed.reach(messages);
    return this;
  }

  /** `minInputTokens`: the input and the base count as at least this many tokens (at least 1). */
  measureRun(minInputTokens = 1): RunMeasure {
    const { spend, stall, before } = this.run;
    const source = spend.source;
    const floor = Math.max(1, minInputTokens);
    const measured =
      source === "usage_metadata" ? (this.run.inputUsageTokens ?? 0) : this.run.inputChars / CHARS_PER_TOKEN;
    const baseTokens = Math.max(floor, stall.base.read(source));
    const baseBefore = tokensOf(before.baseUsage, before.baseChars, source);
    return {
      source,
      tokens: spend.tokens(),
      inputTokens: Math.max(floor, measured),
      factor: stallFactor(stall, source, floor),
      factorBefore: ratio(before.calls, tokensOf(before.usage, before.chars, source), baseBefore, floor),
      stallCalls: stall.calls,
      stallTokens: stall.spent.read(source),
      baseTokens,
      modelCalls: spend.modelCalls,
      toolCalls: this.run.toolCalls,
    };
  }

  /** The whole run's waste and peak factor; linear in the run's stalls, so meant for its report. */
  measureWaste(minInputTokens = 1): RunWaste {
    const source = this.run.spend.source;
    const floor = Math.max(1, minInputTokens);
    let peakFactor = stallFactor(this.run.stall, source, floor);
    for (const stall of this.run.endedStalls) peakFactor = Math.max(peakFactor, stallFactor(stall, source, floor));
    return { wastedTokens: this.run.wasted.read(source), wastedCalls: this.run.wastedCalls, peakFactor };
  }

  measureThread(): ThreadMeasure {
    return { source: this.thread.source, tokens: this.thread.tokens(), modelCalls: this.thread.modelCalls };
  }

  /**
   * Whether the run's stall is empty (its factor is 0) and the thread's model calls consumed fewer
   * than `tokens` tokens, counted either way: a bound read before measuring, which the common step
   * (a model call that read something new, caps far away) passes. The run's calls are some of the
   * thread's and every count is at least 0, so the run's tokens are at most the thread's, by either count.
   */
  idleBelow(tokens: number): boolean {
    const { usage, chars } = this.thread.total;
    return this.run.stall.calls === 0 && Math.max(usage, chars / CHARS_PER_TOKEN) < tokens;
  }

  /** What counts as the same call: the tool and its arguments, keyed as the observation store keys them. */
  callKey(call: ToolCallView): string {
    return this.store?.pendingKeys(call.id)?.argsKey ?? `${call.name}#${fingerprintArgs(call.args, this.hash)}`;
  }

  /** Whether a call with this key was made and answered earlier in this run. */
  answeredInRun(key: string): boolean {
    return this.run.answeredCalls.has(key);
  }

  /** Calls that ran per tool name in this run; linear in the run's calls, so meant for its report. */
  get runCallsByTool(): ReadonlyMap<string, number> {
    const byTool = new Map<string, number>();
    for (const call of this.run.ranCalls) byTool.set(call.name, (byTool.get(call.name) ?? 0) + 1);
    return byTool;
  }

  /** `subagent_type` arguments of the calls that ran per tool name in this run; meant for its report. */
  get runSubagentsByTool(): ReadonlyMap<string, ReadonlyMap<string, number>> {
    const byTool = new Map<string, Map<string, number>>();
    for (const call of this.run.ranCalls) {
      const subagent = subagentTypeOf(call.args);
      if (subagent === undefined) continue;
      let types = byTool.get(call.name);
      if (!types) byTool.set(call.name, (types = new Map()));
      types.set(subagent, (types.get(subagent) ?? 0) + 1);
    }
    return byTool;
  }

  private reset(): void {
    this.processed.clear();
    this.contextChars = 0;
    this.thread = new Spend();
    this.run = new RunTally();
    this.pending = new Map();
    this.observed = 0;
  }

  private add(message: unknown, observations: readonly ToolCallObservation[]): void {
    const chars = estimatedChars(message);
    const kind = messageKind(message);
    if (kind === "human" && !isSummary(message)) this.run = new RunTally();
    if (kind === "ai") {
      if (markOf(message) === undefined) this.addModelCall(message, chars);
      for (const call of toolCallsOf(message)) this.pending.set(call.id, call);
    }
    if (kind === "tool") this.addResult(message, observations);
    this.contextChars += chars;
  }

  private addModelCall(message: unknown, chars: number): void {
    const usage = usageOf(message);
    const run = this.run;
    const first = run.spend.modelCalls === 0;
    if (first) {
      run.inputUsageTokens = usage?.input;
      run.inputChars = this.contextChars;
    }
    run.spend.add(usage?.total, this.contextChars + chars);
    this.thread.add(usage?.total, this.contextChars + chars);
    this.judgeCall(usage, chars, first);
    run.toolCalls += toolCallsOf(message).length;
  }

  /**
   * A model call that read something new (and the run's first) sets the base; one that read only
   * results that brought nothing extends the stall by what it consumed.
   */
  private judgeCall(usage: { input: number; total: number } | undefined, chars: number, first: boolean): void {
    const run = this.run;
    const { before, stall } = run;
    before.calls = stall.calls;
    before.usage = stall.spent.usage;
    before.chars = stall.spent.chars;
    before.baseUsage = stall.base.usage;
    before.baseChars = stall.base.chars;
    const batch = run.batch;
    run.batch = Batch.Neutral;
    if (first || batch === Batch.New) {
      // An empty stall (nothing spent) is no one's: it takes the new base in place, and a step
      // that learned something allocates nothing.
      if (stall.calls > 0) {
        run.endedStalls.push(stall);
        run.stall = newStall();
      }
      run.stall.base.usage = usage?.input ?? 0;
      run.stall.base.chars = this.contextChars;
    } else if (batch === Batch.Nothing) {
      run.stall.calls++;
      run.stall.spent.add(usage?.total ?? 0, this.contextChars + chars);
      run.wasted.add(usage?.total ?? 0, this.contextChars + chars);
      run.wastedCalls++;
    }
  }

  private addResult(message: unknown, observations: readonly ToolCallObservation[]): void {
    const id = toolCallIdOf(message);
    const call = id === undefined ? undefined : this.pending.get(id);
    if (id === undefined || !call) return;
    this.pending.delete(id);
    // The store adds one observation per result that answers a pending call, in this same order.
    const observation = observations[this.observed];
    if (observation?.toolCallId !== id) return;
    this.observed++;
    const run = this.run;
    // Without delta overrides (the options this ledger reads with), the call key is tool + arguments.
    // A call that did not run is no earlier answer: its retry is not a repeat. A call that ran is
    // work done, directly or by the subagent it handed a task to; a refused one handed nothing.
    if (observation.ran) {
      run.answeredCalls.add(observation.callKey);
      run.ranCalls.push(call);
    }
    // What the result brought. A refusal brings nothing (a model call that read only refusals
    // learned nothing new); a result without text counts neither way (Neutral, which changes nothing).
    if (!observation.ran || observation.resultSize > 0) {
      const learned = observation.ran && observation.newInformationDelta > NEW_INFORMATION_FLOOR;
      run.batch = Math.max(run.batch, learned ? Batch.New : Batch.Nothing) as Batch;
    }
  }
}

function stallFactor(stall: Stall, source: TokenSource, floor: number): number {
  return ratio(stall.calls, stall.spent.read(source), stall.base.read(source), floor);
}

/** What a stall of `calls` model calls that consumed `spent` tokens weighs against its base. */
function ratio(calls: number, spent: number, base: number, floor: number): number {
  return calls === 0 ? 0 : spent / Math.max(floor, base);
}

function tokensOf(usage: number, chars: number, source: TokenSource): number {
  return source === "usage_metadata" ? usage : chars / CHARS_PER_TOKEN;
}

/** A stand-in for xxhash until its WebAssembly has loaded: same groups, longer keys. */
const identity: Hasher = (text) => text;

/** Stores built with `identity` live in a cache of their own, apart from the shared xxhash stores. */
const UNHASHED: ObservationOptions = {};

function subagentTypeOf(args: unknown): string | undefined {
  const type = fields(args).subagent_type;
  return typeof type === "string" ? type : undefined;
}

/** A model call's reported input tokens and input + output tokens, when it reported both. */
export function usageOf(message: unknown): { input: number; total: number } | undefined {
  const usage = fields(fields(message).usage_metadata);
  const { input_tokens: input, output_tokens: output } = usage;
  if (typeof input !== "number" || typeof output !== "number") return undefined;
  // Two counts: neither negative, and a finite sum (neither is NaN nor infinite).
  const total = input + output;
  return input >= 0 && output >= 0 && Number.isFinite(total) ? { input, total } : undefined;
}

/**
 * Characters a message puts into a model's context, by LangChain's approximate rule: text
 * content and tool-call arguments count; binary blocks (images, files) do not, since providers
 * bill them by other measures than their base64 length.
 */
export function estimatedChars(message: unknown): number {
  const content = contentOf(message);
  // Most content is a string: its length, without the walk over blocks.
  let chars = typeof content === "string" ? content.length : contentChars(content);
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
  for (const block of content) chars += textOfBlock(block)?.length ?? 0;
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

/** Drops the ledger kept for the history that starts with `head` (see `forgetObservations`). */
export function forgetLedger(head: unknown): void {
  if (head !== null && typeof head === "object") ledgers.delete(head);
}
