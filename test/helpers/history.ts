import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";

/** One step of a made-up history: a tool call with its result, a parallel batch, or a user message. */
export type Step =
  | { tool: string; args?: Record<string, unknown>; result?: unknown; status?: "success" | "error" }
  | { batch: Array<{ tool: string; args?: Record<string, unknown>; result?: unknown; status?: "success" | "error" }> }
  | { human: string };

let counter = 0;

/** Builds messages for `steps`, answering every call (unless `pending` is set for the last step). */
export function history(steps: Step[], options: { pendingLast?: boolean } = {}): BaseMessage[] {
  const messages: BaseMessage[] = [new HumanMessage("start")];
  steps.forEach((step, i) => {
    if ("human" in step) {
      messages.push(new HumanMessage(step.human));
      return;
    }
    const calls = "batch" in step ? step.batch : [step];
    const withIds = calls.map((c) => ({ ...c, id: `call-${++counter}` }));
    messages.push(
      new AIMessage({
        content: "",
        tool_calls: withIds.map((c) => ({ id: c.id, name: c.tool, args: c.args ?? {}, type: "tool_call" as const })),
      }),
    );
    if (options.pendingLast && i === steps.length - 1) return;
    for (const c of withIds) {
      messages.push(
        new ToolMessage({
          content: (c.result ?? "ok") as string,
          tool_call_id: c.id,
          name: c.tool,
          status: c.status ?? "success",
        }),
      );
    }
  });
  return messages;
}
