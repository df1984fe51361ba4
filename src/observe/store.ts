import { argsIdentity, argsKeyOf } from "./argsIdentity.js";
import { canonicalJson } from "./canonical.js";
import { NearRepeats } from "./nearRepeats.js";
import { contentText } from "./content.js";
import { loadHasher, type Hasher } from "./hash.js";
import { addLines, noveltyThenRemember, type CallResultView, type DeltaFunction } from "./novelty.js";
import { DEFAULT_VOLATILE_PATTERNS, volatileNormaliser } from "./volatile.js";
import { contentOf, messageKind, statusOf, toolCallIdOf, toolCallsOf } from "../core/messages.js";
import { answerFacts, isStampedTurn, type HarnessMark } from "../core/marks.js";
import { HistoryPrefix } from "../core/historyPrefix.js";

/** Whether `guard` would have refused this call, which ran (see `wouldRefuse`). */
export function wouldBeRefusedBy(o: ToolCallObservation, guard: string): boolean {
  return o.wouldRefuse?.includes(guard) === true;
}

/** One answered tool call, as every guard sees it. */
export interface ToolCallObservation {
  /** Position among answered calls, in the order their results arrived. */
  index: number;
  toolCallId: string;
  toolName: string;
  /** Index of the AI message (model turn) that made the call. */
  turn: number;
  /** Number of human messages before the call: a new user message starts a new judgement. */
  userTurn: number;
  /** xxhash64 of the canonical JSON of the arguments. */
  argsFingerprint: string;
  /** Tool + normalised arguments (argsIdentity.ts): equal for two spellings of one request. */
  argsKey: string;
  /** What counts as "the same call": tool + arguments, or the tool alone when it has a delta override. */
  callKey: string;
  /** xxhash64 of the result text after volatile-field normalisation. */
  resultFingerprint: string;
  status: "success" | "error";
  /** For errors: the first `SomethingError`/`SomethingException` named in the result, else "Error". */
  errorClass?: string;
  /** Result size in characters (binary payloads count by their encoded size). */
  resultSize: number;
  /** Earlier answered calls with the same tool and (normalised) arguments. */
  sameArgsRepeatCount: number;
  /** Share of this result not seen in earlier results of the same call, in [0, 1]; 1 for a first call. */
  newInformationDelta: number;
  /**
   * Whether the tool really ran. A call answered in its place (by a guard, a LangChain
   * middleware, a reviewer) did not: it is no result, and no repeat for any other guard.
   */
  ran: boolean;
  /** Set when a harness-kit guard answered the call instead of the tool. */
  answeredBy?: HarnessMark;
  /**
   * For a call that ran: the guards that would have refused it and let it run (observe-only, or
   * replay; core/marks.ts WOULD_REFUSE_KEY). Only the guard named reads it, as its own refusal
   * that the model ignored; for everyone else the call ran.
   */
  wouldRefuse?: readonly string[];
}

export interface ObservationOptions {
  /** Replaced by a placeholder in results before hashing and novelty. Default: DEFAULT_VOLATILE_PATTERNS. */
  volatilePatterns?: readonly RegExp[];
  /** Novelty functions per tool name; see `DeltaFunction`. */
  deltaOverrides?: Readonly<Record<string, DeltaFunction>>;
}

interface PendingCall {
  name: string;
  args: unknown;
  /** The hash of the exact arguments when normalising changed nothing (the usual case); else computed when asked. */
  exactDigest?: string;
  /** tool + normalised arguments, for the repeat count */
  argsKey: string;
  callKey: string;
  turn: number;
  userTurn: number;
  /** A guard saw the asking turn: its answers say whether the tool ran (core/marks.ts). */
  stampedTurn: boolean;
}

/**
 * A tool result whose normalised text and fingerprint are computed on first use: most calls never
 * repeat, so most results are never normalised, which keeps a full rebuild cheap.
 */
class ResultText {
  // Assigned in the constructor, not as class fields: class fields make V8 run an initializer
  // function for every instance, one more function of ours on every step (bench/README.md).
  declare readonly raw: string;
  declare private readonly normalise: (text: string) => string;
  declare private readonly hash: Hasher;
  declare private normalised: string | undefined;
  declare private fingerprintCache: string | undefined;

  constructor(raw: string, normalise: (text: string) => string, hash: Hasher, recordedFingerprint?: string) {
    this.raw = raw;
    this.normalise = normalise;
    this.hash = hash;
    this.normalised = undefined;
    this.fingerprintCache = recordedFingerprint;
  }

  get text(): string {
    return (this.normalised ??= this.normalise(this.raw));
  }

  get fingerprint(): string {
    return (this.fingerprintCache ??= this.hash(this.text));
  }
}

/** A ToolCallObservation whose result fingerprint (and, rarely, arguments fingerprint) is computed when first read. */
class Observation implements ToolCallObservation {
  readonly toolName: string;
  readonly turn: number;
  readonly userTurn: number;
  readonly argsKey: string;
  readonly callKey: string;
  readonly errorClass?: string;
  readonly answeredBy?: HarnessMark;
  readonly wouldRefuse?: readonly string[];
  readonly #result: ResultText;
  readonly #args: unknown;
  #argsFingerprint: string | undefined;
  readonly #hash: Hasher;

  constructor(
    readonly index: number,
    readonly toolCallId: string,
    call: PendingCall,
    hash: Hasher,
    result: ResultText,
    readonly status: "success" | "error",
    errorClass: string | undefined,
    readonly resultSize: number,
    readonly sameArgsRepeatCount: number,
    readonly newInformationDelta: number,
    readonly ran: boolean,
    answeredBy: HarnessMark | undefined,
    wouldRefuse: readonly string[] | undefined,
  ) {
    this.toolName = call.name;
    this.turn = call.turn;
    this.userTurn = call.userTurn;
    this.#argsFingerprint = call.exactDigest;
    this.#hash = hash;
    this.argsKey = call.argsKey;
    this.callKey = call.callKey;
    this.#result = result;
    this.#args = call.args;
    if (errorClass !== undefined) this.errorClass = errorClass;
    if (answeredBy !== undefined) this.answeredBy = answeredBy;
    if (wouldRefuse !== undefined) this.wouldRefuse = wouldRefuse;
  }

  get resultFingerprint(): string {
    return this.#result.fingerprint;
  }

  get argsFingerprint(): string {
    return (this.#argsFingerprint ??= fingerprintArgs(this.#args, this.#hash));
  }

  /** The arguments as called, for near-duplicate matching (not part of the JSON form). */
  get args(): unknown {
    return this.#args;
  }

  /** The result after volatile-field normalisation (not part of the JSON form). */
  get resultText(): string {
    return this.#result.text;
  }

  /** The result as the tool returned it, before normalisation (not part of the JSON form). */
  get rawResultText(): string {
    return this.#result.raw;
  }

  toJSON(): ToolCallObservation {
    return { ...this, argsFingerprint: this.argsFingerprint, resultFingerprint: this.resultFingerprint };
  }
}

/** An observation as the store keeps it: with its arguments and result text at hand. */
export interface StoredObservation extends ToolCallObservation {
  readonly args: unknown;
  readonly resultText: string;
  readonly rawResultText: string;
}

/** Everything kept about one call key: one map lookup per answered call finds it all. */
interface CallGroup {
  /** Answered calls with this key so far (the repeat count, when the key is tool + arguments). */
  answered: number;
  /** Positions in the list, once `occurrencesOf` indexed them. */
  positions?: number[];
  /** The only result so far, kept until a second one arrives. */
  first?: ResultText;
  /** Fingerprints of every earlier real result: an exact repeat needs no line comparison. */
  fingerprints?: Set<string>;
  /** Lines of every earlier real result. */
  seen?: Set<string>;
  /** Earlier results, kept only for tools with a delta override. */
  views?: CallResultView[];
}

/** What a user message asks about shows in its beginning. */
const USER_TEXT_CHARS = 2000;

const ERROR_PREFIX = /^\s*(?:error|exception|traceback)\b/i;
const ERROR_CLASS = /\b([A-Z][A-Za-z0-9_]*(?:Error|Exception))\b/;

export function fingerprintArgs(args: unknown, hash: Hasher): string {
  return hash(canonicalJson(args ?? {}));
}

const ANY_ARGS = "#*";

const NO_OCCURRENCES: readonly number[] = Object.freeze([]);

/** What counts as the same call: the tool alone when it has a delta override, else tool + normalised arguments. */
export function callKeyOf(
  name: string,
  args: unknown,
  hash: Hasher,
  deltaOverrides: ObservationOptions["deltaOverrides"],
): string {
  return deltaOverrides?.[name] ? `${name}${ANY_ARGS}` : argsKeyOf(name, args, hash);
}

/** Whether a call key groups every call of its tool (a tool with a delta override). */
export function groupsWholeTool(callKey: string): boolean {
  return callKey.endsWith(ANY_ARGS);
}

/**
 * Observations of one message history, kept up to date incrementally: `update` processes only
 * the messages added since the last call. When the history was rewritten instead of extended
 * (summarised, trimmed, a message replaced at the end) it rebuilds, so the answer always equals
 * a full rebuild.
 */
export class ObservationStore {
  private readonly normalise: (text: string) => string;
  private readonly overrides: ObservationOptions["deltaOverrides"];
  private list: StoredObservation[] = [];
  private readonly processed = new HistoryPrefix();
  private pending = new Map<string, PendingCall>();
  /** By call key. */
  private groups = new Map<string, CallGroup>();
  /** Answered calls by tool + arguments, for tools whose call key is the tool alone (a delta override). */
  private argsCounts = new Map<string, number>();
  /** Observations whose positions `occurrencesOf` has indexed (a rebuild for replay need not pay for it). */
  private indexed = 0;
  private nearRepeats?: NearRepeats;
  private aiTurns = 0;
  private humanMessages = 0;
  /** The beginning of each user message, lower-cased, by user turn - 1: what a new turn asked about. */
  private userTexts: string[] = [];
  /** Keys the budget stored results under, to the fingerprint of what each holds (`withStoredContent`). */
  private storedContent = new Map<string, string>();

  constructor(
    private readonly hash: Hasher,
    options: ObservationOptions = {},
  ) {
    this.normalise = volatileNormaliser(options.volatilePatterns ?? DEFAULT_VOLATILE_PATTERNS);
    this.overrides = options.deltaOverrides;
  }

  get observations(): readonly StoredObservation[] {
    return this.list;
  }

  /** Near-duplicate calls of this history (argsIdentity.ts), computed when first asked. */
  get near(): NearRepeats {
    return (this.nearRepeats ??= new NearRepeats(this.list));
  }

  /** Positions in `observations` of the answered calls with this call key, oldest first. */
  occurrencesOf(callKey: string): readonly number[] {
    for (; this.indexed < this.list.length; this.indexed++) {
      const group = this.groups.get(this.list[this.indexed]!.callKey)!;
      (group.positions ??= []).push(this.indexed);
    }
    return this.groups.get(callKey)?.positions ?? NO_OCCURRENCES;
  }

  /** Answered calls with this tool + normalised arguments (`argsKey`) so far. */
  answeredWith(argsKey: string): number {
    // A tool with a delta override counts its arguments apart; any other's call key is its args key.
    return this.argsCounts.get(argsKey) ?? this.groups.get(argsKey)?.answered ?? 0;
  }

  /** The beginning of the user message that started user turn `turn` (1-based), lower-cased; "" if none. */
  userMessage(turn: number): string {
    return this.userTexts[turn - 1] ?? "";
  }

  /** Number of human messages seen so far. */
  get userTurn(): number {
    return this.humanMessages;
  }

  update(messages: readonly unknown[]): readonly StoredObservation[] {
    if (!this.processed.continues(messages)) this.reset();
    for (let i = this.processed.length; i < messages.length; i++) this.add(messages[i]);
    this.processed.reach(messages);
    return this.list;
  }

  private reset(): void {
    this.list = [];
    this.processed.clear();
    this.pending = new Map();
    this.groups = new Map();
    this.argsCounts = new Map();
    this.indexed = 0;
    this.nearRepeats = undefined;
    this.aiTurns = 0;
    this.humanMessages = 0;
    this.userTexts = [];
    this.storedContent = new Map();
  }

  private add(message: unknown): void {
    switch (messageKind(message)) {
      case "human":
        this.humanMessages++;
        this.userTexts.push(contentText(contentOf(message)).slice(0, USER_TEXT_CHARS).toLowerCase());
        return;
      case "ai":
        this.addCalls(message);
        return;
      case "tool":
        this.addResult(message);
        return;
    }
  }

  /**
   * The identity given to a call that has no result yet (the batch the guards judge), so they
   * need not fingerprint its arguments again: `argsKey` is tool + arguments, `callKey` what
   * counts as the same call.
   */
  pendingKeys(toolCallId: string): { argsKey: string; callKey: string } | undefined {
    return this.pending.get(toolCallId);
  }

  private addCalls(message: unknown): void {
    const turn = this.aiTurns++;
    const stampedTurn = isStampedTurn(message);
    for (const call of toolCallsOf(message)) {
      if (this.pending.has(call.id)) continue;
      // Nothing stored yet (the usual case): the arguments are as called.
      const aliased = this.storedContent.size === 0 ? call.args : this.withStoredContent(call.args);
      const identity = argsIdentity(call.name, aliased, this.hash);
      const { argsKey, digest } = identity;
      const exact = identity.exact && aliased === call.args;
      // One shape for every pending call (no spread of optional fields): they are made by the thousand.
      this.pending.set(call.id, {
        name: call.name,
        args: call.args,
        exactDigest: exact ? digest : undefined,
        argsKey,
        callKey: this.overrides?.[call.name] ? `${call.name}${ANY_ARGS}` : argsKey,
        turn,
        userTurn: this.humanMessages,
        stampedTurn,
      });
    }
  }

  /**
   * A call's arguments with a `key` that names a stored result replaced by what that result
   * holds: reading the same stored bytes under another key (the same content returned by two
   * calls, each stored under its own key) is the same call for the loop guards.
   */
  private withStoredContent(args: unknown): unknown {
    if (args === null || typeof args !== "object") return args;
    const key = (args as { key?: unknown }).key;
    const content = typeof key === "string" ? this.storedContent.get(key) : undefined;
    return content === undefined ? args : { ...(args as Record<string, unknown>), key: `stored content ${content}` };
  }

  private addResult(message: unknown): void {
    const id = toolCallIdOf(message);
    const call = id === undefined ? undefined : this.pending.get(id);
    if (id === undefined || call === undefined) return;
    this.pending.delete(id);

    const content = contentOf(message);
    // Nearly every result is a string, which is its own text.
    const raw = typeof content === "string" ? content : contentText(content);
    // A result replaced in history (a budget preview) is judged by what the tool really returned.
    const { ran, answeredBy, wouldRefuse: refusals, original } = answerFacts(message, call.stampedTurn);
    if (original?.offloadKey !== undefined) this.storedContent.set(original.offloadKey, original.fingerprint);
    const result = new ResultText(raw, this.normalise, this.hash, original?.fingerprint);
    const status = statusOf(message) === "error" || ERROR_PREFIX.test(raw) ? "error" : "success";
    let group = this.groups.get(call.callKey);
    if (!group) this.groups.set(call.callKey, (group = { answered: 0 }));
    let sameArgsRepeatCount = group.answered++;
    if (call.callKey !== call.argsKey) {
      sameArgsRepeatCount = this.argsCounts.get(call.argsKey) ?? 0;
      this.argsCounts.set(call.argsKey, sameArgsRepeatCount + 1);
    }
    this.list.push(
      new Observation(
        this.list.length,
        id,
        call,
        this.hash,
        result,
        status,
        status === "error" ? (ERROR_CLASS.exec(raw)?.[1] ?? "Error") : undefined,
        original?.size ?? raw.length,
        sameArgsRepeatCount,
        ran ? this.novelty(group, call, result, status) : 0,
        ran,
        answeredBy,
        refusals.length > 0 ? refusals.map((r) => r.guard) : undefined,
      ),
    );
  }

  /** Novelty against earlier real results of the same call, then remembers this one. */
  private novelty(group: CallGroup, call: PendingCall, result: ResultText, status: "success" | "error"): number {
    const override = this.overrides?.[call.name];
    if (override) {
      const view: CallResultView = { toolName: call.name, args: call.args, text: result.text, status };
      const earlier = (group.views ??= []);
      const delta = earlier.length === 0 ? 1 : safeDelta(override, view, earlier);
      earlier.push(view);
      return delta;
    }
    if (group.fingerprints === undefined) {
      if (group.first === undefined) {
        group.first = result;
        return 1;
      }
      group.fingerprints = new Set([group.first.fingerprint]);
      group.seen = new Set();
      addLines(group.first.text, group.seen);
      group.first = undefined;
    }
    if (group.fingerprints.has(result.fingerprint)) return 0;
    group.fingerprints.add(result.fingerprint);
    const seen = group.seen!;
    return noveltyThenRemember(result.text, seen);
  }
}

/** A user's novelty function that throws or returns nonsense counts as "all new": never block on a bug. */
function safeDelta(override: DeltaFunction, view: CallResultView, earlier: readonly CallResultView[]): number {
  try {
    const delta = override(view, earlier);
    return Number.isFinite(delta) ? Math.min(1, Math.max(0, delta)) : 1;
  } catch {
    return 1;
  }
}

/** Observations of a whole history, computed from scratch. */
export async function buildObservations(
  messages: readonly unknown[],
  options: ObservationOptions = {},
): Promise<ToolCallObservation[]> {
  const store = new ObservationStore(await loadHasher(), options);
  return [...store.update(messages)];
}
