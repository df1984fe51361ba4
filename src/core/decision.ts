import type { ToolCallView } from "./messages.js";
import type { SignalCode } from "./signalCodes.js";

/**
 * What a guard decided about one pending tool call (docs/architecture.md, "Decisions").
 * `message` is the text the model reads: the directive's ToolMessage, or the stopped call's answer.
 */
export type Decision =
  | { action: "allow" }
  | { action: "warn"; code: SignalCode; reason: string; detail?: Record<string, unknown> }
  | {
      action: "directive" | "stop";
      code: SignalCode;
      reason: string;
      message: string;
      detail?: Record<string, unknown>;
    };

export interface CallDecision {
  call: ToolCallView;
  decision: Decision;
}

export const ALLOW: Decision = Object.freeze({ action: "allow" });

/** What a guard does once its ladder reaches a stop: refuse with a directive, end the run, or throw `GuardStopError`. */
export const EXIT_BEHAVIORS = ["directive", "end", "throw"] as const;
export type ExitBehavior = (typeof EXIT_BEHAVIORS)[number];
