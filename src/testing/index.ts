// "harness-kit/testing": tools for testing agents and middlewares. Re-exports only.
export {
  ScriptedChatModel,
  type ScriptedChatModelOptions,
  type ScriptedTurn,
  type ScriptedTurnFunction,
  type ScriptedTurnSpec,
} from "./ScriptedChatModel.js";
export { assertToolCallPairing, type ToolCallPairingOptions } from "./assertToolCallPairing.js";
export { loadThread, parseThread, type LoadedThread } from "../replay/threads.js";
export { ThreadLoadError } from "../replay/errors.js";
export {
  InvalidScriptTurnError,
  ScriptExhaustedError,
  ToolCallPairingError,
  type ToolCallPairingViolation,
  type ToolCallPairingViolationKind,
} from "./errors.js";
