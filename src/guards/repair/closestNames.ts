/**
 * The available tool names closest to a name the model made up, best first. Names are compared
 * after folding case and separators (`readFile`, `read-file` and `read_file` are equal), by edit
 * distance with adjacent transpositions, with a bonus when one name contains the other
 * (`search` for `web_search`).
 */
export function closestNames(wanted: string, available: readonly string[], limit = 3): string[] {
  const target = fold(wanted);
  return available
    .map((name, index) => ({ name, index, score: distance(target, fold(name)) - containmentBonus(target, fold(name)) }))
    .sort((a, b) => a.score - b.score || a.index - b.index)
    .slice(0, limit)
    .map((entry) => entry.name);
}

function fold(name: string): string {
  return name.toLowerCase().replace(/[\s_\-.]/g, "");
}

function containmentBonus(a: string, b: string): number {
  if (a === "" || b === "") return 0;
  return a.includes(b) || b.includes(a) ? Math.min(a.length, b.length) / 2 : 0;
}

/** Optimal string alignment distance (Levenshtein plus adjacent transpositions). */
function distance(a: string, b: string): number {
  if (a === b) return 0;
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array(rows * cols).fill(0);
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[(i - 1) * cols + j]! + 1, d[i * cols + j - 1]! + 1, d[(i - 1) * cols + j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[(i - 2) * cols + j - 2]! + 1);
      d[i * cols + j] = best;
    }
  }
  return d[rows * cols - 1]!;
}
