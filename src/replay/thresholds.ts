import { loopGuardOptions } from "../guards/loop/options.js";
import { progressGuardOptions } from "../guards/progress/options.js";
import { runawayGuardOptions } from "../guards/runaway/options.js";

// The defaults, as the guards' schemas fill them in.
const LOOP_GUARD_DEFAULTS = loopGuardOptions.parse({});
const PROGRESS_GUARD_DEFAULTS = progressGuardOptions.parse({});
const RUNAWAY_GUARD_DEFAULTS = runawayGuardOptions.parse({});
import type { ReplayConfig } from "./config.js";

/** The thresholds of the replayed guards, as their options set them (defaults filled in); a guard not replayed is absent. */
export interface GuardThresholds {
  runaway?: { warnAt: number; blockAt: number; stopAt: number; minInputTokens: number };
  loop?: { warnAt: number; stopAt: number };
  progress?: { stopAt: number };
}

export function guardThresholds(config: ReplayConfig): GuardThresholds {
  const {
    RunawayGuardMiddleware: runaway,
    LoopGuardMiddleware: loop,
    ProgressAwareLoopGuardMiddleware: progress,
  } = config.guards;
  return {
    ...(runaway
      ? {
          runaway: {
            warnAt: runaway.warnAt ?? RUNAWAY_GUARD_DEFAULTS.warnAt,
            blockAt: runaway.blockAt ?? RUNAWAY_GUARD_DEFAULTS.blockAt,
            stopAt: runaway.stopAt ?? RUNAWAY_GUARD_DEFAULTS.stopAt,
            minInputTokens: runaway.minInputTokens ?? RUNAWAY_GUARD_DEFAULTS.minInputTokens,
          },
        }
      : {}),
    ...(loop
      ? {
          loop: {
            warnAt: loop.warnAt ?? LOOP_GUARD_DEFAULTS.warnAt,
            stopAt: loop.stopAt ?? LOOP_GUARD_DEFAULTS.stopAt,
          },
        }
      : {}),
    ...(progress ? { progress: { stopAt: progress.stopAt ?? PROGRESS_GUARD_DEFAULTS.stopAt } } : {}),
  };
}
