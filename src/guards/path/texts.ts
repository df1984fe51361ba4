import type { ArgumentRefusal } from "./confineArguments.js";
import type { ArgumentLocation } from "./pathArguments.js";
import type { ReadingStep } from "./pathForms.js";

/** Longest argument value quoted back to the model. */
const SHOWN_CHARS = 200;

const REASONS: Record<Exclude<ArgumentRefusal["violation"], "other_reading">, string> = {
  not_a_string: "it is not a string",
  nul_byte: "it contains a NUL byte",
  foreign_windows_path: "it is a Windows drive or network path, which this system does not use",
  device_path: "it is a Windows device path",
  bad_file_url: "it is a file: URL that does not name a local path",
  overlong_utf8: "it contains an overlong UTF-8 escape, which decoders read in different ways",
  too_many_readings: "it can be read in too many ways (nested encodings, lookalike characters) to be checked",
  outside_roots: "it resolves outside the allowed directories",
  through_symlink: "it resolves through a symbolic link to a place outside the allowed directories",
  parent_after_symlink:
    'its ".." follows a symbolic link, so the system and path-joining tools read it as two different places, and one of them is outside the allowed directories',
  outside_on_the_way:
    'its ".." steps pass through a place outside the allowed directories before coming back, and a tool that creates missing directories would create them there',
  unresolvable: "it cannot be resolved (a symbolic link loop or an unreadable directory)",
  pattern_too_complex: "it has too many brace alternatives to be checked",
  too_deep: "the arguments are nested too deeply to be checked",
};

const STEP_PHRASES: Record<ReadingStep, string> = {
  trimmed: "trims surrounding whitespace",
  percent_decoded: "decodes percent-escapes",
  nfkc: "normalises lookalike Unicode characters",
  backslashes: "reads backslashes as separators",
  file_url: "reads file: URLs",
  home: "expands ~",
  empty_default: 'puts its default directory (often "/") in place of an empty path',
};

/** Read by the model: why a path argument was refused, and how to write one that is allowed. */
export function pathRefusalText(tool: string, refusal: ArgumentRefusal): string {
  const noun = refusal.kind === "pattern" ? "pattern" : "path";
  const allowed =
    refusal.roots.length === 1 ? `inside ${refusal.roots[0]}` : `inside one of ${refusal.roots.join(", ")}`;
  if (refusal.violation === "too_deep")
    return `${tool} was not run: ${REASONS.too_deep}. Send the paths at the top level, ${allowed}.`;
  const where = `${whereText(refusal)}${refusal.filledInByTool ? ` (the value ${tool} fills in for an argument the call leaves out)` : ""}`;
  const subject = `${noun} ${quoted(refusal.value)} in ${where}`;
  return `${tool} was not run: ${subject} is not allowed because ${reasonOf(refusal)}. Use a plain ${noun} ${allowed}${adviceOf(refusal)}.`;
}

/** Read by the model in a refusal, and by people in a signal's `argument`: where a value sits, as `files[0].src`. */
export function locationText(at: ArgumentLocation): string {
  return at.map((part, i) => (typeof part === "number" ? `[${part}]` : i === 0 ? part : `.${part}`)).join("");
}

/** Where the refused value sits: `"files[0].src"`, or `a key of "files"`. */
function whereText(refusal: ArgumentRefusal): string {
  const location = `"${locationText(refusal.at)}"`;
  return refusal.isKey ? `a key of ${location}` : location;
}

function reasonOf(refusal: ArgumentRefusal): string {
  if (refusal.violation !== "other_reading") return REASONS[refusal.violation];
  const steps = [...new Set(refusal.reading?.steps ?? [])].map((step) => STEP_PHRASES[step]);
  const reading = refusal.reading ? ` as ${quoted(refusal.reading.text)}` : " differently";
  return `a tool that ${steps.join(" and ") || "reads it differently"} would read it${reading}, which is outside the allowed directories`;
}

function adviceOf(refusal: ArgumentRefusal): string {
  if (refusal.violation === "parent_after_symlink" || refusal.violation === "outside_on_the_way")
    return ', written without ".."';
  if (refusal.violation === "other_reading")
    return ", written without percent-escapes, ~, surrounding spaces or lookalike characters";
  return "";
}

function quoted(value: string): string {
  return JSON.stringify(value.length > SHOWN_CHARS ? `${value.slice(0, SHOWN_CHARS)}…` : value);
}
