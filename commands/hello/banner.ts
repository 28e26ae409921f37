/** A five-row block font, enough for the banner; drawing it is what makes the output programmatic. */

const GLYPHS: Record<string, readonly string[]> = {
  H: ["█   █", "█   █", "█████", "█   █", "█   █"],
  E: ["█████", "█    ", "████ ", "█    ", "█████"],
  L: ["█    ", "█    ", "█    ", "█    ", "█████"],
  O: [" ███ ", "█   █", "█   █", "█   █", " ███ "],
};

export const BANNER_ROWS = 5;

/** Draws `word` (letters of the glyph table only) as BANNER_ROWS lines. */
export function drawBanner(word: string): string[] {
  const glyphs = [...word.toUpperCase()].map((ch) => {
    const glyph = GLYPHS[ch];
    if (!glyph) throw new Error(`no glyph for ${ch}`);
    return glyph;
  });
  return Array.from({ length: BANNER_ROWS }, (_, row) => glyphs.map((g) => g[row]).join("  ").trimEnd());
}
