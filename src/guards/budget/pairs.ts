/**
 * Cuts that keep characters whole. JavaScript strings count UTF-16 code units, so an emoji is
 * two (a surrogate pair); a cut between them leaves a lone surrogate, which some providers
 * refuse in a request and others turn into U+FFFD.
 */

/** `index`, moved back before a pair's first half: text up to it (or from it) holds whole characters. */
export function pairSafeEnd(text: string, index: number): number {
  return index > 0 && isHighSurrogate(text.charCodeAt(index - 1)) ? index - 1 : index;
}

/** `index`, moved forward past a pair's second half: text from it holds whole characters. */
export function pairSafeStart(text: string, index: number): number {
  return index < text.length && isLowSurrogate(text.charCodeAt(index)) ? index + 1 : index;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
