import { stringEnd } from "./jsonStrings.js";

/** A number literal that a JSON parser cannot keep: what was written, where, and what a parser reads instead. */
export interface ImpreciseNumber {
  literal: string;
  at: number;
  /** What `JSON.parse` makes of it: a rounded number, `Infinity`, or `0`. */
  read: string;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * Whether a JSON number literal says more than the double it becomes: the double's shortest
 * decimal form (what `JSON.stringify`, logs and every later reader print) differs from the
 * literal. So an integer beyond what a double holds (`9007199254740993` prints as `…992`, a
 * 20-digit amount loses its last digits), a decimal with more significant digits than a double
 * keeps, and a magnitude that overflows to Infinity (`1e400`) or underflows to 0 (`1e-400`) are
 * caught, while `0.1`, and any number JavaScript itself printed (`56885236101466970`), pass.
 */
export function losesPrecision(literal: string): boolean {
  // up to 15 significant digits and no exponent always survive a round trip
  if (literal.length <= 15 && !/[eE]/.test(literal)) return false;
  const value = Number(literal);
  if (!Number.isFinite(value)) return true;
  const written = decimal(literal);
  const read = decimal(String(value));
  return written.digits !== read.digits || (written.digits !== "" && written.exponent !== read.exponent);
}

/** The first number of a strict JSON text that loses precision when parsed, or undefined. */
export function firstImpreciseNumber(json: string): ImpreciseNumber | undefined {
  let i = 0;
  while (i < json.length) {
    const ch = json.charCodeAt(i);
    if (ch === 0x22 /* " */) {
      i = stringEnd(json, i);
      continue;
    }
    if (ch === 0x2d /* - */ || (ch >= 0x30 && ch <= 0x39)) {
      NUMBER.lastIndex = i;
      const match = NUMBER.exec(json);
      if (!match) return undefined; // not strict JSON: the lenient reading judges it
      const literal = match[0];
      if (losesPrecision(literal)) return { literal, at: i, read: String(Number(literal)) };
      i += literal.length;
      continue;
    }
    i++;
  }
  return undefined;
}

/** Significant digits without leading or trailing zeros, and the power of ten of the last one. */
function decimal(text: string): { digits: string; exponent: number } {
  const [mantissa = "", exponentText = "0"] = text.replace(/^[-+]/, "").toLowerCase().split("e");
  const [whole = "", fraction = ""] = mantissa.split(".");
  let digits = (whole + fraction).replace(/^0+/, "");
  let exponent = Number(exponentText) - fraction.length;
  const trailing = digits.length - digits.replace(/0+$/, "").length;
  digits = digits.slice(0, digits.length - trailing);
  exponent += trailing;
  return { digits, exponent };
}
