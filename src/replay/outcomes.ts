import { ReplayConfigError } from "./errors.js";
import { readJsonFile } from "./readJsonFile.js";
import type { ThreadLabel } from "./evaluate.js";
import type { ThreadSource } from "./sources.js";

export type RunOutcome = "success" | "failure";

/** Each thread's outcome by the key an `--outcomes` file gives it: a thread id, or a path under the threads' folder. */
export type OutcomeBook = ReadonlyMap<string, RunOutcome>;

/**
 * An `--outcomes` file: `{"<thread id>": "success" | "failure" | true | false | {...}}`, or a
 * dataset index `{"threads": [{"thread": "<id>", "outcome": {...}}]}`. An outcome object counts
 * as a success when it says `resolved: true` (SWE-bench), `reward: 1` (τ-bench) or
 * `success: true`; any other object (a failure attribution, say) counts as a failure.
 */
export function readOutcomes(file: string): OutcomeBook {
  const raw = readJsonFile(file, (reason) => new ReplayConfigError(file, reason));
  const fail = (reason: string) => new ReplayConfigError(file, `${reason}; expected {"<thread id>": "success" | "failure"} or {"threads": [{"thread": "<id>", "outcome": {...}}]}`);
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw fail("not a JSON object");
  const entries: Array<[string, unknown]> = Array.isArray((raw as { threads?: unknown }).threads)
    ? ((raw as { threads: unknown[] }).threads.map((entry, index) => {
        const { thread, outcome } = (entry ?? {}) as { thread?: unknown; outcome?: unknown };
        if (typeof thread !== "string") throw fail(`threads[${index}].thread is not a string`);
        return [thread, outcome];
      }) as Array<[string, unknown]>)
    : Object.entries(raw);
  const book = new Map<string, RunOutcome>();
  for (const [key, value] of entries) {
    const outcome = outcomeOf(value);
    if (!outcome) throw fail(`the outcome of "${key}" is neither success nor failure`);
    book.set(key, outcome);
  }
  return book;
}

function outcomeOf(value: unknown): RunOutcome | undefined {
  if (value === "success" || value === true) return "success";
  if (value === "failure" || value === false) return "failure";
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const o = value as Record<string, unknown>;
  return o.resolved === true || o.reward === 1 || o.success === true ? "success" : "failure";
}

/**
 * A thread's outcome: by the longest trailing part of its file's path (without `.json`) the book
 * names, e.g. `tau-bench-airline/task0-trial0` for `.../threads/tau-bench-airline/task0-trial0.json`,
 * else by its thread id. Undefined when the book does not name it.
 */
export function outcomeFor(book: OutcomeBook, thread: ThreadLabel, origin: ThreadSource): RunOutcome | undefined {
  if (origin.kind === "file") {
    const parts = origin.path.replace(/\.jsonl?$/i, "").split(/[\\/]+/);
    for (let from = 0; from < parts.length; from++) {
      const outcome = book.get(parts.slice(from).join("/"));
      if (outcome) return outcome;
    }
  }
  return book.get(thread.id);
}
