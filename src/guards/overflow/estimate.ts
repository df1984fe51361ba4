import { toJsonSchema } from "@langchain/core/utils/json_schema";
import { messageKind, textOfBlock, toolCallsOf } from "../../core/messages.js";
import { isMediaBlockType } from "../../core/mediaBlocks.js";
import { countSafely, type CountTokens } from "../../core/tokens.js";

/**
 * What a request costs in tokens, before it is sent. LangChain's own counters
 * (`getNumTokens`, `getNumTokensFromMessages`) download their tokenizer from the network on first
 * use, count nothing but text content (no tool calls, no tool schemas) and fall back to four
 * characters a token offline, which counts JSON at two thirds of its tokens and ids, numbers,
 * base64, CJK and emoji at a third or less. So the guard estimates by default, and takes a real
 * tokenizer through `countTokens`.
 *
 * The estimate follows what BPE tokenizers of the GPT-4 and GPT-4o families do before they merge
 * bytes: they cut text into pieces at every change between letters, digits, punctuation and
 * spaces, and digits into groups of at most three. So it walks the text once, a run of one kind
 * of character at a time:
 * - a word (letters, a new word at each lower-to-upper change, as in camelCase) is a token up to
 *   `WORD_CHARS` letters, and one more for each `LONG_WORD_STEP` letters beyond;
 * - digits are a token per group of three;
 * - a run of letters and digits that changes kind at least every `RANDOM_CHANGE_EVERY` characters
 *   (hashes, uuids, base64) is not made of words: each letter segment costs `RANDOM_LETTER` a letter;
 * - a word scores 1 for each consonant English rarely uses (j, k, q, v, x, z) and for each
 *   consonant from the fourth in a row; one of five letters or more that scores 3 is a random id
 *   (`kqzjxmwp`, `VXKQTBRN`), `IMPLAUSIBLE_LETTER` a letter;
 * - punctuation is a token per three characters of a run (`":"`, `},{"` are single tokens),
 *   except a rule character repeated eight times or more (`--------`): a token per 32, and
 *   another character repeated (`}}}}`): a token per two;
 * - one space is free before a word or punctuation (it merges with them) and a token before a
 *   digit; other whitespace is a token per run, two when it indents a line;
 * - beyond ASCII, by what a character is in UTF-8 bytes: two-byte letters (accents, Cyrillic,
 *   Greek) 0.6, CJK and other three-byte characters 1.3, typographic symbols 1, and characters
 *   outside the BMP (emoji, by their surrogate pair) 3.
 * On the generated corpus of `bench/estimateCorpus.ts` (bench/README.md has the table) it comes
 * within 0.98–1.36× of both o200k_base and cl100k_base, 1.06× on English prose; the calibration by
 * the provider's reported input tokens corrects the rest, both ways.
 */
export const estimateTokens: CountTokens = (text) => {
  const length = text.length;
  let tokens = 0;
  let i = 0;
  while (i < length) {
    const code = text.charCodeAt(i);
    const kind = code < 128 ? ASCII_KIND[code]! : NON_ASCII;
    if (kind === LOWER || kind === UPPER || kind === DIGIT) {
      i = alphanumericRun(text, i);
      tokens += runTokens;
    } else if (kind === SPACE) {
      let end = i + 1;
      while (end < length && text.charCodeAt(end) === 32) end++;
      const next = end < length ? text.charCodeAt(end) : 32;
      if (end - i > 1) tokens += 1 + (end - i) / 16;
      else if (next < 128 && ASCII_KIND[next] === DIGIT) tokens += 1;
      i = end;
    } else if (kind === BREAK) {
      let end = i + 1;
      while (end < length) {
        const c = text.charCodeAt(end);
        if (c >= 128 || (ASCII_KIND[c] !== BREAK && ASCII_KIND[c] !== SPACE)) break;
        end++;
      }
      tokens += end - i > 2 ? 2 + (end - i) / 16 : 1;
      i = end;
    } else if (kind === PUNCTUATION) {
      let end = i;
      let plain = 0;
      while (end < length) {
        const c = text.charCodeAt(end);
        if (c >= 128 || ASCII_KIND[c] !== PUNCTUATION) break;
        let same = end + 1;
        while (same < length && text.charCodeAt(same) === c) same++;
        const repeats = same - end;
        if (MERGING_REPEATS.includes(c)) {
          if (repeats >= REPEAT_MIN_CHARS)
            tokens += 1 + Math.ceil(repeats / REPEAT_CHARS_PER_TOKEN); // and a token for the odd end
          else plain += repeats;
        } else if (repeats >= 3)
          tokens += Math.ceil(repeats / 2); // `}}}}`, `""""`: two a token at most
        else plain += repeats;
        end = same;
      }
      tokens += Math.ceil(plain / PUNCTUATION_PER_TOKEN);
      i = end;
    } else {
      tokens += nonAsciiTokens(code);
      i++;
    }
  }
  return Math.ceil(tokens);
};

const CONTROL = 0;
const SPACE = 1;
const BREAK = 2;
const LOWER = 3;
const UPPER = 4;
const DIGIT = 5;
const PUNCTUATION = 6;
const NON_ASCII = 7;

const ASCII_KIND = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  ASCII_KIND[c] =
    c === 32
      ? SPACE
      : c >= 9 && c <= 13
        ? BREAK
        : c >= 97 && c <= 122
          ? LOWER
          : c >= 65 && c <= 90
            ? UPPER
            : c >= 48 && c <= 57
              ? DIGIT
              : c > 32 && c < 127
                ? PUNCTUATION
                : CONTROL;
}

/** Letters of a word that are one token; English words longer than this are rare. */
const WORD_CHARS = 10;
/** Letters of each further token of a longer word. */
const LONG_WORD_STEP = 4;
/** A run at least this long that changes kind at least every `RANDOM_CHANGE_EVERY` characters is random. */
const RANDOM_MIN_CHARS = 8;
const RANDOM_CHANGE_EVERY = 1 / 0.3;
/** Tokens per letter of random text: o200k_base and cl100k_base split base64 at 0.69–0.72 a character. */
const RANDOM_LETTER = 0.8;
const PUNCTUATION_PER_TOKEN = 3;
/**
 * These characters repeated this often in a row (a rule of dashes, a row of `=`) merge into long
 * tokens: GPT-4o's and GPT-4's tokenizers put 32 or more of one in a token. Brackets, quotes
 * and commas do not (eight `}` are four tokens).
 */
const MERGING_REPEATS = [..."#%*+-./=_~"].map((c) => c.charCodeAt(0));
const REPEAT_MIN_CHARS = 8;
const REPEAT_CHARS_PER_TOKEN = 32;

/** Tokens of the run `alphanumericRun` last read (a module variable: no object per run). */
let runTokens = 0;

/**
 * Per ASCII character: bit 0 a consonant, bit 1 a consonant English rarely uses (j, k, q, v, x,
 * z: 2% of English letters, 23% of random ones). Vowels (y included), digits and the rest are 0.
 */
const LETTER_WEIGHT = new Uint8Array(128);
for (let c = 65; c <= 122; c++) {
  const lower = String.fromCharCode(c).toLowerCase();
  if (!/[a-z]/.test(lower) || "aeiouy".includes(lower)) continue;
  LETTER_WEIGHT[c] = "jkqvxz".includes(lower) ? 3 : 1;
}
/** Letters from which a word is judged, and the score from which it is not one (random ids). */
const JUDGED_WORD_CHARS = 5;
const IMPLAUSIBLE_SCORE = 3;
/** Tokens per letter of a word that is not one (`qzxkvbnm`): o200k_base splits random lower case at 0.53 a letter. */
const IMPLAUSIBLE_LETTER = 0.6;

/**
 * Reads the run of letters and digits that starts at `start`, sets `runTokens`, returns its end.
 * A run is cut into segments at each change between digits, lower case and upper case (a
 * capital followed by lower case stays one word). Its cost is that of its segments as words, or,
 * when the run changes kind too often to be made of words, as random text.
 */
function alphanumericRun(text: string, start: number): number {
  const length = text.length;
  let asWords = 0;
  let asRandom = 0;
  let changes = 0;
  let segment = 0;
  let segmentIsDigits = false;
  // How implausible the current letter segment is as an English word: 1 for each rare
  // consonant, and for each consonant from the fourth in a row (2 from the eighth).
  let score = 0;
  let consonants = 0;
  let previous = CONTROL;
  let i = start;
  for (; i < length; i++) {
    const code = text.charCodeAt(i);
    const kind = code < 128 ? ASCII_KIND[code]! : NON_ASCII;
    if (kind !== LOWER && kind !== UPPER && kind !== DIGIT) break;
    // A new segment at a change of kind, except a capital followed by lower case ("Word").
    if (i > start && kind !== previous && !(previous === UPPER && kind === LOWER)) {
      changes++;
      if (segmentIsDigits) {
        const groups = Math.ceil(segment / 3);
        asWords += groups;
        asRandom += groups;
      } else {
        asWords += wordTokens(segment, score);
        asRandom += segment > 1 ? segment * RANDOM_LETTER : 1;
      }
      segment = 0;
      score = 0;
      consonants = 0;
    }
    if (segment === 0) segmentIsDigits = kind === DIGIT;
    // Branch-free: this loop is most of the estimate's time.
    const letter = LETTER_WEIGHT[code]!;
    consonants = (consonants + 1) * (letter & 1);
    score += (letter >> 1) + (consonants >> 2);
    segment++;
    previous = kind;
  }
  if (segmentIsDigits) {
    const groups = Math.ceil(segment / 3);
    asWords += groups;
    asRandom += groups;
  } else {
    asWords += wordTokens(segment, score);
    asRandom += segment > 1 ? segment * RANDOM_LETTER : 1;
  }
  const runLength = i - start;
  runTokens = runLength >= RANDOM_MIN_CHARS && changes * RANDOM_CHANGE_EVERY >= runLength ? asRandom : asWords;
  return i;
}

/** Tokens of a segment of letters read as a word: longer words and implausible ones cost more. */
function wordTokens(segment: number, score: number): number {
  const word = segment <= WORD_CHARS ? 1 : 1 + Math.ceil((segment - WORD_CHARS) / LONG_WORD_STEP);
  return segment >= JUDGED_WORD_CHARS && score >= IMPLAUSIBLE_SCORE && segment * IMPLAUSIBLE_LETTER > word
    ? segment * IMPLAUSIBLE_LETTER
    : word;
}

/** One character beyond ASCII; the low half of a surrogate pair costs nothing (the high half paid). */
function nonAsciiTokens(code: number): number {
  if (code < 0x80) return 1; // an ASCII control character
  if (code < 0x800) return 0.6;
  if (code >= 0xd800 && code <= 0xdbff) return 3;
  if (code >= 0xdc00 && code <= 0xdfff) return 0;
  if (code >= 0x2000 && code <= 0x2bff) return 1;
  return 1.3;
}

/** What a request's messages add up to. */
export interface HistorySummary {
  tokens: number;
  /** What the latest message that `learnedAt` knows about says (the guard: the window a provider stated). */
  learnedWindow: number | undefined;
}

/** Role, separators and the like that every message costs besides its content. */
export const MESSAGE_OVERHEAD = 4;
/** Id, type and framing of one tool call besides its name and arguments. */
const CALL_OVERHEAD = 8;
/**
 * An image or other media block. Providers bill images by their pixels (about 1,600 tokens for a
 * large image at Anthropic and OpenAI), not by the length of their base64, which would count a
 * 1 MB screenshot as 250,000 tokens. A PDF (a document or file block) counts the same though its
 * pages cost more: the calibration by reported input tokens makes up for it.
 */
export const MEDIA_TOKENS = 1600;

/**
 * Sizes of messages, tool schemas and system prompts under one counter. Each object is measured
 * once (messages in state are the same objects from step to step), so a step costs a lookup per
 * message, not a count of the whole history.
 */
export class RequestMeter {
  private readonly sizes = new WeakMap<object, number>();
  /** Per message: the summary of the history up to and including it, at its position. */
  private readonly prefixes = new WeakMap<object, HistorySummary & { index: number }>();
  /** Per message: what `learned` found in the history up to and including it, at its position. */
  private readonly learnedPrefixes = new WeakMap<object, { index: number; learnedWindow: number | undefined }>();

  constructor(readonly count: CountTokens = estimateTokens) {}

  /** A counter that throws or answers nonsense is replaced by the estimate for that text. */
  text(text: string): number {
    return text === "" ? 0 : Math.ceil(countSafely(this.count, text, estimateTokens));
  }

  message(message: unknown): number {
    if (message === null || typeof message !== "object") return 0;
    let size = this.sizes.get(message);
    if (size === undefined) {
      size = this.measureMessage(message as Record<string, unknown>);
      this.sizes.set(message, size);
    }
    return size;
  }

  /**
   * Tokens of `messages[0..end)` and what `learnedAt` last found in them (see `HistorySummary`),
   * extending the summary of an earlier request that this one continues: between graph steps
   * LangGraph's history only grows, the same objects at the same positions, so only the new
   * messages are touched. Touching every message of a long history costs more inside a graph
   * step (its objects are cold in memory) than everything else the guard does. A message replaced
   * in place further back is not seen: `messages()` is the exact pass, for requests near the limit.
   */
  summary(
    messages: readonly unknown[],
    learnedAt: (message: unknown) => number | undefined | null,
    end = messages.length,
  ): HistorySummary {
    let tokens = 0;
    let decided = false;
    let learnedWindow: number | undefined;
    for (let i = end - 1; i >= 0; i--) {
      const message = messages[i];
      const known = message !== null && typeof message === "object" ? this.prefixes.get(message) : undefined;
      if (known && known.index === i) {
        tokens += known.tokens;
        if (!decided) learnedWindow = known.learnedWindow;
        break;
      }
      tokens += this.message(message);
      if (!decided) {
        const found = learnedAt(message);
        if (found !== null) [decided, learnedWindow] = [true, found];
      }
    }
    const last = messages[end - 1];
    if (last !== null && typeof last === "object") this.prefixes.set(last, { index: end - 1, tokens, learnedWindow });
    return { tokens, learnedWindow };
  }

  /**
   * `summary(messages, learnedAt).learnedWindow` without measuring a message: for a request with
   * no window to measure it against. The same walk from the newest message, stopped where
   * `learnedAt` finds something or an earlier walk (this one's or `summary`'s) covered the rest.
   */
  learned(
    messages: readonly unknown[],
    learnedAt: (message: unknown) => number | undefined | null,
  ): number | undefined {
    let learnedWindow: number | undefined;
    for (let i = messages.length - 1; i >= 0; i--) {
      const message = messages[i];
      if (message !== null && typeof message === "object") {
        const known = this.prefixes.get(message) ?? this.learnedPrefixes.get(message);
        if (known && known.index === i) {
          learnedWindow = known.learnedWindow;
          break;
        }
      }
      const found = learnedAt(message);
      if (found !== null) {
        learnedWindow = found;
        break;
      }
    }
    const last = messages[messages.length - 1];
    if (last !== null && typeof last === "object")
      this.learnedPrefixes.set(last, { index: messages.length - 1, learnedWindow });
    return learnedWindow;
  }

  messages(messages: readonly unknown[], from = 0, to = messages.length): number {
    let total = 0;
    for (let i = from; i < to; i++) total += this.message(messages[i]);
    return total;
  }

  /** The system prompt and the tool schemas: what the request costs besides its messages. */
  fixed(systemMessage: unknown, tools: readonly unknown[] | undefined): number {
    let total = systemMessage ? this.message(systemMessage) : 0;
    for (const tool of tools ?? []) total += this.tool(tool);
    return total;
  }

  content(content: unknown): number {
    if (typeof content === "string") return this.text(content);
    if (!Array.isArray(content)) return content === null || content === undefined ? 0 : this.text(safeJson(content));
    let total = 0;
    for (const block of content) total += this.block(block);
    return total;
  }

  private block(block: unknown): number {
    const text = textOfBlock(block);
    if (text !== undefined) return this.text(text);
    if (block === null || typeof block !== "object") return 0;
    if (isMediaBlockType((block as { type?: unknown }).type)) return MEDIA_TOKENS;
    return this.text(safeJson(block));
  }

  private measureMessage(message: Record<string, unknown>): number {
    let size = MESSAGE_OVERHEAD + this.content(message.content);
    if (messageKind(message) === "ai") {
      for (const call of toolCallsOf(message))
        size += CALL_OVERHEAD + this.text(call.name) + this.text(safeJson(call.args ?? {}));
    }
    return size;
  }

  private tool(tool: unknown): number {
    if (tool === null || typeof tool !== "object") return 0;
    let size = this.sizes.get(tool);
    if (size === undefined) {
      size = this.text(toolSchemaText(tool as Record<string, unknown>));
      this.sizes.set(tool, size);
    }
    return size;
  }
}

/** What a provider is sent for a tool: its name, description and JSON schema. */
function toolSchemaText(tool: Record<string, unknown>): string {
  let schema: unknown = tool.schema;
  try {
    if (schema !== undefined && schema !== null) schema = toJsonSchema(schema as Parameters<typeof toJsonSchema>[0]);
  } catch {
    // a schema LangChain cannot convert is counted as it is
  }
  if (schema === undefined) return safeJson(tool); // a provider tool written as a dict
  return `${String(tool.name ?? "")}\n${String(tool.description ?? "")}\n${safeJson(schema)}`;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return String(value);
  }
}
