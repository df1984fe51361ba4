import { HarnessKitError } from "../core/errors.js";
import { PolicyGuardMiddleware } from "../guards/policy/PolicyGuardMiddleware.js";
import type { PolicyRules } from "../guards/policy/rules.js";
import { ReplayConfigError } from "./errors.js";
import { readJsonFile } from "./readJsonFile.js";
import type { StackedGuard } from "./replayThread.js";

/**
 * The policy guard of a rules file, replayed over saved threads: it decides every call with the
 * run context given (a saved thread does not hold `runtime.context`).
 */
export function policyGuardFromFile(file: string, context: unknown): StackedGuard {
  const rules = readJsonFile(file, (reason) => new ReplayConfigError(file, reason)) as PolicyRules;
  let guard: PolicyGuardMiddleware;
  try {
    guard = new PolicyGuardMiddleware({ policy: rules });
  } catch (error) {
    if (error instanceof HarnessKitError) throw new ReplayConfigError(file, error.message);
    throw error;
  }
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
