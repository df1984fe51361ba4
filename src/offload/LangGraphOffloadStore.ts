import type { BaseStore } from "@langchain/langgraph";
import type { OffloadContext, OffloadStore } from "./OffloadStore.js";

export interface LangGraphOffloadStoreOptions {
  /** The LangGraph store: `InMemoryStore`, a Postgres-backed store, or any other `BaseStore`. */
  store: BaseStore;
  /**
   * Namespace of the items; each thread gets its own namespace below it. Default
   * `["harness-kit", "offload"]`. `PostgresStore` refuses labels holding `.`, `%`, `_` or `\\`.
   */
  namespace?: readonly string[];
}

export const LANGGRAPH_OFFLOAD_DEFAULTS = { namespace: ["harness-kit", "offload"] } as const;

/**
 * Keeps offloaded results in a LangGraph `BaseStore`, so every worker of a deployment that
 * shares the store (a Postgres-backed one, say) can read them back. Items live in a namespace per
 * thread, `[...namespace, "thread-<id>"]` (`"no-thread"` for runs without a thread id), so a key
 * asked for from another thread, or under another namespace, finds nothing. Each item's value is
 * `{content, tool, toolCallId, threadId, chars}`.
 *
 * @example
 * const store = new InMemoryStore();
 * new ToolResultBudgetMiddleware({ store: new LangGraphOffloadStore({ store }) });
 */
export class LangGraphOffloadStore implements OffloadStore {
  private readonly store: BaseStore;
  private readonly namespace: string[];

  constructor(options: LangGraphOffloadStoreOptions) {
    this.store = options.store;
    this.namespace = [...(options.namespace ?? LANGGRAPH_OFFLOAD_DEFAULTS.namespace)];
  }

  /** The namespace a thread's results are kept in. */
  namespaceFor(threadId: string | undefined): string[] {
    return [...this.namespace, namespaceLabelForThread(threadId)];
  }

  async put(key: string, content: string, context: OffloadContext): Promise<void> {
    await this.store.put(
      this.namespaceFor(context.threadId),
      key,
      {
        content,
        tool: context.toolName,
        toolCallId: context.toolCallId,
        threadId: context.threadId ?? null,
        chars: content.length,
      },
      false,
    );
  }

  async get(key: string, context: OffloadContext): Promise<string | undefined> {
    const item = await this.store.get(this.namespaceFor(context?.threadId), key);
    const content = item?.value?.content;
    return typeof content === "string" ? content : undefined;
  }
}

/**
 * `thread-<id>` with every UTF-16 unit outside `a-z 0-9 -` written as `~XXXX` (so distinct ids,
 * lone surrogates included, give distinct labels), or `no-thread`. The label holds none of the
 * characters LangGraph stores refuse in a namespace: `.` and `:` (every store), `%`, `_` and `\\`
 * (`PostgresStore`, where they are wildcards of the `LIKE` its searches use).
 */
export function namespaceLabelForThread(threadId: string | undefined): string {
  if (threadId === undefined) return "no-thread";
  let label = "thread-";
  for (let i = 0; i < threadId.length; i++) {
    const char = threadId[i]!;
    label += /^[a-z0-9-]$/.test(char) ? char : `~${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
  }
  return label;
}
