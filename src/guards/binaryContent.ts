import { matchMagicBase64 } from "./binaryMagic.js";
import { isTextMediaType, mediaBlockOf, mediaTypeAllowed, normaliseMediaType, type MediaBlockView } from "./binaryMedia.js";
import { sniffText, type TextEvidence } from "./binarySniff.js";

/** How a result was recognised as binary. */
export type BinaryEvidence =
  | "media-block"
  | "declared-media-type"
  | TextEvidence["kind"];

/** What the binary guard found in one tool result. */
export interface BinaryFinding {
  /** Read by the model: what the payload is, e.g. "PNG image" or "binary file of unknown type". */
  label: string;
  mediaType: string | undefined;
  evidence: BinaryEvidence;
  /** A file name the payload itself declared (block `filename`), if any. */
  fileName: string | undefined;
  /** Characters of the payload as the model would have received it. */
  size: number;
  /** Measurements behind the judgement, for signals (e.g. the share of U+FFFD). */
  detail: Record<string, unknown>;
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
 * The first binary payload in a tool result, or `undefined`. Media blocks are judged by their
 * media type against `allowedMediaTypes`; text (a string result, or text blocks) by its content;
 * a non-text media type declared in the message metadata marks the whole result. Text that is
 * binary data never passes, whatever the allowed types: a model cannot read a PNG's bytes. Never throws.
 */
export function inspectToolResult(result: ToolResultView, options: BinaryInspectOptions): BinaryFinding | undefined {
  try {
    return inspectContent(result, options);
  } catch {
    return undefined;
  }
}

function inspectContent(result: ToolResultView, options: BinaryInspectOptions): BinaryFinding | undefined {
  const content = result.content;
  const textParts: string[] = [];
  if (typeof content === "string") textParts.push(content);
  else if (Array.isArray(content)) {
    for (const block of content) {
      if (typeof block === "string") {
        textParts.push(block);
        continue;
      }
      const media = mediaBlockOf(block);
      if (media) {
        const finding = judgeMediaBlock(media, options);
        if (finding) return finding;
        if (media.text !== undefined) textParts.push(media.text);
        continue;
      }
      const text = textOfBlock(block);
      if (text !== undefined) textParts.push(text);
    }
  }
  for (const text of textParts) {
    const evidence = sniffText(text);
    if (evidence) return textFinding(evidence, text.length);
  }
  const declared = declaredMediaType(result);
  if (declared && !isTextMediaType(declared) && !mediaTypeAllowed(declared, options.allowedMediaTypes)) {
    const size = textParts.reduce((sum, t) => sum + t.length, 0);
    return { label: labelForMediaType(declared), mediaType: declared, evidence: "declared-media-type", fileName: undefined, size, detail: {} };
  }
  return undefined;
}

function judgeMediaBlock(media: MediaBlockView, options: BinaryInspectOptions): BinaryFinding | undefined {
  if (media.text !== undefined) return undefined;
  const signature = media.base64Head ? matchMagicBase64(media.base64Head) : undefined;
  const mediaType = media.mediaType !== undefined && !media.mediaType.endsWith("/*") ? media.mediaType : signature?.mediaType ?? media.mediaType;
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

function textFinding(evidence: TextEvidence, size: number): BinaryFinding {
  switch (evidence.kind) {
    case "magic-number":
    case "magic-number-in-base64":
      return {
        label: evidence.signature.label,
        mediaType: evidence.signature.mediaType,
        evidence: evidence.kind,
        fileName: undefined,
        size,
        detail: {},
      };
    case "data-url":
      return { label: labelForMediaType(evidence.mediaType), mediaType: evidence.mediaType, evidence: evidence.kind, fileName: undefined, size, detail: {} };
    default:
      return {
        label: "binary file of unknown type",
        mediaType: undefined,
        evidence: evidence.kind,
        fileName: undefined,
        size,
        detail: { share: Math.round(evidence.share * 1000) / 1000 },
      };
  }
}

function textOfBlock(block: unknown): string | undefined {
  if (block === null || typeof block !== "object") return undefined;
  const b = block as Record<string, unknown>;
  return typeof b.text === "string" ? b.text : undefined;
}

const DECLARED_KEYS = ["mimeType", "mime_type", "mediaType", "media_type", "contentType", "content_type"];

function declaredMediaType(result: ToolResultView): string | undefined {
  for (const source of [result.response_metadata, result.additional_kwargs]) {
    if (source === null || typeof source !== "object") continue;
    for (const key of DECLARED_KEYS) {
      const type = normaliseMediaType((source as Record<string, unknown>)[key]);
      if (type) return type;
    }
  }
  return undefined;
}

const FAMILY_LABELS: Record<string, string> = {
  image: "image",
  audio: "audio file",
  video: "video file",
  font: "font file",
};

function labelForMediaType(mediaType: string): string {
  const [family] = mediaType.split("/");
  const kind = FAMILY_LABELS[family ?? ""] ?? "binary file";
  return mediaType.endsWith("/*") ? kind : `${kind} (${mediaType})`;
}
