import { losesPrecision } from "./numberPrecision.js";

/**
 * A lenient, single-pass reading of a tool call's raw argument text. It finds what `jsonrepair`
 * would have to guess at, and builds the value it reads, so that a repair can be checked
 * against a second, independent reading. `jsonrepair` reports nothing about what it changed,
 * and some of its repairs change meaning: `{"limit":100` may have been 1000, and with brackets
 * unbalanced it may even re-read the inside of a string (`{"a":["["]` becomes `{"a":["",[""]]}`).
 */

/** A repair that changes, or may change, what the model meant. */
export type MeaningChange =
  | { kind: "cut_off"; what: "number" | "literal" | "string" | "key" | "word" | "after_comma"; at: number }
  | { kind: "key_without_value"; key: string; at: number }
  | { kind: "elided_items"; at: number }
  | { kind: "surrounding_text"; at: number }
  | { kind: "stray_text"; at: number }
  /** `NaN`, `Infinity`, `undefined`, `NULL`: no JSON value says the same, a string would say something else. */
  | { kind: "not_json_value"; word: string; at: number }
  /** A number a double cannot hold (`9007199254740993`, `1e400`). */
  | { kind: "imprecise_number"; literal: string; read: string; at: number }
  /** `"C:\Users\new"`: `\U` is no JSON escape, so whether `\n` meant a newline or a backslash is unknown. */
  | { kind: "invalid_escape"; escape: string; at: number }
  /** Containers still open at the end: keys or items after the last complete value may have been cut. */
  | { kind: "unclosed"; depth: number; lastKey: string | undefined; at: number }
  /** `["a" "b"]`: two items with a comma missing, or one string joined as Python and C join them. */
  | { kind: "adjacent_strings"; at: number }
  /** `[1,,2]`: an empty slot, which JavaScript reads as undefined and a repair drops. */
  | { kind: "empty_item"; at: number };

/** A repair that only fixes syntax. */
export type SyntaxRepair =
  | "code_fence"
  | "comments"
  | "single_quotes"
  | "unquoted_keys"
  | "unquoted_values"
  | "python_literals"
  | "missing_commas"
  | "missing_colons"
  | "trailing_commas"
  | "missing_closing_brackets"
  | "extra_closing_brackets"
  | "control_characters"
  | "string_concatenation";

export interface ArgumentScan {
  meaningChanges: MeaningChange[];
  syntaxRepairs: SyntaxRepair[];
  /** The text without a Markdown code fence around it: what to hand to jsonrepair. */
  body: string;
  /** The value this reading found; `UNREADABLE` where it met a token it would only guess at. */
  value: unknown;
}

/** Stands for a part of the text this reading does not interpret (a hex number, say). */
export const UNREADABLE: unique symbol = Symbol("unreadable");

type Expect = "key" | "colon" | "value" | "after";

interface Frame {
  container: Record<string, unknown> | unknown[];
  expect: Expect;
  key: string;
  keyAt: number;
  /** A comma was the last thing seen in this container. */
  afterComma: boolean;
}

const QUOTES: Record<string, string> = { '"': '"', "'": "'", "\u201c": "\u201d", "\u2018": "\u2019", "`": "`" };
const LITERALS: Record<string, unknown> = { true: true, false: false, null: null };
const PYTHON_LITERALS: Record<string, unknown> = { True: true, False: false, None: null };
const WORD_START = /[A-Za-z_$\u00c0-\uffff]/;
const WORD_CHAR = /[\w$\u00c0-\uffff]/;
const NUMBER_CHAR = /[\d.eE+\-xXa-fA-F]/;
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
// `\'` is no JSON escape, but every language that has it means a quote by it
const ESCAPES: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  b: "\b",
  f: "\f",
  "/": "/",
  "\\": "\\",
  '"': '"',
  "'": "'",
};
/** Words that look like values but are none in JSON; case variants of the JSON and Python literals among them. */
const NOT_JSON_WORDS = new Set(["nan", "inf", "infinity", "undefined", "true", "false", "null", "none", "nil"]);

export function scanArguments(raw: string): ArgumentScan {
  const meaningChanges: MeaningChange[] = [];
  const repairs = new Set<SyntaxRepair>();
  const text = stripCodeFence(raw, repairs);
  const stack: Frame[] = [];
  let root: unknown = UNREADABLE;
  let topDone = false;
  let topValues = 0;
  let last: { type: "number" | "word" | "string" | "punct"; end: number; word?: string } | undefined;

  const frame = () => stack[stack.length - 1];
  const isObject = (f: Frame | undefined) => f !== undefined && !Array.isArray(f.container);

  /** Places a value read in the current position. */
  const place = (value: unknown, at: number) => {
    const f = frame();
    if (!f) {
      topValues += 1;
      if (topDone || topValues > 1) meaningChanges.push({ kind: "surrounding_text", at });
      else root = value;
      if (!isContainer(value)) topDone = true;
      return;
    }
    if (f.expect === "after") {
      const previous = Array.isArray(f.container) ? f.container[f.container.length - 1] : undefined;
      if (typeof previous === "string" && typeof value === "string")
        meaningChanges.push({ kind: "adjacent_strings", at });
      repairs.add("missing_commas");
    }
    if (isObject(f) && f.expect === "colon") repairs.add("missing_colons");
    if (Array.isArray(f.container)) f.container.push(value);
    else setOwnKey(f.container, f.key, value);
    f.expect = "after";
    f.afterComma = false;
  };

  const placeKey = (key: string, at: number) => {
    const f = frame()!;
    if (f.expect === "after") repairs.add("missing_commas");
    f.key = key;
    f.keyAt = at;
    f.expect = "colon";
    f.afterComma = false;
  };

  /** A key position: an object expecting a key, or a value just ended with no comma. */
  const atKey = () => {
    const f = frame();
    return isObject(f) && (f!.expect === "key" || f!.expect === "after");
  };

  /** `"a" + "b"`: the next string continues the value just placed. */
  const appendToLast = (suffix: string) => {
    const f = frame();
    if (!f) return;
    if (Array.isArray(f.container)) {
      const index = f.container.length - 1;
      f.container[index] =
        typeof f.container[index] === "string" ? `${f.container[index] as string}${suffix}` : UNREADABLE;
    } else {
      const current = f.container[f.key];
      setOwnKey(f.container, f.key, typeof current === "string" ? current + suffix : UNREADABLE);
    }
  };

  let i = 0;
  const n = text.length;
  while (i < n) {
    const ch = text[i]!;
    if (ch === " " || ch === "\n" || ch === "\r" || ch === "\t") {
      i++;
      continue;
    }
    if (ch === "/" && (text[i + 1] === "/" || text[i + 1] === "*")) {
      repairs.add("comments");
      if (text[i + 1] === "/") {
        const end = text.indexOf("\n", i);
        i = end === -1 ? n : end + 1;
      } else {
        const end = text.indexOf("*/", i + 2);
        i = end === -1 ? n : end + 2;
      }
      continue;
    }
    const f = frame();
    const quote = QUOTES[ch];
    if (quote !== undefined) {
      const start = i;
      const read = readString(text, i, quote, repairs);
      if (quote !== '"') repairs.add("single_quotes");
      if (read.invalidEscape) meaningChanges.push({ kind: "invalid_escape", ...read.invalidEscape });
      // a JavaScript template literal interpolates: `x${y}` is not the text x${y}
      if (quote === "`" && read.value.includes("${"))
        meaningChanges.push({ kind: "not_json_value", word: "`${…}`", at: start });
      i = read.end;
      last = { type: "string", end: i };
      if (!read.closed) {
        meaningChanges.push({ kind: "cut_off", what: atKey() ? "key" : "string", at: start });
        break;
      }
      if (atKey()) placeKey(read.value, start);
      else place(read.value, start);
      continue;
    }
    if (ch === "{" || ch === "[") {
      const container: Record<string, unknown> | unknown[] = ch === "{" ? {} : [];
      if (atKey()) {
        // a container cannot be a key: read it as the value of a key that went missing
        meaningChanges.push({ kind: "key_without_value", key: "", at: i });
      }
      place(container, i);
      stack.push({ container, expect: ch === "{" ? "key" : "value", key: "", keyAt: i, afterComma: false });
      last = { type: "punct", end: i + 1 };
      i++;
      continue;
    }
    if (ch === "}" || ch === "]") {
      if (!f) {
        repairs.add("extra_closing_brackets");
      } else {
        if (isObject(f) && (f.expect === "colon" || f.expect === "value")) {
          meaningChanges.push({ kind: "key_without_value", key: f.key, at: f.keyAt });
        }
        if (f.afterComma) repairs.add("trailing_commas");
        stack.pop();
        if (stack.length === 0) topDone = true;
      }
      last = { type: "punct", end: i + 1 };
      i++;
      continue;
    }
    if (ch === ",") {
      if (f) {
        if (Array.isArray(f.container) && f.expect === "value") meaningChanges.push({ kind: "empty_item", at: i });
        if (isObject(f) && (f.expect === "colon" || f.expect === "value")) {
          meaningChanges.push({ kind: "key_without_value", key: f.key, at: f.keyAt });
        }
        if (f.afterComma) repairs.add("trailing_commas");
        f.expect = isObject(f) ? "key" : "value";
        f.afterComma = true;
      } else {
        meaningChanges.push({ kind: "surrounding_text", at: i });
      }
      last = { type: "punct", end: i + 1 };
      i++;
      continue;
    }
    if (ch === ":") {
      if (isObject(f) && f!.expect === "colon") f!.expect = "value";
      last = { type: "punct", end: i + 1 };
      i++;
      continue;
    }
    if (ch === "." && text.startsWith("...", i)) {
      meaningChanges.push({ kind: "elided_items", at: i });
      i += 3;
      last = { type: "punct", end: i };
      continue;
    }
    if (ch === "+" && f && f.expect === "after") {
      const next = skipSpace(text, i + 1);
      const nextQuote = QUOTES[text[next] ?? ""];
      if (nextQuote !== undefined) {
        repairs.add("string_concatenation");
        const read = readString(text, next, nextQuote, repairs);
        if (read.invalidEscape) meaningChanges.push({ kind: "invalid_escape", ...read.invalidEscape });
        i = read.end;
        last = { type: "string", end: i };
        if (!read.closed) {
          meaningChanges.push({ kind: "cut_off", what: "string", at: next });
          break;
        }
        appendToLast(read.value);
        continue;
      }
    }
    if (ch === "-" || ch === "+" || ch === "." || (ch >= "0" && ch <= "9")) {
      const start = i;
      while (i < n && NUMBER_CHAR.test(text[i]!)) i++;
      const token = text.slice(start, i);
      if ((token === "-" || token === "+") && WORD_START.test(text[i] ?? "")) {
        // a signed word: -Infinity
        while (i < n && WORD_CHAR.test(text[i]!)) i++;
        meaningChanges.push({ kind: "not_json_value", word: text.slice(start, i), at: start });
        place(UNREADABLE, start);
        last = { type: "word", end: i, word: text.slice(start + 1, i) };
        continue;
      }
      if (atKey()) {
        repairs.add("unquoted_keys");
        placeKey(token, start);
      } else if (JSON_NUMBER.test(token)) {
        if (losesPrecision(token))
          meaningChanges.push({ kind: "imprecise_number", literal: token, read: String(Number(token)), at: start });
        place(Number(token), start);
      } else {
        place(UNREADABLE, start);
      }
      last = { type: "number", end: i };
      continue;
    }
    if (WORD_START.test(ch)) {
      const start = i;
      while (i < n && WORD_CHAR.test(text[i]!)) i++;
      const word = text.slice(start, i);
      if (atKey()) {
        repairs.add("unquoted_keys");
        placeKey(word, start);
      } else if (!f && (topValues > 0 || !isLiteral(word))) {
        meaningChanges.push({ kind: "surrounding_text", at: start });
      } else if (!isLiteral(word) && NOT_JSON_WORDS.has(word.toLowerCase())) {
        meaningChanges.push({ kind: "not_json_value", word, at: start });
        place(UNREADABLE, start);
      } else if (word in LITERALS) {
        place(LITERALS[word], start);
      } else if (word in PYTHON_LITERALS) {
        repairs.add("python_literals");
        place(PYTHON_LITERALS[word], start);
      } else {
        repairs.add("unquoted_values");
        place(word, start);
      }
      last = { type: "word", end: i, word };
      continue;
    }
    // any other character outside a string is text that is not JSON
    meaningChanges.push({ kind: f ? "stray_text" : "surrounding_text", at: i });
    i++;
  }

  const cutAtEnd = last !== undefined && last.end === text.length;
  if (cutAtEnd && last!.type === "number") meaningChanges.push({ kind: "cut_off", what: "number", at: last!.end });
  if (cutAtEnd && last!.type === "word" && !isLiteral(last!.word!)) {
    const what = isLiteralPrefix(last!.word!) ? "literal" : "word";
    meaningChanges.push({ kind: "cut_off", what, at: last!.end });
  }
  const open = frame();
  if (open && !meaningChanges.some((c) => c.kind === "cut_off")) {
    if (isObject(open) && (open.expect === "colon" || open.expect === "value")) {
      meaningChanges.push({ kind: "key_without_value", key: open.key, at: open.keyAt });
    } else if (open.afterComma) {
      meaningChanges.push({ kind: "cut_off", what: "after_comma", at: text.length });
    } else {
      // a complete value, then the end: a forgotten brace or a cut-off call, nobody can tell
      const outer = stack[0]!;
      meaningChanges.push({
        kind: "unclosed",
        depth: stack.length,
        lastKey: isObject(outer) ? outer.key : undefined,
        at: text.length,
      });
    }
  }
  if (stack.length > 0) repairs.add("missing_closing_brackets");
  return { meaningChanges, syntaxRepairs: [...repairs], body: text, value: root };
}

function isContainer(value: unknown): boolean {
  return value !== null && typeof value === "object";
}

/**
 * Adds `key` as an own data property, as `JSON.parse` does: an assignment would run setters,
 * and `"__proto__"` would change the object's prototype instead of adding a key.
 */
function setOwnKey(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
}

function isLiteral(word: string): boolean {
  return word in LITERALS || word in PYTHON_LITERALS;
}

function isLiteralPrefix(word: string): boolean {
  return [...Object.keys(LITERALS), ...Object.keys(PYTHON_LITERALS)].some((literal) => literal.startsWith(word));
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && /\s/.test(text[i]!)) i++;
  return i;
}

/**
 * Reads a quoted string starting at `start`, resolving JSON escapes. An escape JSON does not have
 * (`\U`, `\q`, `\x41`) is reported: its string was written with unescaped backslashes, so its
 * valid-looking escapes (`\n` in `C:\Users\new`) may be backslashes too.
 */
function readString(
  text: string,
  start: number,
  closing: string,
  repairs: Set<SyntaxRepair>,
): { end: number; closed: boolean; value: string; invalidEscape?: { escape: string; at: number } } {
  let i = start + 1;
  let value = "";
  let invalidEscape: { escape: string; at: number } | undefined;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === "\\") {
      const next = text[i + 1];
      if (next === undefined) return { end: text.length, closed: false, value, invalidEscape };
      if (next === "u") {
        const hex = text.slice(i + 2, i + 6);
        if (i + 6 > text.length) return { end: text.length, closed: false, value, invalidEscape };
        if (/^[0-9a-fA-F]{4}$/.test(hex)) value += String.fromCharCode(parseInt(hex, 16));
        else invalidEscape ??= { escape: `\\u${hex}`, at: i };
        i += 6;
        continue;
      }
      const escaped = ESCAPES[next];
      if (escaped === undefined) invalidEscape ??= { escape: `\\${next}`, at: i };
      value += escaped ?? next;
      i += 2;
      continue;
    }
    if (ch === closing) return { end: i + 1, closed: true, value, invalidEscape };
    if (ch < " ") repairs.add("control_characters");
    value += ch;
    i++;
  }
  return { end: text.length, closed: false, value, invalidEscape };
}

/** Removes a Markdown code fence that wraps the whole text (a harmless, common model habit). */
function stripCodeFence(raw: string, repairs: Set<SyntaxRepair>): string {
  const trimmed = raw.trim();
  if (!trimmed.startsWith("```")) return raw;
  const firstLineEnd = trimmed.indexOf("\n");
  if (firstLineEnd === -1) return raw;
  let body = trimmed.slice(firstLineEnd + 1);
  const closing = body.lastIndexOf("```");
  if (closing !== -1) {
    if (body.slice(closing + 3).trim() !== "") return raw;
    body = body.slice(0, closing);
  }
  repairs.add("code_fence");
  return body;
}
