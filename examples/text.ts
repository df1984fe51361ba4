// The text of a message's content, for the demos' printouts and character counts: text blocks as
// they are, any other block as JSON.
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (content === null || content === undefined) return "";
  if (!Array.isArray(content)) return JSON.stringify(content);
  return content
    .map((block: unknown) => {
      if (typeof block === "string") return block;
      const { type, text } = (block ?? {}) as { type?: unknown; text?: unknown };
      return type === "text" && typeof text === "string" ? text : JSON.stringify(block);
    })
    .join("\n");
}
