/**
 * CFF font programs (/FontFile3 holding bare CFF — Type1C in simple Type 1 fonts, CIDFontType0C in
 * Type 0 fonts' CIDFontType0 descendants — or an OpenType program whose CFF table PDF.js converts
 * the same way) read for what PDF.js's text extraction takes from them:
 * whether its `CFFParser` accepts the program at all (when it throws, PDF.js falls back to a
 * system font and reads the text differently), the Top DICT's /FontMatrix (it rescales widths),
 * and the program's built-in encoding (`CFFFont._createBuiltInEncoding`: each code of the
 * program's encoding named through its charset), which gives the text of codes a simple font
 * leaves to the program.
 *
 * PDF.js's parser is lenient: it reads past the ends of tables as `undefined`, repairs
 * charstrings in place, and throws only on a few shapes. This reader follows it exactly on
 * well-formed programs — including walking every charstring the way PDF.js's validation does,
 * since a charstring operand that runs past its end can make PDF.js throw — and refuses
 * (`Unsupported`) anything that reads outside its table, an expert charset or encoding, a
 * mirrored or degenerate /FontMatrix, and anything else whose outcome it does not reproduce.
 * Every count, offset and size is checked against the program's length, and the charstring walk
 * has a step budget.
 */

import { latin1, unsupported } from "./objects.ts";
import { STANDARD_ENCODING } from "./glyph_data.ts";

/** The CFF specification's standard strings (Adobe Technical Note #5176, Appendix A), SIDs 0–390. */
const STANDARD_STRINGS_TEXT =
  ".notdef space exclam quotedbl numbersign dollar percent ampersand quoteright parenleft parenright " +
  "asterisk plus comma hyphen period slash zero one two three four five six seven eight nine colon " +
  "semicolon less equal greater question at A B C D E F G H I J K L M N O P Q R S T U V W X Y Z " +
  "bracketleft backslash bracketright asciicircum underscore quoteleft a b c d e f g h i j k l m n o p " +
  "q r s t u v w x y z braceleft bar braceright asciitilde exclamdown cent sterling fraction yen florin " +
  "section currency quotesingle quotedblleft guillemotleft guilsinglleft guilsinglright fi fl endash " +
  "dagger daggerdbl periodcentered paragraph bullet quotesinglbase quotedblbase quotedblright " +
  "guillemotright ellipsis perthousand questiondown grave acute circumflex tilde macron breve dotaccent " +
  "dieresis ring cedilla hungarumlaut ogonek caron emdash AE ordfeminine Lslash Oslash OE ordmasculine " +
  "ae dotlessi lslash oslash oe germandbls onesuperior logicalnot mu trademark Eth onehalf plusminus " +
  "Thorn onequarter divide brokenbar degree thorn threequarters twosuperior registered minus eth " +
  "multiply threesuperior copyright Aacute Acircumflex Adieresis Agrave Aring Atilde Ccedilla Eacute " +
  "Ecircumflex Edieresis Egrave Iacute Icircumflex Idieresis Igrave Ntilde Oacute Ocircumflex Odieresis " +
  "Ograve Otilde Scaron Uacute Ucircumflex Udieresis Ugrave Yacute Ydieresis Zcaron aacute acircumflex " +
  "adieresis agrave aring atilde ccedilla eacute ecircumflex edieresis egrave iacute icircumflex " +
  "idieresis igrave ntilde oacute ocircumflex odieresis ograve otilde scaron uacute ucircumflex " +
  "udieresis ugrave yacute ydieresis zcaron exclamsmall Hungarumlautsmall dollaroldstyle dollarsuperior " +
  "ampersandsmall Acutesmall parenleftsuperior parenrightsuperior twodotenleader onedotenleader " +
  "zerooldstyle oneoldstyle twooldstyle threeoldstyle fouroldstyle fiveoldstyle sixoldstyle " +
  "sevenoldstyle eightoldstyle nineoldstyle commasuperior threequartersemdash periodsuperior " +
  "questionsmall asuperior bsuperior centsuperior dsuperior esuperior isuperior lsuperior msuperior " +
  "nsuperior osuperior rsuperior ssuperior tsuperior ff ffi ffl parenleftinferior parenrightinferior " +
  "Circumflexsmall hyphensuperior Gravesmall Asmall Bsmall Csmall Dsmall Esmall Fsmall Gsmall Hsmall " +
  "Ismall Jsmall Ksmall Lsmall Msmall Nsmall Osmall Psmall Qsmall Rsmall Ssmall Tsmall Usmall Vsmall " +
  "Wsmall Xsmall Ysmall Zsmall colonmonetary onefitted rupiah Tildesmall exclamdownsmall centoldstyle " +
  "Lslashsmall Scaronsmall Zcaronsmall Dieresissmall Brevesmall Caronsmall Dotaccentsmall Macronsmall " +
  "figuredash hypheninferior Ogoneksmall Ringsmall Cedillasmall questiondownsmall oneeighth " +
  "threeeighths fiveeighths seveneighths onethird twothirds zerosuperior foursuperior fivesuperior " +
  "sixsuperior sevensuperior eightsuperior ninesuperior zeroinferior oneinferior twoinferior " +
  "threeinferior fourinferior fiveinferior sixinferior seveninferior eightinferior nineinferior " +
  "centinferior dollarinferior periodinferior commainferior Agravesmall Aacutesmall Acircumflexsmall " +
  "Atildesmall Adieresissmall Aringsmall AEsmall Ccedillasmall Egravesmall Eacutesmall Ecircumflexsmall " +
  "Edieresissmall Igravesmall Iacutesmall Icircumflexsmall Idieresissmall Ethsmall Ntildesmall " +
  "Ogravesmall Oacutesmall Ocircumflexsmall Otildesmall Odieresissmall OEsmall Oslashsmall Ugravesmall " +
  "Uacutesmall Ucircumflexsmall Udieresissmall Yacutesmall Thornsmall Ydieresissmall 001.000 001.001 " +
  "001.002 001.003 Black Bold Book Light Medium Regular Roman Semibold";

let standardStrings: string[] | null = null;
let standardEncoding: string[] | null = null;

export interface CffProgram {
  /** The program is CID-keyed (its Top DICT has /ROS). */
  readonly cid: boolean;
  /**
   * PDF.js's `properties.builtInEncoding`: code → glyph name through the program's encoding and
   * charset (sparse; codes may pass 255); null where PDF.js sets none (CID-keyed, or empty).
   */
  readonly builtInEncoding: string[] | null;
  /** The Top DICT's /FontMatrix (PDF.js's default [0.001 0 0 0.001 0 0]); its text takes only [0]. */
  readonly fontMatrix: readonly number[];
}

function malformed(what: string): never {
  return unsupported(`a CFF program ${what}`);
}

/** PDF.js's `FONT_IDENTITY_MATRIX`, the Top DICT's default /FontMatrix. */
const IDENTITY_MATRIX = [0.001, 0, 0, 0.001, 0, 0];

/** Upper bound on charstring bytes walked (subroutine calls walk theirs again). */
const MAX_CHARSTRING_STEPS = 20_000_000;
/** PDF.js's `MAX_SUBR_NESTING`. */
const MAX_SUBR_NESTING = 10;

/** A DICT's operators this reader uses, with PDF.js's value types ("num", "sid", "offset" keep the first operand). */
const SCALAR = 0, ARRAY = 1;
const TOP_DICT_KEYS = new Map<number, number>([
  [(12 << 8) | 30, ARRAY], // ROS
  [(12 << 8) | 7, ARRAY], // FontMatrix
  [15, SCALAR], // charset
  [16, SCALAR], // Encoding
  [17, SCALAR], // CharStrings
  [18, ARRAY], // Private
  [(12 << 8) | 37, SCALAR], // FDSelect
  [(12 << 8) | 36, SCALAR], // FDArray
]);
const ROS = (12 << 8) | 30, FONT_MATRIX = (12 << 8) | 7, CHARSET = 15, ENCODING = 16, CHAR_STRINGS = 17, PRIVATE = 18;
const FD_SELECT = (12 << 8) | 37, FD_ARRAY = (12 << 8) | 36;
const SUBRS = 19;
const PRIVATE_DICT_KEYS = new Map<number, number>([[SUBRS, SCALAR]]);

/**
 * Type 2 charstring operators as PDF.js's validation tables give them: minimum operands, and
 * flags — stack-clearing (1), a stem hint (2), resets the stack (4), moves the stack pointer by a
 * delta (8) — and, for the arithmetic ones, the value PDF.js computes.
 */
const SC = 1, STEM = 2, RESET = 4, DELTA = 8;
type Op = readonly [min: number, flags: number, delta?: number, fn?: (stack: number[], size: number) => void];
const OPS: (Op | undefined)[] = [];
for (
  const [code, min, flags] of [
    [1, 2, SC | STEM],
    [3, 2, SC | STEM],
    [4, 1, SC],
    [5, 2, RESET],
    [6, 1, RESET],
    [7, 1, RESET],
    [8, 6, RESET],
    [10, 1, 0],
    [11, 0, 0],
    [14, 0, SC],
    [18, 2, SC | STEM],
    [19, 0, SC],
    [20, 0, SC],
    [21, 2, SC],
    [22, 1, SC],
    [23, 2, SC | STEM],
    [24, 8, RESET],
    [25, 8, RESET],
    [26, 4, RESET],
    [27, 4, RESET],
    [29, 1, 0],
    [30, 4, RESET],
    [31, 4, RESET],
  ]
) OPS[code] = [min, flags];
/** Escaped (12 x) operators: the arithmetic ones PDF.js evaluates, the rest only move the stack pointer. */
const ESCAPED_OPS: (Op | undefined)[] = [];
for (
  const [code, min, delta] of [
    [3, 2, -1],
    [4, 2, -1],
    [5, 1, 0],
    [9, 1, 0],
    [15, 2, -1],
    [18, 1, -1],
    [20, 2, -2],
    [21, 1, 0],
    [22, 4, -3],
    [23, 0, 1],
    [26, 1, 0],
    [27, 1, 1],
    [28, 2, 0],
    [29, 2, 0],
    [30, 3, -2],
  ]
) ESCAPED_OPS[code] = [min, DELTA, delta];
ESCAPED_OPS[10] = [2, DELTA, -1, (s, n) => void (s[n - 2] = s[n - 2] + s[n - 1])];
ESCAPED_OPS[11] = [2, DELTA, -1, (s, n) => void (s[n - 2] = s[n - 2] - s[n - 1])];
ESCAPED_OPS[12] = [2, DELTA, -1, (s, n) => void (s[n - 2] = s[n - 2] / s[n - 1])];
ESCAPED_OPS[14] = [1, DELTA, 0, (s, n) => void (s[n - 1] = -s[n - 1])];
ESCAPED_OPS[24] = [2, DELTA, -1, (s, n) => void (s[n - 2] = s[n - 2] * s[n - 1])];
for (const [code, min] of [[34, 7], [35, 13], [36, 9], [37, 11]]) ESCAPED_OPS[code] = [min, RESET];

type DictValues = Map<number, number | number[]>;
interface PrivateDict {
  readonly subrs: Uint8Array[] | null;
}
interface FontDict {
  readonly values: DictValues;
  readonly privateDict: PrivateDict;
}

/** A float operand's nibbles as PDF.js spells them (nibble 13 is `null`, which its string concatenation writes out). */
const FLOAT_NIBBLES = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", ".", "E", "E-", "null", "-"];

class CffParser {
  /** A copy: PDF.js repairs charstrings in place, and so does the walk here. */
  readonly bytes: Uint8Array;
  steps = 0;

  constructor(program: Uint8Array) {
    this.bytes = program.slice();
  }

  byte(pos: number): number {
    if (!Number.isInteger(pos) || pos < 0 || pos >= this.bytes.length) malformed("that reads past its end");
    return this.bytes[pos];
  }

  card16(pos: number): number {
    return (this.byte(pos) << 8) | this.byte(pos + 1);
  }

  /** PDF.js's `parseIndex`, with every offset inside the program. */
  index(pos: number): { items: Uint8Array[]; end: number } {
    const count = this.card16(pos);
    pos += 2;
    const items: Uint8Array[] = [];
    if (count === 0) return { items, end: pos };
    const offsetSize = this.byte(pos++);
    if (offsetSize < 1 || offsetSize > 4) malformed("with an INDEX offset size out of range");
    const startPos = pos + (count + 1) * offsetSize - 1;
    if (startPos + 1 > this.bytes.length) malformed("whose INDEX runs past its end");
    const offsets: number[] = [];
    for (let i = 0; i <= count; i++) {
      let offset = 0;
      for (let j = 0; j < offsetSize; j++) offset = offset * 256 + this.bytes[pos++];
      // PDF.js adds offsets as signed 32-bit shifts; the first must be 1, and none may go back.
      if (offset < 1 || offset > this.bytes.length || (i > 0 && startPos + offset < offsets[i - 1])) {
        malformed("with an INDEX offset out of range");
      }
      offsets.push(startPos + offset);
    }
    if (offsets[0] !== startPos + 1 || offsets[count] > this.bytes.length) {
      malformed("with an INDEX offset out of range");
    }
    for (let i = 0; i < count; i++) items.push(this.bytes.subarray(offsets[i], offsets[i + 1]));
    return { items, end: offsets[count] };
  }

  /** PDF.js's `parseDict` and `createDict`: the last valid entry of each known key, NaN entries dropped. */
  dict(data: Uint8Array, keys: Map<number, number>): DictValues {
    const values: DictValues = new Map();
    let pos = 0;
    const end = data.length;
    const operand = (): number => {
      const value = data[pos++];
      if (value === 30) {
        let text = "";
        while (pos < end) {
          const b = data[pos++];
          const high = b >> 4, low = b & 15;
          if (high === 15) break;
          text += FLOAT_NIBBLES[high];
          if (low === 15) break;
          text += FLOAT_NIBBLES[low];
        }
        return parseFloat(text);
      }
      if (value === 28) {
        if (pos + 2 > end) malformed("with a DICT operand past the DICT's end");
        const v = (data[pos] << 8) | data[pos + 1];
        pos += 2;
        return v >= 0x8000 ? v - 0x10000 : v;
      }
      if (value === 29) {
        if (pos + 4 > end) malformed("with a DICT operand past the DICT's end");
        const v = (data[pos] << 24) | (data[pos + 1] << 16) | (data[pos + 2] << 8) | data[pos + 3];
        pos += 4;
        return v;
      }
      if (value >= 32 && value <= 246) return value - 139;
      if (value >= 247 && value <= 254) {
        if (pos >= end) malformed("with a DICT operand past the DICT's end");
        const b = data[pos++];
        return value <= 250 ? (value - 247) * 256 + b + 108 : -((value - 251) * 256) - b - 108;
      }
      return NaN; // a reserved byte: PDF.js warns and reads NaN
    };
    let operands: number[] = [];
    while (pos < end) {
      let b = data[pos];
      if (b <= 21) {
        if (b === 12) {
          if (pos + 1 >= end) malformed("with a DICT cut in an operator");
          b = (b << 8) | data[++pos];
        }
        const type = keys.get(b);
        if (type !== undefined && operands.length > 0 && !operands.some((v) => isNaN(v))) {
          values.set(b, type === SCALAR ? operands[0] : operands);
        }
        operands = [];
        ++pos;
      } else operands.push(operand());
    }
    return values;
  }

  /** An offset entry as PDF.js uses it: absent, or a whole number inside the program. */
  offset(values: DictValues, key: number, what: string): number | undefined {
    const value = values.get(key);
    if (value === undefined) return undefined;
    if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value >= this.bytes.length) {
      malformed(`with a bad ${what} offset`);
    }
    return value;
  }

  /** PDF.js's `parsePrivateDict`: the local subroutines are all the text path depends on. */
  privateDict(values: DictValues): PrivateDict {
    const entry = values.get(PRIVATE);
    if (entry === undefined) return { subrs: null };
    // PDF.js drops a Private entry of another length and then fails on the missing dictionary.
    if (!Array.isArray(entry) || entry.length !== 2) malformed("with a malformed /Private entry");
    const [size, offset] = entry;
    if (!Number.isInteger(size) || !Number.isInteger(offset) || size < 0 || offset < 0) {
      malformed("with a malformed /Private entry");
    }
    if (size === 0 || offset >= this.bytes.length) return { subrs: null };
    if (offset + size > this.bytes.length) malformed("whose Private DICT runs past its end"); // PDF.js throws
    const dict = this.dict(this.bytes.subarray(offset, offset + size), PRIVATE_DICT_KEYS);
    const subrsOffset = dict.get(SUBRS);
    if (!subrsOffset) return { subrs: null };
    if (typeof subrsOffset !== "number" || !Number.isInteger(subrsOffset)) malformed("with a bad /Subrs offset");
    const at = offset + subrsOffset;
    if (at >= this.bytes.length) return { subrs: null };
    if (at < 0) malformed("with a bad /Subrs offset");
    return { subrs: this.index(at).items };
  }

  /** PDF.js's `CFFStrings.get`, including its off-by-one past the last string (undefined). */
  string(strings: string[], sid: number): string | undefined {
    standardStrings ??= STANDARD_STRINGS_TEXT.split(" ");
    if (sid >= 0 && sid <= 390) return standardStrings[sid];
    if (sid - 391 <= strings.length) return strings[sid - 391];
    return standardStrings[0];
  }

  /** PDF.js's `parseCharsets` for a program that is not CID-keyed: glyph names by glyph id. */
  charset(pos: number, count: number, strings: string[]): (string | undefined)[] {
    standardStrings ??= STANDARD_STRINGS_TEXT.split(" ");
    if (pos === 0) return standardStrings.slice(0, 229); // ISOAdobe: SIDs 0–228
    if (pos === 1 || pos === 2) return unsupported("a CFF program with an expert charset");
    return this.charsetData(pos, count, (sid) => this.string(strings, sid));
  }

  charsetData<T>(pos: number, count: number, entry: (id: number) => T): T[] {
    const format = this.byte(pos++);
    const charset: T[] = [entry(-1)];
    const length = count - 1;
    if (format === 0) {
      for (let i = 0; i < length; i++, pos += 2) charset.push(entry(this.card16(pos)));
    } else if (format === 1 || format === 2) {
      while (charset.length <= length) {
        let id = this.card16(pos);
        const n = format === 1 ? this.byte(pos + 2) : this.card16(pos + 2);
        pos += format === 1 ? 3 : 4;
        for (let i = 0; i <= n; i++) charset.push(entry(id++));
      }
    } else malformed("with an unknown charset format"); // PDF.js throws
    return charset;
  }

  /** PDF.js's `parseEncoding`: code → glyph id (keys in ascending order, as its for…in walks them). */
  encoding(pos: number, strings: string[], charset: (string | undefined)[]): Map<number, number> {
    const encoding = new Map<number, number>();
    if (pos === 1) return unsupported("a CFF program with the expert encoding");
    if (pos === 0) {
      standardEncoding ??= STANDARD_ENCODING.split(" ");
      for (let i = 0; i < charset.length; i++) {
        const index = standardEncoding.indexOf(charset[i] as string);
        if (index !== -1) encoding.set(index, i);
      }
      return encoding;
    }
    const dataStart = pos;
    const format = this.byte(pos++);
    if ((format & 0x7f) === 0) {
      const glyphs = this.byte(pos++);
      for (let i = 1; i <= glyphs; i++) encoding.set(this.byte(pos++), i);
    } else if ((format & 0x7f) === 1) {
      const ranges = this.byte(pos++);
      let gid = 1;
      for (let i = 0; i < ranges; i++) {
        const start = this.byte(pos++);
        const left = this.byte(pos++);
        for (let j = start; j <= start + left; j++) encoding.set(j, gid++);
      }
    } else malformed("with an unknown encoding format"); // PDF.js throws
    if (format & 0x80) {
      this.bytes[dataStart] &= 0x7f; // as PDF.js does, in case a charstring shares the byte
      const supplements = this.byte(pos++);
      for (let i = 0; i < supplements; i++) {
        const code = this.byte(pos++);
        const sid = this.card16(pos);
        pos += 2;
        encoding.set(code, charset.indexOf(this.string(strings, sid)));
      }
    }
    return new Map([...encoding].sort((a, b) => a[0] - b[0]));
  }

  /** PDF.js's `parseFDSelect`, which throws unless it gives one font dictionary per glyph. */
  fdSelect(pos: number, count: number): number[] {
    const format = this.byte(pos++);
    const select: number[] = [];
    if (format === 0) {
      for (let i = 0; i < count; i++) select.push(this.byte(pos++));
    } else if (format === 3) {
      const ranges = this.card16(pos);
      pos += 2;
      for (let i = 0; i < ranges; i++) {
        let first = this.card16(pos);
        if (i === 0 && first !== 0) first = 0;
        const fd = this.byte(pos + 2);
        const next = this.card16(pos + 3);
        pos += 3;
        for (let j = first; j < next; j++) {
          if (select.length >= count) malformed("whose FDSelect does not match its glyphs");
          select.push(fd);
        }
      }
    } else malformed("with an unknown FDSelect format");
    if (select.length !== count) malformed("whose FDSelect does not match its glyphs");
    return select;
  }

  /**
   * PDF.js's `parseCharString`, walked for its control flow and in-place repairs: the result
   * (valid or not) changes nothing PDF.js's text takes, but an operand that runs past its
   * charstring can make PDF.js's DataView throw, so that is refused here.
   */
  charString(
    state: CharStringState,
    data: Uint8Array | undefined,
    local: Uint8Array[] | null,
    global: Uint8Array[],
  ): boolean {
    if (!data || state.callDepth > MAX_SUBR_NESTING) return false;
    let stackSize = state.stackSize;
    const stack = state.stack;
    let length = data.length;
    if ((this.steps += length) > MAX_CHARSTRING_STEPS) unsupported("a CFF program too costly to check");
    for (let j = 0; j < length;) {
      const value = data[j++];
      let op: Op | undefined = undefined;
      if (value === 12) {
        const q = data[j++];
        if (q === 0) {
          data[j - 2] = 139;
          data[j - 1] = 22;
          stackSize = 0;
        } else op = ESCAPED_OPS[q];
      } else if (value === 28) {
        if (j + 2 > data.length) malformed("with a charstring operand past its end");
        const v = (data[j] << 8) | data[j + 1];
        stack[stackSize] = v >= 0x8000 ? v - 0x10000 : v;
        j += 2;
        stackSize++;
      } else if (value === 14) {
        if (stackSize >= 4) {
          stackSize -= 4;
          state.seac = true; // PDF.js analyses seac accents and stops here, marking the glyph invalid
          return false;
        }
        op = OPS[value];
      } else if (value >= 32 && value <= 246) {
        stack[stackSize] = value - 139;
        stackSize++;
      } else if (value >= 247 && value <= 254) {
        stack[stackSize] = value < 251 ? ((value - 247) << 8) + data[j] + 108 : -((value - 251) << 8) - data[j] - 108;
        j++;
        stackSize++;
      } else if (value === 255) {
        if (j + 4 > data.length) malformed("with a charstring operand past its end");
        stack[stackSize] = ((data[j] << 24) | (data[j + 1] << 16) | (data[j + 2] << 8) | data[j + 3]) / 65536;
        j += 4;
        stackSize++;
      } else if (value === 19 || value === 20) {
        state.hints += stackSize >> 1;
        if (state.hints === 0) {
          data.copyWithin(j - 1, j, -1);
          j -= 1;
          length -= 1;
          continue;
        }
        j += (state.hints + 7) >> 3;
        stackSize %= 2;
        op = OPS[value];
      } else if (value === 10 || value === 29) {
        const subrs = value === 10 ? local : global;
        if (!subrs) return false;
        const bias = subrs.length < 1240 ? 107 : subrs.length < 33900 ? 1131 : 32768;
        const subrNumber = stack[--stackSize] + bias;
        if (subrNumber < 0 || subrNumber >= subrs.length || isNaN(subrNumber)) return false;
        state.stackSize = stackSize;
        state.callDepth++;
        if (!this.charString(state, subrs[subrNumber], local, global)) return false;
        state.callDepth--;
        stackSize = state.stackSize;
        continue;
      } else if (value === 11) {
        state.stackSize = stackSize;
        return true;
      } else if (value === 0 && j === data.length) {
        data[j - 1] = 14;
        op = OPS[14];
      } else if (value === 9) {
        data.copyWithin(j - 1, j, -1);
        j -= 1;
        length -= 1;
        continue;
      } else op = OPS[value];
      if (op) {
        const [min, flags, delta, fn] = op;
        if (flags & STEM) {
          state.hints += stackSize >> 1;
          if (value === 3 || value === 23) state.hasVStems = true;
          else if (state.hasVStems && (value === 1 || value === 18)) data[j - 1] = value === 1 ? 3 : 23;
        }
        if (stackSize < min) {
          if (stackSize === 0) {
            data[j - 1] = 14;
            return true;
          }
          return false;
        }
        if (state.firstStackClearing && flags & SC) {
          state.firstStackClearing = false;
          stackSize -= min;
          if (stackSize >= 2 && flags & STEM) stackSize %= 2;
          // (PDF.js takes the glyph's width from the stack here; the text path does not use it.)
        }
        if (flags & DELTA) {
          if (fn) fn(stack, stackSize);
          stackSize += delta!;
        } else if (flags & (SC | RESET)) stackSize = 0;
      }
    }
    if (length < data.length) data.fill(14, length);
    state.stackSize = stackSize;
    return true;
  }
}

interface CharStringState {
  callDepth: number;
  stackSize: number;
  stack: number[];
  hints: number;
  firstStackClearing: boolean;
  seac: boolean;
  hasVStems: boolean;
}

/**
 * Reads a font's /FontFile3 program as PDF.js's `CFFFont` does for the text, or refuses it
 * (`Unsupported`): bare CFF, or OpenType (`OTTO`) whose CFF table PDF.js converts the same way — a
 * simple font's always, a Type 0 font's when the table is CID-keyed (otherwise PDF.js rebuilds
 * the OpenType font, which this reader does not follow). A simple font's CFF must not be CID-keyed.
 */
export function readCffProgram(program: Uint8Array, composite: boolean): CffProgram {
  let read: CffProgram;
  if (latin1(program.subarray(0, 4)) === "OTTO") {
    // PDF.js parses the table once on its own, then again in `CFFFont`, on the bytes its first
    // parse repaired in place.
    read = parseCff(parseCff(openTypeCffTable(program)).repaired).result;
    if (composite && !read.cid) return unsupported("a Type0 font's OpenType program that is not CID-keyed");
  } else {
    // PDF.js's `isCFFFile` decides the program is CFF by these bytes; one shifted by leading bytes is left to it.
    if (program.length < 4 || program[0] !== 1 || program[3] < 1 || program[3] > 4) {
      return malformed("that does not start with a CFF header");
    }
    read = parseCff(program).result;
  }
  if (!composite && read.cid) return unsupported("a simple font with a CID-keyed CFF program");
  return read;
}

/**
 * Whether a TrueType or OpenType program has a CFF table where PDF.js's `readTables` would find
 * one (an entry with a length); a table directory that runs past the program is refused.
 */
export function hasCffTable(font: Uint8Array): boolean {
  if (font.length < 12) return unsupported("a TrueType program cut short");
  const numTables = (font[4] << 8) | font[5];
  if (12 + 16 * numTables > font.length) {
    return unsupported("a TrueType program whose table directory runs past its end");
  }
  for (let i = 0; i < numTables; i++) {
    const at = 12 + 16 * i;
    const length = font[at + 12] | font[at + 13] | font[at + 14] | font[at + 15];
    if (latin1(font.subarray(at, at + 4)) === "CFF " && length !== 0) return true;
  }
  return false;
}

/** The OpenType table names PDF.js's `checkAndRepair` keeps. */
const OPENTYPE_TABLES = [
  "OS/2",
  "cmap",
  "head",
  "hhea",
  "hmtx",
  "maxp",
  "name",
  "post",
  "loca",
  "glyf",
  "fpgm",
  "prep",
  "cvt ",
  "CFF ",
];

/**
 * An OpenType program's CFF table as PDF.js's `readTables` finds it: the last directory entry of
 * that tag with a length, after its writes into every "head" entry's data (which may overlap it).
 */
function openTypeCffTable(font: Uint8Array): Uint8Array {
  const bytes = font.slice();
  if (bytes.length < 12) unsupported("an OpenType program cut short");
  const numTables = (bytes[4] << 8) | bytes[5];
  if (12 + 16 * numTables > bytes.length) unsupported("an OpenType program whose table directory runs past its end");
  const uint32 = (at: number) =>
    ((bytes[at] << 24) | (bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3]) >>> 0;
  let cff: [number, number] | null = null;
  for (let i = 0; i < numTables; i++) {
    const at = 12 + 16 * i;
    const tag = latin1(bytes.subarray(at, at + 4));
    const offset = uint32(at + 8), length = uint32(at + 12);
    if (tag === "head") {
      // `file.getBytes(0)` reads to the end; writes past the data are dropped, as a typed array drops them.
      const data = bytes.subarray(Math.min(offset, bytes.length), length === 0 ? bytes.length : offset + length);
      data[8] =
        data[9] =
        data[10] =
        data[11] =
          0;
      data[17] |= 0x20;
    }
    if (!OPENTYPE_TABLES.includes(tag) || length === 0 || tag !== "CFF ") continue;
    if (offset + length > bytes.length) unsupported("an OpenType program whose CFF table runs past its end");
    cff = [offset, offset + length];
  }
  if (cff === null) return unsupported("an OpenType program without a CFF table");
  return bytes.subarray(cff[0], cff[1]);
}

/** PDF.js's `CFFParser.parse` and `CFFFont`'s built-in encoding; `repaired`: the program after its repairs. */
function parseCff(program: Uint8Array): { result: CffProgram; repaired: Uint8Array } {
  if (program.length < 4 || program[0] !== 1 || program[3] < 1 || program[3] > 4) {
    return malformed("that does not start with a CFF header");
  }
  const parser = new CffParser(program);
  const names = parser.index(program[2]);
  const topDicts = parser.index(names.end);
  const stringIndex = parser.index(topDicts.end);
  const globalSubrs = parser.index(stringIndex.end);
  if (topDicts.items.length === 0) malformed("without a Top DICT");
  const top = parser.dict(topDicts.items[0], TOP_DICT_KEYS);
  const strings = stringIndex.items.map(latin1);
  const topPrivate = parser.privateDict(top);
  const cid = top.has(ROS);
  const charStringsAt = parser.offset(top, CHAR_STRINGS, "/CharStrings");
  if (!charStringsAt) malformed("without /CharStrings");
  const charStrings = parser.index(charStringsAt).items;
  if (charStrings.length === 0) malformed("without glyphs");
  const matrix = top.get(FONT_MATRIX) ?? IDENTITY_MATRIX;
  // PDF.js rescales widths by 0.001 / matrix[0] and glyph advances by matrix[0]; a mirrored,
  // degenerate or cut matrix is left to it.
  if (!Array.isArray(matrix) || matrix.length !== 6 || !(matrix[0] > 0) || !Number.isFinite(matrix[0])) {
    return unsupported("a CFF program with an unusual /FontMatrix");
  }

  let builtInEncoding: string[] | null = null;
  let fdArray: FontDict[] = [];
  let fdSelect: number[] | null = null;
  if (cid) {
    const fdArrayAt = parser.offset(top, FD_ARRAY, "/FDArray");
    if (fdArrayAt === undefined) malformed("without /FDArray");
    fdArray = parser.index(fdArrayAt).items.map((raw) => {
      const values = parser.dict(raw, TOP_DICT_KEYS);
      return { values, privateDict: parser.privateDict(values) };
    });
    const charsetAt = parser.offset(top, CHARSET, "charset") ?? 0;
    if (charsetAt > 2) parser.charsetData(charsetAt, charStrings.length, (id) => id);
    const fdSelectAt = parser.offset(top, FD_SELECT, "/FDSelect");
    if (fdSelectAt === undefined) malformed("without /FDSelect");
    fdSelect = parser.fdSelect(fdSelectAt, charStrings.length);
  } else {
    const charset = parser.charset(parser.offset(top, CHARSET, "charset") ?? 0, charStrings.length, strings);
    charset[0] = ".notdef";
    const encoding = parser.encoding(parser.offset(top, ENCODING, "/Encoding") ?? 0, strings, charset);
    const map: string[] = [];
    for (const [code, glyphId] of encoding) {
      if (glyphId >= 0) {
        const name = charset[glyphId];
        if (name) map[code] = name;
      }
    }
    if (map.length > 0) builtInEncoding = map;
  }

  for (let i = 0; i < charStrings.length; i++) {
    const state: CharStringState = {
      callDepth: 0,
      stackSize: 0,
      stack: [],
      hints: 0,
      firstStackClearing: true,
      seac: false,
      hasVStems: false,
    };
    let local = topPrivate.subrs;
    let valid = true;
    if (fdSelect && fdArray.length) {
      const fd = fdSelect[i];
      if (fd >= fdArray.length) valid = false;
      else local = fdArray[fd].privateDict.subrs;
    }
    if (valid) parser.charString(state, charStrings[i], local, globalSubrs.items);
  }
  return { result: { cid, builtInEncoding, fontMatrix: matrix }, repaired: parser.bytes };
}
