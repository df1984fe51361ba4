import { hiddenLinkTexts } from "./markdownLinks.js";

/** The tag that delimits untrusted tool output in what the model reads. */
export const ENVELOPE_TAG = "untrusted_tool_output";

/**
 * Text that reads like instructions to the model rather than data. Each entry is named so a
 * signal can say what was seen. This is a tripwire for alerting, not a defence: paraphrases and
 * other languages pass it. Each pattern asks for the instruction itself (an imperative, a role
 * line that gives an order), not prose about instructions.
 */
export const INSTRUCTION_PATTERNS: Readonly<Record<string, RegExp>> = Object.freeze({
  override_instructions:
    /(?:^|[.!?:;>\]\n*"'`(\u201C\u2018-]\s*|\b(?:please|now|just|you\s+(?:must|should|will|need\s+to|have\s+to))\s+)(?:ignore|disregard|forget|override)\b[^.\n]{0,40}?\b(?:previous|prior|above|earlier|preceding|all|your|system)\b[^.\n]{0,40}?\b(?:instructions?|prompts?|rules|directions|guidelines)\b/im,
  role_change:
    /\byou are now (?:a|an|the|my|in|acting|no longer|free|DAN|jailbroken|unrestricted)\b|\bnew (?:system )?instructions?\s*:|\bfrom now on,? you (?:are|will|must|should|shall)\b/i,
  role_tag:
    /<\|(?:im_start|im_end|system|user|assistant|endoftext)\|>|<\/?(?:system|assistant|human|user)>|\[\/?INST\]|^\s*#{0,3}\s*(?:system|assistant)\s*:\s*(?:you\b|ignore\b|disregard\b|forget\b|from now on\b|always\b|never\b|do not\b|don't\b|new instructions?\b)/im,
  tool_call_syntax: /<\/?(?:tool_call|tool_use|function_calls?|invoke)\b|"(?:tool_calls|function_call)"\s*:/i,
  /**
   * A fake assistant turn: a line that opens as the assistant's turn (at the start of the line,
   * not an item of a list, a numbered or indented line or a quote) and, in the assistant's first
   * person, announces a call of a named tool (`transfer_funds`, `sendEmail`, `pay(`). A turn
   * marker alone is what every transcript and chat log holds; it is the assistant's voice
   * committing to a call, in a line that reads as a new turn, that writes a turn for the model.
   */
  fake_assistant_turn:
    /^(?:#{1,3}[ \t]*)?(?:\*\*)?(?:[Aa]ssistant|ASSISTANT|AI|[Bb]ot|[Mm]odel)(?:\*\*)?[ \t]*:(?:\*\*)?[ \t]*[^\n]{0,120}?\b(?:I(?:'ll|\u2019ll| will| shall| am going to|'m going to|\u2019m going to| am now|'m now)|[Ll]et me)[ \t]+(?:now[ \t]+)?(?:call(?:ing)?|invok(?:e|ing)|run(?:ning)?|execut(?:e|ing)|us(?:e|ing)|trigger(?:ing)?)[ \t]+(?:the[ \t]+)?[`"']?(?:[A-Za-z][A-Za-z0-9]*(?:[_.][A-Za-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]*|[A-Za-z_][A-Za-z0-9_]*\()/m,
});

/**
 * Names of the instruction-like patterns found in `text`; `instruction_in_link` when one is found
 * in what a markdown link hides (its URL read as words, or its title, each read as text of its
 * own); and `envelope_tag` when it spells the envelope's own tag (escaped in the envelope, but a
 * sign of an attempt).
 */
export function findInstructionLikeText(text: string): string[] {
  const found = instructionPatternsIn(text);
  if (hiddenLinkTexts(text).some((hidden) => instructionPatternsIn(hidden).length > 0))
    found.push("instruction_in_link");
  if (spellsEnvelopeTag(text)) found.push("envelope_tag");
  return found;
}

function instructionPatternsIn(text: string): string[] {
  return Object.entries(INSTRUCTION_PATTERNS).flatMap(([name, pattern]) => (pattern.test(text) ? [name] : []));
}

function spellsEnvelopeTag(text: string): boolean {
  if (!MAYBE_TAG.test(text)) return false;
  for (let i = 0; i < text.length; i++) if (ANGLES.includes(text[i]!) && readsAsTag(text, i)) return true;
  return false;
}

/**
 * Characters that read as "<" or "/" to a model once lookalikes are folded: NFKC maps the
 * fullwidth and small forms; these do not fold under NFKC but look the same.
 */
const ANGLES = "<\uFF1C\uFE64\u2039\u2329\u3008\u27E8\u276E\u02C2\u1438\u227A";
const SLASHES: Readonly<Record<string, string>> = {
  "\u2044": "/",
  "\u2215": "/",
  "\u29F8": "/",
  "\u2571": "/",
  "\uFF0F": "/",
};
const MAYBE_TAG = new RegExp(`[${ANGLES}]`);
const TAG_START = new RegExp(`^<\\s*/?\\s*${ENVELOPE_TAG}`);
/** Invisible characters a reader skips: zero-width spaces and joiners, soft hyphens, BOMs, variation selectors. */
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/u;
/** How far after an angle a tag's name may end, in characters of the original text. */
const TAG_WINDOW = 120;

/**
 * Whether the text at `start` (an angle character) reads as an opening or closing envelope tag
 * once invisible characters are dropped, lookalikes folded (NFKC and the lists above) and case
 * ignored. Work is bounded by TAG_WINDOW characters.
 */
function readsAsTag(text: string, start: number): boolean {
  let folded = "";
  for (let i = start; i < text.length && i < start + TAG_WINDOW && folded.length < ENVELOPE_TAG.length + 8;) {
    const code = text.codePointAt(i)!;
    const char = String.fromCodePoint(code);
    i += char.length;
    if (code < 0x80) {
      folded += char.toLowerCase();
      continue;
    }
    if (INVISIBLE.test(char)) continue;
    if (ANGLES.includes(char)) {
      folded += "<";
      continue;
    }
    folded += (SLASHES[char] ?? char.normalize("NFKC")).toLowerCase();
  }
  return TAG_START.test(folded);
}

/**
 * Makes `text` unable to open or close the envelope, reversibly, changing nothing else the model
 * reads. JSON stays the same JSON: inside its strings, the angle that starts any spelling of the
 * tag becomes JSON's own escape (`\u003c`), which parses back to the very same value. Other text
 * gets numeric references: that angle becomes `&#x3C;`, every `&#x` already there becomes
 * `&#x26;#x`, and the backslash of a `\u003c`-style escape that spells the tag becomes `&#x5C;`
 * (so the decoder can tell its escapes from the text's). `decodeEnvelopePayload` gives back the
 * original exactly.
 *
 * JSON that already spells the tag with a `\u` escape, or a reference the decoder would read as
 * the mark of this fallback, is escaped as other text: the only case where the decoder could not
 * otherwise tell the tool's escapes from its own.
 */
export function escapeEnvelopePayload(text: string): string {
  if (!MAYBE_TAG.test(text) && !text.includes("&#x") && !text.includes("\\u")) return text;
  return isJson(text) && jsonEscapedTags(text).length === 0 && !hasReferenceMark(text)
    ? escapeJsonTags(text)
    : escapeWithReferences(text);
}

/**
 * The payload as the tool returned it, from the escaped text inside an envelope. Either escape
 * keeps a text JSON or not JSON, and escaping JSON with references always leaves the `&#x…5C;u`
 * mark before a tag, which JSON's own escape never writes: so the escaped text says which it got.
 */
export function decodeEnvelopePayload(escaped: string): string {
  return isJson(escaped) && !hasReferenceMark(escaped) ? decodeJsonTags(escaped) : decodeReferences(escaped);
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function escapeJsonTags(text: string): string {
  if (!MAYBE_TAG.test(text)) return text;
  let out = "";
  let copied = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (ANGLES.includes(char) && readsAsTag(text, i)) {
      out += `${text.slice(copied, i)}\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
      copied = i + 1;
    }
  }
  return out + text.slice(copied);
}

function decodeJsonTags(escaped: string): string {
  let out = "";
  let copied = 0;
  for (const { start, end, char } of jsonEscapedTags(escaped)) {
    out += escaped.slice(copied, start) + char;
    copied = end;
  }
  return out + escaped.slice(copied);
}

/** A `\uXXXX` escape (its backslash not itself escaped) of an angle that, read as that angle, starts the tag. */
const JSON_ANGLE_ESCAPE = /(?<!\\)(?:\\\\)*\\u([0-9A-Fa-f]{4})/g;

function jsonEscapedTags(text: string): Array<{ start: number; end: number; char: string }> {
  if (!text.includes("\\u")) return [];
  const found: Array<{ start: number; end: number; char: string }> = [];
  for (const match of text.matchAll(JSON_ANGLE_ESCAPE)) {
    const end = match.index + match[0].length;
    const char = String.fromCharCode(Number.parseInt(match[1]!, 16));
    if (ANGLES.includes(char) && readsAsTag(char + text.slice(end, end + TAG_WINDOW), 0))
      found.push({ start: end - 6, end, char });
  }
  return found;
}

/** `&#x`, any number of escaped `&#x` (`26;#x`), then an escaped backslash before an angle escape. */
const REFERENCE_MARK = /&#x(?:26;#x)*5C;u([0-9A-Fa-f]{4})/g;

function hasReferenceMark(text: string): boolean {
  if (!text.includes("5C;u")) return false;
  for (const match of text.matchAll(REFERENCE_MARK)) {
    const end = match.index + match[0].length;
    const char = String.fromCharCode(Number.parseInt(match[1]!, 16));
    if (ANGLES.includes(char) && readsAsTag(char + text.slice(end, end + TAG_WINDOW), 0)) return true;
  }
  return false;
}

function escapeWithReferences(text: string): string {
  const hasTag = MAYBE_TAG.test(text);
  const backslashes = new Set(jsonEscapedTags(text).map(({ start }) => start));
  let out = "";
  let copied = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === "&" && text.startsWith("&#x", i)) {
      out += `${text.slice(copied, i)}&#x26;`;
      copied = i + 1;
    } else if ((hasTag && ANGLES.includes(char) && readsAsTag(text, i)) || backslashes.has(i)) {
      out += `${text.slice(copied, i)}&#x${char.codePointAt(0)!.toString(16).toUpperCase()};`;
      copied = i + 1;
    }
  }
  return out + text.slice(copied);
}

function decodeReferences(escaped: string): string {
  return escaped.replace(/&#x([0-9A-F]{1,6});/g, (_, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)));
}
