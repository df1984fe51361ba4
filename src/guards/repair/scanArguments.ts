/**
 * A lenient, single-pass reading of a tool call's raw argument text that finds what `jsonrepair`
 * would have to guess at. `jsonrepair` reports nothing about what it changed, and some of its
 * repairs change meaning (`{"limit":100` may have been 1000); this scan tells those apart from
 * repairs that only fix syntax (single quotes, a missing closing brace, a trailing comma).
 */

/** A repair that changes, or may change, what the model meant. */
export type MeaningChange =
  | { kind: "cut_off"; what: "number" | "literal" | "string" | "key" | "word" | "after_comma"; at: number }
  | { kind: "key_without_value"; key: string; at: number }
  | { kind: "elided_items"; at: number }
  | { kind: "surrounding_text"; at: number };

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
}

type Expect = "key" | "colon" | "value" | "after";

interface Frame {
  object: boolean;
  expect: Expect;
  key: string;
  keyAt: number;
  /** A comma was the last thing seen in this container. */
  afterComma: boolean;
}

const QUOTES: Record<string, string> = { '"': '"', "'": "'", "\u201c": "\u201d", "\u2018": "\u2019", "`": "`" };
const LITERALS = new Set(["true", "false", "null"]);
const PYTHON_LITERALS = new Set(["True", "False", "None"]);
const WORD_START = /[A-Za-z_$\u00c0-\uffff]/;
const WORD_CHAR = /[\w$\u00c0-\uffff]/;
const NUMBER_CHAR = /[\d.eE+\-xXa-fA-F]/;

export function scanArguments(raw: string): ArgumentScan {
  const meaningChanges: MeaningChange[] = [];
  const repairs = new Set<SyntaxRepair>();
  const text = stripCodeFence(raw, repairs);
  const stack: Frame[] = [];
  let topDone = false;
  let topValues = 0;
  let last: { type: "number" | "word" | "string" | "punct"; end: number; word?: string } | undefined;

  const frame = () => stack[stack.length - 1];

  /** A value token (string, number, word, or a container about to open) was read. */
  const valueSeen = (at: number) => {
    const f = frame();
    if (!f) {
      topValues += 1;
      if (topDone) meaningChanges.push({ kind: "surrounding_text", at });
      return;
    }
    if (f.expect === "after") repairs.add("missing_commas");
    if (f.object && f.expect === "colon") repairs.add("missing_colons");
    f.expect = "after";
    f.afterComma = false;
  };

  const keySeen = (key: string, at: number) => {
    const f = frame()!;
    if (f.expect === "after") repairs.add("missing_commas");
    f.key = key;
    f.keyAt = at;
    f.expect = "colon";
    f.afterComma = false;
  };

  const closeValue = () => {
    if (stack.length === 0) topDone = true;
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
      const { end, closed, decoded } = readString(text, i, quote, repairs);
      if (quote !== '"') repairs.add("single_quotes");
      i = end;
      if (!closed) {
        const isKey = f?.object === true && f.expect !== "value" && f.expect !== "colon";
        meaningChanges.push({ kind: "cut_off", what: isKey ? "key" : "string", at: start });
        last = { type: "string", end: i };
        break;
      }
      if (f?.object && (f.expect === "key" || f.expect === "after")) keySeen(decoded, start);
      else {
        valueSeen(start);
        closeValue();
      }
      last = { type: "string", end: i };
      continue;
    }
    if (ch === "{" || ch === "[") {
      valueSeen(i);
      stack.push({ object: ch === "{", expect: ch === "{" ? "key" : "value", key: "", keyAt: i, afterComma: false });
      last = { type: "punct", end: i + 1 };
      i++;
      continue;
    }
    if (ch === "}" || ch === "]") {
      if (!f) {
        repairs.add("extra_closing_brackets");
      } else {
        if (f.object && (f.expect === "colon" || f.expect === "value")) {
          meaningChanges.push({ kind: "key_without_value", key: f.key, at: f.keyAt });
        }
        if (f.afterComma) repairs.add("trailing_commas");
        stack.pop();
        const parent = frame();
        if (parent) {
          parent.expect = "after";
          parent.afterComma = false;
        }
        closeValue();
      }
      last = { type: "punct", end: i + 1 };
      i++;
      continue;
    }
    if (ch === ",") {
      if (f) {
        if (f.object && (f.expect === "colon" || f.expect === "value")) {
          meaningChanges.push({ kind: "key_without_value", key: f.key, at: f.keyAt });
        }
        if (f.afterComma) repairs.add("trailing_commas");
        f.expect = f.object ? "key" : "value";
        f.afterComma = true;
      } else {
        meaningChanges.push({ kind: "surrounding_text", at: i });
      }
      last = { type: "punct", end: i + 1 };
      i++;
      continue;
    }
    if (ch === ":") {
      if (f?.object && f.expect === "colon") f.expect = "value";
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
      repairs.add("string_concatenation");
      f.expect = "value";
      // the next string continues the previous value rather than starting a new one
      const next = skipSpace(text, i + 1);
      const nextQuote = QUOTES[text[next] ?? ""];
      if (nextQuote !== undefined) {
        const { end, closed } = readString(text, next, nextQuote, repairs);
        i = end;
        f.expect = "after";
        if (!closed) {
          meaningChanges.push({ kind: "cut_off", what: "string", at: next });
          break;
        }
        last = { type: "string", end: i };
        continue;
      }
      i++;
      continue;
    }
    if (ch === "-" || ch === "+" || ch === "." || (ch >= "0" && ch <= "9")) {
      const start = i;
      while (i < n && NUMBER_CHAR.test(text[i]!)) i++;
      if (f?.object && (f.expect === "key" || f.expect === "after")) {
        repairs.add("unquoted_keys");
        keySeen(text.slice(start, i), start);
      } else {
        valueSeen(start);
        closeValue();
      }
      last = { type: "number", end: i };
      continue;
    }
    if (WORD_START.test(ch)) {
      const start = i;
      while (i < n && WORD_CHAR.test(text[i]!)) i++;
      const word = text.slice(start, i);
      if (f?.object && (f.expect === "key" || f.expect === "after")) {
        repairs.add("unquoted_keys");
        keySeen(word, start);
      } else {
        if (!f && (topValues > 0 || !isLiteral(word))) {
          meaningChanges.push({ kind: "surrounding_text", at: start });
        } else if (PYTHON_LITERALS.has(word)) repairs.add("python_literals");
        else if (!LITERALS.has(word)) repairs.add("unquoted_values");
        valueSeen(start);
        closeValue();
      }
      last = { type: "word", end: i, word };
      continue;
    }
    // any other character outside a string is text that is not JSON
    if (!f || topDone) meaningChanges.push({ kind: "surrounding_text", at: i });
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
    if (open.object && (open.expect === "colon" || open.expect === "value")) {
      meaningChanges.push({ kind: "key_without_value", key: open.key, at: open.keyAt });
    } else if (open.afterComma) {
      meaningChanges.push({ kind: "cut_off", what: "after_comma", at: text.length });
    }
  }
  if (stack.length > 0) repairs.add("missing_closing_brackets");
  return { meaningChanges, syntaxRepairs: [...repairs] };
}

function isLiteral(word: string): boolean {
  return LITERALS.has(word) || PYTHON_LITERALS.has(word);
}

function isLiteralPrefix(word: string): boolean {
  for (const literal of [...LITERALS, ...PYTHON_LITERALS]) if (literal.startsWith(word)) return true;
  return false;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && /\s/.test(text[i]!)) i++;
  return i;
}

/** Reads a quoted string starting at `start`; `decoded` is its text with simple escapes resolved. */
function readString(
  text: string,
  start: number,
  closing: string,
  repairs: Set<SyntaxRepair>,
): { end: number; closed: boolean; decoded: string } {
  let i = start + 1;
  let decoded = "";
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === "\\") {
      if (i + 1 >= text.length) return { end: text.length, closed: false, decoded };
      decoded += text[i + 1];
      i += 2;
      continue;
    }
    if (ch === closing) return { end: i + 1, closed: true, decoded };
    if (ch < " ") repairs.add("control_characters");
    decoded += ch;
    i++;
  }
  return { end: text.length, closed: false, decoded };
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
