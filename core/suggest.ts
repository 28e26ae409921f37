/** "Did you mean" suggestions: the candidates within a small edit distance of a word. */

/** Optimal-string-alignment distance: Levenshtein plus adjacent transpositions (`comit`, `stauts`). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, () => new Array<number>(cols).fill(0));
  for (let i = 0; i < rows; i++) d[i][0] = i;
  for (let j = 0; j < cols; j++) d[0][j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[rows - 1][cols - 1];
}

/** The candidates closest to `word`, best first; prefixes count as close (`stat` → `status`). */
export function suggest(word: string, candidates: readonly string[], limit = 3): string[] {
  const lower = word.toLowerCase();
  const threshold = Math.max(1, Math.floor(lower.length / 3));
  return candidates
    .map((candidate) => {
      const c = candidate.toLowerCase();
      const distance = c.startsWith(lower) && lower.length >= 2 ? 0.5 : editDistance(lower, c);
      return { candidate, distance };
    })
    .filter(({ distance }) => distance <= threshold)
    .sort((x, y) => x.distance - y.distance || x.candidate.localeCompare(y.candidate))
    .slice(0, limit)
    .map(({ candidate }) => candidate);
}

/** `" Did you mean commit?"`, or `""` when nothing is close. */
export function didYouMean(word: string, candidates: readonly string[], render = (s: string) => s): string {
  const found = suggest(word, candidates);
  if (found.length === 0) return "";
  return ` Did you mean ${found.map(render).join(" or ")}?`;
}
