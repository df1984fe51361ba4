import { matchMagicBase64 } from "./magic.js";
import { isTextMediaType, mediaBlockOf, mediaTypeAllowed, normaliseMediaType, type MediaBlockView } from "./media.js";
import type { BinaryRegion, RegionEvidence } from "./region.js";
import { labelForMediaType } from "./texts.js";
import type { EncodingFinding } from "./encoding.js";
import { reviewText } from "./review.js";

/** How a result was recognised as binary. */
export type BinaryEvidence = "media-block" | "declared-media-type" | RegionEvidence;

/** What the binary guard found in one tool result. */
export interface BinaryFinding {
  /** Read by the model: what the payload is, e.g. "PNG image" or "binary data of unknown type". */
  label: string;
  mediaType: string | undefined;
  evidence: BinaryEvidence;
  /** A file name the payload itself declared (block `filename`), if any. */
  fileName: string | undefined;
  /** Characters of the payload as the model would have received it. */
  size: number;
  /** Measurements behind the judgement, for signals. */
  detail: Record<string, unknown>;
}

/** What the directive that replaces a binary result is written from. */
export interface BinaryReadContext extends BinaryFinding {
  /** The file the call read, from its arguments (file_path, path, ...) or the payload; else a description of the call. */
  file: string;
  tool: string;
}

export interface BinaryInspectOptions {
  /** Media blocks of these types pass (exact, "image/*" or "*\/*"). */
  allowedMediaTypes: readonly string[];
}

/** The parts of a ToolMessage the guard reads; works for message instances and plain dicts. */
export interface ToolResultView {
  content: unknown;
  additional_kwargs?: unknown;
  response_metadata?: unknown;
}

/**
 * What the guard does with a result:
 * - `binary`: the result is a binary payload; it is replaced by a directive (text blocks beside a
 *   media block are kept);
 * - `cleaned`: the result is text with binary parts, or text in a wrong encoding; `content` is the
 *   result with those parts replaced and notes added, `removed` what was taken out.
 */
export type ResultReview =
  | { kind: "binary"; finding: BinaryFinding }
  | { kind: "cleaned"; content: string | unknown[]; removed: BinaryRegion[]; encodings: EncodingFinding[] };

/**
 * Judges a tool result. Media blocks by their media type against `allowedMediaTypes`; text (a
 * string result, or text blocks) by its content; a non-text media type declared in the message
 * metadata marks the whole result. Binary data in text never passes, whatever the allowed types:
 * a model cannot read a PNG's bytes. Never throws.
 */
export function reviewToolResult(result: ToolResultView, options: BinaryInspectOptions): ResultReview | undefined {
  try {
    const content = result.content;
    let size = 0;
    if (typeof content === "string") {
      const review = reviewText(content);
      if (review?.kind === "binary") return { kind: "binary", finding: regionFinding(review.region, content.length) };
      if (review)
        return {
          kind: "cleaned",
          content: review.text,
          removed: review.removed,
          encodings: review.encoding ? [review.encoding] : [],
        };
      size = content.length;
    } else if (Array.isArray(content)) {
      const blocks = reviewBlocks(content, options);
      if (typeof blocks !== "number") return blocks;
      size = blocks;
    }
    // Nearly every result declares no media type: the finding is built only for one that does.
    const declared = declaredMediaType(result);
    return declared === undefined ? undefined : declaredFinding(declared, options, size);
  } catch {
    return undefined;
  }
}

/** The binary payload a result is, or undefined (a result with binary parts is not one). Never throws. */
export function inspectToolResult(result: ToolResultView, options: BinaryInspectOptions): BinaryFinding | undefined {
  const review = reviewToolResult(result, options);
  return review?.kind === "binary" ? review.finding : undefined;
}

/** The review of a result's blocks; when it leaves them as they are, the size of their text. */
function reviewBlocks(content: readonly unknown[], options: BinaryInspectOptions): ResultReview | number {
  let size = 0;
  let changed = false;
  const blocks: unknown[] = [];
  const removed: BinaryRegion[] = [];
  const encodings: EncodingFinding[] = [];
  for (const block of content) {
    const media = mediaBlockOf(block);
    if (media && media.text === undefined) {
      const finding = judgeMediaBlock(media, options);
      if (finding) return { kind: "binary", finding };
      blocks.push(block);
      continue;
    }
    const text = typeof block === "string" ? block : (media?.text ?? textOfBlock(block));
    if (text === undefined) {
      blocks.push(block);
      continue;
    }
    size += text.length;
    const review = reviewText(text);
    if (review?.kind === "binary") return { kind: "binary", finding: regionFinding(review.region, text.length) };
    if (!review) {
      blocks.push(block);
      continue;
    }
    changed = true;
    removed.push(...review.removed);
    if (review.encoding) encodings.push(review.encoding);
    blocks.push(withText(block, review.text, media !== undefined));
  }
  return changed ? { kind: "cleaned", content: blocks, removed, encodings } : size;
}

/** A non-text media type declared in the message metadata marks the whole result. */
function declaredFinding(declared: string, options: BinaryInspectOptions, size: number): ResultReview | undefined {
  if (isTextMediaType(declared) || mediaTypeAllowed(declared, options.allowedMediaTypes)) return undefined;
  return {
    kind: "binary",
    finding: {
      label: labelForMediaType(declared),
      mediaType: declared,
      evidence: "declared-media-type",
      fileName: undefined,
      size,
      detail: {},
    },
  };
}

function regionFinding(region: BinaryRegion, size: number): BinaryFinding {
  return {
    label: region.label,
    mediaType: region.mediaType,
    evidence: region.evidence,
    fileName: undefined,
    size,
    detail: { form: region.form, ...(region.bytes !== undefined ? { bytes: region.bytes } : {}) },
  };
}

function judgeMediaBlock(media: MediaBlockView, options: BinaryInspectOptions): BinaryFinding | undefined {
  if (media.text !== undefined) return undefined;
  const signature = media.base64Head ? matchMagicBase64(media.base64Head) : undefined;
  const mediaType =
    media.mediaType !== undefined && !media.mediaType.endsWith("/*")
      ? media.mediaType
      : (signature?.mediaType ?? media.mediaType);
  if (mediaType !== undefined && isTextMediaType(mediaType) && !signature) return undefined;
  if (mediaTypeAllowed(mediaType, options.allowedMediaTypes)) return undefined;
  return {
    label: signature?.label ?? labelForMediaType(mediaType ?? `${media.blockType}/*`),
    mediaType,
    evidence: "media-block",
    fileName: media.fileName,
    size: media.payloadSize,
    detail: { blockType: media.blockType, ...(signature ? { signature: signature.label } : {}) },
  };
}

function textOfBlock(block: unknown): string | undefined {
  if (block === null || typeof block !== "object") return undefined;
  const b = block as Record<string, unknown>;
  return typeof b.text === "string" ? b.text : undefined;
}

/** The block with its text replaced; a text file block (`source_type: "text"`) becomes a text block. */
function withText(block: unknown, text: string, isFileBlock: boolean): unknown {
  if (typeof block === "string") return text;
  if (isFileBlock) return { type: "text", text };
  return { ...(block as Record<string, unknown>), text };
}

/** The media type the metadata declares, read from `response_metadata` before `additional_kwargs`. */
function declaredMediaType(result: ToolResultView): string | undefined {
  return declaredIn(result.response_metadata) ?? declaredIn(result.additional_kwargs);
}

interface DeclaringFields {
  mimeType?: unknown;
  mime_type?: unknown;
  mediaType?: unknown;
  media_type?: unknown;
  contentType?: unknown;
  content_type?: unknown;
}

/**
 * The first of the fields that names a media type: read one by one, not by a loop over their
 * names, since every result is read and nearly none declares one.
 */
function declaredIn(source: unknown): string | undefined {
  if (source === null || typeof source !== "object") return undefined;
  const s = source as DeclaringFields;
  return (
    normaliseMediaType(s.mimeType) ??
    normaliseMediaType(s.mime_type) ??
    normaliseMediaType(s.mediaType) ??
    normaliseMediaType(s.media_type) ??
    normaliseMediaType(s.contentType) ??
    normaliseMediaType(s.content_type)
  );
}
