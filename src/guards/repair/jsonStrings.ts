/** Index just past the JSON string that opens at `start` (its quote), or the text's end if it never closes. */
export function stringEnd(json: string, start: number): number {
  let i = start + 1;
  while (i < json.length) {
    const ch = json.charCodeAt(i);
    if (ch === 0x5c /* \ */) i += 2;
    else if (ch === 0x22) return i + 1;
    else i++;
  }
  return json.length;
}
