// A user-written OffloadStore: keeps offloaded results gzip-compressed in memory for one hour.
// Anything with `put` and `get` works the same way: a Redis client, an S3 bucket, a database table.
// Keep each thread's results apart (`context.threadId`): one store serves every thread, and a key
// asked for from another thread must find nothing.
// Run: npx tsx examples/custom-offload-store.ts
import { gunzipSync, gzipSync } from "node:zlib";
import { createAgent } from "langchain";
import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { ToolResultBudgetMiddleware, type OffloadContext, type OffloadStore } from "harness-kit";
import { ScriptedChatModel } from "harness-kit/testing";

class CompressedOffloadStore implements OffloadStore {
  private readonly entries = new Map<string, { gzipped: Buffer; expires: number }>();

  constructor(private readonly ttlMs = 60 * 60 * 1000) {}

  async put(key: string, content: string, context: OffloadContext): Promise<void> {
    const gzipped = gzipSync(content);
    this.entries.set(scoped(key, context), { gzipped, expires: Date.now() + this.ttlMs });
    console.log(
      `  [store] ${context.toolName} result ${key}: ${content.length} characters kept as ${gzipped.length} bytes`,
    );
  }

  async get(key: string, context: OffloadContext): Promise<string | undefined> {
    const entry = this.entries.get(scoped(key, context));
    if (!entry || entry.expires < Date.now()) return undefined; // the retrieval tool tells the model it is gone
    return gunzipSync(entry.gzipped).toString("utf8");
  }
}

/** The thread id and the key, joined so that no two pairs give the same text. */
function scoped(key: string, context: OffloadContext): string {
  return JSON.stringify([context.threadId ?? null, key]);
}

const rows = Array.from(
  { length: 20_000 },
  (_, i) => `${i},customer-${i % 700},${(i * 37) % 1000}.00,${i % 13 === 0 ? "refunded" : "paid"}`,
);
const exportOrders = tool(async () => `id,customer,amount,status\n${rows.join("\n")}`, {
  name: "export_orders",
  description: "Exports every order as CSV.",
  schema: z.object({}),
});

const model = new ScriptedChatModel({
  turns: [
    { toolCalls: [{ name: "export_orders", args: {}, id: "call_export" }] },
    // The preview names the key the result is stored under; a real model reads it from there too.
    (messages) => {
      const key = /stored under the key "([^"]+)"/.exec(String(messages.at(-1)!.content))![1]!;
      return { toolCalls: [{ name: "read_stored_result", args: { key, pattern: "customer-42," } }] };
    },
    { text: "Customer 42 has the orders listed above." },
  ],
});

const agent = createAgent({
  model,
  tools: [exportOrders],
  middleware: [new ToolResultBudgetMiddleware({ limit: 4000, store: new CompressedOffloadStore() })],
});

const result = await agent.invoke(
  { messages: [new HumanMessage("Which orders belong to customer 42?")] },
  { configurable: { thread_id: "orders-1" } },
);
for (const message of result.messages.filter((m) => ToolMessage.isInstance(m))) {
  console.log(
    `\n--- ${message.name} (${String(message.content).length} characters) ---\n${String(message.content).slice(0, 600)}`,
  );
}
