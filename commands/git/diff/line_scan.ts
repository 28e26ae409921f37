/**
 * The byte-level work of a line diff (line_diff.ts) in a small WebAssembly module: finding the
 * lines, hashing them, numbering equal lines (xdiff's classifier, bytes compared on every hash
 * hit), then the whole diff (xdiff's clean-up, search, sliding, script) and the patch. A one-shot
 * pterm process runs these loops once, over megabytes: JavaScript would run them mostly in its
 * interpreter and baseline tiers and then spend more CPU compiling them with its optimizing
 * compilers for a run already over; WebAssembly runs them compiled from the first byte. Long loops
 * are cut into calls (CHUNK) so the optimized code V8 compiles meanwhile is used by later calls.
 *
 * The module's source is line_scan.wat (WebAssembly text, beside this file); `deno task build-wasm`
 * assembles it into the bytes carried here. It imports nothing and can do nothing but read and
 * write its own memory.
 */

// ---- memory layout and xdiff's constants (written out in line_scan.wat, shared with line_diff.ts) ----

/** Where the patch writer finds git's "\ No newline at end of file" line (written there by LineScan). */
export const MARKER_AT = 16;

/** Room before the first file: the `lines` cursor (0), the ASCII bits (4), the marker (16). */
export const FIRST_FILE_AT = 64;

/** git's line after a last line without its newline. */
export const NO_NEWLINE_MARKER = "\n\\ No newline at end of file\n";

/** git's indent heuristic (xdiffi.c), shared with line_diff.ts's JavaScript version. */
export const INDENT = {
  MAX_INDENT: 200,
  MAX_BLANKS: 20,
  START_OF_FILE_PENALTY: 1,
  END_OF_FILE_PENALTY: 21,
  TOTAL_BLANK_WEIGHT: -30,
  POST_BLANK_WEIGHT: 6,
  RELATIVE_INDENT_PENALTY: -4,
  RELATIVE_INDENT_WITH_BLANK_PENALTY: 10,
  RELATIVE_OUTDENT_PENALTY: 24,
  RELATIVE_OUTDENT_WITH_BLANK_PENALTY: 17,
  RELATIVE_DEDENT_PENALTY: 23,
  RELATIVE_DEDENT_WITH_BLANK_PENALTY: 17,
  INDENT_WEIGHT: 60,
  INDENT_HEURISTIC_MAX_SLIDING: 100,
} as const;

/** Where `scoreSplit` adds up a split's [effective indent, penalty] (two i32). */
export const SCORE_AT = 48;

/** xdiff's search constants, shared with line_diff.ts's JavaScript version. */
export const SEARCH = {
  XDL_MAX_EQLIMIT: 1024,
  XDL_MAX_COST_MIN: 256,
  XDL_HEUR_MIN_COST: 256,
  XDL_SNAKE_CNT: 20,
  XDL_K_HEUR: 4,
  XDL_LINE_MAX: 0x7fffffff,
} as const;

/** xdiff's cheap square root: the power of two near √n. */
export function bogoSqrt(n: number): number {
  let i = 1;
  for (; n > 0; n = Math.floor(n / 4)) i *= 2;
  return i;
}

/** xdiff's constants for xdl_clean_mmatch, shared with line_diff.ts's JavaScript version. */
export const SIMSCAN_WINDOW = 100;
export const KPDIS_RUN = 4;

interface Exports {
  readonly memory: WebAssembly.Memory;
  count(p: number, end: number): number;
  lines(base: number, p: number, end: number, starts: number, hashes: number, line: number, limit: number): number;
  classify(...args: number[]): number;
  copyLines(out: number, base: number, starts: number, from: number, to: number, prefix: number): number;
  patch(...args: number[]): number;
  common(a: number, b: number, limit: number, stride: number): number;
  discard(...args: number[]): number;
  script(changed1: number, count1: number, changed2: number, count2: number, out: number): number;
  compact(...args: number[]): void;
  search(...args: number[]): void;
}

/**
 * The module, as `deno task build-wasm` assembles it from line_scan.wat (a test holds the two
 * equal). Carried assembled: pterm would otherwise need an assembler and its CPU at every start.
 */
export const LINE_SCAN_MODULE = [
  "AGFzbQEAAAABkQENYAJ/fwF/YAd/f39/f39/AX9gA39/fwF/YA1/f39/f39/f39/f39/AX9gBn9/f39/fwF/YAx/f39/f39/f39/",
  "f38Bf2AEf39/fwF/YAl/f39/f39/f38Bf2AFf39/f38Bf2AEf39/fwBgB39/f39/f38AYAt/f39/f39/f39/fwBgDX9/f39/f39/",
  "f39/f38AAxQTAAECAwQAAgEABQYGBwgCCQoLDAUDAQABB8QBFAZtZW1vcnkCAAVjb3VudAAABWxpbmVzAAEEc2FtZQACCGNsYXNz",
  "aWZ5AAMJY29weUxpbmVzAAQHZGVjaW1hbAAFBXJhbmdlAAYDcnVuAAcKdXRmOFByZWZpeAAIBXBhdGNoAAkGY29tbW9uAAoPY2xl",
  "YW5NdWx0aU1hdGNoAAsHZGlzY2FyZAAMBnNjcmlwdAANBmluZGVudAAOCnNjb3JlU3BsaXQADwdjb21wYWN0ABAFc3BsaXQAEQZz",
  "ZWFyY2gAEgrsNhNkAQN/AkADQCAAIAFPDQEgBCAAKAIAciEEIAAoAgBBipSo0ABzIQMgAiADQf/+/fsHcUH//v37B2ogA3JB//79",
  "+wdyQX9zaWohAiAAQQRqIQAMAAsLQQRBBCgCACAEcjYCACACC80CAQV/QcW78oh4IQcCQANAIAEgAk8NASABKAIAIQggASgCAEGK",
  "lKjQAHMhCSAJQf/+/fsHcUH//v37B2ogCXJB//79+wdyQX9zIgkEQCAJaEEDdiEKQX9BGCAKQQhsa3YhCyAHIAggC3FzQQ13QbHz",
  "3fF5bCEHIAcgB0EQdnNB65Svr3hsIQcgBCAFQQJ0aiAHIAdBDXZzNgIAIAMgBUECdGpBBGogASAKakEBaiIBIABrNgIAIAVBAWoh",
  "BUHFu/KIeCEHIAEgBk8NAgUgAiABayEKIApBBEkEQEF/QSAgCkEIbGt2IQsFQX8hCwsgByAIIAtxc0ENd0Gx893xeWwhByABQQRq",
  "IQEgASACTwRAIAcgB0EQdnNB65Svr3hsIQcgBCAFQQJ0aiAHIAdBDXZzNgIAIAVBAWohBSACIQELCwwACwtBACABNgIAIAULYwEB",
  "fwJAA0AgA0EEaiACSw0BIAAgA2ooAgAgASADaigCAEcEQEEADwsgA0EEaiEDDAALCwJAA0AgAyACTw0BIAAgA2otAAAgASADai0A",
  "AEcEQEEADwsgA0EBaiEDDAALC0EBC9YCAQZ/QX8gCHYhEgJAA0AgAyAETw0BIAEgA0ECdGooAgAgAGohDSABIANBAnRqQQRqKAIA",
  "IABqIA1rIQ4gAiADQQJ0aigCACEPIA9BsfPd8XlsIAh2IRACQANAIAcgEEEDdGooAgAiEUUEQCAGIBBBA3RqIA82AgAgByAQQQN0",
  "aiALQQFqNgIAIAkgC0ECdGogDTYCACAKIAtBAnRqIA42AgAgBSADQQJ0aiALNgIAIAshESALQQFqIQsgDCARQQJ0aiAMIBFBAnRq",
  "KAIAQQFqNgIADAILIBFBAWshESAGIBBBA3RqKAIAIA9GBEAgCiARQQJ0aigCACAORgRAIAkgEUECdGooAgAgDSAOEAIEQCAFIANB",
  "AnRqIBE2AgAgDCARQQJ0aiAMIBFBAnRqKAIAQQFqNgIADAQLCwsgEEEBaiAScSEQDAALCyADQQFqIQMMAAsLIAsLYAECfwJAA0Ag",
  "AyAETw0BIAIgA0ECdGooAgAgAWohBiACIANBAnRqQQRqKAIAIAFqIAZrIQcgACAFOgAAIABBAWogBiAH/AoAACAAQQFqIAdqIQAg",
  "A0EBaiEDDAALCyAAC1QBA39BASECIAEhAwJAA0AgA0EKSQ0BIANBCm4hAyACQQFqIQIMAAsLIAAgAmoiBCEDA0AgBEF/aiEEIAQg",
  "AUEKcEEwajoAACABQQpuIgENAAsgAws2ACAAIAFBAWsgASACRRsQBSEAIAJBAUcEQCAAQQBqQSw6AAAgAEEBaiEAIAAgAhAFIQAL",
  "IAALOwAgAyAETgRAIAAPCyAAIAEgAiADIAQgBRAEIQAgBEEBayAGRgRAIABBEEEd/AoAACAAQR1qIQALIAAL5AIBBH8CQANAIAAg",
  "AU8NASAALQAAIQIgAEEBai0AAEEAIABBAWogAUkbIQMgAEECai0AAEEAIABBAmogAUkbIQRBACEFIAJBgAFJBEBBASEFBSACQeAB",
  "cUHAAUYEQCADQcABcUGAAUYgAkH+AXFBwAFHcQRAQQIhBQsFIAJB8AFxQeABRgRAIANBwAFxQYABRiAEQcABcUGAAUZxIAJB4AFG",
  "IANB4AFxQYABRnFFcSACQe0BRiADQeABcUGgAUZxRXEgAkHvAUYgA0G/AUZxIARB/gFxQb4BRnFFcQRAQQMhBQsFIAJB+AFxQfAB",
  "RgRAIANBwAFxQYABRiAEQcABcUGAAUZxIABBA2ogAUkgAEEDai0AAEHAAXFBgAFGcXEgAkHwAUYgA0HwAXFBgAFGcUVxIAJB9AFG",
  "IANBjwFLcUVxIAJB9AFNcQRAQQQhBQsLCwsLIAVFDQEgACAFaiEADAALCyAAC9AGAQ1/QX8hEwJAA0AgDCABTw0BIAwhDQJAA0Ag",
  "DUEBaiABTw0BIAAgDUEBakEEdGpBAGooAgAgACANQQR0akEAaigCACAAIA1BBHRqQQhqKAIAamsgAkEBdEoNASANQQFqIQ0MAAsL",
  "IAAgDEEEdGpBAGooAgAgAmsiDkEAIA5BAEobIQ4gACAMQQR0akEEaigCACACayIPQQAgD0EAShshDyAAIA1BBHRqQQBqKAIAIAAg",
  "DUEEdGpBCGooAgBqIAJqIhAgBSAQIAVIGyEQIAAgDUEEdGpBBGooAgAgACANQQR0akEMaigCAGogAmoiESAJIBEgCUgbIRECQANA",
  "IBIgDk4NASADIAQgEkECdGooAgBqLQAAIhZBIHJB4QBrQRpJIBZB3wBGciAWQSRGcgRAIBIhEwsgEkEBaiESDAALCyALQQBqQcAA",
  "OgAAIAtBAWpBwAA6AAAgC0ECakEgOgAAIAtBA2pBLToAACALQQRqIQsgCyAOQQFqIBAgDmsQBiELIAtBAGpBIDoAACALQQFqQSs6",
  "AAAgC0ECaiELIAsgD0EBaiARIA9rEAYhCyALQQBqQSA6AAAgC0EBakHAADoAACALQQJqQcAAOgAAIAtBA2ohCyATQQBOBEAgBCAT",
  "QQJ0aigCACADaiEXIAQgE0EBakECdGooAgAgA2oiGCAXQdAAaiAYIBdB0ABqSRshGAJAA0AgGCAXTQ0BIBhBAWstAAAiFkEgRyAW",
  "QQlrQQVPcQ0BIBhBf2ohGAwACwsgFyAYEAghGCALQSA6AAAgC0EBaiAXIBggF2v8CgAAIAsgGCAXa0EBamohCwsgC0EAakEKOgAA",
  "IAtBAWohCyAOIRUgDCEUAkADQCAUIA1KDQEgCyADIAQgFSAAIBRBBHRqQQBqKAIAQSAgBhAHIQsgACAUQQR0akEAaigCACAAIBRB",
  "BHRqQQhqKAIAaiEWIAsgAyAEIAAgFEEEdGpBAGooAgAgFkEtIAYQByELIAsgByAIIAAgFEEEdGpBBGooAgAgACAUQQR0akEEaigC",
  "ACAAIBRBBHRqQQxqKAIAakErIAoQByELIBYhFSAUQQFqIRQMAAsLIAsgAyAEIBUgEEEgIAYQByELIA1BAWohDAwACwsgCws3AQF/",
  "AkADQCAEIAJODQEgACgCACABKAIARw0BIAAgA2ohACABIANqIQEgBEEBaiEEDAALCyAEC+cBAQZ/IAEgAmtB5ABKBEAgAUHkAGsh",
  "AgsgAyABa0HkAEoEQCABQeQAaiEDC0EBIQdBASEEAkADQCABIARrIAJIDQEgACABaiAEay0AACIFRQRAIAZBAWohBgUgBUECRw0C",
  "IAdBAWohBwsgBEEBaiEEDAALCyAGRQRAQQAPC0EBIQlBASEEAkADQCABIARqIANKDQEgACABaiAEai0AACIFRQRAIAhBAWohCAUg",
  "BUECRw0CIAlBAWohCQsgBEEBaiEEDAALCyAIRQRAQQAPCyAIIAZqIQggCSAHaiEJIAlBBGwgCSAIakgL/gEBBH8gAiEJAkADQCAJ",
  "IANKDQEgASAAIAlBAnRqKAIAQQJ0aigCACEKIAUgCWpBAEECQQEgCiAEThsgCkUbOgAAIAlBAWohCQwACwsgAiEJAkADQCAJIANK",
  "DQEgBSAJai0AACIMQQFGBEAgBiALQQJ0aiAJNgIAIAcgC0ECdGogACAJQQJ0aigCADYCACALQQFqIQsFIAxBAkYEQCAFIAkgAiAD",
  "EAsEQCAIIAlqQQFqQQE6AAAFIAYgC0ECdGogCTYCACAHIAtBAnRqIAAgCUECdGooAgA2AgAgC0EBaiELCwUgCCAJakEBakEBOgAA",
  "CwsgCUEBaiEJDAALCyALC8ABAQV/AkADQCAFIAFIIAYgA0hyRQ0BIAAgBWpBAWotAAAgAiAGakEBai0AAHIEQCAFIQcgBiEIAkAD",
  "QCAAIAVqQQFqLQAARQ0BIAVBAWohBQwACwsCQANAIAIgBmpBAWotAABFDQEgBkEBaiEGDAALCyAEIAc2AgAgBEEEaiAINgIAIARB",
  "CGogBSAHazYCACAEQQxqIAYgCGs2AgAgBEEQaiEEIAlBAWohCQUgBUEBaiEFIAZBAWohBgsMAAsLIAkLhQEBBH8gACABIAJBAnRq",
  "KAIAaiEDIAAgASACQQFqQQJ0aigCAGohBAJAA0AgAyAETw0BIAMtAAAiBUEgRgRAIAZBAWohBgUgBUEJRgRAIAZBCCAGQQdxa2oh",
  "BgUgBUEKa0EETwRAIAYPCwsLIAZByAFOBEBByAEPCyADQQFqIQMMAAsLQX8L5AIBC38gAyACTiIEBEBBfyEFBSAAIAEgAxAOIQUL",
  "QX8hByADQQFrIQsCQANAIAtBAEgNASAAIAEgCxAOIgdBf0cNASAGQQFqIQYgBkEURgRAQQAhBwwCCyALQX9qIQsMAAsLQX8hCSAD",
  "QQFqIQsCQANAIAsgAk4NASAAIAEgCxAOIglBf0cNASAIQQFqIQggCEEURgRAQQAhCQwCCyALQQFqIQsMAAsLIAdBf0YgBkVxBEAg",
  "CkEBaiEKCyAEBEAgCkEVaiEKCyAFQX9GBEAgCEEBaiEMCyAGIAxqIQ0gCkFiIA1sQQYgDGxqaiEKIAUgCSAFQX9HGyEOQTBBMCgC",
  "ACAOajYCACAOQX9HIAdBf0dxBEAgDiAHSgRAIApBCkF8IA0baiEKBSAOIAdIBEAgCUF/RyAJIA5KcQRAIApBEUEYIA0baiEKBSAK",
  "QRFBFyANG2ohCgsLCwtBNEE0KAIAIApqNgIAC7MJAQ9/AkADQCAAIAhqQQFqLQAARQ0BIAhBAWohCAwACwsCQANAIAUgCmpBAWot",
  "AABFDQEgCkEBaiEKDAALCwJAA0AgCCAHRwRAA0AgCCAHayEMQX8hDgJAA0BBACELIAdBAEoEQCABIAdBAWtBAnRqKAIAIAEgCEEB",
  "a0ECdGooAgBGBEAgB0F/aiEHIAAgB2pBAWpBAToAACAIQX9qIQggACAIakEBakEAOgAAAkADQCAAIAdqLQAARQ0BIAdBf2ohBwwA",
  "CwtBASELCwsgC0UNAUEAIQsgCUVFBEAgCUEBayIKIQkCQANAIAUgCWotAABFDQEgCUF/aiEJDAALC0EBIQsLIAtFBEAACwwACwsg",
  "CCENIAogCUoEQCAIIQ4LAkADQEEAIQsgCCACSARAIAEgB0ECdGooAgAgASAIQQJ0aigCAEYEQCAAIAdqQQFqQQA6AAAgB0EBaiEH",
  "IAAgCGpBAWpBAToAACAIQQFqIQgCQANAIAAgCGpBAWotAABFDQEgCEEBaiEIDAALC0EBIQsLCyALRQ0BQQAhCyAKIAZHBEAgCkEB",
  "aiIJIQoCQANAIAUgCmpBAWotAABFDQEgCkEBaiEKDAALC0EBIQsLIAtFBEAACyAKIAlKBEAgCCEOCwwACwsgDCAIIAdrRw0ACyAI",
  "IA1HBEAgDkF/RwRAAkADQCAKIAlHDQFBACELIAdBAEoEQCABIAdBAWtBAnRqKAIAIAEgCEEBa0ECdGooAgBGBEAgB0F/aiEHIAAg",
  "B2pBAWpBAToAACAIQX9qIQggACAIakEBakEAOgAAAkADQCAAIAdqLQAARQ0BIAdBf2ohBwwACwtBASELCwsgC0UEQAALQQAhCyAJ",
  "RUUEQCAJQQFrIgohCQJAA0AgBSAJai0AAEUNASAJQX9qIQkMAAsLQQEhCwsgC0UEQAALDAALCwUgDSEPIAggDGtBAWsgD0oEQCAI",
  "IAxrQQFrIQ8LIAhB5ABrIA9KBEAgCEHkAGshDwtBfyEQQQAhEUEAIRICQANAIA8gCEoNAUEwQQA2AgBBNEEANgIAIAMgBCACIA8Q",
  "DyADIAQgAiAPIAxrEA9BMCgCACETQTQoAgAhFCATIBFKIBMgEUhrQTxsIBQgEmtqIRUgEEF/RiAVQQBMcgRAIBMhESAUIRIgDyEQ",
  "CyAPQQFqIQ8MAAsLAkADQCAIIBBMDQFBACELIAdBAEoEQCABIAdBAWtBAnRqKAIAIAEgCEEBa0ECdGooAgBGBEAgB0F/aiEHIAAg",
  "B2pBAWpBAToAACAIQX9qIQggACAIakEBakEAOgAAAkADQCAAIAdqLQAARQ0BIAdBf2ohBwwACwtBASELCwsgC0UEQAALQQAhCyAJ",
  "RUUEQCAJQQFrIgohCQJAA0AgBSAJai0AAEUNASAJQX9qIQkMAAsLQQEhCwsgC0UEQAALDAALCwsLC0EAIQsgCCACRwRAIAhBAWoi",
  "ByEIAkADQCAAIAhqQQFqLQAARQ0BIAhBAWohCAwACwtBASELCyALRQ0BQQAhCyAKIAZHBEAgCkEBaiIJIQoCQANAIAUgCmpBAWot",
  "AABFDQEgCkEBaiEKDAALC0EBIQsLIAtFBEAACwwACwsLzwwBF38gASAFayELIAIgBGshDCABIARrIg0iECERIAIgBWsiDiISIRMg",
  "DSAOa0EBcSEPIAYgDUECdGogATYCACAHIA5BAnRqIAI2AgBBASEUA0BBACEVIBAgC0oEQCAQQX9qIRAgBiAQQQFrQQJ0akF/NgIA",
  "BSAQQQFqIRALIBEgDEgEQCARQQFqIREgBiARQQFqQQJ0akF/NgIABSARQX9qIRELIBEhFgJAA0AgFiAQSA0BIAYgFkEBa0ECdGoo",
  "AgAgBiAWQQFqQQJ0aigCAE4EQCAGIBZBAWtBAnRqKAIAQQFqIRcFIAYgFkEBakECdGooAgAhFwsgFyEZIBcgFmshGAJAA0AgFyAC",
  "Tg0BIBggBU4NASAAIBdBAnRqKAIAIAMgGEECdGooAgBHDQEgF0EBaiEXIBhBAWohGAwACwsgFyAZa0EUSgRAQQEhFQsgBiAWQQJ0",
  "aiAXNgIAIA8gEiAWTHEgFiATTHEEQCAHIBZBAnRqKAIAIBdMBEAgCiAXNgIAIApBBGogGDYCACAKQQhqQQE2AgAgCkEMakEBNgIA",
  "DwsLIBZBfmohFgwACwsgEiALSgRAIBJBf2ohEiAHIBJBAWtBAnRqQf////8HNgIABSASQQFqIRILIBMgDEgEQCATQQFqIRMgByAT",
  "QQFqQQJ0akH/////BzYCAAUgE0F/aiETCyATIRYCQANAIBYgEkgNASAHIBZBAWtBAnRqKAIAIAcgFkEBakECdGooAgBIBEAgByAW",
  "QQFrQQJ0aigCACEXBSAHIBZBAWpBAnRqKAIAQQFrIRcLIBchGSAXIBZrIRgCQANAIBcgAUwNASAYIARMDQEgACAXQQFrQQJ0aigC",
  "ACADIBhBAWtBAnRqKAIARw0BIBdBf2ohFyAYQX9qIRgMAAsLIBkgF2tBFEoEQEEBIRULIAcgFkECdGogFzYCACAPRSAQIBZMcSAW",
  "IBFMcQRAIBcgBiAWQQJ0aigCAEwEQCAKIBc2AgAgCkEEaiAYNgIAIApBCGpBATYCACAKQQxqQQE2AgAPCwsgFkF+aiEWDAALCyAI",
  "RQRAIBUgFEGAAkpxBEBBACEaIBEhFgJAA0AgFiAQSA0BIBYgDWsgDSAWayAWIA1KGyEbIAYgFkECdGooAgAiFyAWayEYIBcgAWsg",
  "GCAEa2ogG2shHCAcQQQgFGxKIBwgGkpxIAFBFGogF0xxIBcgAkhxIARBFGogGExxIBggBUhxBEBBASEdAkADQCAAIBcgHWtBAnRq",
  "KAIAIAMgGCAda0ECdGooAgBHDQEgHUEURgRAIBwhGiAKIBc2AgAgCkEEaiAYNgIADAILIB1BAWohHQwACwsLIBZBfmohFgwACwsg",
  "GkEASgRAIApBCGpBATYCACAKQQxqQQA2AgAPCyATIRYCQANAIBYgEkgNASAWIA5rIA4gFmsgFiAOShshGyAHIBZBAnRqKAIAIhcg",
  "FmshGCACIBdrIAUgGGtqIBtrIRwgHEEEIBRsSiAcIBpKcSABIBdIcSAXIAJBFGtMcSAEIBhIcSAYIAVBFGtMcQRAQQAhHQJAA0Ag",
  "ACAXIB1qQQJ0aigCACADIBggHWpBAnRqKAIARw0BIB1BE0YEQCAcIRogCiAXNgIAIApBBGogGDYCAAwCCyAdQQFqIR0MAAsLCyAW",
  "QX5qIRYMAAsLIBpBAEoEQCAKQQhqQQA2AgAgCkEMakEBNgIADwsLIBQgCU4EQEF/IR5BfyEfIBEhFgJAA0AgFiAQSA0BIAYgFkEC",
  "dGooAgAiFyACIBcgAkgbIhcgFmshGCAFIBhIBEAgBSAWaiEXIAUhGAsgHiAXIBhqSARAIBcgGGohHiAXIR8LIBZBfmohFgwACwtB",
  "/////wchIEH/////ByEhIBMhFgJAA0AgFiASSA0BIAcgFkECdGooAgAiFyABIBcgAUobIhcgFmshGCAYIARIBEAgBCAWaiEXIAQh",
  "GAsgFyAYaiAgSARAIBcgGGohICAXISELIBZBfmohFgwACwsgAiAFaiAgayAeIAEgBGprSARAIAogHzYCACAKQQRqIB4gH2s2AgAg",
  "CkEIakEBNgIAIApBDGpBADYCAA8LIAogITYCACAKQQRqICAgIWs2AgAgCkEIakEANgIAIApBDGpBATYCAA8LCyAUQQFqIRQMAAsL",
  "wgQBBn8gCyENIA1BAGpBADYCACANQQRqIAE2AgAgDUEIakEANgIAIA1BDGogAzYCACANQRBqQQA2AgAgDUEUaiENAkADQCANIAtG",
  "DQEgDUFsaiENIA1BAEECdGooAgAhDiANQQFBAnRqKAIAIQ8gDUECQQJ0aigCACEQIA1BA0ECdGooAgAhESANQQRBAnRqKAIAIRIC",
  "QANAIA4gD0ggECARSHFFDQEgACAOQQJ0aigCACACIBBBAnRqKAIARw0BIA5BAWohDiAQQQFqIRAMAAsLAkADQCAOIA9IIBAgEUhx",
  "RQ0BIAAgD0EBa0ECdGooAgAgAiARQQFrQQJ0aigCAEcNASAPQX9qIQ8gEUF/aiERDAALCyAOIA9GBEACQANAIBAgEU4NASAHIAUg",
  "EEECdGooAgBqQQFqQQE6AAAgEEEBaiEQDAALCwUgECARRgRAAkADQCAOIA9ODQEgBiAEIA5BAnRqKAIAakEBakEBOgAAIA5BAWoh",
  "DgwACwsFIAAgDiAPIAIgECARIAggCSASIAogDBARIA1BAGogDEEAQQJ0aigCADYCACANQQRqIA82AgAgDUEIaiAMQQFBAnRqKAIA",
  "NgIAIA1BDGogETYCACANQRBqIAxBA0ECdGooAgA2AgAgDUEUaiENIA1BAGogDjYCACANQQRqIAxBAEECdGooAgA2AgAgDUEIaiAQ",
  "NgIAIA1BDGogDEEBQQJ0aigCADYCACANQRBqIAxBAkECdGooAgA2AgAgDUEUaiENCwsMAAsLCw==",
].join("");

let compiled: WebAssembly.Module | null = null;

/** A fresh instance (its own memory) for one diff. */
function instantiate(): Exports {
  if (!compiled) {
    const text = atob(LINE_SCAN_MODULE);
    const bytes = new Uint8Array(text.length);
    for (let k = 0; k < text.length; k++) bytes[k] = text.charCodeAt(k);
    compiled = new WebAssembly.Module(bytes);
  }
  return new WebAssembly.Instance(compiled).exports as unknown as Exports;
}

const PAGE = 65536;
/** "@@ -" + 2 ranges of at most 10+1+10 digits + " +" + " @@" + " " + an 80-byte function line + "\n", rounded up. */
const HUNK_HEADER_MAX = 160;
const CHUNK = 1 << 16;
const CHUNK_LINES = 4096;
const align = (n: number) => (n + 7) & ~7;

interface FileArrays {
  readonly ids: number;
  readonly counts: number;
  readonly dis: number;
  readonly changed: number;
  readonly kept: number;
  readonly keptIds: number;
}

/** Both files in WebAssembly memory, their lines found and numbered; the patch is then copied out of the same memory. */
export class LineScan {
  readonly #wasm: Exports;
  #bytes: Uint8Array = new Uint8Array(0);
  readonly aAt: number;
  readonly bAt: number;
  /** Line starts (relative to each file's first byte; one more than lines) and line numbers, copied out. */
  readonly aCount: number;
  readonly bCount: number;
  readonly classes: number;
  /** For each line number, how many lines of a (of b) have it. */
  get aCounts(): Int32Array {
    return this.#copy("aCounts", this.#a.counts, this.classes);
  }
  get bCounts(): Int32Array {
    return this.#copy("bCounts", this.#b.counts, this.classes);
  }
  /** Line starts (relative to each file's first byte; one more than lines) and line numbers, copied out. */
  get aStarts(): Int32Array {
    return this.#copy("aStarts", this.aStartsAt, this.aCount + 1);
  }
  get bStarts(): Int32Array {
    return this.#copy("bStarts", this.bStartsAt, this.bCount + 1);
  }
  get aIds(): Int32Array {
    return this.#copy("aIds", this.#a.ids, this.aCount);
  }
  get bIds(): Int32Array {
    return this.#copy("bIds", this.#b.ids, this.bCount);
  }
  /**
   * Arrays copied out of memory when JavaScript first asks (the whole diff in WebAssembly needs
   * none of them; the JavaScript fallback and writer do). Copies, so a later memory.grow (which
   * detaches every view of the memory) cannot empty them.
   */
  readonly #copies = new Map<string, Int32Array>();
  #copy(name: string, at: number, n: number): Int32Array {
    let copy = this.#copies.get(name);
    if (!copy) this.#copies.set(name, copy = new Int32Array(this.#bytes.buffer, at, n).slice());
    return copy;
  }
  /** Whether each file is all ASCII. */
  readonly aAscii: boolean;
  readonly bAscii: boolean;
  /** Where each file's line starts are in memory. */
  readonly aStartsAt: number;
  readonly bStartsAt: number;
  /** Where the patch written so far ends in memory. */
  outEnd: number;
  readonly #bLength: number;
  /** Where each file's arrays for the clean-up are in memory. */
  readonly #a: FileArrays;
  readonly #b: FileArrays;

  /**
   * Null when the memory cannot be had (files too large for 32-bit WebAssembly) or the engine runs
   * no WebAssembly: the caller does the same in JavaScript.
   */
  static of(a: Uint8Array, b: Uint8Array): LineScan | null {
    if (typeof WebAssembly === "undefined") return null;
    try {
      return new LineScan(a, b);
    } catch (error) {
      if (error instanceof RangeError || error instanceof WebAssembly.CompileError) return null;
      throw error;
    }
  }

  private constructor(a: Uint8Array, b: Uint8Array) {
    this.#wasm = instantiate();
    this.aAt = FIRST_FILE_AT;
    this.#bLength = b.length;
    this.bAt = align(this.aAt + a.length + 8);
    let top = align(this.bAt + b.length + 8);
    this.#reserve(top);
    this.#bytes.set(a, this.aAt);
    this.#bytes.set(b, this.bAt);
    for (let k = 0; k < NO_NEWLINE_MARKER.length; k++) this.#bytes[MARKER_AT + k] = NO_NEWLINE_MARKER.charCodeAt(k);
    const wasm = this.#wasm;
    // Long loops are cut into calls of CHUNK bytes (or lines): WebAssembly code is first compiled
    // quickly and plainly, and only a later call runs the optimized code compiled meanwhile.
    const chunks = (at: number, length: number, each: (p: number, end: number) => void) => {
      for (let p = at; p < at + length; p += CHUNK) each(p, Math.min(p + CHUNK, at + length));
    };
    const high = () => new Int32Array(this.#bytes.buffer, 4, 1);
    /** The file's lines (a last one without its newline counts), and whether every byte is ASCII. */
    const count = (at: number, length: number, bytes: Uint8Array): [number, boolean] => {
      let n = length > 0 && bytes[length - 1] !== 10 ? 1 : 0;
      high()[0] = 0;
      chunks(at, length, (p, end) => n += wasm.count(p, end));
      return [n, (high()[0] & 0x80808080) === 0];
    };
    const [aCount, aAscii] = count(this.aAt, a.length, a);
    const [bCount, bAscii] = count(this.bAt, b.length, b);
    this.aAscii = aAscii;
    this.bAscii = bAscii;
    let bits = 4;
    while (1 << bits < (aCount + bCount) * 2) bits++;
    const slots = 1 << bits;
    const at = (size: number) => {
      const here = top;
      top = align(top + size);
      return here;
    };
    this.aStartsAt = at((aCount + 1) * 4);
    const aHashes = at(aCount * 4);
    this.bStartsAt = at((bCount + 1) * 4);
    const bHashes = at(bCount * 4);
    const aIds = at(aCount * 4);
    const bIds = at(bCount * 4);
    const slotClass = at(slots * 8);
    const slotHash = slotClass + 4;
    const classAt = at((aCount + bCount) * 4);
    const classLength = at((aCount + bCount) * 4);
    const aCounts = at((aCount + bCount) * 4);
    const bCounts = at((aCount + bCount) * 4);
    // For `discard`: per line of each file its dis byte, flag and place among the kept lines.
    const aDis = at(aCount + 2);
    const bDis = at(bCount + 2);
    const aChanged = at(aCount + 2);
    const bChanged = at(bCount + 2);
    const aKept = at(aCount * 4);
    const bKept = at(bCount * 4);
    const aKeptIds = at(aCount * 4);
    const bKeptIds = at(bCount * 4);
    this.#a = { ids: aIds, counts: aCounts, dis: aDis, changed: aChanged, kept: aKept, keptIds: aKeptIds };
    this.#b = { ids: bIds, counts: bCounts, dis: bDis, changed: bChanged, kept: bKept, keptIds: bKeptIds };
    this.outEnd = top;
    this.#reserve(top + (a.length + b.length) / 2 + PAGE);
    const i32 = (where: number, n: number) => new Int32Array(this.#bytes.buffer, where, n);
    const lines = (base: number, length: number, starts: number, hashes: number) => {
      const end = base + length;
      let line = 0;
      for (let p = base; p < end; p = i32(0, 1)[0]) {
        line = wasm.lines(base, p, end, starts, hashes, line, Math.min(p + CHUNK, end));
      }
      i32(starts + line * 4, 1)[0] = length;
    };
    lines(this.aAt, a.length, this.aStartsAt, aHashes);
    lines(this.bAt, b.length, this.bStartsAt, bHashes);
    let next = 0;
    const classify = (base: number, starts: number, hashes: number, count: number, ids: number, counts: number) => {
      for (let i = 0; i < count; i += CHUNK_LINES) {
        next = wasm.classify(
          base,
          starts,
          hashes,
          i,
          Math.min(i + CHUNK_LINES, count),
          ids,
          slotHash,
          slotClass,
          32 - bits,
          classAt,
          classLength,
          next,
          counts,
        );
      }
    };
    classify(this.aAt, this.aStartsAt, aHashes, aCount, aIds, aCounts);
    classify(this.bAt, this.bStartsAt, bHashes, bCount, bIds, bCounts);
    this.classes = next;
    this.aCount = aCount;
    this.bCount = bCount;
  }

  /** Memory up to `end`, zeroed beyond what is written (a fresh memory is zero). */
  #reserve(end: number): void {
    if (end <= this.#bytes.length) return;
    const memory = this.#wasm.memory;
    const needed = Math.ceil((end - memory.buffer.byteLength) / PAGE);
    try {
      // Doubled if it can be: the patch grows by small steps.
      memory.grow(Math.max(needed, memory.buffer.byteLength / PAGE));
    } catch {
      memory.grow(needed); // near the 4 GiB of 32-bit memory: only what is needed (or RangeError)
    }
    this.#bytes = new Uint8Array(memory.buffer);
  }

  /**
   * The whole line diff on the numbers in memory, as line_diff.ts's `diffSides` + `changesOf` do
   * it in JavaScript: xdl_trim_ends, xdl_cleanup_records, xdl_recs_cmp's search (never minimal,
   * as git's default), xdl_change_compact on a's groups then b's, xdl_build_script. The changes
   * (four numbers each: i1, i2, chg1, chg2, in order), or null when the memory for the search
   * cannot be had (the caller does the same in JavaScript).
   */
  diff(): Int32Array | null {
    const wasm = this.#wasm;
    const a = this.#a;
    const b = this.#b;
    const { aCount, bCount } = this;
    const limit = Math.min(aCount, bCount);
    const head = wasm.common(a.ids, b.ids, limit, 4);
    const tail = wasm.common(a.ids + (aCount - 1) * 4, b.ids + (bCount - 1) * 4, limit - head, -4);
    const discard = (side: FileArrays, other: FileArrays, count: number) =>
      wasm.discard(
        side.ids,
        other.counts,
        head,
        count - tail - 1,
        Math.min(bogoSqrt(count), SEARCH.XDL_MAX_EQLIMIT),
        side.dis,
        side.kept,
        side.keptIds,
        side.changed,
      );
    const n1 = discard(a, b, aCount);
    const n2 = discard(b, a, bCount);
    const ndiags = n1 + n2 + 3;
    const kv = align(this.outEnd);
    const stack = align(kv + (2 * ndiags + 2) * 4);
    const split = align(stack + 20 * (n1 + n2 + 2)); // a box per split along the deepest path, and the first
    const changes = align(split + 16);
    try {
      this.#reserve(changes + 16 * (aCount + bCount + 1)); // at most one change per line
    } catch (error) {
      if (error instanceof RangeError) return null;
      throw error;
    }
    wasm.search(
      a.keptIds,
      n1,
      b.keptIds,
      n2,
      a.kept,
      b.kept,
      a.changed,
      b.changed,
      kv + (n2 + 1) * 4,
      kv + (ndiags + n2 + 1) * 4,
      Math.max(bogoSqrt(ndiags), SEARCH.XDL_MAX_COST_MIN),
      stack,
      split,
    );
    wasm.compact(a.changed, a.ids, aCount, this.aAt, this.aStartsAt, b.changed, bCount);
    wasm.compact(b.changed, b.ids, bCount, this.bAt, this.bStartsAt, a.changed, aCount);
    const n = wasm.script(a.changed, aCount, b.changed, bCount, changes);
    return new Int32Array(this.#bytes.buffer, changes, n * 4).slice();
  }

  /**
   * The whole patch body for `changes` (four numbers per change: i1, i2, chg1, chg2, in order)
   * with `context` lines, written in WebAssembly (the `patch` function above); `aNoEol`/`bNoEol`
   * is the index of a last line without its newline, or -1. A view of memory, valid until the
   * next write. RangeError when the memory it may need cannot be had.
   */
  patch(changes: Int32Array, context: number, aNoEol: number, bNoEol: number): Uint8Array {
    const n = changes.length / 4;
    const changesAt = align(this.outEnd);
    const start = align(changesAt + changes.length * 4);
    // Every line of a and of b at most once, each with its prefix; a header (at most ~140 bytes
    // with the function line) per hunk, at most one per change; the marker at most twice.
    const { aCount, bCount } = this;
    const bound = (this.bAt - this.aAt) + (this.#bLength + 8) + aCount + bCount + n * HUNK_HEADER_MAX +
      2 * NO_NEWLINE_MARKER.length;
    this.#reserve(start + bound);
    new Int32Array(this.#bytes.buffer, changesAt, changes.length).set(changes);
    const end = this.#wasm.patch(
      changesAt,
      n,
      context,
      this.aAt,
      this.aStartsAt,
      aCount,
      aNoEol,
      this.bAt,
      this.bStartsAt,
      bCount,
      bNoEol,
      start,
    );
    this.outEnd = end;
    return this.#bytes.subarray(start, end);
  }

  /** Lines [from, to) of file a (or b), each after `prefix`, appended to the patch. */
  lines(b: boolean, prefix: number, from: number, to: number): void {
    const starts = b ? this.bStarts : this.aStarts;
    this.#reserve(this.outEnd + (starts[to] - starts[from]) + (to - from));
    this.outEnd = this.#wasm.copyLines(
      this.outEnd,
      b ? this.bAt : this.aAt,
      b ? this.bStartsAt : this.aStartsAt,
      from,
      to,
      prefix,
    );
  }

  /** Bytes [start, end) of file a after `prefix` (a function line after `@@`). */
  bytesOfA(prefix: number, start: number, end: number): void {
    this.#reserve(this.outEnd + (end - start) + 1);
    this.#bytes[this.outEnd] = prefix;
    this.#bytes.copyWithin(this.outEnd + 1, this.aAt + start, this.aAt + end);
    this.outEnd += end - start + 1;
  }

  /** ASCII text of pterm's own (headers, markers). */
  ascii(text: string): void {
    this.#reserve(this.outEnd + text.length);
    const bytes = this.#bytes;
    let at = this.outEnd;
    for (let k = 0; k < text.length; k++) bytes[at++] = text.charCodeAt(k);
    this.outEnd = at;
  }

  /** The patch bytes [start, end) (a view: valid until the next write). */
  out(start: number, end: number): Uint8Array {
    return this.#bytes.subarray(start, end);
  }
}
