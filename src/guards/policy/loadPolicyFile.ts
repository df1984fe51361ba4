import { readFileSync } from "node:fs";
import { InvalidOptionsError } from "../../core/errors.js";
import { parsePolicy, POLICY_GUARD } from "./compile.js";
import type { PolicyRules } from "./rules.js";

/** A JSON rules file, checked: `InvalidOptionsError` naming the file when it cannot be read or is not a valid policy. */
export function loadPolicyFile(path: string): PolicyRules {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new InvalidOptionsError(
      POLICY_GUARD,
      path,
      error instanceof SyntaxError
        ? `is not JSON (${error.message})`
        : `cannot be read (${error instanceof Error ? error.message.split("\n", 1)[0] : String(error)})`,
    );
  }
  return parsePolicy(value);
}
