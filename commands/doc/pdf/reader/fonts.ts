/**
 * Simple fonts as PDF.js sees them for text: each byte's Unicode text and width. Embedded
 * Type 1 fonts (/FontFile, or CFF in /FontFile3, read by cff.ts) and TrueType fonts with /Widths
 * are read — pdfTeX's and most TeX producers' fonts, Ghostscript's, Distiller's, office suites' —
 * through their ToUnicode CMap, their /Encoding (a base encoding, /Differences) and the font
 * program's built-in encoding, as PDF.js combines them (`extractDataStructures`,
 * `buildToUnicode`, `adjustType1ToUnicode`, `amendFallbackToUnicode`); and Type 1 and TrueType
 * fonts without a program (the standard 14 fonts and any font left to the viewer), with the
 * standard fonts' widths where they have no /Widths (`standard_fonts.ts`); Type 0 fonts (Identity-H)
 * with an embedded CFF program or an embedded or absent TrueType program; Type 3 fonts. Every other kind of font is
 * `Unsupported`, and so is a glyph whose Unicode PDF.js would guess from its name's shape.
 */

import { Cmd, Dict, EOF, latin1, Name, Parser, type PdfObject, Ref, Stream, unsupported } from "./objects.ts";
import { hasCffTable, readCffProgram } from "./cff.ts";
import {
  GLYPH_CODES,
  GLYPH_NAMES,
  MAC_ROMAN_ENCODING,
  STANDARD_ENCODING,
  SYMBOL_SET_ENCODING,
  WIN_ANSI_ENCODING,
  ZAPF_DINGBATS_ENCODING,
} from "./glyph_data.ts";
import {
  baseFontMetrics,
  cidGlyphMap,
  isKnownFontName,
  isStandardOrMappedFont,
  isSymbolsFont,
  normalizeFontName,
} from "./standard_fonts.ts";

let glyphTable: { names: string[]; codes: string[] } | null = null;
/**
 * Names already found: every font's base encoding repeats the same ~150 names. Only names of the
 * list are kept, so a warm server's cache stays within the list's size whatever documents name.
 */
const glyphsFound = new Map<string, number>();
const glyphLookup = {
  /** Glyph name → code point (the Adobe Glyph List and PDF.js's additions), by binary search. */
  get(name: string): number | undefined {
    const known = glyphsFound.get(name);
    if (known !== undefined) return known;
    const { names, codes } = glyphTable ??= { names: GLYPH_NAMES.split(" "), codes: GLYPH_CODES.split(" ") };
    let low = 0, high = names.length - 1;
    let code: number | undefined;
    while (low <= high) {
      const mid = (low + high) >> 1;
      const found = names[mid];
      if (found === name) {
        code = parseInt(codes[mid], 16);
        glyphsFound.set(name, code);
        break;
      }
      if (found < name) low = mid + 1;
      else high = mid - 1;
    }
    return code;
  },
};
function glyphs(): { get(name: string): number | undefined } {
  return glyphLookup;
}

/** A glyph name's code point, as PDF.js's glyph list gives it (undefined for a name it lacks). */
export function glyphCodePoint(name: string): number | undefined {
  return glyphLookup.get(name);
}

const encodingCache = new Map<string, string[]>();
function encoding(name: string): string[] | null {
  const table = name === "StandardEncoding"
    ? STANDARD_ENCODING
    : name === "WinAnsiEncoding"
    ? WIN_ANSI_ENCODING
    : name === "MacRomanEncoding"
    ? MAC_ROMAN_ENCODING
    : name === "SymbolSetEncoding"
    ? SYMBOL_SET_ENCODING
    : name === "ZapfDingbatsEncoding"
    ? ZAPF_DINGBATS_ENCODING
    : null;
  if (table === null) return null;
  let found = encodingCache.get(name);
  if (!found) encodingCache.set(name, found = table.split(" "));
  return found;
}

/** A character's text, or UNCERTAIN where PDF.js would guess it in ways this reader does not. */
export const UNCERTAIN = "\uFFFF\uFFFF";

export interface SimpleFont {
  /** The font's name (PDF.js's `font.name`): two resources with one name are one font for the text builder. */
  readonly name: string;
  /** A Type 0 font with Identity-H: two-byte codes, `unicode` sparse (PDF.js's `|| code` applies at use). */
  readonly composite?: boolean;
  /** PDF.js's `fallbackName` is "monospace": all non-zero widths equal. */
  readonly monospace: boolean;
  readonly widths: (number | undefined)[];
  readonly defaultWidth: number;
  /** The text of each code 0–255 (PDF.js's `toUnicode.get(code) || code`). */
  readonly unicode: string[];
  /**
   * A Type 3 font's /FontMatrix (glyph space to text space), or a CFF program's where its [0] is
   * not 0.001 (the widths above are then already rescaled by 0.001 / [0], as PDF.js's
   * `adjustWidths` does); others have PDF.js's 0.001 identity.
   */
  readonly fontMatrix?: readonly number[];
  /**
   * A Type 3 font whose /FontMatrix is not the identity: its glyph height times the matrix's
   * vertical scale, by which PDF.js stretches a text piece's height at font sizes up to 1.
   */
  readonly type3HeightScale?: number;
}

/** PDF.js's font flags for symbolic and nonsymbolic fonts. */
const FIXED_PITCH = 1;
const SYMBOLIC = 4;
const NONSYMBOLIC = 32;

/** A simple TrueType font's program: inflated (its checksum checked) and TrueType by its first bytes, as PDF.js tells. */
function trueTypeProgram(file: Stream): null {
  const tag = latin1(file.bytes().subarray(0, 4));
  if (tag !== "\x00\x01\x00\x00" && tag !== "true") return unsupported("a TrueType font program that is not TrueType");
  // PDF.js reads a TrueType program's CFF table, if it has one, for its /FontMatrix and may convert it as CFF.
  if (hasCffTable(file.bytes())) return unsupported("a TrueType font program with a CFF table");
  return null;
}

/**
 * A Type 0 font as PDF.js reads it for text where that needs nothing from the font program: the
 * Identity-H encoding (two-byte codes that are their CIDs), an embedded TrueType descendant
 * (CIDFontType2, /FontFile2; a CFF one may carry a /FontMatrix of its own), a ToUnicode CMap
 * (without one PDF.js derives the text from the program or from character collections), and
 * /W and /DW for the widths.
 */
export function loadCompositeFont(dict: Dict): SimpleFont {
  const encodingName = dict.get("Encoding");
  if (!(encodingName instanceof Name) || encodingName.name !== "Identity-H") {
    return unsupported("a Type0 font with another encoding than Identity-H");
  }
  const descendants = dict.get("DescendantFonts");
  if (!Array.isArray(descendants) || descendants.length !== 1) return unsupported("a Type0 font's descendants");
  const descendant = descendants[0] instanceof Ref ? dict.xref!.fetch(descendants[0]) : descendants[0];
  if (!(descendant instanceof Dict)) return unsupported("a Type0 font whose descendant is not a dictionary");
  const subtype = descendant.get("Subtype");
  if (!(subtype instanceof Name) || (subtype.name !== "CIDFontType2" && subtype.name !== "CIDFontType0")) {
    return unsupported(`a Type0 font with a ${subtype instanceof Name ? subtype.name : "?"} descendant`);
  }
  // A CIDFontType0 descendant's program is CFF (/FontFile3), read by cff.ts.
  const cff = subtype.name === "CIDFontType0";
  if (descendant.has("FontMatrix")) return unsupported("a CID font with a /FontMatrix");
  // PDF.js decodes /CIDSystemInfo's /Registry and /Ordering as strings: anything else fails the font.
  const systemInfo = descendant.get("CIDSystemInfo");
  if (
    systemInfo instanceof Dict &&
    (typeof systemInfo.get("Registry") !== "string" || typeof systemInfo.get("Ordering") !== "string")
  ) return unsupported("a /CIDSystemInfo without a /Registry and /Ordering string");
  const descriptor = descendant.get("FontDescriptor");
  if (!(descriptor instanceof Dict)) return unsupported("a CID font without a descriptor");
  const name = pdfjsFontName(descriptor.get("FontName"), descendant.get("BaseFont"));
  if (!descriptor.has("FontFile") && !descriptor.has("FontFile2") && !descriptor.has("FontFile3")) {
    // (PDF.js's substitute glyph map there is for CID TrueType fonts only.)
    if (cff) return unsupported("a CIDFontType0 font without a program");
    return loadCompositeFontWithoutProgram(dict, descendant, name);
  }
  if (descriptor.has("FontFile") || descriptor.has(cff ? "FontFile2" : "FontFile3")) {
    return unsupported("a CID font with another program");
  }
  const file = descriptor.get(cff ? "FontFile3" : "FontFile2");
  if (!(file instanceof Stream)) return unsupported("a CID font without an embedded program of its kind");
  // Inflated (and its checksum checked); PDF.js tells the program's kind by its first bytes.
  const program = file.bytes();
  const fontMatrix = cff ? readCffProgram(program, true).fontMatrix : null;
  if (!cff) {
    const tag = latin1(program.subarray(0, 4));
    if (tag !== "\x00\x01\x00\x00" && tag !== "true") return unsupported("a CID font program that is not TrueType");
    if (hasCffTable(program)) return unsupported("a TrueType font program with a CFF table");
  }
  const toUnicodeObject = descendant.get("ToUnicode") ?? dict.get("ToUnicode");
  const included = toUnicodeObject === undefined ? null : readToUnicode(toUnicodeObject);
  let unicode: string[];
  if (included !== null && included.length > 0) unicode = included;
  else if (!cff && isStandardOrMappedFont(name)) {
    // Should PDF.js's TrueType parser fail on the program, a font named like a standard one gets
    // a substitute's glyph map as its text (`fallbackToSystemFont`).
    return unsupported(`a CID font ${toUnicodeObject === undefined ? "without a" : "with an empty"} ToUnicode CMap`);
  } else {
    // Without one PDF.js's `buildToUnicode` gives a CID font with Identity-H each code as its own
    // character (an IdentityToUnicodeMap; neither its CFF nor its TrueType path amends it) —
    // unless the font's character collection is one of Adobe's CJK ones, whose UCS2 CMaps it reads.
    const info = descendant.get("CIDSystemInfo");
    if (info instanceof Dict) {
      const registry = info.get("Registry"), ordering = info.get("Ordering");
      const plain = (v: PdfObject | undefined): v is string => typeof v === "string" && /^[\x20-\x7e]*$/.test(v);
      if (!plain(registry) || !plain(ordering)) return unsupported("a CID font with an unusual /CIDSystemInfo");
      if (registry === "Adobe" && ["GB1", "CNS1", "Japan1", "Korea1"].includes(ordering)) {
        return unsupported("a CID font of an Adobe CJK collection without a ToUnicode CMap");
      }
    }
    unicode = [];
  }
  const { widths, defaultWidth, monospace } = compositeWidths(descendant);
  return { name, composite: true, unicode, monospace, ...scaledWidths(widths, defaultWidth, fontMatrix) };
}

/** PDF.js's `extractWidths` for composite fonts: /W and /DW, and its monospace rule. */
function compositeWidths(
  descendant: Dict,
): { widths: (number | undefined)[]; defaultWidth: number; monospace: boolean } {
  const dw = descendant.get("DW");
  const defaultWidth = typeof dw === "number" ? Math.ceil(dw) : 1000;
  const widths: (number | undefined)[] = [];
  const w = descendant.get("W");
  if (w !== undefined && !Array.isArray(w)) return unsupported("a /W that is not an array");
  if (Array.isArray(w)) {
    const fetch = (v: PdfObject) => v instanceof Ref ? descendant.xref!.fetch(v) : v;
    for (let i = 0; i < w.length; i++) {
      let start = fetch(w[i++]);
      if (!Number.isInteger(start)) return unsupported("a /W PDF.js would stop reading");
      const code = fetch(w[i]);
      if (Array.isArray(code)) {
        for (const c of code) {
          const width = fetch(c);
          if (typeof width === "number") widths[start as number] = width;
          start = (start as number) + 1;
        }
      } else if (Number.isInteger(code)) {
        const width = fetch(w[++i]);
        if (typeof width !== "number") return unsupported("a /W range without a width");
        if ((code as number) - (start as number) > 0xffff) return unsupported("a /W range too long");
        for (let j = start as number; j <= (code as number); j++) widths[j] = width;
      } else return unsupported("a /W PDF.js would stop reading");
    }
  }
  return { widths, defaultWidth, monospace: sameWidths(widths, defaultWidth) };
}

/**
 * A Type 0 font whose CID TrueType descendant has no program (Word's "don't embed" Arial and
 * Calibri) as PDF.js's `fallbackToSystemFont` reads it: its ToUnicode CMap, or without one each
 * code for itself; but where the name is a standard font's or mapped to one, PDF.js's glyph map
 * for such fonts first, the ToUnicode's entries over it cut to their first code point, each read
 * back as one UTF-16 unit (`String.fromCharCode`).
 */
function loadCompositeFontWithoutProgram(dict: Dict, descendant: Dict, name: string): SimpleFont {
  // Without a ToUnicode CMap PDF.js reads these character collections through their UCS-2 CMaps.
  // (Matched loosely: PDF.js decodes these strings first, UTF-16 ones too.)
  const info = descendant.get("CIDSystemInfo");
  const collection = info instanceof Dict ? `${info.get("Registry")}-${info.get("Ordering")}`.replace(/\0/g, "") : "";
  if (/GB1|CNS1|Japan1|Korea1/.test(collection)) {
    return unsupported("a CID font of an Adobe character collection without a program");
  }
  // PDF.js's identity text covers /FirstChar to /LastChar (all two-byte codes when absent).
  if (descendant.has("FirstChar") || descendant.has("LastChar")) return unsupported("a CID font with /FirstChar");
  const toUnicodeObject = descendant.get("ToUnicode") ?? dict.get("ToUnicode");
  // A ToUnicode named Identity-H or -V is PDF.js's IdentityToUnicodeMap: each code for itself.
  const identity = toUnicodeObject instanceof Name &&
    (toUnicodeObject.name === "Identity-H" || toUnicodeObject.name === "Identity-V");
  const included = toUnicodeObject === undefined || identity ? null : readToUnicode(toUnicodeObject);
  const hasIncluded = included !== null && included.length > 0;
  let unicode: string[] = hasIncluded ? included! : [];
  if (isStandardOrMappedFont(name)) {
    const map = cidGlyphMap(name);
    // A /CIDToGIDMap stream (`readCidToGidMap`) re-maps the glyph map's values, taken for CIDs.
    const cidToGid = descendant.get("CIDToGIDMap");
    if (cidToGid instanceof Stream) {
      const bytes = cidToGid.bytes(), gids: number[] = [];
      for (let j = 0; j < bytes.length; j++) {
        const glyphId = (bytes[j++] << 8) | (j < bytes.length ? bytes[j] : 0), code = j >> 1;
        // A zero is kept only for a code the text map has (without a ToUnicode CMap: every code to 0xFFFF).
        if (glyphId === 0 && (hasIncluded ? included![code] === undefined : code > 0xffff)) continue;
        gids[code] = glyphId;
      }
      for (const code in map) if (gids[map[code]] !== undefined) map[Number(code)] = gids[map[code]];
      // With the identity ToUnicode, a code whose value has no glyph ID reads as itself again.
      if (identity && gids.length !== 0x10000) {
        for (const code in map) if (gids[map[code]] === undefined) map[Number(code)] = Number(code);
      }
    }
    if (hasIncluded) { for (const code in included!) map[Number(code)] = included![Number(code)].codePointAt(0)!; }
    unicode = [];
    for (const code in map) {
      // `get(code) || code`: a 0 (or an empty ToUnicode string) reads as the code itself.
      if (map[code]) unicode[Number(code)] = String.fromCharCode(map[code]);
    }
  }
  return { name, composite: true, unicode, ...compositeWidths(descendant) };
}

export function loadSimpleFont(dict: Dict): SimpleFont {
  const type = dict.get("Subtype");
  if (type instanceof Name && type.name === "Type0") return loadCompositeFont(dict);
  if (type instanceof Name && type.name === "Type3") return loadType3Font(dict);
  if (!(type instanceof Name) || (type.name !== "Type1" && type.name !== "TrueType")) {
    return unsupported(`a ${type instanceof Name ? type.name : "?"} font`);
  }
  const trueType = type.name === "TrueType";
  const descriptor = dict.get("FontDescriptor");
  if (!(descriptor instanceof Dict)) return loadFontWithoutProgram(dict, trueType, null);
  if (dict.has("FontMatrix")) return unsupported("a font dictionary with a /FontMatrix");
  const name = pdfjsFontName(descriptor.get("FontName"), dict.get("BaseFont"));
  if (!descriptor.has("FontFile") && !descriptor.has("FontFile2") && !descriptor.has("FontFile3")) {
    return loadFontWithoutProgram(dict, trueType, descriptor, name);
  }
  // PDF.js treats fonts named like the symbol fonts specially.
  if (/Symbol|Dingbats|Wingdings/i.test(name)) return unsupported("a symbol font");
  // A Type 1 font's program may be CFF (/FontFile3, read by cff.ts) where it has no other.
  const cff = !trueType && !descriptor.has("FontFile") && !descriptor.has("FontFile2") && descriptor.has("FontFile3");
  if (!cff && (descriptor.has(trueType ? "FontFile" : "FontFile2") || descriptor.has("FontFile3"))) {
    return unsupported(`a ${type.name} font with a font file of another kind`);
  }
  const file = descriptor.get(cff ? "FontFile3" : trueType ? "FontFile2" : "FontFile");
  if (!(file instanceof Stream)) return unsupported(`a ${type.name} font without an embedded program`);
  const flagsValue = descriptor.get("Flags");
  let flags = Number.isInteger(flagsValue) ? flagsValue as number : 0;

  // PDF.js fills a code /Widths gives no number for from the font program's glyph widths: refused.
  const widths = widthsFrom(dict, true);
  if (widths === null) return unsupported("a font without /Widths");
  const missingWidth = descriptor.get("MissingWidth");
  const defaultWidth = typeof missingWidth === "number" ? missingWidth : 0;
  const monospace = sameWidths(widths, defaultWidth);
  flags = monospace ? flags | 1 : flags & ~1;

  const { differences, baseEncodingName } = readEncoding(dict);
  let defaultEncoding: string[];
  if (baseEncodingName) defaultEncoding = encoding(baseEncodingName)!;
  else {
    // PDF.js's choice for an embedded font: StandardEncoding; WinAnsi for a TrueType font not
    // flagged nonsymbolic; MacRoman when flagged symbolic.
    const { symbolic, nonsymbolic } = symbolism(flags, trueType, differences);
    defaultEncoding = encoding(
      symbolic ? "MacRomanEncoding" : trueType && !nonsymbolic ? "WinAnsiEncoding" : "StandardEncoding",
    )!;
  }
  const hasEncoding = !!baseEncodingName || differences.length > 0;

  // The program is read for every font, ToUnicode or not: PDF.js takes its /FontMatrix (which
  // rescales the widths) from it, and its encoding where no ToUnicode is given.
  const cffProgram = cff ? readCffProgram(file.bytes(), false) : null;
  const builtIn = trueType
    ? trueTypeProgram(file)
    : cffProgram
    ? cffProgram.builtInEncoding
    : builtInEncoding(file, descriptor);
  const toUnicodeObject = dict.get("ToUnicode");
  const included = toUnicodeObject === undefined ? null : readToUnicode(toUnicodeObject);
  const hasIncluded = included !== null && included.length > 0;
  // Without a ToUnicode map PDF.js reads a TrueType font's text from its encoding alone (the cmap
  // table only places glyphs; if its TrueType parser fails, only the glyphs change) — except a
  // symbolic font without an /Encoding, whose MacRoman text its `adjustTrueTypeToUnicode` may amend
  // to WinAnsi depending on the program's name table and on that parser succeeding: the codes where
  // the two differ are uncertain (a page that draws one goes to PDF.js), the others read alike.
  const winAnsiMayAmend = trueType && !hasIncluded && !hasEncoding && (flags & SYMBOLIC) !== 0;

  const unicode: string[] = new Array(256);
  if (hasIncluded) {
    for (let code = 0; code < 256; code++) {
      if (included![code] !== undefined) unicode[code] = included![code];
    }
    if (hasEncoding) {
      const fallback = simpleFontToUnicode(defaultEncoding, differences);
      for (let code = 0; code < 256; code++) {
        if (unicode[code] === undefined && fallback[code] !== undefined) unicode[code] = fallback[code]!;
      }
    }
  } else {
    const simple = simpleFontToUnicode(defaultEncoding, differences);
    for (let code = 0; code < 256; code++) if (simple[code] !== undefined) unicode[code] = simple[code]!;
    if (builtIn !== null && builtIn !== defaultEncoding) {
      const map = glyphs();
      for (const key in builtIn) {
        const code = Number(key);
        if (hasEncoding && (baseEncodingName || differences[code] !== undefined)) continue;
        const name = builtIn[code];
        const value = map.get(name);
        // PDF.js's `getUnicodeForGlyph`: the list, then a guess from uniXXXX/uXXXX names (left
        // to PDF.js), else the code keeps what it had.
        if (value !== undefined) unicode[code] = String.fromCharCode(value);
        else if (name[0] === "u") unicode[code] = UNCERTAIN;
      }
    }
  }
  // PDF.js's `toUnicode.get(code) || code`.
  for (let code = 0; code < 256; code++) {
    if (!unicode[code]) unicode[code] = String.fromCharCode(code);
  }
  if (winAnsiMayAmend) {
    const winAnsi = simpleFontToUnicode(encoding("WinAnsiEncoding")!, []);
    for (let code = 0; code < 256; code++) {
      if (winAnsi[code] !== undefined && winAnsi[code] !== unicode[code]) unicode[code] = UNCERTAIN;
    }
  }
  return { name, monospace, ...scaledWidths(widths, defaultWidth, cffProgram?.fontMatrix ?? null), unicode };
}

/** PDF.js's `adjustWidths`: a font matrix other than 0.001 rescales every width and the default. */
function scaledWidths(
  widths: (number | undefined)[],
  defaultWidth: number,
  fontMatrix: readonly number[] | null,
): { widths: (number | undefined)[]; defaultWidth: number; fontMatrix?: readonly number[] } {
  if (fontMatrix === null || fontMatrix[0] === 0.001) return { widths, defaultWidth };
  const scale = 0.001 / fontMatrix[0];
  for (const key in widths) widths[key]! *= scale;
  return { widths, defaultWidth: defaultWidth * scale, fontMatrix };
}

/**
 * The name PDF.js gives a font with a descriptor (`translateFont`): its /FontName, but its
 * /BaseFont where the two differ and the /BaseFont extends the /FontName, or only the /BaseFont
 * is a name PDF.js knows.
 */
function pdfjsFontName(fontNameObject: PdfObject | undefined, baseFontObject: PdfObject | undefined): string {
  const text = (value: PdfObject | undefined): string | undefined =>
    value instanceof Name
      ? value.name
      : typeof value === "string" || value === undefined
      ? value
      : unsupported("a font name that is neither a name nor a string");
  const fontName = text(fontNameObject), baseFont = text(baseFontObject);
  let name = fontName;
  if (
    fontName !== baseFont && fontName && baseFont &&
    (baseFont.startsWith(fontName) || (!isKnownFontName(fontName) && isKnownFontName(baseFont)))
  ) name = undefined;
  name ??= baseFont;
  return name === undefined ? unsupported("a font without a name") : name;
}

/**
 * A simple font's /Encoding as PDF.js's `extractDataStructures` reads it: its /Differences, and
 * its base encoding where that is MacRoman or WinAnsi (any other name counts as none).
 */
function readEncoding(dict: Dict): { differences: string[]; baseEncodingName: string | null } {
  const differences: string[] = [];
  let baseEncodingName: string | null = null;
  if (dict.has("Encoding")) {
    const enc = dict.get("Encoding");
    if (enc instanceof Dict) {
      const base = enc.get("BaseEncoding");
      baseEncodingName = base instanceof Name ? base.name : null;
      if (enc.has("Differences")) {
        const diffs = enc.get("Differences");
        if (!Array.isArray(diffs)) return unsupported("a /Differences that is not an array");
        let index = 0;
        for (const entry of diffs) {
          const data = entry instanceof Ref ? dict.xref!.fetch(entry) : entry;
          if (typeof data === "number") index = data;
          else if (data instanceof Name) differences[index++] = data.name;
          else return unsupported("a bad /Differences entry");
        }
      }
    } else if (enc instanceof Name) {
      baseEncodingName = enc.name;
    } else return unsupported("an /Encoding that is neither a name nor a dictionary");
    if (
      baseEncodingName !== "MacRomanEncoding" && baseEncodingName !== "MacExpertEncoding" &&
      baseEncodingName !== "WinAnsiEncoding"
    ) baseEncodingName = null;
  }
  if (baseEncodingName === "MacExpertEncoding") return unsupported("MacExpertEncoding");
  if (Object.keys(differences).some((k) => !/^\d+$/.test(k) || Number(k) > 255)) {
    return unsupported("/Differences past code 255");
  }
  return { differences, baseEncodingName };
}

/**
 * A Type 1 or TrueType font without an embedded program — the standard 14 fonts (Helvetica,
 * Times, Courier, Symbol, ZapfDingbats, and the names PDF.js maps to them such as Arial or
 * TimesNewRoman) and any other font left to the viewer — as PDF.js reads it for text. With no
 * /FontDescriptor (`translateFont`'s first branch): the font's name normalized, flags made up from
 * the name (symbolic for the symbol fonts, fixed-pitch for Courier), /Widths or else the standard
 * font's widths by glyph name, and the standard font's default width. With one (`extractWidths`):
 * its /Flags and /MissingWidth, and the same widths. Either way no program is read (pterm's PDF.js
 * is given no standard font files), so `extractDataStructures` picks the encoding for a font that
 * is not embedded (the Symbol and ZapfDingbats encodings by name), and `Font` marks the file
 * missing: in a Type 1 font a code its encoding leaves empty reads as a space as wide as the
 * font's space (`_charToGlyph`, `_spaceWidth`).
 */
function loadFontWithoutProgram(dict: Dict, trueType: boolean, descriptor: Dict | null, fontName = ""): SimpleFont {
  const baseFont = dict.get("BaseFont");
  if (!(baseFont instanceof Name)) return unsupported("a font without a /BaseFont name");
  // The standard font whose widths stand in for missing /Widths: by /BaseFont, normalized without a descriptor.
  let name: string, metricsName: string, flags: number;
  if (descriptor === null) {
    name = metricsName = normalizeFontName(baseFont.name);
    const metrics = baseFontMetrics(name);
    flags = (metrics.monospace ? FIXED_PITCH : 0) | (isSymbolsFont(name.split("-", 1)[0]) ? SYMBOLIC : NONSYMBOLIC);
  } else {
    // The caller has found the name PDF.js gives the font, and refused a /FontMatrix.
    name = fontName;
    metricsName = baseFont.name;
    const flagsValue = descriptor.get("Flags");
    flags = Number.isInteger(flagsValue) ? flagsValue as number : 0;
  }
  // PDF.js reads a WinAnsi font with some GBK-encoded names as a Chinese composite font.
  if (name.charCodeAt(0) >= 0xb7) return unsupported("a font name outside ASCII");

  const { differences, defaultEncoding, hasEncoding } = encodingWithoutProgram(dict, name, flags, trueType);

  // The widths: /Widths from /FirstChar, else the standard font's by glyph name.
  const given = widthsFrom(dict, false);
  const hasWidths = given !== null;
  const widths = given ?? widthsByGlyphName(baseFontMetrics(metricsName).widthOf, differences, defaultEncoding);
  let defaultWidth: number, monospace: boolean;
  if (descriptor === null) {
    const metrics = baseFontMetrics(name);
    defaultWidth = metrics.defaultWidth;
    monospace = metrics.monospace;
  } else {
    const missingWidth = descriptor.get("MissingWidth");
    defaultWidth = hasWidths
      ? (typeof missingWidth === "number" ? missingWidth : 0)
      : baseFontMetrics(metricsName).defaultWidth;
    monospace = sameWidths(widths, defaultWidth);
  }

  // The text: the ToUnicode CMap, completed from the encoding where the font has one; else the encoding's glyph names.
  const toUnicodeObject = dict.get("ToUnicode");
  const included = toUnicodeObject === undefined ? null : readToUnicode(toUnicodeObject);
  const fromEncoding = simpleFontToUnicode(defaultEncoding, differences);
  const unicode: string[] = new Array(256);
  if (included !== null && included.length > 0) {
    for (let code = 0; code < 256; code++) {
      if (included[code] !== undefined) unicode[code] = included[code];
      else if (hasEncoding && fromEncoding[code] !== undefined) unicode[code] = fromEncoding[code]!;
    }
  } else {
    for (let code = 0; code < 256; code++) if (fromEncoding[code] !== undefined) unicode[code] = fromEncoding[code]!;
  }
  // PDF.js's `toUnicode.get(code) || code`; then, the file being missing, a Type 1 code whose
  // glyph name is empty is a space (whatever its ToUnicode says) with the space's width if none.
  let spaceWidth: number | undefined;
  for (let code = 0; code < 256; code++) {
    if (!unicode[code]) unicode[code] = String.fromCharCode(code);
    if (trueType || (differences[code] || defaultEncoding[code]) !== "") continue;
    unicode[code] = " ";
    const width = typeof widths[code] === "number" ? widths[code] : defaultWidth;
    if (!width) {
      spaceWidth ??= [0x20, 0x2212, 0x31, 0x69, 0x49].map((c) => widths[c]).find((w) => !!w) || defaultWidth;
      widths[code] = spaceWidth;
    }
  }
  return { name, monospace, widths, defaultWidth, unicode };
}

/** The encoding of a font without a program (`extractDataStructures` for a font that is not embedded). */
function encodingWithoutProgram(
  dict: Dict,
  name: string,
  flags: number,
  trueType: boolean,
): { differences: string[]; defaultEncoding: string[]; hasEncoding: boolean } {
  const encodingRead = readEncoding(dict);
  const differences = encodingRead.differences;
  const symbolsName = isSymbolsFont(name);
  const baseEncodingName = symbolsName ? null : encodingRead.baseEncodingName;
  let defaultEncoding: string[];
  if (baseEncodingName) defaultEncoding = encoding(baseEncodingName)!;
  else {
    const { symbolic, nonsymbolic } = symbolism(flags, trueType, differences);
    let encodingName = trueType && !nonsymbolic ? "WinAnsiEncoding" : "StandardEncoding";
    if (symbolic || symbolsName) {
      encodingName = /Symbol/i.test(name)
        ? "SymbolSetEncoding"
        : /Dingbats/i.test(name)
        ? "ZapfDingbatsEncoding"
        : /Wingdings/i.test(name)
        ? "WinAnsiEncoding"
        : "MacRomanEncoding";
    }
    defaultEncoding = encoding(encodingName)!;
  }
  return { differences, defaultEncoding, hasEncoding: !!baseEncodingName || differences.length > 0 };
}

const FONT_IDENTITY_MATRIX = [0.001, 0, 0, 0.001, 0, 0];

/**
 * A Type 3 font as PDF.js reads it for text: named by its descriptor's /FontName or "Type3", its
 * /FontMatrix scaling the /Widths, the encoding of a font without a program, its ToUnicode CMap
 * alone where it has one (PDF.js does not complete a Type 3 font's from its encoding), and no
 * missing-file spaces. PDF.js also reads every glyph procedure: one starting with `d1` and a box
 * ten times the /FontBBox or more (or any, where the /FontBBox is empty) makes it use the glyphs'
 * boxes for the text's height, and whether it does depends on the whole procedure parsing — such
 * fonts are `Unsupported`.
 */
function loadType3Font(dict: Dict): SimpleFont {
  const fetch = (v: PdfObject | undefined) => v instanceof Ref ? dict.xref!.fetch(v) : v;
  const numbers = (value: PdfObject | undefined, length: number): number[] | null => {
    const array = fetch(value);
    if (!Array.isArray(array) || array.length !== length) return null;
    const out = array.map(fetch);
    return out.every((x) => typeof x === "number") ? out as number[] : null;
  };
  const charProcs = dict.get("CharProcs");
  if (!(charProcs instanceof Dict)) return unsupported("a Type3 font without /CharProcs");
  const descriptorObject = dict.get("FontDescriptor");
  const descriptor = descriptorObject instanceof Dict ? descriptorObject : null;
  const fontName = descriptor?.get("FontName");
  const name = fontName instanceof Name
    ? fontName.name
    : typeof fontName === "string"
    ? fontName
    : fontName === undefined
    ? ""
    : unsupported("a Type3 font's /FontName");
  const fontMatrix = numbers(dict.get("FontMatrix"), 6) ?? FONT_IDENTITY_MATRIX;
  // PDF.js takes the descriptor's /FontBBox if there is one, valid or not, else the font's.
  const rect = numbers(fetch(descriptor?.get("FontBBox")) || fetch(dict.get("FontBBox")), 4) ?? [0, 0, 0, 0];
  const bbox = [
    Math.min(rect[0], rect[2]),
    Math.min(rect[1], rect[3]),
    Math.max(rect[0], rect[2]),
    Math.max(rect[1], rect[3]),
  ];
  const fontBBoxSize = Math.hypot(bbox[2] - bbox[0], bbox[3] - bbox[1]);
  if (!fontBBoxSize) return unsupported("a Type3 font with an empty /FontBBox");
  for (const key of charProcs.map.keys()) {
    const proc = charProcs.get(key);
    if (!(proc instanceof Stream)) continue;
    const parser = new Parser(proc.bytes(), 0, null);
    const args: PdfObject[] = [];
    for (let obj = parser.object(false); obj !== EOF; obj = parser.object(false)) {
      if (!(obj instanceof Cmd)) {
        args.push(obj);
        continue;
      }
      // A procedure starts with d0 or d1; after anything else PDF.js might still meet a d1 first.
      if (obj.cmd === "d0") break;
      if (obj.cmd !== "d1") return unsupported("a Type3 glyph that does not start with d0 or d1");
      if (args.length !== 6 || !args.every((x) => typeof x === "number")) return unsupported("a Type3 glyph's odd d1");
      const [x0, y0, x1, y1] = args.slice(2) as number[];
      const width = Math.abs(x1 - x0), height = Math.abs(y1 - y0);
      if (width !== 0 && height !== 0 && Math.round(Math.hypot(width, height) / fontBBoxSize) >= 10) {
        return unsupported("a Type3 glyph box ten times its font's");
      }
      break;
    }
  }
  const flagsValue = descriptor?.get("Flags");
  const flags = Number.isInteger(flagsValue) ? flagsValue as number : 0;
  const { differences, defaultEncoding } = encodingWithoutProgram(dict, name || "Type3", flags, false);

  const widths = widthsFrom(dict, false);
  if (widths === null) return unsupported("a Type3 font without /Widths");
  const missingWidth = descriptor?.get("MissingWidth");
  const defaultWidth = typeof missingWidth === "number" ? missingWidth : 0;

  const toUnicodeObject = dict.get("ToUnicode");
  const included = toUnicodeObject === undefined ? null : readToUnicode(toUnicodeObject);
  const source = included !== null && included.length > 0
    ? included
    : simpleFontToUnicode(defaultEncoding, differences);
  const unicode: string[] = new Array(256);
  for (let code = 0; code < 256; code++) unicode[code] = source[code] || String.fromCharCode(code);
  const identity = fontMatrix.every((x, i) => x === FONT_IDENTITY_MATRIX[i]);
  const glyphHeight = bbox[3] - bbox[1];
  return {
    name: name || "Type3",
    monospace: sameWidths(widths, defaultWidth),
    widths,
    defaultWidth,
    unicode,
    fontMatrix,
    type3HeightScale: !identity && glyphHeight > 0 ? glyphHeight * fontMatrix[3] : undefined,
  };
}

/** The descriptor's symbolic and nonsymbolic flags as PDF.js weighs them: a TrueType font flagged both, with /Differences, counts as nonsymbolic. */
function symbolism(
  flags: number,
  trueType: boolean,
  differences: string[],
): { symbolic: boolean; nonsymbolic: boolean } {
  const nonsymbolic = (flags & NONSYMBOLIC) !== 0;
  const symbolic = (flags & SYMBOLIC) !== 0 && !(trueType && nonsymbolic && differences.length !== 0);
  return { symbolic, nonsymbolic };
}

/**
 * A simple font's /Widths from /FirstChar on, as PDF.js's `extractWidths` reads them (sparse: a
 * code without a number has none); null without a /Widths array. `strict`: an entry that is not a
 * number is refused instead, where PDF.js would fill it from the font program.
 */
function widthsFrom(dict: Dict, strict: boolean): (number | undefined)[] | null {
  const firstCharValue = dict.get("FirstChar");
  const firstChar = Number.isInteger(firstCharValue) ? firstCharValue as number : 0;
  const widthsArray = dict.get("Widths");
  if (!Array.isArray(widthsArray)) return null;
  const widths: (number | undefined)[] = [];
  let code = firstChar;
  for (const entry of widthsArray) {
    const width = entry instanceof Ref ? dict.xref!.fetch(entry) : entry;
    if (typeof width === "number") widths[code] = width;
    else if (strict) return unsupported("a /Widths entry that is not a number");
    code++;
  }
  return widths;
}

/** PDF.js's `buildCharCodeToWidth`: a code's glyph width by its /Differences name, else by its base encoding's. */
function widthsByGlyphName(
  widthOf: (glyph: string) => number | undefined,
  differences: string[],
  defaultEncoding: string[],
): (number | undefined)[] {
  const widths: (number | undefined)[] = [];
  for (let code = 0; code < 256; code++) {
    const width = (code in differences ? widthOf(differences[code]) : undefined) || widthOf(defaultEncoding[code]);
    if (width) widths[code] = width;
  }
  return widths;
}

/** PDF.js's `_simpleFontToUnicode`, where the glyph list decides; UNCERTAIN where its heuristics would. */
function simpleFontToUnicode(defaultEncoding: string[], differences: string[]): readonly (string | undefined)[] {
  // Most fonts of a document share an encoding without /Differences: worked out once per encoding.
  if (differences.length === 0) {
    let found = encodingUnicode.get(defaultEncoding);
    if (!found) encodingUnicode.set(defaultEncoding, found = encodingToUnicode(defaultEncoding, differences));
    return found;
  }
  return encodingToUnicode(defaultEncoding, differences);
}
const encodingUnicode = new WeakMap<string[], (string | undefined)[]>();
function encodingToUnicode(defaultEncoding: string[], differences: string[]): (string | undefined)[] {
  const names = defaultEncoding.slice();
  for (const key in differences) {
    if (differences[key] === ".notdef") continue;
    names[Number(key)] = differences[key];
  }
  const map = glyphs();
  const out: (string | undefined)[] = [];
  for (let code = 0; code < names.length; code++) {
    const name = names[code];
    if (name === "" || name === undefined) continue;
    const value = map.get(name);
    if (value !== undefined) {
      out[code] = String.fromCharCode(value);
      continue;
    }
    // PDF.js guesses from Gxx, g00xx, Cdd and uniXXXX names and a few ligatures: leave those
    // codes to it. Other names outside the list map to nothing.
    if (/^[GgCcu]/.test(name) || name === "f_h" || name === "f_t" || name === "T_h") out[code] = UNCERTAIN;
  }
  return out;
}

/** The font program's own encoding (its cleartext `/Encoding`), as PDF.js's Type1 parser reads it. */
function builtInEncoding(file: Stream, _descriptor: Dict): string[] | null {
  const data = file.bytes();
  if (!(data[0] === 0x25 && data[1] === 0x21)) return unsupported("a Type1 program that does not start with %!");
  const length1 = file.dict.get("Length1");
  if (!Number.isInteger(length1) || (length1 as number) <= 0 || (length1 as number) > data.length) {
    return unsupported("a Type1 program without a usable /Length1");
  }
  // PDF.js checks that the cleartext part ends, after white space, at "eexec".
  const header = latin1(data.subarray(0, length1 as number));
  const at = header.lastIndexOf("eexec");
  // PDF.js looks for it starting in the last ten bytes (so at least one byte must follow it) and
  // skips space, tab, CR and LF up to /Length1; otherwise it guesses the split on its own.
  if (at < header.length - 10 || at > header.length - 6 || !/^eexec[ \t\r\n]*$/.test(header.slice(at))) {
    return unsupported("a Type1 program whose /Length1 is off");
  }
  const text = header.slice(0, at);
  if (header.indexOf("eexec") !== at) return unsupported("a Type1 program with eexec twice in its cleartext");
  // The encrypted part is not read: PDF.js takes /FontMatrix (which rescales the widths) from the
  // cleartext part only (Type1Parser's extractFontHeader; extractFontProgram, which reads the
  // private part, has no case for it). Only its form is checked, as PDF.js's parser chooses by it.
  if (isHexEexec(data.subarray(length1 as number))) return unsupported("hexadecimal eexec data");
  const tokens = postScriptTokens(text);
  let encodingNames: string[] | null = null;
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i] !== "/") continue;
    const key = tokens[++i];
    if (key === "FontMatrix") {
      // PDF.js reads the numbers with parseFloat; only the first one rescales widths for text
      // (`adjustWidths`, and the glyph advance in `getTextContent`).
      const first = parseFloat(tokens[i + 2] || "0");
      if (first !== 0.001) return unsupported(`a font program with an unusual /FontMatrix (${tokens[i + 2]})`);
    } else if (key === "Encoding") {
      const arg = tokens[++i];
      if (arg === undefined) return unsupported("a font program with a cut /Encoding");
      if (!/^\d+$/.test(arg)) {
        if (arg !== "StandardEncoding") return unsupported(`a font program with /Encoding ${arg}`);
        encodingNames = encoding("StandardEncoding");
        continue;
      }
      const size = parseInt(arg, 10) | 0;
      encodingNames = [];
      i++; // "array"
      for (let j = 0; j < size; j++) {
        let token = tokens[++i];
        while (token !== "dup" && token !== "def") {
          token = tokens[++i];
          if (token === undefined) return unsupported("a font program with a cut /Encoding");
        }
        if (token === "def") break;
        const index = tokens[++i];
        if (!/^\d+$/.test(index)) return unsupported("a font program's /Encoding with an odd index");
        i++; // "/"
        const glyph = tokens[++i];
        encodingNames[parseInt(index, 10) | 0] = glyph;
        i++; // "put"
      }
    }
  }
  return encodingNames;
}

/** PostScript's white space (1) and its one-character tokens `/[]{}()` (2), by character code. */
const POSTSCRIPT_CLASS = new Uint8Array(256);
for (const c of " \t\n\r\f\0") POSTSCRIPT_CLASS[c.charCodeAt(0)] = 1;
for (const c of "/[]{}()") POSTSCRIPT_CLASS[c.charCodeAt(0)] = 2;

/** The cleartext part's tokens (its text is Latin-1: one character per byte). */
function postScriptTokens(text: string): string[] {
  const tokens: string[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x25) { // %
      while (i < n && text.charCodeAt(i) !== 0x0a && text.charCodeAt(i) !== 0x0d) i++;
      continue;
    }
    const kind = c < 256 ? POSTSCRIPT_CLASS[c] : 0;
    if (kind === 1) {
      i++;
      continue;
    }
    if (kind === 2) {
      tokens.push(text[i]);
      i++;
      continue;
    }
    const start = i;
    while (i < n) {
      const d = text.charCodeAt(i);
      if (d < 256 && POSTSCRIPT_CLASS[d] !== 0) break;
      i++;
    }
    tokens.push(text.slice(start, i));
  }
  return tokens;
}

/** Whether the eexec part is hexadecimal (its first four bytes after white space are hex digits). */
function isHexEexec(encrypted: Uint8Array): boolean {
  let start = 0;
  while (start < encrypted.length && " \t\r\n".includes(String.fromCharCode(encrypted[start]))) start++;
  const bytes = encrypted.subarray(start);
  return bytes.length >= 4 && [0, 1, 2, 3].every((k) => /[0-9A-Fa-f]/.test(String.fromCharCode(bytes[k])));
}

/** A ToUnicode CMap stream as PDF.js's `readToUnicode` turns it into text per code (sparse). */
export function readToUnicode(object: PdfObject): string[] | null {
  if (object instanceof Name) return unsupported("a named ToUnicode CMap");
  if (!(object instanceof Stream)) return null;
  const map: PdfObject[] = [];
  const p = new Parser(object.bytes(), 0, null);
  let previous: unknown = null;
  const str = (value: unknown): string => typeof value === "string" ? value : unsupported("a malformed CMap");
  const strToInt = (s: string) => {
    let a = 0;
    for (let i = 0; i < s.length; i++) a = (a << 8) | s.charCodeAt(i);
    return a >>> 0;
  };
  const next = () => {
    const value = p.object(false);
    return value;
  };
  const isCmd = (v: unknown, cmd: string) => v instanceof Cmd && v.cmd === cmd;
  // PDF.js allows ranges up to 2^24 - 1 codes; a simple font has 256: longer ones go to PDF.js.
  const MAX_RANGE = 0xffff;
  for (;;) {
    const obj = next();
    if (obj === EOF) break;
    if (obj instanceof Name) {
      previous = obj;
      continue;
    }
    if (!(obj instanceof Cmd)) continue;
    if (obj.cmd === "endcmap") break;
    if (obj.cmd === "usecmap") return unsupported("a ToUnicode CMap with usecmap");
    if (obj.cmd === "beginbfchar") {
      for (;;) {
        const src = next();
        if (isCmd(src, "endbfchar")) break;
        const dst = next();
        map[strToInt(str(src))] = str(dst);
      }
    } else if (obj.cmd === "beginbfrange") {
      for (;;) {
        const lowObj = next();
        if (isCmd(lowObj, "endbfrange")) break;
        let low = strToInt(str(lowObj));
        const high = strToInt(str(next()));
        const dst = next();
        if (high - low > MAX_RANGE) return unsupported("a CMap range too long");
        if (typeof dst === "string" || Number.isInteger(dst)) {
          let dstLow = typeof dst === "string" ? dst : String.fromCharCode(dst as number);
          if (dstLow.length === 0) return unsupported("an empty bfrange destination");
          const last = dstLow.length - 1;
          while (low <= high) {
            map[low++] = dstLow;
            const nextCode = dstLow.charCodeAt(last) + 1;
            if (nextCode > 0xff) {
              if (last < 1) return unsupported("a one-byte bfrange destination past 0xFF");
              dstLow = dstLow.substring(0, last - 1) + String.fromCharCode(dstLow.charCodeAt(last - 1) + 1) + "\x00";
              continue;
            }
            dstLow = dstLow.substring(0, last) + String.fromCharCode(nextCode);
          }
        } else if (Array.isArray(dst)) {
          let i = 0;
          while (low <= high && i < dst.length) map[low++] = dst[i++];
        } else return unsupported("a malformed bfrange");
      }
    } else if (obj.cmd === "begincidchar" || obj.cmd === "begincidrange") {
      return unsupported("CID mappings in a ToUnicode CMap");
    } else if (obj.cmd === "begincodespacerange") {
      for (;;) {
        const low = next();
        if (isCmd(low, "endcodespacerange")) break;
        str(low);
        str(next());
      }
    }
  }
  void previous;
  // UTF-16BE to text, as readToUnicode does.
  const out: string[] = [];
  for (const key in map) {
    let token = map[key];
    if (typeof token !== "string") return unsupported("a CMap entry that is not a string");
    if (token.length % 2 !== 0) token = "\u0000" + token;
    const points: number[] = [];
    for (let k = 0; k < token.length; k += 2) {
      const w1 = (token.charCodeAt(k) << 8) | token.charCodeAt(k + 1);
      if ((w1 & 0xf800) !== 0xd800) {
        points.push(w1);
        continue;
      }
      k += 2;
      const w2 = (token.charCodeAt(k) << 8) | token.charCodeAt(k + 1);
      points.push(((w1 & 0x3ff) << 10) + (w2 & 0x3ff) + 0x10000);
    }
    out[Number(key)] = String.fromCodePoint(...points);
  }
  return out;
}

/** PDF.js's monospace heuristic: every non-zero width the same (the default width counts as the first). */
function sameWidths(widths: readonly (number | undefined)[], defaultWidth: number): boolean {
  let firstWidth = defaultWidth;
  // `for…in` as PDF.js walks its widths: set entries only, in index order.
  for (const key in widths) {
    const width = widths[key];
    if (!width) continue;
    if (!firstWidth) {
      firstWidth = width;
      continue;
    }
    if (firstWidth !== width) return false;
  }
  return true;
}
