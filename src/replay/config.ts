import type { BaseMessage } from "@langchain/core/messages";
import { z } from "zod";
import { EXIT_BEHAVIORS } from "../core/decision.js";
import { firstLineOf, HarnessKitError } from "../core/errors.js";
import { LoopGuardMiddleware } from "../guards/loop/LoopGuardMiddleware.js";
import { ProgressAwareLoopGuardMiddleware } from "../guards/progress/ProgressAwareLoopGuardMiddleware.js";
import { RunawayGuardMiddleware } from "../guards/runaway/RunawayGuardMiddleware.js";
import { makeSetMembershipDelta, type DeltaFunction } from "../observe/novelty.js";
import type { ObservationOptions } from "../observe/store.js";
import { ReplayConfigError } from "./errors.js";
import { policyGuardFromFile, withPolicyGuard } from "./policy.js";
import { readJsonFile } from "./readJsonFile.js";
import type { StackedGuard } from "./replayThread.js";
import { simulateUsage } from "./simulateUsage.js";

const toolNames = z.array(z.string()).optional();
const exitBehavior = z.enum(EXIT_BEHAVIORS).optional();
const count = z.number().int().min(1).optional();

const loopGuardOptions = z.strictObject({
  warnAt: count,
  stopAt: count,
  window: count,
  ignoreTools: toolNames,
  exitBehavior,
  observeOnly: z.boolean().optional(),
});

const progressGuardOptions = z.strictObject({
  stopAt: count,
  progressFloor: z.number().optional(),
  ignoreTools: toolNames,
  readOnlyTools: toolNames,
  stateChangingTools: toolNames,
  pollingTools: toolNames,
  pollPatience: count,
  /** Regular expressions as `"source"` (flag g) or `"/source/flags"`. */
  volatilePatterns: z.array(z.string()).optional(),
  /** Per tool: `{"setMembership": "<list field>", "itemKey"?: "<id field>"}` (makeSetMembershipDelta). */
  deltaOverrides: z.record(z.string(), z.strictObject({ setMembership: z.string(), itemKey: z.string().optional() })).optional(),
  exitBehavior,
  observeOnly: z.boolean().optional(),
});

const factor = z.number().positive().optional();
const tokens = z.number().int().min(1).optional();

const runawayGuardOptions = z.strictObject({
  warnAt: factor,
  blockAt: factor,
  stopAt: factor,
  minInputTokens: tokens,
  maxRunTokens: tokens,
  maxThreadTokens: tokens,
  observeOnly: z.boolean().optional(),
});

/**
 * A `--config` file: the guard stack to replay, in middleware order (the order of the keys), each
 * with the options of its constructor that JSON can express.
 *
 * @example {"guards": {"RunawayGuardMiddleware": {"stopAt": 10}, "ProgressAwareLoopGuardMiddleware": {"readOnlyTools": ["calculate"]}, "LoopGuardMiddleware": {"stopAt": 6}}}
 */
const replayConfig = z.strictObject({
  guards: z.strictObject({
    RunawayGuardMiddleware: runawayGuardOptions.optional(),
    LoopGuardMiddleware: loopGuardOptions.optional(),
    ProgressAwareLoopGuardMiddleware: progressGuardOptions.optional(),
  }),
});

export type ReplayConfig = z.infer<typeof replayConfig>;

/** What a replay runs: the guard stack, and the observation options `inspect` shows the table with. */
export interface ReplaySetup {
  stack: StackedGuard[];
  /** Where the stack's order comes from, as the output names it (replay may still read another from a thread). */
  orderSource: string;
  observation: ObservationOptions;
  /** Fill in the usage a provider would have reported, on threads recorded without it (see `simulateUsage`). */
  simulateUsage?: { systemTokens: number };
}

/**
 * The judges of `recommendedGuards`, in its order, with their default options: the runaway guard,
 * then the progress guard outside the identical-call guard, so a repeat it refuses never counts
 * as another identical call.
 */
export const DEFAULT_REPLAY_CONFIG: ReplayConfig = { guards: { RunawayGuardMiddleware: {}, ProgressAwareLoopGuardMiddleware: {}, LoopGuardMiddleware: {} } };

/** The order replay assumes without `--config`: a thread saved by another stack needs its own. */
const DEFAULT_ORDER_SOURCE = "recommendedGuards' order, no --config given";

/** What to replay with: a `--config` file (else the default stack), a policy rules file, simulated usage. */
export interface ReplaySetupRequest {
  configFile?: string;
  /** The policy guard of a rules file, deciding with the run context given. */
  policy?: { file: string; context: unknown };
  simulateUsage?: { systemTokens: number };
}

export function replaySetupFor(request: ReplaySetupRequest): ReplaySetup {
  const setup = request.configFile !== undefined ? loadReplayConfig(request.configFile) : buildReplaySetup(DEFAULT_REPLAY_CONFIG, undefined, DEFAULT_ORDER_SOURCE);
  if (request.policy) {
    setup.stack = withPolicyGuard(setup.stack, policyGuardFromFile(request.policy.file, request.policy.context));
    setup.orderSource += ", with PolicyGuardMiddleware where recommendedGuards puts it";
  }
  if (request.simulateUsage) setup.simulateUsage = request.simulateUsage;
  return setup;
}

/** The messages a replay judges: the thread's own, with simulated usage when the setup asks for it. */
export function messagesToReplay(messages: BaseMessage[], setup: ReplaySetup): BaseMessage[] {
  return setup.simulateUsage ? simulateUsage(messages, setup.simulateUsage.systemTokens) : messages;
}

export function loadReplayConfig(file: string): ReplaySetup {
  const raw = readJsonFile(file, (reason) => new ReplayConfigError(file, reason));
  const parsed = replayConfig.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ReplayConfigError(file, `${issue.path.join(".") || "config"}: ${issue.message}`);
  }
  // zod rebuilds objects in schema order; the file's own key order is the middleware order.
  const order = Object.keys((raw as { guards: object }).guards) as (keyof ReplayConfig["guards"])[];
  if (order.length === 0) throw new ReplayConfigError(file, "guards: name at least one guard to replay");
  try {
    return buildReplaySetup(parsed.data, order, `the order of ${file}`);
  } catch (error) {
    if (error instanceof HarnessKitError) throw new ReplayConfigError(file, error.message);
    throw error;
  }
}

export function buildReplaySetup(
  config: ReplayConfig = DEFAULT_REPLAY_CONFIG,
  order = Object.keys(config.guards) as (keyof ReplayConfig["guards"])[],
  orderSource = "the order given",
): ReplaySetup {
  const stack: StackedGuard[] = [];
  let observation: ObservationOptions = {};
  for (const name of order) {
    if (name === "RunawayGuardMiddleware") {
      const options = config.guards.RunawayGuardMiddleware!;
      // A runaway stop always ends the run (the guard has no exitBehavior).
      stack.push({ guard: new RunawayGuardMiddleware(options), observeOnly: options.observeOnly ?? false, exitBehavior: "end" });
    } else if (name === "LoopGuardMiddleware") {
      const options = config.guards.LoopGuardMiddleware!;
      stack.push({ guard: new LoopGuardMiddleware(options), observeOnly: options.observeOnly ?? false, exitBehavior: options.exitBehavior ?? "end" });
    } else {
      const { volatilePatterns, deltaOverrides, ...rest } = config.guards.ProgressAwareLoopGuardMiddleware!;
      observation = {
        ...(volatilePatterns ? { volatilePatterns: volatilePatterns.map(toRegExp) } : {}),
        ...(deltaOverrides ? { deltaOverrides: toDeltaOverrides(deltaOverrides) } : {}),
      };
      stack.push({
        guard: new ProgressAwareLoopGuardMiddleware({ ...rest, ...observation }),
        observeOnly: rest.observeOnly ?? false,
        exitBehavior: rest.exitBehavior ?? "end",
      });
    }
  }
  return { stack, orderSource, observation };
}

function toRegExp(text: string): RegExp {
  const literal = /^\/(.+)\/([a-z]*)$/s.exec(text);
  const [source, flags] = literal ? [literal[1]!, literal[2]!] : [text, ""];
  try {
    return new RegExp(source, flags.includes("g") ? flags : `${flags}g`);
  } catch (error) {
    throw new HarnessKitError(`volatilePatterns: ${firstLineOf(error)}`);
  }
}

function toDeltaOverrides(spec: Record<string, { setMembership: string; itemKey?: string }>): Record<string, DeltaFunction> {
  return Object.fromEntries(Object.entries(spec).map(([tool, { setMembership, itemKey }]) => [tool, makeSetMembershipDelta(setMembership, itemKey)]));
}

