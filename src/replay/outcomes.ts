import { ReplayConfigError } from "./errors.js";
import { readJsonFile } from "./readJsonFile.js";
import type { ThreadLabel } from "./evaluate.js";
import type { ThreadSource } from "./sources.js";

export type RunOutcome = "success" | "failure";

/**
 * Which saved threads succeeded, read from an `--outcomes` file, by thread key. Two shapes:
 * - an object from thread id to outcome: `{"task8-trial1": "failure", "django__django-11099": true}`;
 * - an index like ../shared/evaldata/index.json: `{"threads": [{"thread": "<id>", "outcome": {...}}]}`.
 * An outcome is `true`/`false`, `"success"`/`"failure"`, `1`/`0`, or an object: a success when its
 * `resolved` (SWE-bench), `success` or `reward` (τ-bench: 1 is success) says so, a failure
 * otherwise (a failure attribution, say). Outcomes that say neither are listed in `unclear`.
 */
export function readOutcomes(file: string): { outcomes: Map<string, boolean>; unclear: string[] } {
  const fail = (reason: string) => new ReplayConfigError(file, reason);
  const value = readJsonFile(file, fail);
  if (!isObject(value)) throw fail('expected an object: thread id -> outcome, or {"threads": [{"thread", "outcome"}]}');
  const entries: [string, unknown][] = Array.isArray(value.threads)
    ? value.threads.map((entry, i) => {
        if (!isObject(entry) || typeof entry.thread !== "string")
          throw fail(`threads.${i}: expected {"thread": "<id>", "outcome": ...}`);
        return [entry.thread, entry.outcome];
      })
    : Object.entries(value);
  const outcomes = new Map<string, boolean>();
  const unclear: string[] = [];
  for (const [key, outcome] of entries) {
    const successful = successOf(outcome);
    if (successful === undefined) unclear.push(key);
    else outcomes.set(key, successful);
  }
  return { outcomes, unclear };
}

/** `readOutcomes` where every outcome must say: the first that does not is the file's error. */
export function readAllOutcomes(file: string): Map<string, boolean> {
  const { outcomes, unclear } = readOutcomes(file);
  if (unclear.length > 0)
    throw new ReplayConfigError(file, `the outcome of "${unclear[0]}" is neither success nor failure`);
  return outcomes;
}

/** Whether an outcome says the run succeeded; undefined when it does not say. */
export function successOf(outcome: unknown): boolean | undefined {
  if (typeof outcome === "boolean") return outcome;
  if (outcome === 1 || outcome === 0) return outcome === 1;
  if (typeof outcome === "string")
    return SUCCESS_WORDS.has(outcome.toLowerCase())
      ? true
      : FAILURE_WORDS.has(outcome.toLowerCase())
        ? false
        : undefined;
  if (!isObject(outcome)) return undefined;
  for (const key of ["resolved", "success", "reward"]) if (key in outcome) return successOf(outcome[key]) ?? false;
  return false;
}

const SUCCESS_WORDS = new Set(["success", "succeeded", "successful", "resolved", "pass", "passed"]);
const FAILURE_WORDS = new Set(["failure", "failed", "fail", "unresolved"]);

/**
 * The outcome of a thread: by its id, else by the tail of the path it was read from (without
 * `.json`), so an index keyed `tau-bench-airline/task8-trial1` names `threads/tau-bench-airline/task8-trial1.json`.
 */
export function outcomeOf(
  outcomes: ReadonlyMap<string, boolean>,
  thread: { id: string; source: string },
): boolean | undefined {
  const byId = outcomes.get(thread.id);
  if (byId !== undefined) return byId;
  const parts = thread.source.replace(/\.jsonl?$/i, "").split(/[\\/]/);
  for (let i = parts.length - 1; i >= 0; i--) {
    const found = outcomes.get(parts.slice(i).join("/"));
    if (found !== undefined) return found;
  }
  return undefined;
}

/** `outcomeOf` for a replayed thread, as the fleet report groups it. */
export function runOutcomeOf(
  outcomes: ReadonlyMap<string, boolean>,
  thread: ThreadLabel,
  origin: ThreadSource,
): RunOutcome | undefined {
  const successful = outcomeOf(outcomes, { id: thread.id, source: origin.kind === "file" ? origin.path : "" });
  return successful === undefined ? undefined : successful ? "success" : "failure";
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
