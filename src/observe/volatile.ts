/**
 * Patterns for values that change on every call without carrying information. They are
 * replaced by a placeholder before results are hashed or compared, so a poll whose answer
 * differs only in a timestamp or request id reads as "nothing new". Arguments are never
 * normalised: a call with a different timestamp argument is a different call.
 */
export const DEFAULT_VOLATILE_PATTERNS: readonly RegExp[] = Object.freeze([
  // ISO 8601 date-times: 2024-05-01T12:30:00.123Z, 2024-05-01 12:30:00+02:00
  /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?\b/g,
  // UUIDs
  /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi,
  // hex ids of 16+ digits that mix letters and numbers (request ids, trace ids, nonces)
  /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{16,}\b/gi,
  // JSON fields that name an id of a request, trace or span, whatever the value looks like
  /("(?:request|trace|span|correlation|x-request)[_-]?id"\s*:\s*)"[^"]*"/gi,
]);

export function normaliseVolatile(text: string, patterns: readonly RegExp[]): string {
  let out = text;
  for (const pattern of patterns) {
    pattern.lastIndex = 0;
    out = out.replace(pattern, (match, fieldPrefix: unknown) =>
      typeof fieldPrefix === "string" && match.startsWith(fieldPrefix) ? `${fieldPrefix}"<volatile>"` : "<volatile>",
    );
  }
  return out;
}
