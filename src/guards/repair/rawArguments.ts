/**
 * The argument text each tool call of an AI message had on the wire, by call id, where the
 * provider message still carries it. Needed because a streamed message's calls are parsed by
 * LangChain core with a partial-JSON parser: a call cut off by the token limit
 * (`{"path":"/etc/pas`) arrives in `tool_calls` as `{path: "/etc/pas"}`, not in
 * `invalid_tool_calls`. Two shapes are known:
 * - OpenAI: `additional_kwargs.tool_calls[].function.arguments`;
 * - Anthropic: a `tool_use` content block (its `input` when a string) followed by the
 *   `input_json_delta` blocks with the same `index`.
 */
export function rawArgumentsOf(message: unknown): Map<string, string> {
  const raw = new Map<string, string>();
  if (message === null || typeof message !== "object") return raw;
  const m = message as { additional_kwargs?: { tool_calls?: unknown }; content?: unknown };

  const openai = m.additional_kwargs?.tool_calls;
  if (Array.isArray(openai)) {
    for (const call of openai) {
      const c = call as { id?: unknown; function?: { arguments?: unknown } } | null;
      if (typeof c?.id === "string" && typeof c.function?.arguments === "string") raw.set(c.id, c.function.arguments);
    }
  }

  if (Array.isArray(m.content)) {
    const deltas = new Map<unknown, string>();
    for (const block of m.content) {
      const b = block as { type?: unknown; index?: unknown; input?: unknown } | null;
      if (b?.type === "input_json_delta" && typeof b.input === "string")
        deltas.set(b.index, (deltas.get(b.index) ?? "") + b.input);
    }
    for (const block of m.content) {
      const b = block as { type?: unknown; id?: unknown; index?: unknown; input?: unknown } | null;
      if (b?.type !== "tool_use" || typeof b.id !== "string") continue;
      const start = typeof b.input === "string" ? b.input : "";
      const rest = deltas.get(b.index);
      if (typeof b.input === "string" || rest !== undefined) raw.set(b.id, start + (rest ?? ""));
    }
  }
  return raw;
}
