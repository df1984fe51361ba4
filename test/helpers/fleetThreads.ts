/**
 * Threads of a made-up fleet, in OpenAI chat form: thread `i` of `n` asks a long question (so the
 * runaway factor has a context to measure against), then polls a status `i % 9` times with the
 * same answer (a loop the guards judge, longer in some threads than in others), then reads a
 * result that grows with `i`. `id` and `tool` name each thread and its polling tool: tests pass
 * hostile ones.
 */
export function fleetThread(
  i: number,
  options: { id?: string; tool?: string } = {},
): { id: string; messages: unknown[] } {
  const tool = options.tool ?? "job_status";
  const messages: unknown[] = [
    { role: "user", content: `Is export ${i} done? ${"Context of the request. ".repeat(300)}` },
  ];
  const call = (id: string, name: string, args: unknown) => ({
    role: "assistant",
    content: "",
    tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }],
  });
  for (let k = 0; k < i % 9; k++)
    messages.push(call(`p${k}`, tool, { job: i }), {
      role: "tool",
      tool_call_id: `p${k}`,
      content: JSON.stringify({ state: "running" }),
    });
  messages.push(call("r", "read_result", { job: i }), {
    role: "tool",
    tool_call_id: "r",
    content: "row\n".repeat(20 * (i + 1)),
  });
  messages.push({ role: "assistant", content: "Done." });
  return { id: options.id ?? `fleet-${i}`, messages };
}
