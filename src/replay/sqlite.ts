import { existsSync } from "node:fs";
import type { BaseMessage } from "@langchain/core/messages";
import type { GuardState } from "../hooks/carry.js";
import { checkpointHistory } from "../hooks/summaryRemovals.js";
import { firstLineOf } from "../core/errors.js";
import { ThreadLoadError } from "./errors.js";
import type { LoadedThread } from "./threads.js";

/** The part of a better-sqlite3 database this file uses. */
interface SqliteDatabase {
  prepare(sql: string): { all(...params: unknown[]): unknown[] };
  close(): void;
}

type DatabaseConstructor = new (path: string, options: { readonly: boolean; fileMustExist: boolean }) => SqliteDatabase;

// Optional at run time: only `--sqlite` needs them. Specifiers held in variables keep bundlers
// from pulling them (and a native driver) into the CLI.
const DRIVER = "better-sqlite3";
const SAVER = "@langchain/langgraph-checkpoint-sqlite";
type SaverModule = typeof import("@langchain/langgraph-checkpoint-sqlite");

/**
 * Thread ids saved in a checkpoint database written by `@langchain/langgraph-checkpoint-sqlite`
 * (root graph only: subgraph namespaces hold subagents' own threads).
 */
export async function listCheckpointThreads(path: string): Promise<string[]> {
  const db = await openCheckpointDatabase(path);
  try {
    const rows = db
      .prepare("SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_ns = '' ORDER BY thread_id")
      .all();
    return rows.map((row) => String((row as { thread_id: unknown }).thread_id));
  } finally {
    db.close();
  }
}

/** The messages of a thread's latest checkpoint, read without writing to the database. */
export async function loadCheckpointThread(path: string, threadId: string): Promise<LoadedThread> {
  const db = await openCheckpointDatabase(path);
  const source = `${path}:${threadId}`;
  try {
    const { SqliteSaver } = (await import(SAVER)) as SaverModule;
    const saver = new SqliteSaver(db as never);
    const tuple = await saver.getTuple({ configurable: { thread_id: threadId } });
    if (!tuple) {
      const known = db
        .prepare("SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_ns = '' ORDER BY thread_id LIMIT 6")
        .all();
      const names = known.map((row) => String((row as { thread_id: unknown }).thread_id));
      const listing =
        names.length === 0
          ? "the file holds no threads"
          : `threads in the file: ${names.slice(0, 5).join(", ")}${names.length > 5 ? ", ..." : ""}`;
      throw new ThreadLoadError(source, `no thread "${threadId}" (${listing})`);
    }
    const values = tuple.checkpoint.channel_values as unknown as GuardState;
    if (!Array.isArray(values.messages))
      throw new ThreadLoadError(source, "the latest checkpoint has no messages channel");
    // After a summary, the guards judged the history they carried: replay judges the same.
    return {
      id: threadId,
      messages: [...(await checkpointHistory(saver, values, tuple.parentConfig))] as BaseMessage[],
      source,
    };
  } catch (error) {
    if (error instanceof ThreadLoadError) throw error;
    throw new ThreadLoadError(source, `cannot read the checkpoint (${firstLineOf(error)})`);
  } finally {
    db.close();
  }
}

async function openCheckpointDatabase(path: string): Promise<SqliteDatabase> {
  if (!existsSync(path)) throw new ThreadLoadError(path, "no such file");
  let Database: DatabaseConstructor;
  try {
    Database = ((await import(DRIVER)) as { default: DatabaseConstructor }).default;
    await import(SAVER);
  } catch {
    throw new ThreadLoadError(
      path,
      "reading SQLite checkpoints needs the packages @langchain/langgraph-checkpoint-sqlite and better-sqlite3",
    );
  }
  let db: SqliteDatabase | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'checkpoints'").all();
    if (tables.length === 0)
      throw new ThreadLoadError(path, "not a LangGraph checkpoint database (no checkpoints table)");
    return db;
  } catch (error) {
    db?.close();
    if (error instanceof ThreadLoadError) throw error;
    throw new ThreadLoadError(path, `not a readable SQLite database (${firstLineOf(error)})`);
  }
}
