/**
 * Generates commands/doc/pdf/reader/glyph_data.ts: the Adobe Glyph List (glyph name → Unicode)
 * and the simple-font encodings PDF.js uses (StandardEncoding, WinAnsiEncoding,
 * MacRomanEncoding: PDF 32000-1 Annex D), as compact strings.
 *
 *   deno run --allow-read --allow-write scripts/pdf_glyph_data.ts <glyphlist.txt> <pdf.js/src/core>
 *
 * glyphlist.txt: the Adobe Glyph List 2.0 (Debian's texlive-base ships it at
 * /usr/share/texlive/texmf-dist/fonts/map/glyphlist/glyphlist.txt; BSD-3-Clause, © Adobe).
 * Only names that map to one code point are kept: PDF.js's list has no multi-code-point entries.
 * <pdf.js/src/core>: a checkout of mozilla/pdf.js (Apache-2.0). From its glyphlist.js come the
 * names PDF.js knows beyond the AGL (TeX's math glyphs such as `circlecopyrt`, with PDF.js's own
 * values), and from its encodings.js the encodings (the spec's tables, with PDF.js's choices for
 * unassigned codes): the reader must use the very same tables to give the same text. For fonts
 * without an embedded program: from its metrics.js the standard 14 fonts' glyph widths (PDF.js's
 * `getMetrics`, the Adobe Core 14 AFM widths), from standard_fonts.js the names it maps to them
 * (`getStdFontMap`, `getNonStdFontMap`), the names it takes for serif and symbol fonts
 * (`getSerifFonts`, `getSymbolsFonts`) and its glyph maps for CID TrueType fonts named like the
 * standard ones, and from encodings.js the Symbol and ZapfDingbats encodings. The checkout
 * must be the version unpdf bundles (v6.1.200 for unpdf 1.8.1).
 */

const [glyphlistPath, pdfjsCore] = Deno.args;
if (!glyphlistPath || !pdfjsCore) throw new Error("usage: pdf_glyph_data.ts <glyphlist.txt> <pdf.js/src/core>");
const encodingsPath = `${pdfjsCore}/encodings.js`;

const glyphs: string[] = [];
for (const line of Deno.readTextFileSync(glyphlistPath).split("\n")) {
  if (!line || line.startsWith("#")) continue;
  const [name, codes] = line.split(";");
  const points = codes.trim().split(/\s+/);
  if (points.length !== 1) continue;
  glyphs.push(`${name} ${points[0].toLowerCase().replace(/^0+(?=.)/, "")}`);
}

// PDF.js's own additions: every name of its glyph list (not its Dingbats list) the AGL lacks.
const known = new Set(glyphs.map((line) => line.split(" ")[0]));
const pdfjsList = Deno.readTextFileSync(`${pdfjsCore}/glyphlist.js`);
const body = pdfjsList.slice(pdfjsList.indexOf("getGlyphsUnicode"), pdfjsList.indexOf("getDingbatsGlyphsUnicode ="));
let added = 0;
for (const m of body.matchAll(/\bt(?:\.([A-Za-z0-9_]+)|\["([^"]+)"\]) = 0x([0-9a-fA-F]+);/g)) {
  const name = m[1] ?? m[2];
  if (known.has(name)) continue;
  glyphs.push(`${name} ${m[3].toLowerCase().replace(/^0+(?=.)/, "")}`);
  known.add(name);
  added++;
}
if (added < 100) throw new Error(`only ${added} names beyond the AGL in ${pdfjsCore}/glyphlist.js`);

const sorted = glyphs.map((line) => line.split(" ") as [string, string]).sort((
  [a],
  [b],
) => (a < b ? -1 : a > b ? 1 : 0));

const source = Deno.readTextFileSync(encodingsPath);
function table(name: string): string {
  const start = source.indexOf(`const ${name} = [`);
  if (start < 0) throw new Error(`no ${name} in ${encodingsPath}`);
  const end = source.indexOf("];", start);
  const names = [...source.slice(start, end).matchAll(/"([^"]*)"/g)].map((m) => m[1]);
  if (names.length !== 256) throw new Error(`${name} has ${names.length} entries`);
  return names.join(" ");
}

// The standard 14 fonts' widths: each font's glyph names (shared where several fonts list the
// same names in the same order) and their widths in that order; a font whose widths are another's
// (the obliques) names that one. Courier's are a single number (every glyph 600).
const metricsSource = Deno.readTextFileSync(`${pdfjsCore}/metrics.js`);
const metricsBody = metricsSource.slice(0, metricsSource.indexOf("const getFontBasicMetrics"));
const fixedWidths: Record<string, number> = {};
for (const m of metricsBody.matchAll(/\n {2}t(?:\.([A-Za-z-]+)|\["([^"]+)"\]) = (\d+);/g)) {
  fixedWidths[m[1] ?? m[2]] = Number(m[3]);
}
const glyphNameLists: string[] = [];
const widthLists: string[] = [];
const fontMetrics: Record<string, number | [number, number]> = { ...fixedWidths };
for (
  const m of metricsBody.matchAll(
    /\n {2}t(?:\.([A-Za-z]+)|\["([^"]+)"\]) = getLookupTableFactory\(function \(t\) \{\n([\s\S]*?)\n {2}\}\);/g,
  )
) {
  const entries = [...m[3].matchAll(/t(?:\.([A-Za-z0-9_]+)|\["([^"]+)"\]) = (\d+);/g)];
  const names = entries.map((e) => e[1] ?? e[2]).join(" ");
  const widths = entries.map((e) => e[3]).join(" ");
  let nameIndex = glyphNameLists.indexOf(names);
  if (nameIndex < 0) nameIndex = glyphNameLists.push(names) - 1;
  let widthIndex = widthLists.indexOf(widths);
  if (widthIndex < 0) widthIndex = widthLists.push(widths) - 1;
  fontMetrics[m[1] ?? m[2]] = [nameIndex, widthIndex];
}
if (Object.keys(fontMetrics).length !== 14) throw new Error(`${Object.keys(fontMetrics).length} fonts in metrics.js`);

const standardFonts = Deno.readTextFileSync(`${pdfjsCore}/standard_fonts.js`);
function lookupTable(name: string): [string, string][] {
  const start = standardFonts.indexOf(`const ${name} = getLookupTableFactory(`);
  if (start < 0) throw new Error(`no ${name} in standard_fonts.js`);
  const body = standardFonts.slice(start, standardFonts.indexOf("\n});", start));
  return [...body.matchAll(/\n {2}t(?:\.([A-Za-z0-9_]+)|\["([^"]+)"\]) = ("[^"]*"|true);/g)].map((
    e,
  ) => [e[1] ?? e[2], e[3] === "true" ? "" : JSON.parse(e[3])]);
}
/** A table of numbers to numbers (`t[2] = 10;`) as "key:value" pairs in hexadecimal, space-separated. */
function numberTable(name: string): string {
  const start = standardFonts.indexOf(`const ${name} = getLookupTableFactory(`);
  if (start < 0) throw new Error(`no ${name} in standard_fonts.js`);
  // The table ends at its factory's `});` (or `}\n);` where the formatter broke the call).
  const ends = ["\n});", "\n);"].map((end) => standardFonts.indexOf(end, start)).filter((at) => at > 0);
  const body = standardFonts.slice(start, Math.min(...ends));
  const pairs = [...body.matchAll(/\bt\[(\d+)\] = (\d+);/g)];
  if (pairs.length < 3) throw new Error(`${name} has ${pairs.length} entries`);
  return pairs.map((m) => `${Number(m[1]).toString(16)}:${Number(m[2]).toString(16)}`).join(" ");
}
const stdFontMap = lookupTable("getStdFontMap");
const nonStdFontMap = lookupTable("getNonStdFontMap");
const serifFonts = lookupTable("getSerifFonts").map(([name]) => name);
const symbolsFonts = lookupTable("getSymbolsFonts").map(([name]) => name);
if (stdFontMap.length < 70 || serifFonts.length < 100 || symbolsFonts.length < 6) {
  throw new Error(
    `standard_fonts.js: ${stdFontMap.length} standard names, ${serifFonts.length} serif, ${symbolsFonts.length} symbol`,
  );
}

const out = `// Generated by scripts/pdf_glyph_data.ts — do not edit.
// Glyph names: the Adobe Glyph List 2.0 (BSD-3-Clause, © Adobe; from Debian's texlive-base),
// single-code-point entries only, then the names mozilla/pdf.js's src/core/glyphlist.js adds
// (Apache-2.0). Encodings: PDF 32000-1 Annex D as tabled in mozilla/pdf.js
// src/core/encodings.js (Apache-2.0).

/**
 * Glyph names sorted by UTF-16 code units (JavaScript's \`<\`), separated by single spaces, and
 * their code points in hexadecimal in the same order: looked up by binary search, so a document
 * pays for splitting two strings, not for building a 4,500-entry table.
 */
export const GLYPH_NAMES = ${JSON.stringify(sorted.map(([name]) => name).join(" "))};
export const GLYPH_CODES = ${JSON.stringify(sorted.map(([, hex]) => hex).join(" "))};

/** 256 glyph names each, separated by single spaces ("" where the encoding has none). */
export const STANDARD_ENCODING = ${JSON.stringify(table("StandardEncoding"))};
export const WIN_ANSI_ENCODING = ${JSON.stringify(table("WinAnsiEncoding"))};
export const MAC_ROMAN_ENCODING = ${JSON.stringify(table("MacRomanEncoding"))};
export const SYMBOL_SET_ENCODING = ${JSON.stringify(table("SymbolSetEncoding"))};
export const ZAPF_DINGBATS_ENCODING = ${JSON.stringify(table("ZapfDingbatsEncoding"))};

/**
 * The standard 14 fonts' glyph widths (PDF.js's \`getMetrics\`): a number where every glyph has
 * it, else [glyph names, widths] as indexes into the two lists below (space-separated, in step).
 */
export const STANDARD_FONT_METRICS: Record<string, number | [number, number]> = ${JSON.stringify(fontMetrics)};
export const METRICS_GLYPH_NAMES = ${JSON.stringify(glyphNameLists)};
export const METRICS_WIDTHS = ${JSON.stringify(widthLists)};

/** PDF.js's \`getStdFontMap\`: "name=standard name", space-separated. */
export const STANDARD_FONT_MAP = ${JSON.stringify(stdFontMap.map(([name, to]) => `${name}=${to}`).join(" "))};
/** PDF.js's \`getNonStdFontMap\` (its values may hold spaces): "name=font", "|"-separated. */
export const NON_STANDARD_FONT_MAP = ${JSON.stringify(nonStdFontMap.map(([name, to]) => `${name}=${to}`).join("|"))};
/** PDF.js's \`getSerifFonts\` (names may hold spaces): "|"-separated. */
export const SERIF_FONTS = ${JSON.stringify(serifFonts.join("|"))};
/** PDF.js's \`getSymbolsFonts\`, space-separated. */
export const SYMBOLS_FONTS = ${JSON.stringify(symbolsFonts.join(" "))};

/**
 * PDF.js's glyph maps for CID TrueType fonts without a program named like a standard font
 * (\`getGlyphMapForStandardFonts\`, and its supplements for Arial Black and Calibri): "code:value"
 * pairs in hexadecimal, space-separated.
 */
export const STANDARD_CID_GLYPH_MAP = ${JSON.stringify(numberTable("getGlyphMapForStandardFonts"))};
export const ARIAL_BLACK_CID_GLYPH_MAP = ${JSON.stringify(numberTable("getSupplementalGlyphMapForArialBlack"))};
export const CALIBRI_CID_GLYPH_MAP = ${JSON.stringify(numberTable("getSupplementalGlyphMapForCalibri"))};
`;
Deno.writeTextFileSync(new URL("../commands/doc/pdf/reader/glyph_data.ts", import.meta.url), out);
