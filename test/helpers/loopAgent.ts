import { createAgent, type AgentMiddleware } from "langchain";
import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { z } from "zod";
import type { Signal } from "../../src/index.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../src/testing/index.js";

// A scripted createAgent run for the loop guards' graph tests: tools that count their real runs.

/** A tool that counts its real executions. */
export function countingTool(
  name: string,
  run: (input: Record<string, unknown>, n: number) => string,
  schema = z.object({}).passthrough(),
) {
  const counter = { runs: 0 };
  const t = tool(async (input: Record<string, unknown>) => run(input, ++counter.runs), {
    name,
    description: name,
    schema,
  });
  return { tool: t, counter };
}

export const repeat = (n: number, turn: ScriptedTurn): ScriptedTurn[] => Array.from({ length: n }, () => turn);
export const call = (name: string, args: Record<string, unknown> = {}): ScriptedTurn => ({
  toolCalls: [{ name, args }],
});

export async function run(middleware: AgentMiddleware[], tools: StructuredToolInterface[], turns: ScriptedTurn[]) {
  const signals: Signal[] = [];
  const model = new ScriptedChatModel({ turns });
  const agent = createAgent({ model, tools, middleware });
  const result = await agent.invoke({ messages: [new HumanMessage("go")] }, { recursionLimit: 200 });
  assertToolCallPairing(result.messages);
  return { messages: result.messages as BaseMessage[], model, signals };
}

export function guardAnswers(messages: BaseMessage[]) {
  return messages.filter(
    (m) => ToolMessage.isInstance(m) && (m.response_metadata as { harness_kit?: unknown })?.harness_kit,
  );
}

export const lastText = (messages: BaseMessage[]) => String(messages.at(-1)?.content);
