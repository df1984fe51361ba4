import { createAgent } from "langchain";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { z } from "zod";
import {
  OutputValidatorMiddleware,
  type OutputValidatorOptions,
} from "../../../src/guards/output/OutputValidatorMiddleware.js";
import type { Signal } from "../../../src/core/signals.js";
import { ScriptedChatModel, type ScriptedTurn } from "../../../src/testing/index.js";

/** Shared by the validator's e2e tests: an account API whose answers the test scripts, and a write tool. */

export const accountSchema = z.object({
  id: z.number(),
  plan: z.enum(["free", "pro"]),
  seats: z.number().int().min(1),
});

export const VALID_ACCOUNT = JSON.stringify({ id: 7, plan: "pro", seats: 3 });

/** The boring ways a tool's output goes wrong, as the tool returns them. */
export const BAD_OUTPUTS = {
  html_instead_of_json: JSON.stringify({
    status: 200,
    body: "<!DOCTYPE html><html><head><title>Maintenance</title></head><body>We will be back soon.</body></html>",
  }),
  json_truncated: '{"id": 7, "plan": "pro", "seats": 3, "history": [{"at": "2024-05-01", "ev',
  schema_invalid: JSON.stringify({ id: 7, plan: "enterprise", seats: 3 }),
  error_in_payload: JSON.stringify({ success: true, data: null, error: "upstream quota exceeded" }),
  oversized: JSON.stringify({ id: 7, plan: "pro", seats: 3, audit: "x".repeat(5000) }),
} as const;

export interface Harness {
  agent: ReturnType<typeof createAgent>;
  model: ScriptedChatModel;
  signals: Signal[];
  /** Arguments of every update_account call that actually ran. */
  writes: unknown[];
  /** What get_account returns next; the last entry repeats. */
  outputs: string[];
}

export function buildHarness(options: {
  turns: ScriptedTurn[];
  outputs?: string[];
  validator?: OutputValidatorOptions;
  checkpointer?: BaseCheckpointSaver;
  extraTools?: Parameters<typeof createAgent>[0]["tools"];
  withValidator?: boolean;
}): Harness {
  const signals: Signal[] = [];
  const writes: unknown[] = [];
  const outputs = [...(options.outputs ?? [VALID_ACCOUNT])];
  const getAccount = tool(async () => (outputs.length > 1 ? outputs.shift()! : outputs[0]!), {
    name: "get_account",
    description: "Reads an account.",
    schema: z.object({ id: z.number() }),
  });
  const updateAccount = tool(
    async (args) => {
      writes.push(args);
      return "updated";
    },
    {
      name: "update_account",
      description: "Changes an account.",
      schema: z.object({ id: z.number(), seats: z.number() }),
    },
  );
  const model = new ScriptedChatModel({ turns: options.turns });
  const validator = new OutputValidatorMiddleware({
    tools: { get_account: { schema: accountSchema, maxChars: 2000 } },
    writeTools: ["update_account"],
    ...options.validator,
    onSignal: (signal) => signals.push(signal),
  });
  const agent = createAgent({
    model,
    tools: [getAccount, updateAccount, ...((options.extraTools as never[]) ?? [])],
    middleware: options.withValidator === false ? [] : [validator],
    checkpointer: options.checkpointer,
  });
  return { agent, model, signals, writes, outputs };
}

export async function run(harness: Harness, text = "go", config?: Record<string, unknown>): Promise<BaseMessage[]> {
  const result = await harness.agent.invoke({ messages: [new HumanMessage(text)] }, config);
  return result.messages;
}

export const readAccount = { name: "get_account", args: { id: 7 } };
export const writeAccount = { name: "update_account", args: { id: 7, seats: 4 } };

export function toolMessages(messages: readonly BaseMessage[]): ToolMessage[] {
  return messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
}

/** The `response_metadata.harness_kit` mark of a message, if any. */
export function harnessMark(message: BaseMessage | undefined): Record<string, unknown> | undefined {
  return (message?.response_metadata as { harness_kit?: Record<string, unknown> } | undefined)?.harness_kit;
}

export function textOf(message: BaseMessage | undefined): string {
  return typeof message?.content === "string" ? message.content : JSON.stringify(message?.content);
}
