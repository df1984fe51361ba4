import { HarnessKitError } from "../core/errors.js";
import { PolicyGuardMiddleware } from "../guards/policy/PolicyGuardMiddleware.js";
import type { PolicyRules } from "../guards/policy/rules.js";
import { CliUsageError, ReplayConfigError } from "../cli/errors.js";
import { readJsonFile } from "./readJsonFile.js";
import type { StackedGuard } from "./replayThread.js";

/**
 * `--policy <rules.json>` and `--context <json>`: the policy guard replayed over saved threads,
 * deciding every call with the run context given (a saved thread does not hold `runtime.context`).
 */
export function policyGuardFromFiles(file: string, contextText: string | undefined): StackedGuard {
  const rules = readJsonFile(file, (reason) => new ReplayConfigError(file, reason)) as PolicyRules;
  let guard: PolicyGuardMiddleware;
  try {
    guard = new PolicyGuardMiddleware({ policy: rules });
  } catch (error) {
    if (error instanceof HarnessKitError) throw new ReplayConfigError(file, error.message);
    throw error;
  }
  const context = parseContext(contextText);
  return {
    guard: { name: guard.name, evaluate: (messages, pending) => guard.evaluate(messages, pending, context) },
    observeOnly: false,
    exitBehavior: "directive",
  };
}

/** The stack with the policy guard where `recommendedGuards` puts it: right after the runaway guard, else first. */
export function withPolicyGuard(stack: readonly StackedGuard[], policy: StackedGuard): StackedGuard[] {
  const at = stack.findIndex(({ guard }) => guard.name === "RunawayGuardMiddleware") + 1;
  return [...stack.slice(0, at), policy, ...stack.slice(at)];
}

function parseContext(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliUsageError(`--context takes a JSON object, e.g. '{"role":"nursing"}' (${error instanceof Error ? error.message : String(error)})`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new CliUsageError(`--context takes a JSON object, e.g. '{"role":"nursing"}'`);
  return value;
}
