import { fields, type Loose } from "../../core/fields.js";
import { isMediaBlockType } from "../../core/mediaBlocks.js";

/**
 * Media content blocks (images, audio, video, files) in the shapes LangChain messages carry them:
 * LangChain standard blocks (`{type: "image", data | url, mimeType}` and the older
 * `{source_type, mime_type}`), OpenAI (`image_url`, `input_audio`, `file.file_data`) and Anthropic
 * (`{type: "image" | "document", source: {media_type, data | url}}`). Both the budget (which
 * measures them) and the binary guard (which judges them) read blocks through `mediaBlockOf`.
 */

export interface MediaBlockView {
  /** The block's `type`: image, audio, video, file, image_url, input_audio, document. */
  blockType: string;
  /** Declared or inferred media type, e.g. "image/png"; `undefined` when the block says nothing. */
  mediaType: string | undefined;
  /** Size of the payload as it travels: base64 characters, or the URL's length. */
  payloadSize: number;
  /** The first characters of a base64 payload (for sniffing); `undefined` for URL or text payloads. */
  base64Head: string | undefined;
  /** A text payload (`source_type: "text"` file blocks). */
  text: string | undefined;
  fileName: string | undefined;
}

/** Characters of a base64 payload kept for sniffing: 64 characters decode to 48 bytes. */
const HEAD_CHARS = 64;

export function mediaBlockOf(block: unknown): MediaBlockView | undefined {
  if (block === null || typeof block !== "object") return undefined;
  const b = block as Loose;
  if (!isMediaBlockType(b.type)) return undefined;
  const payload = payloadFields(b);
  const view: MediaBlockView = {
    blockType: b.type,
    mediaType: undefined,
    payloadSize: 0,
    base64Head: undefined,
    text: undefined,
    fileName: firstString(
      b.filename,
      b.name,
      fields(b.metadata).filename,
      fields(b.file).filename,
      fields(b.source).filename,
    ),
  };
  if (typeof payload.text === "string") {
    view.text = payload.text;
    view.payloadSize = payload.text.length;
  } else if (typeof payload.data === "string") {
    const url = parseDataUrl(payload.data);
    view.payloadSize = payload.data.length;
    view.base64Head = url ? url.head : payload.data.slice(0, HEAD_CHARS);
    payload.mediaType ??= url?.mediaType;
  } else if (payload.data instanceof Uint8Array) {
    view.payloadSize = Math.ceil(payload.data.byteLength / 3) * 4;
    view.base64Head = bytesToBase64(payload.data.subarray(0, (HEAD_CHARS / 4) * 3));
  } else if (typeof payload.url === "string") {
    const url = parseDataUrl(payload.url);
    view.payloadSize = payload.url.length;
    if (url) {
      view.base64Head = url.head;
      payload.mediaType ??= url.mediaType;
    }
  }
  view.mediaType = normaliseMediaType(payload.mediaType) ?? impliedMediaType(b.type);
  return view;
}

interface PayloadFields {
  data?: unknown;
  url?: unknown;
  text?: unknown;
  mediaType?: string;
}

function payloadFields(b: Loose): PayloadFields {
  const declared = firstString(b.mimeType, b.mime_type, b.media_type, b.mediaType);
  if (b.type === "image_url") {
    const imageUrl = b.image_url;
    return { url: typeof imageUrl === "string" ? imageUrl : fields(imageUrl).url, mediaType: declared };
  }
  if (b.type === "input_audio") {
    const audio = b.input_audio;
    const format = fields(audio).format;
    return {
      data: fields(audio).data,
      mediaType: declared ?? (typeof format === "string" ? `audio/${format}` : undefined),
    };
  }
  if (b.source !== null && typeof b.source === "object") {
    const source = b.source as Loose;
    return {
      data: source.data,
      url: source.url,
      mediaType: firstString(source.media_type, source.mediaType) ?? declared,
    };
  }
  if (b.file !== null && typeof b.file === "object") {
    return { data: fields(b.file).file_data, mediaType: declared };
  }
  if (b.source_type === "text") return { text: b.text, mediaType: declared ?? "text/plain" };
  return { data: b.data, url: b.url, mediaType: declared };
}

function impliedMediaType(blockType: string): string | undefined {
  switch (blockType) {
    case "image":
    case "image_url":
      return "image/*";
    case "audio":
    case "input_audio":
      return "audio/*";
    case "video":
      return "video/*";
    default:
      return undefined;
  }
}

export interface DataUrl {
  mediaType: string | undefined;
  /** First characters of the base64 payload. */
  head: string;
}

/** `data:[type][;params];base64,PAYLOAD`; only the start of a (possibly huge) string is read. */
export function parseDataUrl(text: string): DataUrl | undefined {
  if (!text.startsWith("data:")) return undefined;
  const comma = text.indexOf(",", 5);
  if (comma === -1 || comma > 256) return undefined;
  const params = text.slice(5, comma).split(";");
  if (!params.includes("base64")) return undefined;
  return { mediaType: normaliseMediaType(params[0]), head: text.slice(comma + 1, comma + 1 + HEAD_CHARS) };
}

export function normaliseMediaType(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const type = value.split(";")[0]!.trim().toLowerCase();
  return /^[a-z0-9][\w.+-]*\/[\w.+*-]+$/.test(type) ? type : undefined;
}

const TEXT_APPLICATION_TYPES = new Set([
  "application/json",
  "application/xml",
  "application/javascript",
  "application/ecmascript",
  "application/x-javascript",
  "application/typescript",
  "application/x-sh",
  "application/x-shellscript",
  "application/sql",
  "application/graphql",
  "application/yaml",
  "application/x-yaml",
  "application/toml",
  "application/x-toml",
  "application/csv",
  "application/x-www-form-urlencoded",
  "application/x-ndjson",
  "application/jsonl",
]);

/** Whether a media type names text a model can read as is. */
export function isTextMediaType(mediaType: string): boolean {
  const type = mediaType.toLowerCase();
  if (type.startsWith("text/")) return true;
  if (type.endsWith("+json") || type.endsWith("+xml")) return true;
  return TEXT_APPLICATION_TYPES.has(type);
}

/**
 * Whether `mediaType` is in `allowed`, which holds exact types (`"application/pdf"`), wildcard
 * subtypes (`"image/*"`) or `"*\/*"`. A block whose type is only known as `"image/*"` passes
 * when any image type is allowed.
 */
export function mediaTypeAllowed(mediaType: string | undefined, allowed: readonly string[]): boolean {
  if (allowed.length === 0) return false;
  if (allowed.includes("*/*")) return true;
  if (mediaType === undefined) return false;
  const [family] = mediaType.split("/");
  for (const entry of allowed) {
    const pattern = entry.toLowerCase();
    if (pattern === mediaType) return true;
    if (pattern === `${family}/*`) return true;
    if (mediaType === `${family}/*` && pattern.startsWith(`${family}/`)) return true;
  }
  return false;
}

/**
 * Media types a chat model accepts inside tool results, read from its LangChain model profile
 * (`imageToolMessage`, `pdfToolMessage`). Pass the result as `allowedMediaTypes` to let those
 * blocks through the binary guard.
 *
 * @example new BinaryReadGuardMiddleware({ allowedMediaTypes: mediaTypesAcceptedBy(model) })
 */
export function mediaTypesAcceptedBy(model: { profile?: unknown }): string[] {
  const p = fields(model.profile);
  const accepted: string[] = [];
  if (p.imageToolMessage === true) accepted.push("image/*");
  if (p.pdfToolMessage === true) accepted.push("application/pdf");
  return accepted;
}

function firstString(...values: unknown[]): string | undefined {
  for (const value of values) if (typeof value === "string" && value !== "") return value;
  return undefined;
}

const BASE64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

function bytesToBase64(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i]!;
    const b = bytes[i + 1];
    const c = bytes[i + 2];
    out += BASE64_ALPHABET[a >> 2];
    out += BASE64_ALPHABET[((a & 3) << 4) | ((b ?? 0) >> 4)];
    out += b === undefined ? "=" : BASE64_ALPHABET[((b & 15) << 2) | ((c ?? 0) >> 6)];
    out += c === undefined ? "=" : BASE64_ALPHABET[c & 63];
  }
  return out;
}
