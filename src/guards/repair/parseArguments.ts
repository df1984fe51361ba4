import { jsonrepair } from "jsonrepair";
import { firstDuplicateKey } from "./duplicateKeys.js";
import { firstImpreciseNumber } from "./numberPrecision.js";
import { scanArguments, UNREADABLE, type MeaningChange, type SyntaxRepair } from "./scanArguments.js";

/** Why a raw argument text cannot be used as it is or after a safe repair. */
export type ArgumentProblem =
  | MeaningChange
  | { kind: "duplicate_key"; key: string; path: string }
  | { kind: "not_an_object"; found: string }
  | { kind: "unrepairable"; detail: string }
  | { kind: "ambiguous_repair" }
  | { kind: "missing" };

export type ParsedArguments =
  | { ok: true; args: Record<string, unknown>; repairs: readonly SyntaxRepair[] }
  | { ok: false; problem: ArgumentProblem };

export interface ParseOptions {
  /**
   * Every argument name the tool's schema declares, when known. Arguments that end without their
   * closing brace are accepted only when all of them are present: then no key can have been cut.
   */
  declaredKeys?: readonly string[];
}

/**
 * Turns the raw argument text of a tool call into arguments, or says why it cannot.
 * Strict `JSON.parse` first; only when that fails, `jsonrepair`, and its result is kept only when
 * the repair fixed syntax alone. A value cut off at the end, a key left without a value, prose
 * around the JSON, elided items (`...`) and duplicate keys are refused, because any value chosen
 * for them would be a guess about what the model meant. So are values a repair would turn into
 * something else: `NaN` or `Infinity` into strings, a backslash that is no JSON escape (after
 * which `\n` in `C:\Users\new` may be a backslash too), an empty list slot, two strings with no
 * comma between them; and so are arguments that end without their closing brace, where keys may
 * have been cut, unless `declaredKeys` shows that none is missing. A number a double cannot hold
 * (`9007199254740993`, `1e400`) is refused even in strict JSON: `JSON.parse` would change it.
 * Finally, a repair that a second, independent reading of the text (`scanArguments`) does not
 * agree with is refused.
 */
export function parseToolArguments(raw: unknown, options: ParseOptions = {}): ParsedArguments {
  if (raw !== null && typeof raw === "object" && !Array.isArray(raw)) {
    return { ok: true, args: raw as Record<string, unknown>, repairs: [] };
  }
  if (typeof raw !== "string" || raw.trim() === "") return { ok: false, problem: { kind: "missing" } };

  const strict = tryParse(raw);
  if (strict.ok) {
    const imprecise = firstImpreciseNumber(raw);
    if (imprecise) return { ok: false, problem: { kind: "imprecise_number", ...imprecise } };
    return accept(strict.value, raw, []);
  }

  const scan = scanArguments(raw);
  const meaningChange = scan.meaningChanges.find(
    (change) => !(change.kind === "unclosed" && nothingCut(change, scan.value, options.declaredKeys)),
  );
  if (meaningChange) return { ok: false, problem: meaningChange };
  let repaired: string;
  try {
    repaired = jsonrepair(scan.body);
  } catch (error) {
    return {
      ok: false,
      problem: { kind: "unrepairable", detail: error instanceof Error ? error.message : String(error) },
    };
  }
  const parsed = tryParse(repaired);
  if (!parsed.ok)
    return { ok: false, problem: { kind: "unrepairable", detail: "the repaired text is still not JSON" } };
  if (!sameValue(scan.value, parsed.value)) return { ok: false, problem: { kind: "ambiguous_repair" } };
  return accept(parsed.value, repaired, scan.syntaxRepairs);
}

/** Only the outer object is open and it has every key the tool declares: nothing after it can be missing. */
function nothingCut(
  change: Extract<MeaningChange, { kind: "unclosed" }>,
  value: unknown,
  declaredKeys: readonly string[] | undefined,
): boolean {
  if (
    change.depth !== 1 ||
    declaredKeys === undefined ||
    value === null ||
    typeof value !== "object" ||
    Array.isArray(value)
  )
    return false;
  return declaredKeys.every((key) => Object.hasOwn(value, key));
}

function accept(value: unknown, json: string, repairs: readonly SyntaxRepair[]): ParsedArguments {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return {
      ok: false,
      problem: {
        kind: "not_an_object",
        found: Array.isArray(value) ? "an array" : value === null ? "null" : `a ${typeof value}`,
      },
    };
  }
  const duplicate = firstDuplicateKey(json);
  if (duplicate) return { ok: false, problem: { kind: "duplicate_key", ...duplicate } };
  return { ok: true, args: value as Record<string, unknown>, repairs };
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** Structural equality of two JSON-like values; `UNREADABLE` equals nothing. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === UNREADABLE || b === UNREADABLE) return false;
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, i) => sameValue(item, other[i]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  return (
    keys.length === Object.keys(right).length &&
    keys.every((key) => Object.hasOwn(right, key) && sameValue(left[key], right[key]))
  );
}
