/**
 * Content block types that carry media rather than text: LangChain standard blocks (image,
 * audio, video, file), OpenAI's (image_url, input_audio) and Anthropic's document, whose
 * base64 PDF is media as much as an image is. Whoever hashes, measures or judges a result reads
 * media through this one list, so the guards agree on what a payload is.
 */
export const MEDIA_BLOCK_TYPES: ReadonlySet<string> = new Set([
  "image",
  "audio",
  "video",
  "file",
  "image_url",
  "input_audio",
  "document",
]);

/** Whether a content block's `type` names a media block. */
export function isMediaBlockType(type: unknown): type is string {
  return typeof type === "string" && MEDIA_BLOCK_TYPES.has(type);
}
