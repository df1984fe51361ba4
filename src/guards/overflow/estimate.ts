import { toJsonSchema } from "@langchain/core/utils/json_schema";
import { messageKind, textOfBlock, toolCallsOf } from "../../core/messages.js";
import { isMediaBlockType } from "../../core/mediaBlocks.js";
import { CHARS_PER_TOKEN, countSafely, type CountTokens } from "../../core/tokens.js";

/**
 * What a request costs in tokens, before it is sent. LangChain's own counters
 * (`getNumTokens`, `getNumTokensFromMessages`) download their tokenizer from the network on first
 * use, count nothing but text content (no tool calls, no tool schemas) and fall back to this same
 * kind of estimate offline, so the guard estimates by default and takes a real tokenizer through
 * `countTokens`. The estimate errs high: ASCII text at 4 characters a token, every other
 * character a token of its own (CJK, emoji and accented text run close to that).
 */
export const estimateTokens: CountTokens = (text) => {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code <= 0x7f) ascii++;
    else if (code < 0xdc00 || code > 0xdfff) other++; // a surrogate pair counts once
  }
  return Math.ceil(ascii / CHARS_PER_TOKEN) + other;
};

/** What a request's messages add up to. */
export interface HistorySummary {
  tokens: number;
  /** What the latest message that `learnedAt` knows about says (the guard: the window a provider stated). */
  learnedWindow: number | undefined;
}

/** Role, separators and the like that every message costs besides its content. */
export const MESSAGE_OVERHEAD = 4;
/** Id, type and framing of one tool call besides its name and arguments. */
const CALL_OVERHEAD = 8;
/**
 * An image or other media block. Providers bill images by their pixels (about 1,600 tokens for a
 * large image at Anthropic and OpenAI), not by the length of their base64, which would count a
 * 1 MB screenshot as 250,000 tokens. A PDF (a document or file block) counts the same though its
 * pages cost more: the calibration by reported input tokens makes up for it.
 */
export const MEDIA_TOKENS = 1600;

/**
 * Sizes of messages, tool schemas and system prompts under one counter. Each object is measured
 * once (messages in state are the same objects from step to step), so a step costs a lookup per
 * message, not a count of the whole history.
 */
export class RequestMeter {
  private readonly sizes = new WeakMap<object, number>();
  /** Per message: the summary of the history up to and including it, at its position. */
  private readonly prefixes = new WeakMap<object, HistorySummary & { index: number }>();

  constructor(readonly count: CountTokens = estimateTokens) {}

  /** A counter that throws or answers nonsense is replaced by the estimate for that text. */
  text(text: string): number {
    return text === "" ? 0 : Math.ceil(countSafely(this.count, text, estimateTokens));
  }

  message(message: unknown): number {
    if (message === null || typeof message !== "object") return 0;
    let size = this.sizes.get(message);
    if (size === undefined) {
      size = this.measureMessage(message as Record<string, unknown>);
      this.sizes.set(message, size);
    }
    return size;
  }

  /**
   * Tokens of `messages[0..end)` and what `learnedAt` last found in them (see `HistorySummary`),
   * extending the summary of an earlier request that this one continues: between graph steps
   * LangGraph's history only grows, the same objects at the same positions, so only the new
   * messages are touched. Touching every message of a long history costs more inside a graph
   * step (its objects are cold in memory) than everything else the guard does. A message replaced
   * in place further back is not seen: `messages()` is the exact pass, for requests near the limit.
   */
  summary(messages: readonly unknown[], learnedAt: (message: unknown) => number | undefined | null, end = messages.length): HistorySummary {
    let tokens = 0;
    let decided = false;
    let learnedWindow: number | undefined;
    for (let i = end - 1; i >= 0; i--) {
      const message = messages[i];
      const known = message !== null && typeof message === "object" ? this.prefixes.get(message) : undefined;
      if (known && known.index === i) {
        tokens += known.tokens;
        if (!decided) learnedWindow = known.learnedWindow;
        break;
      }
      tokens += this.message(message);
      if (!decided) {
        const found = learnedAt(message);
        if (found !== null) [decided, learnedWindow] = [true, found];
      }
    }
    const last = messages[end - 1];
    if (last !== null && typeof last === "object") this.prefixes.set(last, { index: end - 1, tokens, learnedWindow });
    return { tokens, learnedWindow };
  }

  messages(messages: readonly unknown[], from = 0, to = messages.length): number {
    let total = 0;
    for (let i = from; i < to; i++) total += this.message(messages[i]);
    return total;
  }

  /** The system prompt and the tool schemas: what the request costs besides its messages. */
  fixed(systemMessage: unknown, tools: readonly unknown[] | undefined): number {
    let total = systemMessage ? this.message(systemMessage) : 0;
    for (const tool of tools ?? []) total += this.tool(tool);
    return total;
  }

  content(content: unknown): number {
    if (typeof content === "string") return this.text(content);
    if (!Array.isArray(content)) return content === null || content === undefined ? 0 : this.text(safeJson(content));
    let total = 0;
    for (const block of content) total += this.block(block);
    return total;
  }

  private block(block: unknown): number {
    const text = textOfBlock(block);
    if (text !== undefined) return this.text(text);
    if (block === null || typeof block !== "object") return 0;
    if (isMediaBlockType((block as { type?: unknown }).type)) return MEDIA_TOKENS;
    return this.text(safeJson(block));
  }

  private measureMessage(message: Record<string, unknown>): number {
    let size = MESSAGE_OVERHEAD + this.content(message.content);
    if (messageKind(message) === "ai") {
      for (const call of toolCallsOf(message)) size += CALL_OVERHEAD + this.text(call.name) + this.text(safeJson(call.args ?? {}));
    }
    return size;
  }

  private tool(tool: unknown): number {
    if (tool === null || typeof tool !== "object") return 0;
    let size = this.sizes.get(tool);
    if (size === undefined) {
      size = this.text(toolSchemaText(tool as Record<string, unknown>));
      this.sizes.set(tool, size);
    }
    return size;
  }
}

/** What a provider is sent for a tool: its name, description and JSON schema. */
function toolSchemaText(tool: Record<string, unknown>): string {
  let schema: unknown = tool.schema;
  try {
    if (schema !== undefined && schema !== null) schema = toJsonSchema(schema as Parameters<typeof toJsonSchema>[0]);
  } catch {
    // a schema LangChain cannot convert is counted as it is
  }
  if (schema === undefined) return safeJson(tool); // a provider tool written as a dict
  return `${String(tool.name ?? "")}\n${String(tool.description ?? "")}\n${safeJson(schema)}`;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return String(value);
  }
}
