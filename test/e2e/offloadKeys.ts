import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { ScriptedTurn } from "../../src/testing/index.js";

/** Offload keys are unique per result (random part), so scripted models read them from the preview, as a real model does. */
const KEY_IN_PREVIEW = /stored under the key "([A-Za-z0-9_-]+)"/;

function textOf(message: ToolMessage): string {
  return typeof message.content === "string" ? message.content : JSON.stringify(message.content);
}

/** The key named by the latest preview in `messages`. */
export function keyIn(messages: readonly BaseMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (!ToolMessage.isInstance(message)) continue;
    const found = KEY_IN_PREVIEW.exec(textOf(message));
    if (found) return found[1]!;
  }
  throw new Error("no preview with an offload key in the messages");
}

/** A model turn that calls read_stored_result with the latest preview's key and `args`. */
export function readStoredTurn(args: Record<string, unknown> = {}, id?: string): ScriptedTurn {
  return (messages) => ({
    toolCalls: [{ name: "read_stored_result", args: { key: keyIn(messages), ...args }, ...(id ? { id } : {}) }],
  });
}

/** The file the latest preview tells the model to read with read_file. */
export function pathIn(messages: readonly BaseMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (!ToolMessage.isInstance(message)) continue;
    const found = /read_file with file_path "([^"]+)"/.exec(textOf(message));
    if (found) return found[1]!;
  }
  throw new Error("no preview with a read_file hint in the messages");
}

/** A model turn that calls read_file on the latest preview's file with `args`. */
export function readFileTurn(args: Record<string, unknown> = {}): ScriptedTurn {
  return (messages) => ({ toolCalls: [{ name: "read_file", args: { file_path: pathIn(messages), ...args } }] });
}
