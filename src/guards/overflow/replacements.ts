import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { rewriteToolMessage } from "../../core/answers.js";
import { contentText } from "../../observe/content.js";
import { messageKind, textOfBlock } from "../../core/messages.js";
import { splitContent, type Measure } from "../budget/measure.js";
import { assessContent, planBudget, renderBudgeted } from "../budget/plan.js";
import { readBackSource } from "../budget/readBack.js";
import { retrievalToolHint } from "../budget/texts.js";
import { originalOf } from "../../core/marks.js";
import type { OffloadStore } from "../../offload/OffloadStore.js";
import { type KeptWhere, readBackStubText, resultStubText, shortenedArgument, shortenedMessageText } from "./texts.js";

/**
 * The shortened messages the guard puts in a request in place of the originals. Each keeps what
 * pairing and the providers need (ids, tool calls, tool_call_id, name, status) and replaces
 * content only. Tool results reuse the budget's preview (head and tail between its notices).
 */

/** The longest key `offloadKey` makes (tool 40, id 24, digest 16, two dashes). */
const MAX_KEY = 82;
/** How to read, as a store may word it: longer hints are cut to this. */
export const MAX_HINT = 300;
/** Stands in for any real key and hint when the planner sizes a stub before anything is stored. */
export const PLACEHOLDER_WHERE: KeptWhere = { key: "k".repeat(MAX_KEY), howToRead: "h".repeat(MAX_HINT) };

/**
 * How a key stored by the guard is read: the store's hint, or the retrieval tool from the start
 * (a preview names the offset its omitted part starts at instead, unless the store has a hint).
 */
export function keptAt(key: string, readHint: string | undefined): KeptWhere {
  const how = readHint ?? retrievalToolHint(key, 0);
  return {
    key,
    howToRead: how.length > MAX_HINT ? `${how.slice(0, MAX_HINT - 3)}...` : how,
    ...(readHint !== undefined ? { storeHint: true } : {}),
  };
}

/** Where a read back in the request was read from, and how to read it again: it is stored already. */
export interface ReadBackOrigin {
  key: string;
  offset: number;
  /** Read by the model after "It is still stored there; ". */
  again: string;
  /**
   * Set when the message is the budget's preview of a result stored whole under `key`: that
   * result's length, and how to read it (read by the model after "to read it, ").
   */
  previewOf?: { chars: number; howToRead: string };
}

/**
 * Whether `message` is the budget's preview of a result it stored whole: the request then points
 * to that copy rather than store the preview again. A preview that kept media blocks in the
 * request is shortened as any result is, so that its media go to the store as text.
 */
export function previewOrigin(message: ToolMessage): ReadBackOrigin | undefined {
  const original = originalOf(message);
  const key = original?.offloadKey;
  if (key === undefined || resultParts(message).media.length > 0) return undefined;
  const howToRead = original!.readHint ?? retrievalToolHint(key, 0);
  return { key, offset: 0, again: `to read it, ${howToRead}`, previewOf: { chars: original!.size, howToRead } };
}

/** The lines deepagents' `read_file` reads when a call gives no limit. */
const READ_FILE_DEFAULT_LIMIT = 100;

/**
 * Whether `message` reads back something stored, and from where: an answer of the retrieval tool
 * (`retrievalName`, its header names the key and offset), or a call the store reads by lines
 * (deepagents' `read_file` of a stored file, `call` being the call it answers).
 */
export function readBackOrigin(
  message: ToolMessage,
  call: { name: string; args: Readonly<Record<string, unknown>> } | undefined,
  retrievalName: string,
  store: OffloadStore | undefined,
): ReadBackOrigin | undefined {
  if (message.name === retrievalName) {
    const source = readBackSource(resultParts(message).text);
    if (!source) return undefined;
    const again = source.search
      ? `to list those lines again, call ${retrievalName} with key "${source.key}", offset ${source.offset} and the same pattern`
      : `to read it again, call ${retrievalName} with key "${source.key}" and offset ${source.offset} (with a length, to read less at a time)`;
    return { key: source.key, offset: source.offset, again };
  }
  if (!call || typeof store?.lineReaderFor !== "function") return undefined;
  const reader = store.lineReaderFor(call.name, call.args);
  if (!reader) return undefined;
  const offset = reader.startLine ?? 0;
  const limit = Number(call.args.limit);
  const path = String(call.args.file_path ?? "");
  // The file is named after the key it holds (AgentFilesOffloadStore: `<dir>/<key>.txt`).
  return {
    key: path.slice(path.lastIndexOf("/") + 1).replace(/\.txt$/, ""),
    offset,
    again: `to read it again, ${reader.window(offset, Number.isFinite(limit) && limit > 0 ? limit : READ_FILE_DEFAULT_LIMIT)}`,
  };
}

/**
 * A read back (or a budget's preview) in the request, shortened: a notice that points to where
 * the whole is stored, nothing stored again.
 */
export function stubReadBack(message: ToolMessage, origin: ReadBackOrigin): ToolMessage {
  const { previewOf } = origin;
  const content = previewOf
    ? resultStubText(message.name, previewOf.chars, 0, { key: origin.key, howToRead: previewOf.howToRead })
    : readBackStubText(resultParts(message).text.length, origin.key, origin.offset, origin.again);
  return rewriteToolMessage(message, { content });
}

/** String arguments longer than this are replaced in a shortened AI message. */
const ARGUMENT_KEEP = 200;

/** Text and media of a tool result: the text is what the store keeps; media blocks stay in the request. */
export function resultParts(message: ToolMessage): { text: string; media: unknown[] } {
  const split = splitContent(message.content);
  return { text: split.text, media: split.media.map((part) => part.block) };
}

/** Phase 1: the head and tail of a large result within `limit` tokens, with the budget's notices. */
export function previewResult(message: ToolMessage, where: KeptWhere, limit: number, measure: Measure): ToolMessage {
  const { text, media } = resultParts(message);
  const assessment = assessContent(text, measure);
  const plan = planBudget(assessment, limit, measure);
  // Without a hint of the store's, the budget's notice names the offset where the omitted part starts.
  const outcome =
    where.key !== undefined
      ? { kind: "stored" as const, key: where.key, ...(where.storeHint ? { readHint: where.howToRead } : {}) }
      : { kind: "not-stored" as const, reason: `storing them failed: ${where.failure}` };
  const facts = {
    tool: message.name ?? "the tool",
    chars: text.length,
    size: assessment.textSize,
    unit: "tokens" as const,
    limit,
    outcome,
  };
  const rendered = renderBudgeted(assessment, plan, facts, measure).content as string;
  return rewriteToolMessage(message, { content: withMedia(rendered, media) });
}

/**
 * Phase 2: a notice in place of a whole result, media blocks included; the store keeps its full
 * text (`stubbedText`), where media blocks are written as their type and base64 payload.
 */
export function stubResult(message: ToolMessage, where: KeptWhere): ToolMessage {
  const { text, media } = resultParts(message);
  return rewriteToolMessage(message, { content: resultStubText(message.name, text.length, media.length, where) });
}

/** What the store keeps for a stubbed result. */
export function stubbedText(message: ToolMessage): string {
  return contentText(message.content);
}

/**
 * Phase 2 for an AI or user message: its text replaced by a notice; for an AI message, long
 * string arguments of its tool calls too (the calls keep their ids, names and argument keys).
 */
export function stubMessage(message: BaseMessage, where: KeptWhere): BaseMessage {
  const kind = messageKind(message);
  const chars = textLength(message.content);
  if (kind === "ai") {
    const ai = message as AIMessage;
    const shortened = new Map((ai.tool_calls ?? []).map((call) => [call.id, shortenArgs(call.args, where)]));
    return new AIMessage({
      id: ai.id,
      name: ai.name,
      content: aiContent(ai.content, chars > 0 ? shortenedMessageText("assistant", chars, where) : "", shortened),
      tool_calls: (ai.tool_calls ?? []).map((call) => ({ ...call, args: shortened.get(call.id) ?? call.args })),
      response_metadata: ai.response_metadata,
    });
  }
  const text = shortenedMessageText(kind === "human" ? "user" : "other", chars, where);
  if (kind === "human")
    return new HumanMessage({ id: message.id, content: text, additional_kwargs: message.additional_kwargs });
  return new HumanMessage({ id: message.id, content: text });
}

/** Text of a content value, as long as a reader sees it (media not counted). */
export function textLength(content: unknown): number {
  if (typeof content === "string") return content.length;
  if (!Array.isArray(content)) return 0;
  let n = 0;
  for (const block of content) n += textOfBlock(block)?.length ?? 0;
  return n;
}

/**
 * Content of a shortened AI message: the notice in place of its text; Anthropic's tool_use blocks
 * stay (a provider sends them as the calls) with the shortened input; other blocks are kept.
 */
function aiContent(
  content: unknown,
  notice: string,
  shortened: ReadonlyMap<string | undefined, Record<string, unknown>>,
): AIMessage["content"] {
  if (!Array.isArray(content)) return notice;
  const blocks: unknown[] = notice ? [{ type: "text", text: notice }] : [];
  for (const block of content) {
    if (typeof block === "string") continue;
    const b = block as Record<string, unknown>;
    if (b.type === "text") continue;
    if (b.type === "tool_use" && shortened.has(b.id as string))
      blocks.push({ ...b, input: shortened.get(b.id as string) });
    else blocks.push(block);
  }
  return blocks as AIMessage["content"];
}

/** Arguments with every string longer than `ARGUMENT_KEEP` replaced by a short notice, at any depth. */
function shortenArgs(args: unknown, where: KeptWhere): Record<string, unknown> {
  const walk = (value: unknown, depth: number): unknown => {
    if (typeof value === "string") return value.length > ARGUMENT_KEEP ? shortenedArgument(value.length, where) : value;
    if (depth > 32 || value === null || typeof value !== "object") return value;
    if (Array.isArray(value)) return value.map((item) => walk(item, depth + 1));
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, walk(v, depth + 1)]),
    );
  };
  const out = walk(args ?? {}, 0);
  return out !== null && typeof out === "object" && !Array.isArray(out) ? (out as Record<string, unknown>) : {};
}

function withMedia(text: string, media: unknown[]): ToolMessage["content"] {
  return (media.length === 0 ? text : [{ type: "text", text }, ...media]) as ToolMessage["content"];
}

/** Stands in for a span of dropped messages. */
export function noteMessage(text: string): HumanMessage {
  return new HumanMessage({ content: text, additional_kwargs: { lc_source: "context_overflow" } });
}
