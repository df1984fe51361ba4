// Our hooks alone, outside LangGraph: the recommended stack's composed wrapModelCall and
// wrapToolCall driven through a scripted thread, against the same thread without them, so that
// only our own code is timed. Warm, the hooks run back to back; cold, a bare agent's one-step
// run comes before each hook call (untimed), as LangGraph's own work comes between our hooks in
// a real run and takes our code and data out of the CPU's caches.
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createAgent } from "langchain";
import { z } from "zod";
import { loadHasher } from "../src/observe/hash.js";
import { lookupScript } from "./agentOverhead.js";
import { summarise } from "./timing.js";

type Hook = (request: any, handler: (request: any) => Promise<any>) => Promise<any>;
interface Composed {
  wrapModelCall?: Hook;
  wrapToolCall?: Hook;
  tools?: unknown[];
}

/** A tool as the tools node hands it over; not a LangChain tool, so no tracing is timed. */
const lookup = {
  name: "lookup",
  description: "look a key up",
  schema: z.object({ key: z.string() }),
  invoke: async ({ key }: { key: string }) => JSON.stringify({ key, value: key.length }),
};

const asking = (step: number) =>
  new AIMessage({
    content: "",
    id: `ai${step}`,
    tool_calls: [{ id: `c${step}`, name: "lookup", args: { key: `k${step}` }, type: "tool_call" }],
  });

/** What comes between two hook calls in a cold run: a bare agent's whole one-step run. */
async function bareAgentStep(): Promise<void> {
  const { model, tools } = lookupScript(1, async () => {});
  await createAgent({ model, tools }).invoke({ messages: [new HumanMessage("go")] });
}

/** Microseconds spent in the hook calls (or the bare handlers) of one run of `turns` tool turns. */
async function thread(turns: number, stack: Composed | undefined, cold: boolean): Promise<number> {
  const tools = [lookup, ...(stack?.tools ?? [])];
  let messages: BaseMessage[] = [new HumanMessage({ content: "go", id: crypto.randomUUID() })];
  let spent = 0;
  const timed = async <T>(call: () => Promise<T>): Promise<T> => {
    if (cold) await bareAgentStep();
    const start = performance.now();
    const result = await call();
    spent += performance.now() - start;
    return result;
  };
  for (let step = 0; step <= turns; step++) {
    const model = async () => (step < turns ? asking(step) : new AIMessage({ content: "done", id: `ai${step}` }));
    const request = { messages, systemMessage: new SystemMessage(""), tools, state: { messages }, runtime: {} };
    const ai = (await timed(() => (stack?.wrapModelCall ? stack.wrapModelCall(request, model) : model()))) as AIMessage;
    messages = [...messages, ai];
    if (step === turns) break;
    const call = ai.tool_calls![0]!;
    const tool = async (req: { tool: typeof lookup }) =>
      new ToolMessage({
        content: await req.tool.invoke(call.args as { key: string }),
        tool_call_id: call.id!,
        id: `t${step}`,
      });
    const toolRequest = { toolCall: call, tool: lookup, state: { messages }, runtime: {} };
    messages = [
      ...messages,
      (await timed(() =>
        stack?.wrapToolCall ? stack.wrapToolCall(toolRequest, tool) : tool(toolRequest),
      )) as BaseMessage,
    ];
  }
  return spent * 1000;
}

/**
 * Our hooks' time per step at `turns` tool turns: runs with a new stack (built untimed, as the
 * turns bench builds one per round) alternate with runs without hooks; the median difference
 * of the pairs.
 */
export async function hooksAlonePerStep(
  turns: number,
  makeStack: () => unknown,
  runs: number,
  cold = false,
): Promise<number> {
  await loadHasher();
  const composed = () => makeStack() as Composed;
  for (let i = 0; i < Math.ceil(runs / 5); i++) {
    await thread(turns, composed(), cold);
    await thread(turns, undefined, cold);
  }
  const added: number[] = [];
  for (let i = 0; i < runs; i++) {
    const stack = composed();
    added.push((await thread(turns, stack, cold)) - (await thread(turns, undefined, cold)));
  }
  return summarise(added).p50 / turns;
}
