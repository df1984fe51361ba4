import type { BaseStore } from "@langchain/langgraph";
import type { OffloadContext, OffloadStore } from "./OffloadStore.js";

export interface LangGraphOffloadStoreOptions {
  /** The LangGraph store: `InMemoryStore`, a Postgres-backed store, or any other `BaseStore`. */
  store: BaseStore;
  /** Namespace of the items. Default `["harness_kit", "offload"]`. */
  namespace?: readonly string[];
}

export const LANGGRAPH_OFFLOAD_DEFAULTS = { namespace: ["harness_kit", "offload"] } as const;

/**
 * Keeps offloaded results in a LangGraph `BaseStore`, so every worker of a deployment that
 * shares the store (a Postgres-backed one, say) can read them back. Each item's value is
 * `{content, tool, toolCallId, chars}`.
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

  async put(key: string, content: string, context: OffloadContext): Promise<void> {
    await this.store.put(this.namespace, key, {
      content,
      tool: context.toolName,
      toolCallId: context.toolCallId,
      chars: content.length,
    }, false);
  }

  async get(key: string): Promise<string | undefined> {
    const item = await this.store.get(this.namespace, key);
    const content = item?.value?.content;
    return typeof content === "string" ? content : undefined;
  }
}
