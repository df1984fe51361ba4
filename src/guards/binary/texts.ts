/** Text the model reads where the binary guard changed a result; each says what was removed or changed. */

// The texts take only the fields they print, so the detectors that use the labels below can
// import this file without a circle through their own types.

/** What a text says of a binary payload or region: its label and media type. */
interface Described {
  label: string;
  mediaType: string | undefined;
}

/** Of a removed region: its form in the text, its place and, when known, its size in bytes. */
interface RemovedRegion extends Described {
  form: string;
  start: number;
  end: number;
  bytes: number | undefined;
}

/** Of a text read in the wrong encoding: which one, and how many characters were lost. */
type MisreadEncoding =
  { kind: "utf-16"; byteOrder: "LE" | "BE"; lost: number } | { kind: "legacy-8-bit"; lost: number };

/** Read by the model: a binary payload was removed; use an extractor, do not guess. Generic, so a whole BinaryReadContext passes too. */
export function binaryReadDirective<Context extends Described & { file: string }>(context: Context): string {
  return (
    `Not readable as text: ${context.file} is ${article(context.label)} ${context.label}, so its contents were removed from this result. ` +
    `Do not guess what it contains; extract its text with a suitable tool (${extractorFor(context.mediaType)}) or ask the user for a text version.`
  );
}

/** Read by the model in place of one binary region. Holds no `"` or `\`, so it fits inside a JSON string. */
export function regionPlaceholder(region: RemovedRegion): string {
  const size =
    region.bytes !== undefined ? `, ${formatBytes(region.bytes)}` : `, ${formatChars(region.end - region.start)}`;
  return `[binary data removed by harness-kit: ${region.label} as ${region.form}${size}; to read it, use ${extractorFor(region.mediaType)}]`;
}

/** Read by the model after a text whose binary parts were removed. */
export function partsRemovedNote(removed: readonly RemovedRegion[]): string {
  const listed = removed.slice(0, 5).map((r) => `${article(r.label)} ${r.label} (${r.form})`);
  if (removed.length > 5) listed.push(`${removed.length - 5} more`);
  const kinds = [...new Set(removed.map((r) => extractorFor(r.mediaType)))].join("; ");
  return (
    `[Binary data was removed from this result and the text around it kept as it was: ${listed.join(", ")}. ` +
    `Each removal is marked "[binary data removed by harness-kit: ...]". Do not guess what it contained; if you need it, use ${kinds}.]`
  );
}

/** Read by the model before text that was UTF-16 decoded one byte at a time, now decoded. */
export function encodingNote(finding: MisreadEncoding): string {
  if (finding.kind === "utf-16") {
    const lost = finding.lost > 0 ? ` ${finding.lost} characters could not be recovered and show as \ufffd.` : "";
    return `[This file is text in UTF-16${finding.byteOrder === "LE" ? "LE" : "BE"} that was read as single bytes; it is shown decoded below. It is text, not binary data.${lost}]`;
  }
  return (
    `[This text is in a legacy 8-bit encoding (probably Windows-1252 or Latin-1) but was decoded as UTF-8, so ${finding.lost} non-ASCII characters show as \ufffd. ` +
    `It is text, not binary data; if the exact characters matter, read it again as Windows-1252 (for example with iconv -f windows-1252 -t utf-8).]`
  );
}

/** Read by the model after a Node Buffer that held text was shown as that text. */
export const BUFFER_AS_TEXT_NOTE = "[The tool returned a Node Buffer; it is shown as its UTF-8 text.]";

export function extractorFor(mediaType: string | undefined): string {
  const type = mediaType ?? "";
  if (type.startsWith("image/")) return "OCR or an image-description tool";
  if (type.startsWith("audio/") || type.startsWith("video/")) return "a transcription tool";
  if (/zip|gzip|bzip|xz|zstd|7z|rar|tar/.test(type)) return "a tool that lists or extracts the archive";
  if (/pdf|officedocument|msword|ole|opendocument|rtf/.test(type)) return "a document-to-text converter";
  return "a document-to-text converter, or OCR for images";
}

export function article(label: string): string {
  return /^[aeiou]/i.test(label) || /^(?:MP|SQL|ELF|XML|HTML|xz)/.test(label) ? "an" : "a";
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function formatChars(chars: number): string {
  return `${chars} characters`;
}

/** Read by the model (in the directive and the placeholders): a binary payload whose type is unknown. */
export const UNKNOWN_LABEL = "binary file of unknown type";

/** Read by the model (in the directive and the placeholders): a media type's label, e.g. "image (image/svg+xml)". */
export function labelForMediaType(mediaType: string): string {
  const [family] = mediaType.split("/");
  const kind = FAMILY_LABELS[family ?? ""] ?? "binary file";
  return mediaType.endsWith("/*") ? kind : `${kind} (${mediaType})`;
}

const FAMILY_LABELS: Record<string, string> = {
  image: "image",
  audio: "audio file",
  video: "video file",
  font: "font file",
};
