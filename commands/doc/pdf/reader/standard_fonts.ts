/**
 * What PDF.js knows of fonts by their names alone, for fonts that carry no program: the names it
 * maps to the standard 14 fonts (`getStdFontMap`, after `normalizeFontName`), the standard fonts'
 * glyph widths (`getMetrics`, with its choice of Times-Roman or Helvetica for any other name), and
 * the names it takes for symbol fonts (`getSymbolsFonts`), the names it knows (`isKnownFontName`),
 * and what it shows for a CID TrueType font named like a standard one. The tables come from
 * PDF.js's own sources through `glyph_data.ts` and are split at their first use.
 *
 * PDF.js would also load a standard font's program (its `standard_fonts/` files) where
 * `standardFontDataUrl` is given; pterm gives none (its PDF.js path ships no font files), so
 * PDF.js, too, reads these fonts without a program.
 */

import {
  ARIAL_BLACK_CID_GLYPH_MAP,
  CALIBRI_CID_GLYPH_MAP,
  METRICS_GLYPH_NAMES,
  METRICS_WIDTHS,
  NON_STANDARD_FONT_MAP,
  SERIF_FONTS,
  STANDARD_CID_GLYPH_MAP,
  STANDARD_FONT_MAP,
  STANDARD_FONT_METRICS,
  SYMBOLS_FONTS,
} from "./glyph_data.ts";

/** PDF.js's `normalizeFontName`: `,` and `_` become `-`, white space goes. */
export function normalizeFontName(name: string): string {
  return name.replace(/[,_]/g, "-").replace(/\s/g, "");
}

let standardNames: Map<string, string> | null = null;
/** The standard font PDF.js maps a normalized name to (`getStdFontMap`), if any. */
function standardFontOf(normalizedName: string): string | undefined {
  standardNames ??= new Map(STANDARD_FONT_MAP.split(" ").map((pair) => pair.split("=") as [string, string]));
  return standardNames.get(normalizedName);
}

let nonStandardNames: Map<string, string> | null = null;
/** What PDF.js's `getNonStdFontMap` maps a normalized name to (Calibri → Helvetica, …), if anything. */
function nonStandardFontOf(normalizedName: string): string | undefined {
  nonStandardNames ??= new Map(NON_STANDARD_FONT_MAP.split("|").map((pair) => pair.split("=") as [string, string]));
  return nonStandardNames.get(normalizedName);
}

/** PDF.js's `isKnownFontName`: a name in its standard, non-standard, serif or symbol tables. */
export function isKnownFontName(name: string): boolean {
  const normalized = normalizeFontName(name);
  serifNames ??= new Set(SERIF_FONTS.split("|"));
  return standardFontOf(normalized) !== undefined || nonStandardFontOf(normalized) !== undefined ||
    serifNames.has(normalized) || isSymbolsFont(normalized);
}

/**
 * Whether PDF.js's `fallbackToSystemFont` takes a font of this name for a standard one — named
 * like one, or mapped to one by its non-standard map — and so gives a CID TrueType font with the
 * Identity encoding its glyph maps for text (`cidGlyphMap`).
 */
export function isStandardOrMappedFont(name: string): boolean {
  const normalized = normalizeFontName(name);
  const mapped = nonStandardFontOf(normalized);
  return standardFontOf(normalized) !== undefined || (mapped !== undefined && standardFontOf(mapped) !== undefined);
}

function applyGlyphMap(map: number[], pairs: string): void {
  for (const pair of pairs.split(" ")) {
    const [code, value] = pair.split(":");
    map[parseInt(code, 16)] = parseInt(value, 16);
  }
}

/**
 * The code → character map PDF.js gives a CID TrueType font without a program named like a
 * standard font (`getGlyphMapForStandardFonts`, with Arial Black's or Calibri's supplement),
 * before the font's ToUnicode entries override it.
 */
export function cidGlyphMap(name: string): number[] {
  const map: number[] = [];
  applyGlyphMap(map, STANDARD_CID_GLYPH_MAP);
  if (/Arial-?Black/i.test(name)) applyGlyphMap(map, ARIAL_BLACK_CID_GLYPH_MAP);
  else if (/Calibri/i.test(name)) applyGlyphMap(map, CALIBRI_CID_GLYPH_MAP);
  return map;
}

let serifNames: Set<string> | null = null;
/** PDF.js's `isSerifFont`: the name up to its first `-` is a serif family, or says "serif". */
function isSerifFont(name: string): boolean {
  serifNames ??= new Set(SERIF_FONTS.split("|"));
  const family = name.split("-", 1)[0];
  return serifNames.has(family) || /serif/i.test(family);
}

let symbolsNames: Set<string> | null = null;
/** A name in PDF.js's `getSymbolsFonts` (Symbol, ZapfDingbats, Wingdings and a few more). */
export function isSymbolsFont(name: string): boolean {
  symbolsNames ??= new Set(SYMBOLS_FONTS.split(" "));
  return symbolsNames.has(name);
}

export interface BaseFontMetrics {
  /** A glyph's width by its name (undefined where the font has none; the Courier fonts have none). */
  widthOf(glyph: string): number | undefined;
  readonly defaultWidth: number;
  /** PDF.js's `monospace` (the Courier fonts). */
  readonly monospace: boolean;
}

// The glyph names' positions per name list (the eight Latin fonts share one), and each width list split once.
const nameIndexes = new Map<number, Map<string, number>>();
const widthLists = new Map<number, number[]>();
const metricsCache = new Map<string, BaseFontMetrics>();
const NO_WIDTHS = () => undefined;
/** PDF.js's `getBaseFontMetrics(name)`: a standard font's widths, Times-Roman's or Helvetica's for another name. */
export function baseFontMetrics(name: string): BaseFontMetrics {
  const normalized = normalizeFontName(name);
  let standard = standardFontOf(normalized) ?? normalized;
  if (!Object.hasOwn(STANDARD_FONT_METRICS, standard)) standard = isSerifFont(name) ? "Times-Roman" : "Helvetica";
  let found = metricsCache.get(standard);
  if (found) return found;
  const entry = STANDARD_FONT_METRICS[standard];
  if (typeof entry === "number") found = { widthOf: NO_WIDTHS, defaultWidth: entry, monospace: true };
  else {
    const [namesAt, widthsAt] = entry;
    let indexes = nameIndexes.get(namesAt);
    if (!indexes) {
      nameIndexes.set(
        namesAt,
        indexes = new Map(METRICS_GLYPH_NAMES[namesAt].split(" ").map((glyph, i) => [glyph, i])),
      );
    }
    let widths = widthLists.get(widthsAt);
    if (!widths) widthLists.set(widthsAt, widths = METRICS_WIDTHS[widthsAt].split(" ").map(Number));
    const byIndex = indexes, list = widths;
    found = {
      widthOf: (glyph) => {
        const at = byIndex.get(glyph);
        return at === undefined ? undefined : list[at];
      },
      defaultWidth: 0,
      monospace: false,
    };
  }
  metricsCache.set(standard, found);
  return found;
}
