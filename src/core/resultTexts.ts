// Text that stands in for a tool's result, written both by the tool wrapper (tools/withSafeResults)
// and by the repair guard after the fact: one wording, whichever of them sees the result first.

/** Read by the model: in place of an empty result, so that silence is not mistaken for an answer. */
export function emptyResultText(tool: string): string {
  return `(${tool} returned no output)`;
}
