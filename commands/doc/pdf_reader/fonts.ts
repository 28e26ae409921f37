/**
 * Simple fonts as PDF.js sees them for text: each byte's Unicode text and width. Only embedded
 * Type 1 fonts (/FontFile, or CFF in /FontFile3, read by cff.ts) and TrueType fonts with /Widths
 * are read — pdfTeX's and most TeX producers' fonts, Ghostscript's, Distiller's, office suites' —
 * through their ToUnicode CMap, their /Encoding (a base encoding, /Differences) and the font
 * program's built-in encoding, as PDF.js combines them (`extractDataStructures`,
 * `buildToUnicode`, `adjustType1ToUnicode`, `amendFallbackToUnicode`). Every other kind of font
 * is `Unsupported`, and so is a glyph whose Unicode PDF.js would guess from its name's shape.
 */

import { Cmd, Dict, EOF, latin1, Name, Parser, type PdfObject, Ref, Stream, unsupported } from "./objects.ts";
import { hasCffTable, readCffProgram } from "./cff.ts";
import { GLYPH_CODES, GLYPH_NAMES, MAC_ROMAN_ENCODING, STANDARD_ENCODING, WIN_ANSI_ENCODING } from "./glyph_data.ts";

let glyphTable: { names: string[]; codes: string[] } | null = null;
const glyphLookup = {
  /** Glyph name → code point (the Adobe Glyph List and PDF.js's additions), by binary search. */
  get(name: string): number | undefined {
    const { names, codes } = glyphTable ??= { names: GLYPH_NAMES.split(" "), codes: GLYPH_CODES.split(" ") };
    let low = 0, high = names.length - 1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      const found = names[mid];
      if (found === name) return parseInt(codes[mid], 16);
      if (found < name) low = mid + 1;
      else high = mid - 1;
    }
    return undefined;
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
   * PDF.js's `font.fontMatrix` where a CFF program's /FontMatrix[0] is not 0.001 (advances use
   * [0]; the widths above are then already rescaled by 0.001 / [0], as its `adjustWidths` does).
   */
  readonly fontMatrix?: readonly number[];
}

/** PDF.js's font flags for symbolic and nonsymbolic fonts. */
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
 * A Type 0 font as PDF.js reads it for text: the Identity-H encoding (two-byte codes that are
 * their CIDs), an embedded TrueType descendant (CIDFontType2, /FontFile2) or CFF one
 * (CIDFontType0, /FontFile3: cff.ts checks PDF.js accepts the program and takes its /FontMatrix),
 * a ToUnicode CMap (without one PDF.js derives a TrueType font's text from its program, a CFF
 * font's from the codes themselves or Adobe's CJK collections), and /W and /DW for the widths.
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
  const fontName = descriptor.get("FontName"), baseFont = descendant.get("BaseFont");
  if (!(fontName instanceof Name) || !(baseFont instanceof Name) || fontName.name !== baseFont.name) {
    return unsupported("a CID font whose /FontName differs from its /BaseFont");
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
  else if (!cff && !fontName.name.includes("+")) {
    // Should PDF.js's TrueType parser fail on the program, a font named like a standard one gets
    // a substitute's glyph map as its text; a subset's name ("ABCDEF+…") never is.
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

  // PDF.js's `extractWidths` for composite fonts.
  const dw = descendant.get("DW");
  const defaultWidth = typeof dw === "number" ? Math.ceil(dw) : 1000;
  const widths: (number | undefined)[] = [];
  const w = descendant.get("W");
  if (w !== undefined && !Array.isArray(w)) return unsupported("a /W that is not an array");
  if (Array.isArray(w)) {
    const fetch = (v: PdfObject) => v instanceof Ref ? dict.xref!.fetch(v) : v;
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
  const monospace = sameWidths(widths, defaultWidth);
  return {
    name: fontName.name,
    composite: true,
    monospace,
    ...scaledWidths(widths, defaultWidth, fontMatrix),
    unicode,
  };
}

export function loadSimpleFont(dict: Dict): SimpleFont {
  const type = dict.get("Subtype");
  if (type instanceof Name && type.name === "Type0") return loadCompositeFont(dict);
  if (!(type instanceof Name) || (type.name !== "Type1" && type.name !== "TrueType")) {
    return unsupported(`a ${type instanceof Name ? type.name : "?"} font`);
  }
  const trueType = type.name === "TrueType";
  const descriptor = dict.get("FontDescriptor");
  if (!(descriptor instanceof Dict)) {
    return unsupported(`a ${type.name} font without a descriptor (a standard 14 font)`);
  }
  if (dict.has("FontMatrix")) return unsupported("a font dictionary with a /FontMatrix");
  const fontName = descriptor.get("FontName"), baseFont = dict.get("BaseFont");
  if (!(fontName instanceof Name) || !(baseFont instanceof Name) || fontName.name !== baseFont.name) {
    return unsupported("a font whose /FontName differs from its /BaseFont");
  }
  // PDF.js treats fonts named like the symbol fonts specially.
  if (/Symbol|Dingbats|Wingdings/i.test(fontName.name)) return unsupported("a symbol font");
  // A Type 1 font's program may be CFF (/FontFile3, read by cff.ts) where it has no other.
  const cff = !trueType && !descriptor.has("FontFile") && !descriptor.has("FontFile2") && descriptor.has("FontFile3");
  if (!cff && (descriptor.has(trueType ? "FontFile" : "FontFile2") || descriptor.has("FontFile3"))) {
    return unsupported(`a ${type.name} font with a font file of another kind`);
  }
  const file = descriptor.get(cff ? "FontFile3" : trueType ? "FontFile2" : "FontFile");
  if (!(file instanceof Stream)) return unsupported(`a ${type.name} font without an embedded program`);
  const flagsValue = descriptor.get("Flags");
  let flags = Number.isInteger(flagsValue) ? flagsValue as number : 0;

  const firstCharValue = dict.get("FirstChar");
  const firstChar = Number.isInteger(firstCharValue) ? firstCharValue as number : 0;
  const widthsArray = dict.get("Widths");
  if (!Array.isArray(widthsArray)) return unsupported("a font without /Widths");
  const widths: (number | undefined)[] = [];
  let j = firstChar;
  for (const w of widthsArray) {
    const width = w instanceof Ref ? dict.xref!.fetch(w) : w;
    if (typeof width === "number") widths[j] = width;
    j++;
  }
  const missingWidth = descriptor.get("MissingWidth");
  const defaultWidth = typeof missingWidth === "number" ? missingWidth : 0;
  const monospace = sameWidths(widths, defaultWidth);
  flags = monospace ? flags | 1 : flags & ~1;

  // Encoding (extractDataStructures).
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
  let defaultEncoding: string[];
  if (baseEncodingName) defaultEncoding = encoding(baseEncodingName)!;
  else {
    // PDF.js's choice for an embedded font: StandardEncoding; WinAnsi for a TrueType font not
    // flagged nonsymbolic; MacRoman when flagged symbolic (a TrueType font flagged both with
    // /Differences counts as nonsymbolic).
    let symbolic = (flags & SYMBOLIC) !== 0;
    const nonsymbolic = (flags & NONSYMBOLIC) !== 0;
    if (trueType && symbolic && nonsymbolic && differences.length !== 0) symbolic = false;
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
  // symbolic font without an /Encoding, which its `adjustTrueTypeToUnicode` may read as WinAnsi
  // depending on the program's name table and on that parser succeeding.
  if (trueType && !hasIncluded && !hasEncoding && (flags & SYMBOLIC) !== 0) {
    return unsupported("a symbolic TrueType font without an /Encoding or a ToUnicode CMap");
  }

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
  return {
    name: fontName.name,
    monospace,
    ...scaledWidths(widths, defaultWidth, cffProgram?.fontMatrix ?? null),
    unicode,
  };
}

/** PDF.js's `_simpleFontToUnicode`, where the glyph list decides; UNCERTAIN where its heuristics would. */
function simpleFontToUnicode(defaultEncoding: string[], differences: string[]): (string | undefined)[] {
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
  // The private part may carry a /FontMatrix of its own, which would rescale the widths.
  if (eexecMentionsFontMatrix(data.subarray(length1 as number))) return unsupported("a /FontMatrix in a private part");
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

function postScriptTokens(text: string): string[] {
  const tokens: string[] = [];
  const special = "/[]{}()";
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i];
    if (c === "%") {
      while (i < n && text[i] !== "\n" && text[i] !== "\r") i++;
      continue;
    }
    if (c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f" || c === "\0") {
      i++;
      continue;
    }
    if (special.includes(c)) {
      tokens.push(c);
      i++;
      continue;
    }
    const start = i;
    while (i < n && !" \t\n\r\f\0".includes(text[i]) && !special.includes(text[i])) i++;
    tokens.push(text.slice(start, i));
  }
  return tokens;
}

/** Decrypts the eexec part (r = 55665) and looks for a /FontMatrix in it. */
function eexecMentionsFontMatrix(encrypted: Uint8Array): boolean {
  let start = 0;
  while (start < encrypted.length && " \t\r\n".includes(String.fromCharCode(encrypted[start]))) start++;
  const bytes = encrypted.subarray(start);
  // Binary or hexadecimal eexec data.
  const isHex = bytes.length >= 4 && [0, 1, 2, 3].every((k) => /[0-9A-Fa-f]/.test(String.fromCharCode(bytes[k])));
  if (isHex) return unsupported("hexadecimal eexec data");
  let r = 55665;
  const target = "/FontMatrix";
  let matched = 0;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    const plain = c ^ (r >> 8);
    r = ((c + r) * 52845 + 22719) & 0xffff;
    if (plain === target.charCodeAt(matched)) {
      if (++matched === target.length) return true;
    } else matched = plain === 0x2f ? 1 : 0;
  }
  return false;
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
