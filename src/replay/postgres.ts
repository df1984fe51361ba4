import type { BaseMessage } from "@langchain/core/messages";
import type { GuardState } from "../hooks/carry.js";
import { checkpointHistory } from "../hooks/summaryRemovals.js";
import { firstLineOf } from "../core/errors.js";
import { ThreadLoadError } from "./errors.js";
import type { LoadedThread } from "./threads.js";

/** The part of a node-postgres pool this file uses. */
interface PgPool {
  query(sql: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  on(event: "error", listener: (error: Error) => void): unknown;
}

type PoolConstructor = new (options: Record<string, unknown>) => PgPool;

// Optional at run time: only `--postgres` needs them (the saver package brings `pg`). Specifiers
// held in variables keep bundlers from pulling them into the CLI.
const DRIVER = "pg";
const SAVER = "@langchain/langgraph-checkpoint-postgres";
type SaverModule = typeof import("@langchain/langgraph-checkpoint-postgres");

/** How long to wait for the server before saying it cannot be reached. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Thread ids saved by `PostgresSaver` in the database at `url` (root graph only: subgraph
 * namespaces hold subagents' own threads).
 */
export async function listPostgresThreads(url: string): Promise<string[]> {
  const pool = await poolFor(url);
  const rows = await query(
    url,
    pool,
    "SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_ns = '' ORDER BY thread_id",
  );
  return rows.map((row) => String(row.thread_id));
}

/** The messages of a thread's latest checkpoint; reads only. */
export async function loadPostgresThread(url: string, threadId: string): Promise<LoadedThread> {
  const pool = await poolFor(url);
  const source = `${redacted(url)}:${threadId}`;
  const { PostgresSaver } = (await import(SAVER)) as SaverModule;
  const saver = new PostgresSaver(pool as never);
  let tuple;
  try {
    tuple = await saver.getTuple({ configurable: { thread_id: threadId } });
  } catch (error) {
    throw new ThreadLoadError(source, `cannot read the checkpoint (${firstLineOf(error)})`);
  }
  if (!tuple) {
    const known = await query(
      url,
      pool,
      "SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_ns = '' ORDER BY thread_id LIMIT 6",
    );
    const names = known.map((row) => String(row.thread_id));
    const listing =
      names.length === 0
        ? "the database holds no threads"
        : `threads in the database: ${names.slice(0, 5).join(", ")}${names.length > 5 ? ", ..." : ""}`;
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
}

// One pool per database for the whole command; idle pools let the process exit on their own.
const pools = new Map<string, Promise<PgPool>>();

function poolFor(url: string): Promise<PgPool> {
  let pool = pools.get(url);
  if (!pool) {
    pool = openPool(url);
    pools.set(url, pool);
    pool.catch(() => pools.delete(url));
  }
  return pool;
}

async function openPool(url: string): Promise<PgPool> {
  let Pool: PoolConstructor;
  try {
    Pool = ((await import(DRIVER)) as { default: { Pool: PoolConstructor } }).default.Pool;
    await import(SAVER);
  } catch {
    throw new ThreadLoadError(
      redacted(url),
      "reading Postgres checkpoints needs the packages @langchain/langgraph-checkpoint-postgres and pg",
    );
  }
  const pool = new Pool({
    connectionString: url,
    max: 2,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    allowExitOnIdle: true,
  });
  pool.on("error", () => undefined); // a dropped idle connection: the next query reports it
  const [table] = await query(url, pool, "SELECT to_regclass('checkpoints') IS NOT NULL AS found");
  if (table?.found !== true)
    throw new ThreadLoadError(redacted(url), "not a LangGraph checkpoint database (no checkpoints table)");
  return pool;
}

async function query(url: string, pool: PgPool, sql: string): Promise<Record<string, unknown>[]> {
  try {
    return (await pool.query(sql)).rows;
  } catch (error) {
    throw new ThreadLoadError(redacted(url), `cannot read the database (${firstLineOf(error)})`);
  }
}

/** The connection string without its password, for messages. */
export function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === "") return url;
    parsed.password = "***";
    return parsed.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, ":***@");
  }
}
