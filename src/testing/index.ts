// harness-kit/testing: tools for testing agents and middlewares. Re-exports only.
export {
  ScriptedChatModel,
  SCRIPT_FINISHED_TEXT,
  type ScriptedChatModelOptions,
  type ScriptedTurn,
  type ScriptedTurnFunction,
  type ScriptedTurnSpec,
} from "./ScriptedChatModel.js";
export {
  assertToolCallPairing,
  findToolCallPairingViolation,
  type ToolCallPairingOptions,
} from "./assertToolCallPairing.js";
export { loadThread, loadThreads, parseThread, type LoadedThread } from "../replay/threads.js";
export {
  InvalidScriptTurnError,
  ScriptExhaustedError,
  ThreadLoadError,
  ToolCallPairingError,
  type ToolCallPairingViolation,
  type ToolCallPairingViolationKind,
} from "./errors.js";
