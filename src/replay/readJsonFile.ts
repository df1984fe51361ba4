import { readFileSync } from "node:fs";
import { firstLineOf } from "../core/errors.js";

/** The value of a JSON file; `fail` turns what went wrong into the caller's own error. */
export function readJsonFile(path: string, fail: (reason: string) => Error): unknown {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw fail(
      error instanceof SyntaxError ? `bad JSON (${error.message})` : `cannot read the file (${firstLineOf(error)})`,
    );
  }
}
