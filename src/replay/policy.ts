import type { BaseMessage } from "@langchain/core/messages";
import type { CallDecision } from "../core/decision.js";
import { HarnessKitError } from "../core/errors.js";
import { toolCallsOf, type ToolCallView } from "../core/messages.js";
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
    guard: { name: guard.name, evaluate: (messages, pending) => judgeLikeLive(guard, messages, pending, context) },
    observeOnly: false,
    exitBehavior: "directive",
  };
}

/**
 * Live, the policy judges the whole batch (a rule may read the calls before this one), then lets
 * the repair middleware answer the calls its review found unusable: `pending` holds the others.
 */
async function judgeLikeLive(
  guard: PolicyGuardMiddleware,
  messages: readonly BaseMessage[],
  pending: readonly ToolCallView[],
  context: unknown,
): Promise<CallDecision[]> {
  const judged = new Set(pending.map((call) => call.id));
  const decisions = await guard.evaluate(messages, toolCallsOf(messages[messages.length - 1]), context);
  return decisions.filter(({ call }) => judged.has(call.id));
}

/** The stack with the policy guard where `recommendedGuards` puts it: right after the runaway guard, else first. */
export function withPolicyGuard(stack: readonly StackedGuard[], policy: StackedGuard): StackedGuard[] {
  const at = stack.findIndex(({ guard }) => guard.name === "RunawayGuardMiddleware") + 1;
  return [...stack.slice(0, at), policy, ...stack.slice(at)];
}
