import { readFileSync } from "node:fs";
import {
  type BaseMessage,
  coerceMessageLikeToMessage,
  mapStoredMessagesToChatMessages,
  type StoredMessage,
} from "@langchain/core/messages";
import type { InvalidToolCall, ToolCall } from "@langchain/core/messages/tool";
import { firstLineOf } from "../core/errors.js";
import { ThreadLoadError } from "./errors.js";
import { jsonFilesUnder } from "./threadFiles.js";

/** A saved conversation, ready to replay or to check. */
export interface LoadedThread {
  /** The file's `id` field, else `source`. */
  id: string;
  messages: BaseMessage[];
  /** The file's `outcome` field, when it has one (external labels such as a reward). */
  outcome?: unknown;
  /** Where the thread was read from: the path, or the label given to `parseThread`. */
  source: string;
}

type Loose = Record<string, unknown>;

const LANGCHAIN_TYPES = new Set(["ai", "human", "system", "tool", "developer", "remove"]);
const STORED_TYPES = new Set(["ai", "human", "system", "tool", "function", "generic"]);
const OPENAI_ROLES: Record<string, string> = {
  user: "human",
  assistant: "ai",
  system: "system",
  developer: "developer",
  tool: "tool",
};

/**
 * Reads a thread from a JSON file: an array of messages, or an object with a `messages` array
 * (and optional `id` and `outcome`). Messages may be LangChain message dicts (`{type, content,
 * tool_calls}`), LangChain stored messages (`{type, data}`), serialized LangChain messages
 * (`{lc: 1, id, kwargs}`) or OpenAI chat messages (`{role, content, tool_calls}`), mixed freely.
 * Throws a `ThreadLoadError` naming the file and the reason.
 */
export function loadThread(path: string): LoadedThread {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ThreadLoadError(path, `cannot read the file (${firstLineOf(error)})`);
  }
  return parseThread(text, path);
}

/** Every `*.json` thread under `dir` (recursively), in path order (see `jsonFilesUnder`). */
export function loadThreads(dir: string): LoadedThread[] {
  return jsonFilesUnder(dir).map(loadThread);
}

/**
 * Parses a thread from JSON text or from an already parsed value; `source` names it in errors
 * and stands in for a missing `id`.
 */
export function parseThread(json: unknown, source = "<inline thread>"): LoadedThread {
  let value = json;
  if (typeof json === "string") {
    try {
      value = JSON.parse(json);
    } catch (error) {
      throw new ThreadLoadError(source, `bad JSON (${firstLineOf(error)})`);
    }
  }
  const file = isObject(value) ? value : undefined;
  const rawMessages = Array.isArray(value) ? value : file?.messages;
  if (!Array.isArray(rawMessages)) {
    throw new ThreadLoadError(source, "no messages array (expected an array or an object with a `messages` array)");
  }
  return threadOf(
    file,
    rawMessages.map((raw, index) => toMessage(raw, index, source)),
    source,
  );
}

/** A thread of `messages` read from a file's parsed value, which names its `id` and `outcome` when it is an object. */
export function threadOf(file: Loose | undefined, messages: BaseMessage[], source: string): LoadedThread {
  const thread: LoadedThread = {
    id: typeof file?.id === "string" && file.id !== "" ? file.id : source,
    messages,
    source,
  };
  if (file && "outcome" in file) thread.outcome = file.outcome;
  return thread;
}

function toMessage(raw: unknown, index: number, source: string): BaseMessage {
  const fail = (reason: string) => new ThreadLoadError(source, `message ${index} ${reason}`);
  if (!isObject(raw)) throw fail(`is ${describe(raw)}, not a message object`);
  try {
    if (raw.lc === 1 && Array.isArray(raw.id) && isObject(raw.kwargs)) {
      return coerceMessageLikeToMessage(raw as never);
    }
    if (typeof raw.type === "string" && isObject(raw.data)) {
      if (!STORED_TYPES.has(raw.type)) throw fail(`has unknown stored type "${raw.type}"`);
      const data = { ...raw.data };
      if (raw.type === "ai") Object.assign(data, normaliseToolCalls(data, fail));
      return mapStoredMessagesToChatMessages([{ type: raw.type, data } as unknown as StoredMessage])[0]!;
    }
    if (typeof raw.role === "string") return fromOpenAI(raw, fail);
    if (typeof raw.type === "string") {
      if (!LANGCHAIN_TYPES.has(raw.type)) throw fail(`has unknown type "${raw.type}"`);
      return fromDict(raw.type, raw, fail);
    }
  } catch (error) {
    if (error instanceof ThreadLoadError) throw error;
    throw fail(`could not be converted (${firstLineOf(error)})`);
  }
  throw fail("has unknown shape (no `type`, `role` or `lc` field)");
}

function fromOpenAI(raw: Loose, fail: (reason: string) => ThreadLoadError): BaseMessage {
  const type = OPENAI_ROLES[raw.role as string];
  if (type === undefined) throw fail(`has unknown role "${String(raw.role)}"`);
  const { role: _role, ...fields } = raw;
  // OpenAI sends `content: null` on assistant turns that only call tools.
  if (fields.content === null || fields.content === undefined) fields.content = "";
  return fromDict(type, fields, fail);
}

function fromDict(type: string, fields: Loose, fail: (reason: string) => ThreadLoadError): BaseMessage {
  if (fields.content !== undefined && typeof fields.content !== "string" && !Array.isArray(fields.content)) {
    throw fail(`has content that is ${describe(fields.content)}, not a string or an array of blocks`);
  }
  if (type === "tool" && typeof fields.tool_call_id !== "string")
    throw fail("is a tool message without a tool_call_id");
  const message = { ...fields, type, content: fields.content ?? "" };
  if (type === "ai") Object.assign(message, normaliseToolCalls(fields, fail));
  return coerceMessageLikeToMessage(message as never);
}

/**
 * Tool calls in LangChain form (`{name, args, id}`) or OpenAI form (`{id, function: {name,
 * arguments}}`). OpenAI arguments that are not a JSON object become invalid tool calls, as a
 * provider integration reports them.
 */
function normaliseToolCalls(
  fields: Loose,
  fail: (reason: string) => ThreadLoadError,
): { tool_calls: ToolCall[]; invalid_tool_calls: InvalidToolCall[] } {
  const toolCalls: ToolCall[] = [];
  const invalid: InvalidToolCall[] = Array.isArray(fields.invalid_tool_calls)
    ? (fields.invalid_tool_calls as InvalidToolCall[])
    : [];
  const raw = fields.tool_calls ?? [];
  if (!Array.isArray(raw)) throw fail(`has tool_calls that is ${describe(raw)}, not an array`);
  raw.forEach((call: unknown, k) => {
    if (!isObject(call)) throw fail(`has tool call ${k} that is ${describe(call)}`);
    const id = typeof call.id === "string" ? call.id : undefined;
    if (isObject(call.function)) {
      const name = typeof call.function.name === "string" ? call.function.name : undefined;
      const args = call.function.arguments;
      const parsed =
        typeof args === "string"
          ? parseArguments(args)
          : isObject(args)
            ? { args }
            : { error: "arguments are missing" };
      if ("args" in parsed && name !== undefined) {
        toolCalls.push({ type: "tool_call", name, args: parsed.args, id });
      } else {
        invalid.push({
          type: "invalid_tool_call",
          name,
          args: typeof args === "string" ? args : undefined,
          id,
          error: "error" in parsed ? parsed.error : "the function name is missing",
        });
      }
      return;
    }
    if (typeof call.name !== "string") throw fail(`has tool call ${k} without a name`);
    if (call.args !== undefined && !isObject(call.args)) throw fail(`has tool call ${k} whose args are not an object`);
    toolCalls.push({ type: "tool_call", name: call.name, args: (call.args as Loose | undefined) ?? {}, id });
  });
  return { tool_calls: toolCalls, invalid_tool_calls: invalid };
}

function parseArguments(text: string): { args: Loose } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `arguments are not valid JSON (${firstLineOf(error)})` };
  }
  return isObject(value) ? { args: value } : { error: `arguments are ${describe(value)}, not a JSON object` };
}

function isObject(value: unknown): value is Loose {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
