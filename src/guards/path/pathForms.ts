import { fileURLToPath } from "node:url";
import { systemHomeDirs, type HomeDirs } from "./homeDirs.js";
import { decodePercentOnce, hasOverlongEscape, hasPercentEscape } from "./percentDecoding.js";

/** Why a path argument is refused before anything is resolved. */
export type PathFormProblem =
  | "not_a_string"
  | "nul_byte"
  | "foreign_windows_path"
  | "device_path"
  | "bad_file_url"
  | "overlong_utf8"
  | "too_many_readings";

/** One thing a tool may do to a path string before it opens it. */
export type ReadingStep =
  "trimmed" | "percent_decoded" | "nfkc" | "backslashes" | "file_url" | "home" | "empty_default";

/** A way to read a path argument: the text a tool ends up with, and the steps that led there. */
export interface PathReading {
  text: string;
  steps: readonly ReadingStep[];
}

export type PathForms = { ok: true; readings: PathReading[] } | { ok: false; problem: PathFormProblem };

export interface PathFormsOptions {
  /** `process.platform` by default; injectable so Windows handling is testable anywhere. */
  platform?: NodeJS.Platform;
  /** Where `~` and `~name` lead. Default: this process's home and the system's user database. */
  homes?: HomeDirs;
}

/**
 * Readings kept at most. Ordinary paths have one or two; each step shortens the text or is
 * idempotent, so the closure is finite, but a crafted text could still multiply its readings.
 */
const MAX_READINGS = 64;
// A drive letter with a separator: on POSIX `c:notes.txt` is just a name, `C:\\x` is a confused model.
const DRIVE = /^[A-Za-z]:[\\/]/;
const WINDOWS_UNC = /^\\\\/;
const DEVICE = /^[\\/]{2}[?.][\\/]/;
const NON_ASCII = /[^\x00-\x7f]/;
const FILE_URL = /^file:/i;

/**
 * Every way a tool might read a path argument, so that each can be checked. The first reading is
 * the one a tool most plausibly means: the text as written, or a `file:` URL's path; the others are what any sequence of these steps makes of it, in any order
 * and repeated until nothing changes:
 * - `trimmed`: leading and trailing whitespace removed (`" ../x"`);
 * - `percent_decoded`: one round of lenient percent-decoding (stray `%`, truncated UTF-8 and
 *   four-fold encoding included, see `decodePercentOnce`);
 * - `nfkc`: Unicode NFKC normalisation, which turns lookalikes into ASCII (`．．/`, `‥/`, `／`);
 * - `backslashes` (POSIX only): backslashes read as separators;
 * - `file_url`: a `file:` URL's path;
 * - `home`: `~` and `~name` expanded as a shell would (an unknown user is not expanded);
 * - `empty_default`: an empty path replaced by a default directory, `/` (deepagents' `ls` and
 *   `grep` write `path || "/"`).
 * A path is inside only when every reading is. NUL bytes, Windows device paths, overlong UTF-8
 * escapes and, on POSIX, drive-letter and UNC forms are refused in any reading.
 */
export function pathForms(input: unknown, options: PathFormsOptions = {}): PathForms {
  if (typeof input !== "string") return { ok: false, problem: "not_a_string" };
  const windows = (options.platform ?? process.platform) === "win32";
  const homes = options.homes;

  const readings: PathReading[] = [{ text: input, steps: [] }];
  const seen = new Set([input]);
  // no tool takes "file:///x" for a relative name: a file URL's path is the reading it means
  if (FILE_URL.test(input)) {
    let local: string;
    try {
      local = fileURLToPath(input, { windows });
    } catch {
      return { ok: false, problem: "bad_file_url" };
    }
    readings.unshift({ text: local, steps: ["file_url"] });
    seen.add(local);
  }
  for (let i = 0; i < readings.length; i++) {
    const reading = readings[i]!;
    const problem = formProblem(reading.text, windows);
    if (problem) return { ok: false, problem };
    for (const step of STEPS) {
      let next: string | undefined;
      try {
        next = apply(step, reading.text, windows, homes);
      } catch {
        return { ok: false, problem: "bad_file_url" };
      }
      if (next === undefined || seen.has(next)) continue;
      if (readings.length >= MAX_READINGS) return { ok: false, problem: "too_many_readings" };
      seen.add(next);
      readings.push({ text: next, steps: [...reading.steps, step] });
    }
  }
  return { ok: true, readings };
}

const STEPS: readonly ReadingStep[] = [
  "trimmed",
  "percent_decoded",
  "nfkc",
  "backslashes",
  "file_url",
  "home",
  "empty_default",
];

/** What `step` makes of `text`, or undefined when it does not apply. Throws on an unusable file URL. */
function apply(step: ReadingStep, text: string, windows: boolean, homes: HomeDirs | undefined): string | undefined {
  switch (step) {
    case "trimmed":
      return text.trim();
    case "percent_decoded":
      return hasPercentEscape(text) ? decodePercentOnce(text) : undefined;
    case "nfkc":
      return NON_ASCII.test(text) ? text.normalize("NFKC") : undefined;
    case "backslashes":
      return !windows && text.includes("\\") ? text.replaceAll("\\", "/") : undefined;
    case "file_url":
      return FILE_URL.test(text) ? fileURLToPath(text, { windows }) : undefined;
    case "home":
      return text.startsWith("~") ? expandHome(text, windows, homes ?? systemHomeDirs()) : undefined;
    case "empty_default":
      return text === "" ? "/" : undefined;
  }
}

function formProblem(text: string, windows: boolean): PathFormProblem | undefined {
  if (text.includes("\0")) return "nul_byte";
  if (DEVICE.test(text)) return "device_path";
  if (!windows && (DRIVE.test(text) || WINDOWS_UNC.test(text))) return "foreign_windows_path";
  if (hasOverlongEscape(text)) return "overlong_utf8";
  return undefined;
}

/** `~` and `~name` up to the first separator, as `expanduser` reads them; undefined when nothing expands. */
function expandHome(text: string, windows: boolean, homes: HomeDirs): string | undefined {
  const separator = windows ? /[\\/]/ : /\//;
  const match = separator.exec(text);
  const end = match ? match.index : text.length;
  const name = text.slice(1, end);
  if (name === "") return homes.home + text.slice(end);
  if (windows) return undefined;
  const home = homes.userHome(name);
  return home === undefined ? undefined : home + text.slice(end);
}
