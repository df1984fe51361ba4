import type { BaseMessage } from "@langchain/core/messages";
import { z } from "zod";
import { checkOptions, parseOptions } from "../core/baseOptions.js";
import { firstLineOf, HarnessKitError } from "../core/errors.js";
import { LoopGuardMiddleware } from "../guards/loop/LoopGuardMiddleware.js";
import { loopGuardFields } from "../guards/loop/options.js";
import { progressGuardOptions } from "../guards/progress/options.js";
import { runawayGuardFields } from "../guards/runaway/options.js";
import { ProgressAwareLoopGuardMiddleware } from "../guards/progress/ProgressAwareLoopGuardMiddleware.js";
import { RunawayGuardMiddleware } from "../guards/runaway/RunawayGuardMiddleware.js";
import { makeSetMembershipDelta, type DeltaFunction } from "../observe/novelty.js";
import type { ObservationOptions } from "../observe/store.js";
import { ReplayConfigError } from "./errors.js";
import { policyGuardFromFile, withPolicyGuard } from "./policy.js";
import { readJsonFile } from "./readJsonFile.js";
import type { StackedGuard } from "./replayThread.js";
import { simulateUsage } from "./simulateUsage.js";

// Each guard's options as its own schema (guards/<g>/options.ts) checks them, so a config file
// and the constructor can never disagree: the options JSON can express, strict (a misspelt key
// is an error), and for the progress guard the JSON forms of its two non-JSON options. A rule
// between options (warnAt <= stopAt) is the constructor's, met when the stack is built.
const loopGuardConfig = loopGuardFields
  .pick({ warnAt: true, stopAt: true, window: true, ignoreTools: true, exitBehavior: true, observeOnly: true })
  .strict();

const progressGuardConfig = progressGuardOptions
  .pick({
    stopAt: true,
    progressFloor: true,
    ignoreTools: true,
    readOnlyTools: true,
    stateChangingTools: true,
    pollingTools: true,
    pollPatience: true,
    exitBehavior: true,
    observeOnly: true,
  })
  .extend({
    /** Regular expressions as `"source"` (flag g) or `"/source/flags"`. */
    volatilePatterns: z.array(z.string()).optional(),
    /** Per tool: `{"setMembership": "<list field>", "itemKey"?: "<id field>"}` (makeSetMembershipDelta). */
    deltaOverrides: z
      .record(z.string(), z.strictObject({ setMembership: z.string(), itemKey: z.string().optional() }))
      .optional(),
  })
  .strict();

const runawayGuardConfig = runawayGuardFields
  .pick({
    warnAt: true,
    blockAt: true,
    stopAt: true,
    minInputTokens: true,
    maxRunTokens: true,
    maxThreadTokens: true,
    observeOnly: true,
  })
  .strict();

/**
 * A `--config` file: the guard stack to replay, in middleware order (the order of the keys), each
 * with the options of its constructor that JSON can express.
 *
 * @example {"guards": {"RunawayGuardMiddleware": {"stopAt": 10}, "ProgressAwareLoopGuardMiddleware": {"readOnlyTools": ["calculate"]}, "LoopGuardMiddleware": {"stopAt": 6}}}
 */
const replayConfig = z.strictObject({
  guards: z.strictObject({
    RunawayGuardMiddleware: runawayGuardConfig.optional(),
    LoopGuardMiddleware: loopGuardConfig.optional(),
    ProgressAwareLoopGuardMiddleware: progressGuardConfig.optional(),
  }),
});

/** A config as written (every option optional); `loadReplayConfig` checks one read from a file. */
export type ReplayConfig = z.input<typeof replayConfig>;

/** What a replay runs: the guard stack, and the observation options `inspect` shows the table with. */
export interface ReplaySetup {
  stack: StackedGuard[];
  /** Where the stack's order comes from, as the output names it (replay may still read another from a thread). */
  orderSource: string;
  observation: ObservationOptions;
  /** Fill in the usage a provider would have reported, on threads recorded without it (see `simulateUsage`). */
  simulateUsage?: { systemTokens: number };
  /** The guards and options the stack was built from: where a report reads the thresholds it draws. */
  config: ReplayConfig;
  /** Measure each thread's profile beside its replay (`eval --html` draws and ranks them). */
  profileThreads?: boolean;
}

/**
 * The judges of `recommendedGuards`, in its order, with their default options: the runaway guard,
 * then the progress guard outside the identical-call guard, so a repeat it refuses never counts
 * as another identical call.
 */
export const DEFAULT_REPLAY_CONFIG: ReplayConfig = {
  guards: { RunawayGuardMiddleware: {}, ProgressAwareLoopGuardMiddleware: {}, LoopGuardMiddleware: {} },
};

/** The order replay assumes without `--config`: a thread saved by another stack needs its own. */
const DEFAULT_ORDER_SOURCE = "recommendedGuards' order, no --config given";

/** What to replay with: a `--config` file (else the default stack), a policy rules file, simulated usage. */
export interface ReplaySetupRequest {
  configFile?: string;
  /** The policy guard of a rules file, deciding with the run context given. */
  policy?: { file: string; context: unknown };
  simulateUsage?: { systemTokens: number };
  /** Measure each thread's profile too (see `ReplaySetup.profileThreads`). */
  profileThreads?: boolean;
}

export function replaySetupFor(request: ReplaySetupRequest): ReplaySetup {
  const setup =
    request.configFile !== undefined
      ? loadReplayConfig(request.configFile)
      : buildReplaySetup(DEFAULT_REPLAY_CONFIG, undefined, DEFAULT_ORDER_SOURCE);
  if (request.policy) {
    setup.stack = withPolicyGuard(setup.stack, policyGuardFromFile(request.policy.file, request.policy.context));
    setup.orderSource += ", with PolicyGuardMiddleware where recommendedGuards puts it";
  }
  if (request.simulateUsage) setup.simulateUsage = request.simulateUsage;
  if (request.profileThreads) setup.profileThreads = true;
  return setup;
}

/** The messages a replay judges: the thread's own, with simulated usage when the setup asks for it. */
export function messagesToReplay(messages: BaseMessage[], setup: ReplaySetup): BaseMessage[] {
  return setup.simulateUsage ? simulateUsage(messages, setup.simulateUsage.systemTokens) : messages;
}

export function loadReplayConfig(file: string): ReplaySetup {
  const raw = readJsonFile(file, (reason) => new ReplayConfigError(file, reason));
  const parsed = checkOptions(replayConfig, raw);
  if (!parsed.success) throw new ReplayConfigError(file, `${parsed.field || "config"}: ${parsed.problem}`);
  // zod rebuilds objects in schema order; the file's own key order is the middleware order.
  const order = Object.keys((raw as { guards: object }).guards) as (keyof ReplayConfig["guards"])[];
  if (order.length === 0) throw new ReplayConfigError(file, "guards: name at least one guard to replay");
  try {
    return stackFor(parsed.data, order, `the order of ${file}`);
  } catch (error) {
    if (error instanceof HarnessKitError) throw new ReplayConfigError(file, error.message);
    throw error;
  }
}

/** The stack of a config given in code; bad options throw InvalidOptionsError. */
export function buildReplaySetup(
  config: ReplayConfig = DEFAULT_REPLAY_CONFIG,
  order = Object.keys(config.guards) as (keyof ReplayConfig["guards"])[],
  orderSource = "the order given",
): ReplaySetup {
  return stackFor(parseOptions("replay config", replayConfig, config), order, orderSource);
}

function stackFor(
  config: z.output<typeof replayConfig>,
  order: (keyof ReplayConfig["guards"])[],
  orderSource: string,
): ReplaySetup {
  const stack: StackedGuard[] = [];
  let observation: ObservationOptions = {};
  for (const name of order) {
    if (name === "RunawayGuardMiddleware") {
      const options = config.guards.RunawayGuardMiddleware!;
      // A runaway stop always ends the run (the guard has no exitBehavior).
      stack.push({ guard: new RunawayGuardMiddleware(options), observeOnly: options.observeOnly, exitBehavior: "end" });
    } else if (name === "LoopGuardMiddleware") {
      const options = config.guards.LoopGuardMiddleware!;
      stack.push({
        guard: new LoopGuardMiddleware(options),
        observeOnly: options.observeOnly,
        exitBehavior: options.exitBehavior,
      });
    } else {
      const { volatilePatterns, deltaOverrides, ...rest } = config.guards.ProgressAwareLoopGuardMiddleware!;
      observation = {
        ...(volatilePatterns ? { volatilePatterns: volatilePatterns.map(toRegExp) } : {}),
        ...(deltaOverrides ? { deltaOverrides: toDeltaOverrides(deltaOverrides) } : {}),
      };
      stack.push({
        guard: new ProgressAwareLoopGuardMiddleware({ ...rest, ...observation }),
        observeOnly: rest.observeOnly,
        exitBehavior: rest.exitBehavior,
      });
    }
  }
  return { stack, orderSource, observation, config };
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

function toDeltaOverrides(
  spec: Record<string, { setMembership: string; itemKey?: string }>,
): Record<string, DeltaFunction> {
  return Object.fromEntries(
    Object.entries(spec).map(([tool, { setMembership, itemKey }]) => [
      tool,
      makeSetMembershipDelta(setMembership, itemKey),
    ]),
  );
}
