import { ALLOW, type Decision } from "../../core/decision.js";
import type { RunState } from "./runState.js";
import { instructionsBlockedText, killSwitchBlockedText, safeModeBlockedText } from "./texts.js";

/**
 * Whether a call to a write tool may run, given the current run's state: the kill switch
 * blocks every write for the rest of the run; safe mode blocks them while a degraded tool has
 * not returned a valid output since.
 */
export function decideWriteCall(tool: string, state: RunState): Decision {
  if (state.killSwitch) {
    const { invalid, outOf } = state.killSwitch;
    return {
      action: "directive",
      code: "kill_switch",
      reason: `kill_switch: ${invalid} of the last ${outOf} checked tool outputs were invalid; write tools are disabled for the rest of the run`,
      message: killSwitchBlockedText(tool, invalid, outOf),
      detail: { invalid, outOf },
    };
  }
  if (state.instructionSources.length > 0) {
    return {
      action: "directive",
      code: "instructions_in_output",
      reason: `instructions_in_output: ${state.instructionSources.join(", ")} returned text that looks like instructions in this run`,
      message: instructionsBlockedText(tool, state.instructionSources),
      detail: { instructionSources: state.instructionSources },
    };
  }
  if (state.degradedTools.length > 0) {
    return {
      action: "directive",
      code: "safe_mode",
      reason: `safe_mode: ${state.degradedTools.join(", ")} returned invalid output in this run`,
      message: safeModeBlockedText(tool, state.degradedTools),
      detail: { degradedTools: state.degradedTools },
    };
  }
  return ALLOW;
}
