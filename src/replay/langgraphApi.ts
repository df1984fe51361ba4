import type { BaseMessage } from "@langchain/core/messages";
import { CARRY_KEY, type GuardState } from "../hooks/carry.js";
import { checkpointHistory } from "../hooks/summaryRemovals.js";
import { firstLineOf } from "../core/errors.js";
import { ThreadLoadError } from "./errors.js";
import { redacted } from "./postgres.js";
import { parseThread, type LoadedThread } from "./threads.js";

/** A LangGraph server (LangGraph Platform, `langgraph dev`) and the API key it takes, if any. */
export interface LangGraphServer {
  url: string;
  apiKey?: string;
}

// Optional at run time: only `--langgraph-api` needs it. A specifier held in a variable keeps
// bundlers from pulling it into the CLI.
const SDK = "@langchain/langgraph-sdk";
type SdkModule = typeof import("@langchain/langgraph-sdk");
type Client = InstanceType<SdkModule["Client"]>;
type Checkpoint = NonNullable<Awaited<ReturnType<Client["threads"]["getState"]>>["parent_checkpoint"]>;

/** Threads asked for at once: the most the servers return in one page. */
export const THREAD_PAGE = 1000;

/**
 * The ids of the server's threads, a page at a time: every thread in id order, or with `since`
 * the threads updated at or after it, newest first (the listing stops at the first older one).
 * Only ids are asked for: a thread's state is read when it is replayed.
 */
export async function* langGraphThreadIds(
  server: LangGraphServer,
  options: { since?: Date; pageSize?: number } = {},
): AsyncGenerator<string> {
  const client = await clientFor(server);
  const { since, pageSize = THREAD_PAGE } = options;
  for (let offset = 0; ; offset += pageSize) {
    const page = await call(server, () =>
      client.threads.search({
        limit: pageSize,
        offset,
        select: ["thread_id", "updated_at"],
        ...(since ? { sortBy: "updated_at", sortOrder: "desc" } : { sortBy: "thread_id", sortOrder: "asc" }),
      }),
    );
    for (const thread of page) {
      if (since && new Date(thread.updated_at).getTime() < since.getTime()) return;
      yield thread.thread_id;
    }
    if (page.length < pageSize) return;
  }
}

/** The history of a thread's latest state, read from the server without writing to it. */
export async function loadLangGraphThread(server: LangGraphServer, threadId: string): Promise<LoadedThread> {
  const source = `${redacted(server.url)}:${threadId}`;
  const client = await clientFor(server);
  let state;
  try {
    state = await client.threads.getState(threadId);
  } catch (error) {
    if (statusOf(error) === 404) throw new ThreadLoadError(source, `no thread "${threadId}" on the server`);
    throw new ThreadLoadError(source, `cannot read the thread (${firstLineOf(error)})`);
  }
  const values = guardStateOf(state.values, source);
  if (!values) throw new ThreadLoadError(source, "the thread's state has no messages channel");
  // After a summary, the guards judged the history they carried: replay judges the same, and where
  // the carry does not hold it yet, finds it in the thread's earlier checkpoints as the guards did.
  const reader = {
    getTuple: async (checkpoint: unknown) => {
      const earlier = await client.threads.getState(threadId, checkpoint as Checkpoint);
      const channelValues = guardStateOf(earlier.values, source);
      return {
        checkpoint: { channel_values: (channelValues ?? {}) as Record<string, unknown> },
        parentConfig: earlier.parent_checkpoint ?? undefined,
      };
    },
  };
  try {
    return {
      id: threadId,
      messages: [...(await checkpointHistory(reader, values, state.parent_checkpoint ?? undefined))] as BaseMessage[],
      source,
    };
  } catch (error) {
    if (error instanceof ThreadLoadError) throw error;
    throw new ThreadLoadError(source, `cannot read the thread's history (${firstLineOf(error)})`);
  }
}

/** The messages and carry of a state as the server sends them (plain dicts), as messages the guards read. */
function guardStateOf(values: unknown, source: string): GuardState | undefined {
  const channels = values !== null && typeof values === "object" ? (values as Record<string, unknown>) : {};
  if (!Array.isArray(channels.messages)) return undefined;
  const carried = channels[CARRY_KEY];
  return {
    messages: parseThread(channels.messages, source).messages,
    ...(Array.isArray(carried)
      ? { [CARRY_KEY]: parseThread(carried, `${source} (carried history)`).messages as GuardState[typeof CARRY_KEY] }
      : {}),
  };
}

// One client per server and key for the whole command.
const clients = new Map<string, Promise<Client>>();

function clientFor(server: LangGraphServer): Promise<Client> {
  const key = `${server.url}\n${server.apiKey ?? ""}`;
  let client = clients.get(key);
  if (!client) {
    client = openClient(server);
    clients.set(key, client);
    client.catch(() => clients.delete(key));
  }
  return client;
}

async function openClient(server: LangGraphServer): Promise<Client> {
  let Client: SdkModule["Client"];
  try {
    ({ Client } = (await import(SDK)) as SdkModule);
  } catch {
    throw new ThreadLoadError(
      redacted(server.url),
      "reading threads from a LangGraph server needs the package @langchain/langgraph-sdk",
    );
  }
  // `null` keeps the SDK from reading a key from the environment itself: the CLI chose it.
  return new Client({ apiUrl: server.url, apiKey: server.apiKey ?? null, callerOptions: { maxRetries: 1 } });
}

async function call<T>(server: LangGraphServer, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    throw new ThreadLoadError(redacted(server.url), `cannot read the server's threads (${firstLineOf(error)})`);
  }
}

function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === "number" ? status : undefined;
}
