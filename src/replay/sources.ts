import { statSync } from "node:fs";
import type { BaseMessage } from "@langchain/core/messages";
import { ThreadLoadError } from "./errors.js";
import { parseThread, threadOf, type LoadedThread } from "./threads.js";
import { jsonFilesUnder } from "./threadFiles.js";
import { langGraphThreadIds, loadLangGraphThread, type LangGraphServer } from "./langgraphApi.js";
import { listPostgresThreads, loadPostgresThread } from "./postgres.js";
import { readJsonFile } from "./readJsonFile.js";
import { listCheckpointThreads, loadCheckpointThread } from "./sqlite.js";

/** Where a thread comes from: a JSON file, a thread of a SQLite or Postgres checkpoint database, or of a LangGraph server. */
export type ThreadSource =
  | { kind: "file"; path: string }
  | { kind: "sqlite"; db: string; threadId: string }
  | { kind: "postgres"; url: string; threadId: string }
  | { kind: "langgraph-api"; server: LangGraphServer; threadId: string };

/** Loads one thread from where it is kept. */
export async function loadThreadSource(source: ThreadSource): Promise<LoadedThread> {
  if (source.kind === "file") return loadThreadFile(source.path);
  if (source.kind === "sqlite") return loadCheckpointThread(source.db, source.threadId);
  if (source.kind === "langgraph-api") return loadLangGraphThread(source.server, source.threadId);
  return loadPostgresThread(source.url, source.threadId);
}

/**
 * Thread files named on the command line, in the order given: a file as it is, a folder as every
 * `*.json` file under it, in path order (see `jsonFilesUnder`). A path that does not exist is a
 * problem of its own; the others are still returned.
 */
export function collectThreadFiles(paths: readonly string[]): { files: string[]; problems: ThreadLoadError[] } {
  const files: string[] = [];
  const problems: ThreadLoadError[] = [];
  for (const path of paths) {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch {
      problems.push(new ThreadLoadError(path, "no such file or folder"));
      continue;
    }
    if (isDirectory) files.push(...jsonFilesUnder(path));
    else files.push(path);
  }
  return { files, problems };
}

/** The threads to replay: files and folders, and one or every thread of a checkpoint database or a LangGraph server. */
export interface ThreadSearch {
  paths: readonly string[];
  sqlite?: string;
  postgres?: string;
  langgraphApi?: LangGraphServer;
  /** With `langgraphApi`: only the threads updated at or after this time. */
  since?: Date;
  /** One thread of the database or server; all of them when absent. */
  threadId?: string;
}

/** Every source a search names, and what could not be found (a missing path, an unreadable database). */
export async function findThreadSources(
  search: ThreadSearch,
): Promise<{ sources: ThreadSource[]; problems: ThreadLoadError[] }> {
  const { files, problems } = collectThreadFiles(search.paths);
  const sources: ThreadSource[] = files.map((path) => ({ kind: "file", path }));
  const { sqlite, postgres, langgraphApi, since, threadId } = search;
  // A database that cannot be listed is one problem; the other sources still replay.
  const addThreadsOf = async (listIds: () => Promise<string[]>, source: (threadId: string) => ThreadSource) => {
    try {
      sources.push(...(threadId !== undefined ? [threadId] : await listIds()).map(source));
    } catch (error) {
      if (!(error instanceof ThreadLoadError)) throw error;
      problems.push(error);
    }
  };
  if (sqlite !== undefined)
    await addThreadsOf(
      () => listCheckpointThreads(sqlite),
      (id) => ({ kind: "sqlite", db: sqlite, threadId: id }),
    );
  if (postgres !== undefined)
    await addThreadsOf(
      () => listPostgresThreads(postgres),
      (id) => ({ kind: "postgres", url: postgres, threadId: id }),
    );
  // Page by page: only ids are listed here, each thread's state is read when it is replayed.
  if (langgraphApi !== undefined)
    await addThreadsOf(
      () => idsOf(langGraphThreadIds(langgraphApi, since ? { since } : {})),
      (id) => ({ kind: "langgraph-api", server: langgraphApi, threadId: id }),
    );
  return { sources, problems };
}

async function idsOf(pages: AsyncIterable<string>): Promise<string[]> {
  const ids: string[] = [];
  for await (const id of pages) ids.push(id);
  return ids;
}

/**
 * Reads one thread file in any format the test kit's `parseThread` knows. Plain LangChain message
 * dicts, the format of most saved threads, are replayed as they are: the guards read messages
 * through duck-typed views, so converting them to message classes first would change nothing but
 * the time it takes (test/cli/sources.test.ts holds both paths to the same decisions).
 */
export function loadThreadFile(path: string): LoadedThread {
  const value = readJsonFile(path, (reason) => new ThreadLoadError(path, reason));
  const file = isObject(value) ? value : undefined;
  const messages = Array.isArray(value) ? value : file?.messages;
  if (!Array.isArray(messages) || !messages.every(isPlainMessageDict)) return parseThread(value, path);
  return threadOf(file, messages as BaseMessage[], path);
}

const PLAIN_TYPES = new Set(["system", "human", "ai", "tool"]);

/** `{type, content, tool_calls?: [{id, name, args}]}` or `{type: "tool", tool_call_id, content}`, nothing to convert. */
function isPlainMessageDict(message: unknown): boolean {
  if (!isObject(message) || typeof message.type !== "string" || !PLAIN_TYPES.has(message.type)) return false;
  if ("role" in message || "lc" in message || "data" in message) return false;
  if (typeof message.content !== "string" && !Array.isArray(message.content)) return false;
  if (message.type === "tool") return typeof message.tool_call_id === "string";
  if (message.tool_calls === undefined) return true;
  return (
    message.type === "ai" &&
    Array.isArray(message.tool_calls) &&
    message.tool_calls.every(
      (call) => isObject(call) && typeof call.id === "string" && typeof call.name === "string" && isObject(call.args),
    )
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
