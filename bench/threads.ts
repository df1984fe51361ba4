import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";

/**
 * A made-up agent thread with `calls` tool calls: eight tools, arguments that sometimes repeat,
 * multi-line results of a few hundred characters, an error now and then. Deterministic.
 */
export function syntheticThread(calls: number, prefix = "c"): BaseMessage[] {
  const tools = ["read_file", "search", "run_tests", "edit_file", "list_dir", "get_status", "query_db", "fetch_url"];
  const messages: BaseMessage[] = [new HumanMessage("Fix the failing test in the parser module.")];
  for (let i = 0; i < calls; i++) {
    const id = `${prefix}${i}`;
    const name = tools[i % tools.length]!;
    const args = {
      path: `src/module_${(i * 7) % 311}.py`,
      line: i % 13,
      options: { recursive: i % 2 === 0, depth: i % 3 },
    };
    messages.push(new AIMessage({ id: `ai-${id}`, content: "", tool_calls: [{ id, name, args, type: "tool_call" }] }));
    const lines = Array.from(
      { length: 6 },
      (_, k) => `${name} line ${k}: value ${(i * 31 + k) % 97} at 2024-05-01T12:${String(i % 60).padStart(2, "0")}:00Z`,
    );
    messages.push(
      new ToolMessage({
        content: lines.join("\n"),
        tool_call_id: id,
        name,
        status: i % 17 === 0 ? "error" : "success",
      }),
    );
  }
  return messages;
}
