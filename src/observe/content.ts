import { canonicalJson } from "./canonical.js";
import { isMediaBlockType } from "../core/mediaBlocks.js";
import { textOfBlock } from "../core/messages.js";

type Block = Record<string, unknown>;

/**
 * The text a result carries, for hashing, novelty and size. Text blocks are joined by newlines;
 * a binary block becomes a header line and its payload, so different payloads never look equal
 * and the payload's size counts. Any other value is written as canonical JSON.
 */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (content === null || content === undefined) return "";
  if (!Array.isArray(content)) return canonicalJson(content);
  const parts: string[] = [];
  for (const block of content) parts.push(blockText(block));
  return parts.join("\n");
}

function blockText(block: unknown): string {
  const text = textOfBlock(block);
  if (text !== undefined) return text;
  if (block === null || typeof block !== "object") return canonicalJson(block);
  const b = block as Block;
  if (isMediaBlockType(b.type)) {
    const mime = b.mimeType ?? b.mime_type ?? "";
    return `[${b.type} ${String(mime)}]\n${binaryPayload(b)}`;
  }
  return canonicalJson(block);
}

function binaryPayload(b: Block): string {
  if (typeof b.data === "string") return b.data;
  if (typeof b.url === "string") return b.url;
  const imageUrl = b.image_url as Block | string | undefined;
  if (typeof imageUrl === "string") return imageUrl;
  if (imageUrl && typeof imageUrl.url === "string") return imageUrl.url;
  return canonicalJson(b);
}
