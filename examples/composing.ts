// The guards beside LangChain's own middlewares (docs/composing.md): the ones that handle a
// failure (tool retries, tool errors, model retries) go after the guards, next to the tool and the
// model; every other built-in goes where you like.
// Run: npx tsx examples/composing.ts
import {
  createAgent,
  humanInTheLoopMiddleware,
  modelRetryMiddleware,
  summarizationMiddleware,
  toolErrorMiddleware,
  toolRetryMiddleware,
} from "langchain";
import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { z } from "zod";
import { recommendedGuards } from "harness-kit";
import { ScriptedChatModel } from "harness-kit/testing";

class RateLimitError extends Error {}
class TimeoutError extends Error {}

/** Runs the example; returns how often the flaky tool ran and what the model read of it. */
export async function composedRun() {
  let runs = 0;
  const lookup = tool(
    async ({ id }: { id: string }) => {
      runs += 1;
      if (runs < 3) throw new TimeoutError("the orders service timed out");
      return `order ${id}: shipped`;
    },
    { name: "lookup_order", description: "Look up an order", schema: z.object({ id: z.string() }) },
  );
  let modelCalls = 0;
  const model = new ScriptedChatModel({
    turns: [
      () => {
        modelCalls += 1;
        throw new RateLimitError("429 from the provider");
      },
      { toolCalls: [{ name: "lookup_order", args: { id: "A7" } }] },
      { text: "Order A7 has shipped." },
    ],
  });

  const agent = createAgent({
    model,
    tools: [lookup],
    checkpointer: new MemorySaver(),
    middleware: [
      // Anywhere: these act on the state or the request, not on a failure.
      summarizationMiddleware({ model, trigger: { messages: 40 } }),
      humanInTheLoopMiddleware({ interruptOn: { refund_order: true } }),
      ...recommendedGuards({ writeTools: ["refund_order"] }).agent,
      // After the guards: they must see the tool's and the model's own errors. Among themselves,
      // LangChain's order: the error handler outside the retry, which hands it what it gave up on.
      toolErrorMiddleware({
        onError: (error) =>
          error instanceof TimeoutError ? "The orders service is slow; try again later." : undefined,
      }),
      toolRetryMiddleware({ retryOn: [TimeoutError], maxRetries: 2, initialDelayMs: 10, onFailure: "error" }),
      modelRetryMiddleware({ retryOn: [RateLimitError], maxRetries: 2, initialDelayMs: 10 }),
    ],
  });
  const { messages } = await agent.invoke(
    { messages: [new HumanMessage("Where is order A7?")] },
    { configurable: { thread_id: "example" } },
  );
  const answers = messages.filter(ToolMessage.isInstance).map((m) => String(m.content));
  return { toolRuns: runs, failedModelCalls: modelCalls, answers, final: String(messages.at(-1)?.content) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { toolRuns, failedModelCalls, answers, final } = await composedRun();
  console.log(`the model failed ${failedModelCalls} time(s) and was retried; the tool ran ${toolRuns} times`);
  console.log(`the model read: ${answers.join(" | ")}`);
  console.log(`final: ${final}`);
}
