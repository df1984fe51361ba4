import { messageKind, nameOf, statusOf, toolCallIdOf, toolCallsOf } from "../../core/messages.js";
import { markOf } from "../../core/marks.js";
import { validatorMarkOf } from "./marks.js";

export interface KillSwitchSettings {
  /** Checked outputs looked at: the most recent ones of the run. */
  window: number;
  /** Invalid outputs among them that trip the switch (threshold × window, rounded up). */
  minInvalid: number;
}

export interface RunStateSettings {
  guard: string;
  /** Whether outputs of this tool are validated (and so count as valid or invalid). */
  isChecked: (tool: string) => boolean;
  killSwitch: KillSwitchSettings | undefined;
  /** Whether an output flagged for instruction-like text pauses write tools for the rest of the run. */
  instructionsPauseWrites?: boolean;
}

/** What the current run's history says about tool output so far. */
export interface RunState {
  /** Tools whose output was degraded in this run and that have not returned a valid output since. */
  degradedTools: string[];
  /** Tools whose output in this run was flagged for instruction-like text (with `instructionsPauseWrites`). */
  instructionSources: string[];
  /** Set once the kill switch tripped in this run: the counts at that moment. */
  killSwitch?: { invalid: number; outOf: number };
  /** Checked outputs in the run, and how many of them were invalid. */
  checked: number;
  invalid: number;
}

/**
 * Index of the first message of the current run: the one after the last human message. A new
 * user message ends safe mode and resets the kill switch.
 */
export function runStart(messages: readonly unknown[], end = messages.length): number {
  for (let i = end - 1; i >= 0; i--) if (messageKind(messages[i]) === "human") return i + 1;
  return 0;
}

/**
 * Derives safe mode and the kill switch from the messages of the current run. Only the
 * middleware's own marks and the tools' statuses are read, so the answer is the same live,
 * after a restore in another process, and in replay.
 */
export function runStateOf(messages: readonly unknown[], settings: RunStateSettings, end = messages.length): RunState {
  const state: RunState = { degradedTools: [], instructionSources: [], checked: 0, invalid: 0 };
  const instructionSources = new Set<string>();
  const degraded = new Set<string>();
  // Tools degraded in the current turn: a valid output beside the invalid one is no re-read of it.
  let degradedThisTurn = new Set<string>();
  const recent: boolean[] = [];
  let recentInvalid = 0;
  const callNames = new Map<string, string>();

  for (let i = runStart(messages, end); i < end; i++) {
    const message = messages[i];
    const kind = messageKind(message);
    if (kind === "ai") {
      for (const call of toolCallsOf(message)) callNames.set(call.id, call.name);
      degradedThisTurn = new Set();
      continue;
    }
    if (kind !== "tool") continue;
    const id = toolCallIdOf(message);
    const tool = nameOf(message) ?? (id === undefined ? undefined : callNames.get(id));
    if (tool === undefined) continue;

    let mark = validatorMarkOf(message, settings.guard);
    if (mark?.outcome === "instructions_flagged") {
      if (settings.instructionsPauseWrites) instructionSources.add(tool);
      mark = undefined; // otherwise an output like any other
    }
    let isInvalid: boolean;
    if (mark?.outcome === "invalid_output") {
      isInvalid = true;
      if (mark.mode === "degrade") {
        degraded.add(tool);
        degradedThisTurn.add(tool);
      }
    } else if (mark || markOf(message) || !settings.isChecked(tool) || statusOf(message) === "error") {
      // blocked calls, other guards' answers, unchecked tools and the tool's own errors are not outputs to judge
      continue;
    } else {
      isInvalid = false;
      if (!degradedThisTurn.has(tool)) degraded.delete(tool);
    }

    state.checked++;
    if (isInvalid) state.invalid++;
    const ks = settings.killSwitch;
    if (!ks || state.killSwitch) continue;
    recent.push(isInvalid);
    if (isInvalid) recentInvalid++;
    if (recent.length > ks.window && recent.shift()) recentInvalid--;
    if (recentInvalid >= ks.minInvalid) state.killSwitch = { invalid: recentInvalid, outOf: recent.length };
  }
  state.degradedTools = [...degraded];
  state.instructionSources = [...instructionSources];
  return state;
}

/** Index where the trailing batch of ToolMessages (the last tool step's answers) begins. */
export function trailingToolBatchStart(messages: readonly unknown[]): number {
  let i = messages.length;
  while (i > 0 && messageKind(messages[i - 1]) === "tool") i--;
  return i;
}
