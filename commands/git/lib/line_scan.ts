/**
 * The byte-level loops of a line diff (line_diff.ts) as a small WebAssembly module: finding the
 * lines, hashing them, numbering equal lines (xdiff's classifier, bytes compared on every hash
 * hit) and copying lines into the patch. A one-shot pterm process runs these loops once, over
 * megabytes: JavaScript would run them mostly in its interpreter and baseline tiers, WebAssembly
 * runs them compiled from the first byte (measured on a 60,000-line file, one-shot: ~18 ms of CPU
 * for these loops against ~30-40 ms in JavaScript). Long loops are cut into calls (CHUNK) so the
 * optimized code V8 compiles meanwhile is used by the later calls.
 *
 * The module is assembled here, at load, from the instructions below (no binary blob, no build
 * step); it imports nothing and can do nothing but read and write its own memory.
 */

// ---- a minimal assembler (only the instructions used below) ---------------------------------

type Op = string | [string, number];

const OPCODES: Record<string, number> = {
  "block": 0x02,
  "loop": 0x03,
  "if": 0x04,
  "else": 0x05,
  "end": 0x0b,
  "br": 0x0c,
  "br_if": 0x0d,
  "return": 0x0f,
  "call": 0x10,
  "local.get": 0x20,
  "local.set": 0x21,
  "local.tee": 0x22,
  "select": 0x1b,
  "i32.load": 0x28,
  "i32.load8_u": 0x2d,
  "i32.store": 0x36,
  "i32.store8": 0x3a,
  "i32.const": 0x41,
  "i32.eqz": 0x45,
  "i32.eq": 0x46,
  "i32.ne": 0x47,
  "unreachable": 0x00,
  "i32.lt_s": 0x48,
  "i32.lt_u": 0x49,
  "i32.gt_s": 0x4a,
  "i32.gt_u": 0x4b,
  "i32.le_s": 0x4c,
  "i32.le_u": 0x4d,
  "i32.ge_s": 0x4e,
  "i32.ge_u": 0x4f,
  "i32.ctz": 0x68,
  "i32.popcnt": 0x69,
  "i32.add": 0x6a,
  "i32.sub": 0x6b,
  "i32.mul": 0x6c,
  "i32.div_u": 0x6e,
  "i32.rem_u": 0x70,
  "i32.and": 0x71,
  "i32.or": 0x72,
  "i32.xor": 0x73,
  "i32.shl": 0x74,
  "i32.shr_u": 0x76,
  "i32.rotl": 0x77,
  "memory.copy": 0xfc,
};

/** Appends `value` as unsigned LEB128. */
function unsignedLeb(out: number[], value: number): void {
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    out.push(byte);
  } while (value !== 0);
}

/** Appends `value` as signed LEB128. */
function signedLeb(out: number[], value: number): void {
  value |= 0;
  for (;;) {
    const byte = value & 0x7f;
    value >>= 7;
    if ((value === 0 && (byte & 0x40) === 0) || (value === -1 && (byte & 0x40) !== 0)) {
      out.push(byte);
      return;
    }
    out.push(byte | 0x80);
  }
}

interface Func {
  readonly name: string;
  readonly params: string[];
  readonly locals: string[];
  readonly result: boolean;
  readonly body: Op[];
}

/** What follows an instruction's code. */
const enum Immediate {
  None,
  BlockType,
  Local,
  Call,
  Depth,
  Const,
  Memory8,
  Memory32,
  MemoryCopy,
}

/** Each instruction's code and immediate, looked up once per instruction (the assembler runs on every diff's first call). */
const INSTRUCTIONS = new Map<string, [number, Immediate]>(
  Object.entries(OPCODES).map(([name, code]) => {
    let immediate = Immediate.None;
    if (name === "block" || name === "loop" || name === "if") immediate = Immediate.BlockType;
    else if (name.startsWith("local.")) immediate = Immediate.Local;
    else if (name === "call") immediate = Immediate.Call;
    else if (name === "br" || name === "br_if") immediate = Immediate.Depth;
    else if (name === "i32.const") immediate = Immediate.Const;
    else if (name === "memory.copy") immediate = Immediate.MemoryCopy;
    else if (name.includes("load") || name.includes("store")) {
      immediate = name.includes("8") ? Immediate.Memory8 : Immediate.Memory32;
    }
    return [name, [code, immediate]];
  }),
);

/** Instructions to bytes: names of locals and functions resolved, `block`/`loop`/`if` typed empty. */
function encodeBody(func: Func, functionIndex: ReadonlyMap<string, number>): number[] {
  const slots = new Map<string, number>();
  for (const name of func.params) slots.set(name, slots.size);
  for (const name of func.locals) slots.set(name, slots.size);
  const out: number[] = [];
  if (func.locals.length) {
    out.push(1);
    unsignedLeb(out, func.locals.length);
    out.push(0x7f);
  } else out.push(0);
  for (const op of func.body) {
    const name = typeof op === "string" ? op : op[0];
    const instruction = INSTRUCTIONS.get(name);
    if (instruction === undefined) throw new Error(`line_scan: unknown instruction ${name}`);
    const [code, immediate] = instruction;
    if (immediate === Immediate.MemoryCopy) {
      out.push(0xfc, 10, 0, 0);
      continue;
    }
    out.push(code);
    if (immediate === Immediate.None) continue;
    const arg = typeof op === "string" ? undefined : op[1];
    switch (immediate) {
      case Immediate.BlockType:
        out.push(0x40);
        break;
      case Immediate.Local: {
        const index = slots.get(arg as unknown as string);
        if (index === undefined) throw new Error(`line_scan: no local ${arg} in ${func.name}`);
        unsignedLeb(out, index);
        break;
      }
      case Immediate.Call: {
        const index = functionIndex.get(arg as unknown as string);
        if (index === undefined) throw new Error(`line_scan: no function ${arg}`);
        unsignedLeb(out, index);
        break;
      }
      case Immediate.Depth:
        unsignedLeb(out, arg!);
        break;
      case Immediate.Const:
        signedLeb(out, arg!);
        break;
      case Immediate.Memory8:
        out.push(0, 0);
        break;
      case Immediate.Memory32:
        out.push(2, 0);
        break;
    }
  }
  out.push(0x0b);
  return out;
}

/** Appends section `id` holding `count` items already encoded in `content`. */
function section(out: number[], id: number, count: number, content: number[]): void {
  const head: number[] = [];
  unsignedLeb(head, count);
  out.push(id);
  unsignedLeb(out, head.length + content.length);
  for (const byte of head) out.push(byte);
  for (const byte of content) out.push(byte);
}

function name(out: number[], text: string): void {
  unsignedLeb(out, text.length);
  for (let k = 0; k < text.length; k++) out.push(text.charCodeAt(k));
}

function assemble(functions: readonly Func[]): Uint8Array {
  const functionIndex = new Map(functions.map((f, i) => [f.name, i]));
  const out = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  const types: number[] = [];
  for (const f of functions) {
    types.push(0x60);
    unsignedLeb(types, f.params.length);
    for (let k = 0; k < f.params.length; k++) types.push(0x7f);
    if (f.result) types.push(1, 0x7f);
    else types.push(0);
  }
  section(out, 1, functions.length, types);
  const declared: number[] = [];
  for (let i = 0; i < functions.length; i++) unsignedLeb(declared, i);
  section(out, 3, functions.length, declared);
  section(out, 5, 1, [0x00, 1]); // one memory, at least a page, grown from JavaScript
  const exported: number[] = [];
  name(exported, "memory");
  exported.push(0x02, 0);
  for (const [i, f] of functions.entries()) {
    name(exported, f.name);
    exported.push(0x00);
    unsignedLeb(exported, i);
  }
  section(out, 7, functions.length + 1, exported);
  const code: number[] = [];
  for (const f of functions) {
    const body = encodeBody(f, functionIndex);
    unsignedLeb(code, body.length);
    for (const byte of body) code.push(byte);
  }
  section(out, 10, functions.length, code);
  return new Uint8Array(out);
}

// Small helpers for the programs below.
const get = (name: string): Op => ["local.get", name as unknown as number];
const set = (name: string): Op => ["local.set", name as unknown as number];
const tee = (name: string): Op => ["local.tee", name as unknown as number];
const konst = (value: number): Op => ["i32.const", value];
const call = (name: string): Op => ["call", name as unknown as number];
/** `name += step` */
const bump = (name: string, step: Op[]): Op[] => [get(name), ...step, "i32.add", set(name)];
/** Finishes the line's hash in `h` (two mixing rounds) and stores it as `hashes[line]`. */
const storeLineHash: Op[] = [
  get("h"),
  get("h"),
  konst(16),
  "i32.shr_u",
  "i32.xor",
  konst(0x85ebca6b | 0),
  "i32.mul",
  set("h"),
  get("hashes"),
  get("line"),
  konst(2),
  "i32.shl",
  "i32.add",
  get("h"),
  get("h"),
  konst(13),
  "i32.shr_u",
  "i32.xor",
  "i32.store",
];
/** The i32 at `base + index * 4`. */
const loadAt = (base: string, index: Op[]): Op[] => [get(base), ...index, konst(2), "i32.shl", "i32.add", "i32.load"];
/** Field `field` (0-3) of change `k` in `changes` (four i32 per change). */
const change = (k: Op[], field: number): Op[] => [
  get("changes"),
  ...k,
  konst(4),
  "i32.shl",
  "i32.add",
  konst(field * 4),
  "i32.add",
  "i32.load",
];
/** ASCII `text` written at `out`, `out` moved past it. */
const putAscii = (text: string): Op[] => [
  ...[...text].flatMap((ch, k): Op[] => [get("out"), konst(k), "i32.add", konst(ch.charCodeAt(0)), "i32.store8"]),
  ...bump("out", [konst(text.length)]),
];
/** `out = run(out, base, starts, from, to, prefix, noEol)` */
const runOf = (side: "a" | "b", from: Op[], to: Op[], prefix: number): Op[] => [
  get("out"),
  get(`${side}Base`),
  get(`${side}Starts`),
  ...from,
  ...to,
  konst(prefix),
  get(`${side}NoEol`),
  call("run"),
  set("out"),
];
/** Where the patch writer finds git's "\ No newline at end of file" line (written there by LineScan). */
const MARKER_AT = 16;
/** Room before the first file: the `lines` cursor (0), the ASCII bits (4), the marker (16). */
const FIRST_FILE_AT = 64;

/** 1 when the byte in `name` is a UTF-8 continuation byte (10xxxxxx). */
const continuation = (name: string): Op[] => [get(name), konst(0xc0), "i32.and", konst(0x80), "i32.eq"];
const SPACE = 0x20;
const MINUS = 0x2d;
const PLUS = 0x2b;
/** git's line after a last line without its newline. */
export const NO_NEWLINE_MARKER = "\n\\ No newline at end of file\n";

/** The flag of line `i` (`changed` is offset by one). */
const flagAt = (
  changed: string,
  i: string,
): Op[] => [get(changed), get(i), "i32.add", konst(1), "i32.add", "i32.load8_u"];
/** `while (changed[i + 1]) i++` */
const skipChanged = (changed: string, i: string): Op[] => [
  "block",
  "loop",
  ...flagAt(changed, i),
  "i32.eqz",
  ["br_if", 1],
  ...bump(i, [konst(1)]),
  ["br", 0],
  "end",
  "end",
];

// ---- xdl_change_compact's pieces (see line_diff.ts's `compact`, which these follow line by line) ----

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
const SCORE_AT = 48;

/** A group of changed lines [start, end) in one file, held in locals (line_diff.ts's `Group`). */
interface GroupLocals {
  readonly start: string;
  readonly end: string;
  readonly changed: string;
  readonly count: string;
}

/** `while (changed[start]) start--` (the flag of line start - 1). */
const backOverChanged = (g: GroupLocals): Op[] => [
  "block",
  "loop",
  get(g.changed),
  get(g.start),
  "i32.add",
  "i32.load8_u",
  "i32.eqz",
  ["br_if", 1],
  ...bump(g.start, [konst(-1)]),
  ["br", 0],
  "end",
  "end",
];
/** Group.next: ok = 0 at the last group, else the group moves to the next one. */
const groupNext = (g: GroupLocals): Op[] => [
  konst(0),
  set("ok"),
  get(g.end),
  get(g.count),
  "i32.ne",
  "if",
  get(g.end),
  konst(1),
  "i32.add",
  tee(g.start),
  set(g.end),
  ...skipChanged(g.changed, g.end),
  konst(1),
  set("ok"),
  "end",
];
/** Group.previous. */
const groupPrevious = (g: GroupLocals): Op[] => [
  konst(0),
  set("ok"),
  get(g.start),
  "i32.eqz",
  "i32.eqz",
  "if",
  get(g.start),
  konst(1),
  "i32.sub",
  tee(g.end),
  set(g.start),
  ...backOverChanged(g),
  konst(1),
  set("ok"),
  "end",
];
/** `changed[line + 1] = flag` */
const setFlag = (g: GroupLocals, line: Op[], flag: number): Op[] => [
  get(g.changed),
  ...line,
  "i32.add",
  konst(1),
  "i32.add",
  konst(flag),
  "i32.store8",
];
/** Group.slideDown (the group's file's numbers in `ids`). */
const groupSlideDown = (g: GroupLocals): Op[] => [
  konst(0),
  set("ok"),
  get(g.end),
  get(g.count),
  "i32.lt_s",
  "if",
  ...loadAt("ids", [get(g.start)]),
  ...loadAt("ids", [get(g.end)]),
  "i32.eq",
  "if",
  ...setFlag(g, [get(g.start)], 0),
  ...bump(g.start, [konst(1)]),
  ...setFlag(g, [get(g.end)], 1),
  ...bump(g.end, [konst(1)]),
  ...skipChanged(g.changed, g.end),
  konst(1),
  set("ok"),
  "end",
  "end",
];
/** Group.slideUp. */
const groupSlideUp = (g: GroupLocals): Op[] => [
  konst(0),
  set("ok"),
  get(g.start),
  konst(0),
  "i32.gt_s",
  "if",
  ...loadAt("ids", [get(g.start), konst(1), "i32.sub"]),
  ...loadAt("ids", [get(g.end), konst(1), "i32.sub"]),
  "i32.eq",
  "if",
  ...bump(g.start, [konst(-1)]),
  ...setFlag(g, [get(g.start)], 1),
  ...bump(g.end, [konst(-1)]),
  ...setFlag(g, [get(g.end)], 0),
  ...backOverChanged(g),
  konst(1),
  set("ok"),
  "end",
  "end",
];
/** The groups of both files out of step: a bug, never input (line_diff.ts's `broken`). */
const requireOk: Op[] = [get("ok"), "i32.eqz", "if", "unreachable", "end"];
const G: GroupLocals = { start: "gs", end: "ge", changed: "changed", count: "count" };
const GO: GroupLocals = { start: "os", end: "oe", changed: "ochanged", count: "ocount" };
/** `endMatchingOther = g.end` when the other file's group is not empty. */
const noteMatchingOther: Op[] = [get("oe"), get("os"), "i32.gt_s", "if", get("ge"), set("endMatchingOther"), "end"];
/** `while (<stop is 0>) { slideUp or fail; previous or fail }` with `stop` pushing 1 to stop. */
const slideUpWhile = (stop: Op[]): Op[] => [
  "block",
  "loop",
  ...stop,
  ["br_if", 1],
  ...groupSlideUp(G),
  ...requireOk,
  ...groupPrevious(GO),
  ...requireOk,
  ["br", 0],
  "end",
  "end",
];
/** `name = max(name, value)` (signed). */
const raise = (name: string, value: Op[]): Op[] => [
  ...value,
  get(name),
  "i32.gt_s",
  "if",
  ...value,
  set(name),
  "end",
];

// ---- xdl_split's pieces (see line_diff.ts's `splitBox`, which these follow line by line) ----

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

/** The address of kv[base + d] (`base`: fb or bb, byte addresses of the forward and backward halves). */
const kvAt = (base: string, d: Op[]): Op[] => [get(base), ...d, konst(2), "i32.shl", "i32.add"];
const kvLoad = (base: string, d: Op[]): Op[] => [...kvAt(base, d), "i32.load"];
/** The number of kept line `i` of file 1 (or 2). */
const h = (file: "h1" | "h2", i: Op[]): Op[] => loadAt(file, i);
/** split's four results at `out`, then return. */
const splitResult = (i1: Op[], i2: Op[], minLow: number, minHigh: number): Op[] => [
  get("out"),
  ...i1,
  "i32.store",
  get("out"),
  konst(4),
  "i32.add",
  ...i2,
  "i32.store",
  get("out"),
  konst(8),
  "i32.add",
  konst(minLow),
  "i32.store",
  get("out"),
  konst(12),
  "i32.add",
  konst(minHigh),
  "i32.store",
  "return",
];
/** `for (d = max; d >= min; d -= 2) { body }` (body may `br` 2 levels up to leave the loop). */
const diagonals = (max: string, min: string, body: Op[]): Op[] => [
  get(max),
  set("d"),
  "block",
  "loop",
  get("d"),
  get(min),
  "i32.lt_s",
  ["br_if", 1],
  ...body,
  ...bump("d", [konst(-2)]),
  ["br", 0],
  "end",
  "end",
];
/** `|d - mid|` into dd. */
const distance = (mid: string): Op[] => [
  get("d"),
  get(mid),
  "i32.sub",
  get(mid),
  get("d"),
  "i32.sub",
  get("d"),
  get(mid),
  "i32.gt_s",
  "select",
  set("dd"),
];
/** The comparison pushed when every condition in `conditions` (each pushing 0/1) holds. */
const all = (conditions: Op[][]): Op[] => conditions.flatMap((c, k) => (k === 0 ? c : [...c, "i32.and"]));
/** Stores the five i32 of a box on the search stack at `sp` and moves `sp` past them. */
const pushBox = (fields: Op[][]): Op[] => [
  ...fields.flatMap((field, k): Op[] => [get("sp"), konst(k * 4), "i32.add", ...field, "i32.store"]),
  ...bump("sp", [konst(20)]),
];

/** `for (; from < to; from++) changed[kept[from] + 1] = 1` (a run of kept lines only one file has). */
const markKept = (kept: string, changed: string, from: string, to: string): Op[] => [
  "block",
  "loop",
  get(from),
  get(to),
  "i32.ge_s",
  ["br_if", 1],
  get(changed),
  ...loadAt(kept, [get(from)]),
  "i32.add",
  konst(1),
  "i32.add",
  konst(1),
  "i32.store8",
  ...bump(from, [konst(1)]),
  ["br", 0],
  "end",
  "end",
];
/** In `discard`: line i goes to the search. */
const keepLine: Op[] = [
  get("kept"),
  get("n"),
  konst(2),
  "i32.shl",
  "i32.add",
  get("i"),
  "i32.store",
  get("keptIds"),
  get("n"),
  konst(2),
  "i32.shl",
  "i32.add",
  ...loadAt("ids", [get("i")]),
  "i32.store",
  ...bump("n", [konst(1)]),
];
/** In `discard`: line i is a change (`changed` is offset by one). */
const markChanged: Op[] = [get("changed"), get("i"), "i32.add", konst(1), "i32.add", konst(1), "i32.store8"];
/** xdiff's constants for xdl_clean_mmatch, shared with line_diff.ts's JavaScript version. */
export const SIMSCAN_WINDOW = 100;
export const KPDIS_RUN = 4;

/** `counts[c] += 1` (in `classify`). */
const countClass: Op[] = [
  get("counts"),
  get("c"),
  konst(2),
  "i32.shl",
  "i32.add",
  get("counts"),
  get("c"),
  konst(2),
  "i32.shl",
  "i32.add",
  "i32.load",
  konst(1),
  "i32.add",
  "i32.store",
];
/** The 0x80 bits of the bytes of the word on the stack that are zero (exact, no false hits): Mycroft's test. */
const zeroBytes = (t: string): Op[] => [
  get(t),
  konst(0x7f7f7f7f),
  "i32.and",
  konst(0x7f7f7f7f),
  "i32.add",
  get(t),
  "i32.or",
  konst(0x7f7f7f7f),
  "i32.or",
  konst(-1),
  "i32.xor",
];
/** The word at `p` with its newline bytes turned into zero bytes. */
const newlinesAsZero = (p: string): Op[] => [get(p), "i32.load", konst(0x0a0a0a0a), "i32.xor"];

const HASH_SEED = 0x811c9dc5 | 0;

const FUNCTIONS: Func[] = [
  {
    // The number of `\n` in [p, end), and the bytes OR-ed into the word at 4 (so its 0x80 bits say
    // whether any byte is not ASCII); the bytes after `end` up to the next multiple of 4 are read too (zero).
    name: "count",
    params: ["p", "end"],
    locals: ["n", "t", "high"],
    result: true,
    body: [
      "block",
      "loop",
      get("p"),
      get("end"),
      "i32.ge_u",
      ["br_if", 1],
      get("high"),
      get("p"),
      "i32.load",
      "i32.or",
      set("high"),
      ...newlinesAsZero("p"),
      set("t"),
      get("n"),
      ...zeroBytes("t"),
      "i32.popcnt",
      "i32.add",
      set("n"),
      ...bump("p", [konst(4)]),
      ["br", 0],
      "end",
      "end",
      konst(4),
      konst(4),
      "i32.load",
      get("high"),
      "i32.or",
      "i32.store",
      get("n"),
    ],
  },
  {
    // The lines of [p, end) (p = the file's first byte, `base`): their starts (relative to base) and
    // hashes, then starts[count] = end - base. Words are read from each line's start, so a line's
    // hash depends on its bytes only; the 4 bytes after `end` must be readable and not `\n`.
    name: "lines",
    params: ["base", "p", "end", "starts", "hashes", "line", "limit"],
    locals: ["h", "w", "z", "k", "mask"],
    result: true,
    body: [
      konst(HASH_SEED),
      set("h"),
      "block",
      "loop",
      get("p"),
      get("end"),
      "i32.ge_u",
      ["br_if", 1],
      get("p"),
      "i32.load",
      set("w"),
      ...newlinesAsZero("p"),
      set("z"),
      ...zeroBytes("z"),
      tee("z"),
      "if",
      // a newline at byte k of the word: mix the bytes up to it, end the line
      get("z"),
      "i32.ctz",
      konst(3),
      "i32.shr_u",
      set("k"),
      konst(-1),
      konst(24),
      get("k"),
      konst(8),
      "i32.mul",
      "i32.sub",
      "i32.shr_u",
      set("mask"),
      get("h"),
      get("w"),
      get("mask"),
      "i32.and",
      "i32.xor",
      konst(13),
      "i32.rotl",
      konst(0x9e3779b1 | 0),
      "i32.mul",
      set("h"),
      ...storeLineHash,
      // the next line's start (starts[0] is 0 in fresh memory)
      get("starts"),
      get("line"),
      konst(2),
      "i32.shl",
      "i32.add",
      konst(4),
      "i32.add",
      get("p"),
      get("k"),
      "i32.add",
      konst(1),
      "i32.add",
      tee("p"),
      get("base"),
      "i32.sub",
      "i32.store",
      ...bump("line", [konst(1)]),
      konst(HASH_SEED),
      set("h"),
      // past `limit`: stop at this line boundary (the caller goes on from memory[0])
      get("p"),
      get("limit"),
      "i32.ge_u",
      ["br_if", 2],
      "else",
      // no newline: a whole word of the line, or the end of a last line without one
      get("end"),
      get("p"),
      "i32.sub",
      set("k"),
      get("k"),
      konst(4),
      "i32.lt_u",
      "if",
      konst(-1),
      konst(32),
      get("k"),
      konst(8),
      "i32.mul",
      "i32.sub",
      "i32.shr_u",
      set("mask"),
      "else",
      konst(-1),
      set("mask"),
      "end",
      get("h"),
      get("w"),
      get("mask"),
      "i32.and",
      "i32.xor",
      konst(13),
      "i32.rotl",
      konst(0x9e3779b1 | 0),
      "i32.mul",
      set("h"),
      ...bump("p", [konst(4)]),
      get("p"),
      get("end"),
      "i32.ge_u",
      "if",
      ...storeLineHash,
      ...bump("line", [konst(1)]),
      get("end"),
      set("p"),
      "end",
      "end",
      ["br", 0],
      "end",
      "end",
      konst(0),
      get("p"),
      "i32.store",
      get("line"),
    ],
  },
  {
    // Whether [a, a + length) and [b, b + length) hold the same bytes.
    name: "same",
    params: ["a", "b", "length"],
    locals: ["k"],
    result: true,
    body: [
      "block",
      "loop",
      get("k"),
      konst(4),
      "i32.add",
      get("length"),
      "i32.gt_u",
      ["br_if", 1],
      get("a"),
      get("k"),
      "i32.add",
      "i32.load",
      get("b"),
      get("k"),
      "i32.add",
      "i32.load",
      "i32.ne",
      "if",
      konst(0),
      "return",
      "end",
      ...bump("k", [konst(4)]),
      ["br", 0],
      "end",
      "end",
      "block",
      "loop",
      get("k"),
      get("length"),
      "i32.ge_u",
      ["br_if", 1],
      get("a"),
      get("k"),
      "i32.add",
      "i32.load8_u",
      get("b"),
      get("k"),
      "i32.add",
      "i32.load8_u",
      "i32.ne",
      "if",
      konst(0),
      "return",
      "end",
      ...bump("k", [konst(1)]),
      ["br", 0],
      "end",
      "end",
      konst(1),
    ],
  },
  {
    // xdiff's classifier for one file's lines (starts relative to `base`): ids[i] = the number of the
    // line's bytes, shared by both files; returns the next free number. The table has 2^(32 - shift)
    // slots of 8 bytes (slotClass = number + 1, then slotHash = its hash: one cache line for both);
    // classAt/classLength hold each number's first line, and
    // counts[number] how many of this file's lines have it (xdiff's len1/len2, for the clean-up).
    name: "classify",
    params: [
      "base",
      "starts",
      "hashes",
      "i",
      "count",
      "ids",
      "slotHash",
      "slotClass",
      "shift",
      "classAt",
      "classLength",
      "next",
      "counts",
    ],
    locals: ["at", "length", "h", "slot", "c", "mask"],
    result: true,
    body: [
      konst(-1),
      get("shift"),
      "i32.shr_u",
      set("mask"),
      "block",
      "loop",
      get("i"),
      get("count"),
      "i32.ge_u",
      ["br_if", 1],
      get("starts"),
      get("i"),
      konst(2),
      "i32.shl",
      "i32.add",
      "i32.load",
      get("base"),
      "i32.add",
      set("at"),
      get("starts"),
      get("i"),
      konst(2),
      "i32.shl",
      "i32.add",
      konst(4),
      "i32.add",
      "i32.load",
      get("base"),
      "i32.add",
      get("at"),
      "i32.sub",
      set("length"),
      get("hashes"),
      get("i"),
      konst(2),
      "i32.shl",
      "i32.add",
      "i32.load",
      set("h"),
      get("h"),
      konst(0x9e3779b1 | 0),
      "i32.mul",
      get("shift"),
      "i32.shr_u",
      set("slot"),
      "block",
      "loop",
      get("slotClass"),
      get("slot"),
      konst(3),
      "i32.shl",
      "i32.add",
      "i32.load",
      tee("c"),
      "i32.eqz",
      "if",
      // a new number
      get("slotHash"),
      get("slot"),
      konst(3),
      "i32.shl",
      "i32.add",
      get("h"),
      "i32.store",
      get("slotClass"),
      get("slot"),
      konst(3),
      "i32.shl",
      "i32.add",
      get("next"),
      konst(1),
      "i32.add",
      "i32.store",
      get("classAt"),
      get("next"),
      konst(2),
      "i32.shl",
      "i32.add",
      get("at"),
      "i32.store",
      get("classLength"),
      get("next"),
      konst(2),
      "i32.shl",
      "i32.add",
      get("length"),
      "i32.store",
      get("ids"),
      get("i"),
      konst(2),
      "i32.shl",
      "i32.add",
      get("next"),
      "i32.store",
      get("next"),
      set("c"),
      ...bump("next", [konst(1)]),
      ...countClass,
      ["br", 2],
      "end",
      get("c"),
      konst(1),
      "i32.sub",
      set("c"),
      get("slotHash"),
      get("slot"),
      konst(3),
      "i32.shl",
      "i32.add",
      "i32.load",
      get("h"),
      "i32.eq",
      "if",
      get("classLength"),
      get("c"),
      konst(2),
      "i32.shl",
      "i32.add",
      "i32.load",
      get("length"),
      "i32.eq",
      "if",
      get("classAt"),
      get("c"),
      konst(2),
      "i32.shl",
      "i32.add",
      "i32.load",
      get("at"),
      get("length"),
      call("same"),
      "if",
      get("ids"),
      get("i"),
      konst(2),
      "i32.shl",
      "i32.add",
      get("c"),
      "i32.store",
      ...countClass,
      ["br", 4],
      "end",
      "end",
      "end",
      get("slot"),
      konst(1),
      "i32.add",
      get("mask"),
      "i32.and",
      set("slot"),
      ["br", 0],
      "end",
      "end",
      ...bump("i", [konst(1)]),
      ["br", 0],
      "end",
      "end",
      get("next"),
    ],
  },
  {
    // Lines [from, to) of a file at `base` (line starts relative to it at `starts`) copied to `out`,
    // `prefix` before each; returns the new end of `out`.
    name: "copyLines",
    params: ["out", "base", "starts", "from", "to", "prefix"],
    locals: ["at", "length"],
    result: true,
    body: [
      "block",
      "loop",
      get("from"),
      get("to"),
      "i32.ge_u",
      ["br_if", 1],
      get("starts"),
      get("from"),
      konst(2),
      "i32.shl",
      "i32.add",
      "i32.load",
      get("base"),
      "i32.add",
      set("at"),
      get("starts"),
      get("from"),
      konst(2),
      "i32.shl",
      "i32.add",
      konst(4),
      "i32.add",
      "i32.load",
      get("base"),
      "i32.add",
      get("at"),
      "i32.sub",
      set("length"),
      get("out"),
      get("prefix"),
      "i32.store8",
      get("out"),
      konst(1),
      "i32.add",
      get("at"),
      get("length"),
      "memory.copy",
      get("out"),
      konst(1),
      "i32.add",
      get("length"),
      "i32.add",
      set("out"),
      ...bump("from", [konst(1)]),
      ["br", 0],
      "end",
      "end",
      get("out"),
    ],
  },
  {
    // `value` (unsigned) in decimal at `out`; returns the new end.
    name: "decimal",
    params: ["out", "value"],
    locals: ["digits", "t", "p"],
    result: true,
    body: [
      konst(1),
      set("digits"),
      get("value"),
      set("t"),
      "block",
      "loop",
      get("t"),
      konst(10),
      "i32.lt_u",
      ["br_if", 1],
      get("t"),
      konst(10),
      "i32.div_u",
      set("t"),
      ...bump("digits", [konst(1)]),
      ["br", 0],
      "end",
      "end",
      get("out"),
      get("digits"),
      "i32.add",
      tee("p"),
      set("t"),
      "loop",
      ...bump("p", [konst(-1)]),
      get("p"),
      get("value"),
      konst(10),
      "i32.rem_u",
      konst(0x30),
      "i32.add",
      "i32.store8",
      get("value"),
      konst(10),
      "i32.div_u",
      tee("value"),
      ["br_if", 0],
      "end",
      get("t"),
    ],
  },
  {
    // One side's range in a hunk header, as xdl_emit_hunk_hdr writes it: an empty side names the
    // line before it, a count of 1 is left out.
    name: "range",
    params: ["out", "start", "count"],
    locals: [],
    result: true,
    body: [
      get("out"),
      get("start"),
      konst(1),
      "i32.sub",
      get("start"),
      get("count"),
      "i32.eqz",
      "select",
      call("decimal"),
      set("out"),
      get("count"),
      konst(1),
      "i32.ne",
      "if",
      ...putAscii(","),
      get("out"),
      get("count"),
      call("decimal"),
      set("out"),
      "end",
      get("out"),
    ],
  },
  {
    // Lines [from, to) after `prefix` (copyLines), then the marker if the last of them is the file's
    // last line and has no newline (`noEol`: that line's index, or -1).
    name: "run",
    params: ["out", "base", "starts", "from", "to", "prefix", "noEol"],
    locals: [],
    result: true,
    body: [
      get("from"),
      get("to"),
      "i32.ge_s",
      "if",
      get("out"),
      "return",
      "end",
      get("out"),
      get("base"),
      get("starts"),
      get("from"),
      get("to"),
      get("prefix"),
      call("copyLines"),
      set("out"),
      get("to"),
      konst(1),
      "i32.sub",
      get("noEol"),
      "i32.eq",
      "if",
      get("out"),
      konst(MARKER_AT),
      konst(NO_NEWLINE_MARKER.length),
      "memory.copy",
      ...bump("out", [konst(NO_NEWLINE_MARKER.length)]),
      "end",
      get("out"),
    ],
  },
  {
    // The end of the longest valid UTF-8 prefix of [p, end) (git's sane_truncate_line with utf8.c's
    // rules: no overlong forms, surrogates, U+FFFE/U+FFFF or code points past U+10FFFF).
    name: "utf8Prefix",
    params: ["p", "end"],
    locals: ["c", "c1", "c2", "length"],
    result: true,
    body: [
      "block",
      "loop",
      get("p"),
      get("end"),
      "i32.ge_u",
      ["br_if", 1],
      get("p"),
      "i32.load8_u",
      set("c"),
      // c1, c2: the next two bytes, or 0 (not a continuation byte) past the end
      get("p"),
      konst(1),
      "i32.add",
      "i32.load8_u",
      konst(0),
      get("p"),
      konst(1),
      "i32.add",
      get("end"),
      "i32.lt_u",
      "select",
      set("c1"),
      get("p"),
      konst(2),
      "i32.add",
      "i32.load8_u",
      konst(0),
      get("p"),
      konst(2),
      "i32.add",
      get("end"),
      "i32.lt_u",
      "select",
      set("c2"),
      konst(0),
      set("length"),
      get("c"),
      konst(0x80),
      "i32.lt_u",
      "if",
      konst(1),
      set("length"),
      "else",
      get("c"),
      konst(0xe0),
      "i32.and",
      konst(0xc0),
      "i32.eq",
      "if",
      // two bytes: a continuation, not an overlong C0/C1 lead
      ...continuation("c1"),
      get("c"),
      konst(0xfe),
      "i32.and",
      konst(0xc0),
      "i32.ne",
      "i32.and",
      "if",
      konst(2),
      set("length"),
      "end",
      "else",
      get("c"),
      konst(0xf0),
      "i32.and",
      konst(0xe0),
      "i32.eq",
      "if",
      // three bytes: no overlong form, no surrogate, not U+FFFE/U+FFFF
      ...continuation("c1"),
      ...continuation("c2"),
      "i32.and",
      get("c"),
      konst(0xe0),
      "i32.eq",
      get("c1"),
      konst(0xe0),
      "i32.and",
      konst(0x80),
      "i32.eq",
      "i32.and",
      "i32.eqz",
      "i32.and",
      get("c"),
      konst(0xed),
      "i32.eq",
      get("c1"),
      konst(0xe0),
      "i32.and",
      konst(0xa0),
      "i32.eq",
      "i32.and",
      "i32.eqz",
      "i32.and",
      get("c"),
      konst(0xef),
      "i32.eq",
      get("c1"),
      konst(0xbf),
      "i32.eq",
      "i32.and",
      get("c2"),
      konst(0xfe),
      "i32.and",
      konst(0xbe),
      "i32.eq",
      "i32.and",
      "i32.eqz",
      "i32.and",
      "if",
      konst(3),
      set("length"),
      "end",
      "else",
      get("c"),
      konst(0xf8),
      "i32.and",
      konst(0xf0),
      "i32.eq",
      "if",
      // four bytes: no overlong form, nothing past U+10FFFF
      ...continuation("c1"),
      ...continuation("c2"),
      "i32.and",
      get("p"),
      konst(3),
      "i32.add",
      get("end"),
      "i32.lt_u",
      get("p"),
      konst(3),
      "i32.add",
      "i32.load8_u",
      konst(0xc0),
      "i32.and",
      konst(0x80),
      "i32.eq",
      "i32.and",
      "i32.and",
      get("c"),
      konst(0xf0),
      "i32.eq",
      get("c1"),
      konst(0xf0),
      "i32.and",
      konst(0x80),
      "i32.eq",
      "i32.and",
      "i32.eqz",
      "i32.and",
      get("c"),
      konst(0xf4),
      "i32.eq",
      get("c1"),
      konst(0x8f),
      "i32.gt_u",
      "i32.and",
      "i32.eqz",
      "i32.and",
      get("c"),
      konst(0xf4),
      "i32.le_u",
      "i32.and",
      "if",
      konst(4),
      set("length"),
      "end",
      "end",
      "end",
      "end",
      "end",
      get("length"),
      "i32.eqz",
      ["br_if", 1],
      ...bump("p", [get("length")]),
      ["br", 0],
      "end",
      "end",
      get("p"),
    ],
  },
  {
    // The whole patch body, as xdl_emit_diff writes it: changes (four i32 each: i1, i2, chg1, chg2)
    // joined into hunks when at most 2 × context lines apart, each hunk's `@@` header with git's
    // default function line (the last line before the hunk that starts with a letter, `_` or `$`:
    // its first 80 bytes, trailing white space dropped, cut at the first invalid UTF-8), then its
    // lines. Returns the new end of `out`.
    name: "patch",
    params: [
      "changes",
      "n",
      "context",
      "aBase",
      "aStarts",
      "aCount",
      "aNoEol",
      "bBase",
      "bStarts",
      "bCount",
      "bNoEol",
      "out",
    ],
    locals: ["first", "last", "s1", "s2", "e1", "e2", "scanned", "found", "k", "i1", "c", "start", "end"],
    result: true,
    body: [
      konst(-1),
      set("found"),
      "block",
      "loop",
      get("first"),
      get("n"),
      "i32.ge_u",
      ["br_if", 1],
      // the changes this hunk joins
      get("first"),
      set("last"),
      "block",
      "loop",
      get("last"),
      konst(1),
      "i32.add",
      get("n"),
      "i32.ge_u",
      ["br_if", 1],
      ...change([get("last"), konst(1), "i32.add"], 0),
      ...change([get("last")], 0),
      ...change([get("last")], 2),
      "i32.add",
      "i32.sub",
      get("context"),
      konst(1),
      "i32.shl",
      "i32.gt_s",
      ["br_if", 1],
      ...bump("last", [konst(1)]),
      ["br", 0],
      "end",
      "end",
      // s = max(first change - context, 0), e = min(last change's end + context, count)
      ...change([get("first")], 0),
      get("context"),
      "i32.sub",
      tee("s1"),
      konst(0),
      get("s1"),
      konst(0),
      "i32.gt_s",
      "select",
      set("s1"),
      ...change([get("first")], 1),
      get("context"),
      "i32.sub",
      tee("s2"),
      konst(0),
      get("s2"),
      konst(0),
      "i32.gt_s",
      "select",
      set("s2"),
      ...change([get("last")], 0),
      ...change([get("last")], 2),
      "i32.add",
      get("context"),
      "i32.add",
      tee("e1"),
      get("aCount"),
      get("e1"),
      get("aCount"),
      "i32.lt_s",
      "select",
      set("e1"),
      ...change([get("last")], 1),
      ...change([get("last")], 3),
      "i32.add",
      get("context"),
      "i32.add",
      tee("e2"),
      get("bCount"),
      get("e2"),
      get("bCount"),
      "i32.lt_s",
      "select",
      set("e2"),
      // the function line: hunks come in order, so one pass over the lines of a
      "block",
      "loop",
      get("scanned"),
      get("s1"),
      "i32.ge_s",
      ["br_if", 1],
      get("aBase"),
      ...loadAt("aStarts", [get("scanned")]),
      "i32.add",
      "i32.load8_u",
      tee("c"),
      konst(0x20),
      "i32.or",
      konst(0x61),
      "i32.sub",
      konst(26),
      "i32.lt_u",
      get("c"),
      konst(0x5f),
      "i32.eq",
      "i32.or",
      get("c"),
      konst(0x24),
      "i32.eq",
      "i32.or",
      "if",
      get("scanned"),
      set("found"),
      "end",
      ...bump("scanned", [konst(1)]),
      ["br", 0],
      "end",
      "end",
      ...putAscii("@@ -"),
      get("out"),
      get("s1"),
      konst(1),
      "i32.add",
      get("e1"),
      get("s1"),
      "i32.sub",
      call("range"),
      set("out"),
      ...putAscii(" +"),
      get("out"),
      get("s2"),
      konst(1),
      "i32.add",
      get("e2"),
      get("s2"),
      "i32.sub",
      call("range"),
      set("out"),
      ...putAscii(" @@"),
      get("found"),
      konst(0),
      "i32.ge_s",
      "if",
      ...loadAt("aStarts", [get("found")]),
      get("aBase"),
      "i32.add",
      set("start"),
      ...loadAt("aStarts", [get("found"), konst(1), "i32.add"]),
      get("aBase"),
      "i32.add",
      tee("end"),
      get("start"),
      konst(80),
      "i32.add",
      get("end"),
      get("start"),
      konst(80),
      "i32.add",
      "i32.lt_u",
      "select",
      set("end"),
      // trailing white space (space, \t \n \v \f \r) dropped
      "block",
      "loop",
      get("end"),
      get("start"),
      "i32.le_u",
      ["br_if", 1],
      get("end"),
      konst(1),
      "i32.sub",
      "i32.load8_u",
      tee("c"),
      konst(0x20),
      "i32.ne",
      get("c"),
      konst(0x09),
      "i32.sub",
      konst(5),
      "i32.ge_u",
      "i32.and",
      ["br_if", 1],
      ...bump("end", [konst(-1)]),
      ["br", 0],
      "end",
      "end",
      get("start"),
      get("end"),
      call("utf8Prefix"),
      set("end"),
      get("out"),
      konst(0x20),
      "i32.store8",
      get("out"),
      konst(1),
      "i32.add",
      get("start"),
      get("end"),
      get("start"),
      "i32.sub",
      "memory.copy",
      ...bump("out", [get("end"), get("start"), "i32.sub", konst(1), "i32.add"]),
      "end",
      ...putAscii("\n"),
      // the lines: context, removed, added for each change, then the context after the last
      get("s1"),
      set("i1"),
      get("first"),
      set("k"),
      "block",
      "loop",
      get("k"),
      get("last"),
      "i32.gt_s",
      ["br_if", 1],
      ...runOf("a", [get("i1")], change([get("k")], 0), SPACE),
      ...change([get("k")], 0),
      ...change([get("k")], 2),
      "i32.add",
      set("c"),
      ...runOf("a", change([get("k")], 0), [get("c")], MINUS),
      ...runOf("b", change([get("k")], 1), [...change([get("k")], 1), ...change([get("k")], 3), "i32.add"], PLUS),
      get("c"),
      set("i1"),
      ...bump("k", [konst(1)]),
      ["br", 0],
      "end",
      "end",
      ...runOf("a", [get("i1")], [get("e1")], SPACE),
      get("last"),
      konst(1),
      "i32.add",
      set("first"),
      ["br", 0],
      "end",
      "end",
      get("out"),
    ],
  },
  {
    // How many i32 from `a` and `b` on are equal, at most `limit`, stepping `stride` bytes (4 from
    // the start, -4 from the end): xdl_trim_ends' common start and end.
    name: "common",
    params: ["a", "b", "limit", "stride"],
    locals: ["k"],
    result: true,
    body: [
      "block",
      "loop",
      get("k"),
      get("limit"),
      "i32.ge_s",
      ["br_if", 1],
      get("a"),
      "i32.load",
      get("b"),
      "i32.load",
      "i32.ne",
      ["br_if", 1],
      ...bump("a", [get("stride")]),
      ...bump("b", [get("stride")]),
      ...bump("k", [konst(1)]),
      ["br", 0],
      "end",
      "end",
      get("k"),
    ],
  },
  {
    // xdl_clean_mmatch: 1 when line i (many matches) stands among lines without a match (dis 0)
    // and other lines with many (dis 2), looked at up to XDL_SIMSCAN_WINDOW lines each way.
    name: "cleanMultiMatch",
    params: ["dis", "i", "s", "e"],
    locals: ["r", "d", "rdis0", "rpdis0", "rdis1", "rpdis1"],
    result: true,
    body: [
      get("i"),
      get("s"),
      "i32.sub",
      konst(SIMSCAN_WINDOW),
      "i32.gt_s",
      "if",
      get("i"),
      konst(SIMSCAN_WINDOW),
      "i32.sub",
      set("s"),
      "end",
      get("e"),
      get("i"),
      "i32.sub",
      konst(SIMSCAN_WINDOW),
      "i32.gt_s",
      "if",
      get("i"),
      konst(SIMSCAN_WINDOW),
      "i32.add",
      set("e"),
      "end",
      konst(1),
      set("rpdis0"),
      konst(1),
      set("r"),
      "block",
      "loop",
      get("i"),
      get("r"),
      "i32.sub",
      get("s"),
      "i32.lt_s",
      ["br_if", 1],
      get("dis"),
      get("i"),
      "i32.add",
      get("r"),
      "i32.sub",
      "i32.load8_u",
      tee("d"),
      "i32.eqz",
      "if",
      ...bump("rdis0", [konst(1)]),
      "else",
      get("d"),
      konst(2),
      "i32.ne",
      ["br_if", 2],
      ...bump("rpdis0", [konst(1)]),
      "end",
      ...bump("r", [konst(1)]),
      ["br", 0],
      "end",
      "end",
      get("rdis0"),
      "i32.eqz",
      "if",
      konst(0),
      "return",
      "end",
      konst(1),
      set("rpdis1"),
      konst(1),
      set("r"),
      "block",
      "loop",
      get("i"),
      get("r"),
      "i32.add",
      get("e"),
      "i32.gt_s",
      ["br_if", 1],
      get("dis"),
      get("i"),
      "i32.add",
      get("r"),
      "i32.add",
      "i32.load8_u",
      tee("d"),
      "i32.eqz",
      "if",
      ...bump("rdis1", [konst(1)]),
      "else",
      get("d"),
      konst(2),
      "i32.ne",
      ["br_if", 2],
      ...bump("rpdis1", [konst(1)]),
      "end",
      ...bump("r", [konst(1)]),
      ["br", 0],
      "end",
      "end",
      get("rdis1"),
      "i32.eqz",
      "if",
      konst(0),
      "return",
      "end",
      ...bump("rdis1", [get("rdis0")]),
      ...bump("rpdis1", [get("rpdis0")]),
      get("rpdis1"),
      konst(KPDIS_RUN),
      "i32.mul",
      get("rpdis1"),
      get("rdis1"),
      "i32.add",
      "i32.lt_s",
    ],
  },
  {
    // xdl_cleanup_records for one file's lines [start, end]: dis[i] is 0 when the other file has
    // no such line, 2 when it has `limit` or more, else 1; lines with 1, and lines with 2 that
    // cleanMultiMatch keeps, go to the search (kept, keptIds; their count is returned), the rest
    // are changes whatever the search finds (changed[i + 1] = 1).
    name: "discard",
    params: ["ids", "counts", "start", "end", "limit", "dis", "kept", "keptIds", "changed"],
    locals: ["i", "m", "n", "d"],
    result: true,
    body: [
      get("start"),
      set("i"),
      "block",
      "loop",
      get("i"),
      get("end"),
      "i32.gt_s",
      ["br_if", 1],
      ...loadAt("counts", loadAt("ids", [get("i")])),
      set("m"),
      get("dis"),
      get("i"),
      "i32.add",
      konst(0),
      konst(2),
      konst(1),
      get("m"),
      get("limit"),
      "i32.ge_s",
      "select",
      get("m"),
      "i32.eqz",
      "select",
      "i32.store8",
      ...bump("i", [konst(1)]),
      ["br", 0],
      "end",
      "end",
      get("start"),
      set("i"),
      "block",
      "loop",
      get("i"),
      get("end"),
      "i32.gt_s",
      ["br_if", 1],
      get("dis"),
      get("i"),
      "i32.add",
      "i32.load8_u",
      tee("d"),
      konst(1),
      "i32.eq",
      "if",
      ...keepLine,
      "else",
      get("d"),
      konst(2),
      "i32.eq",
      "if",
      get("dis"),
      get("i"),
      get("start"),
      get("end"),
      call("cleanMultiMatch"),
      "if",
      ...markChanged,
      "else",
      ...keepLine,
      "end",
      "else",
      ...markChanged,
      "end",
      "end",
      ...bump("i", [konst(1)]),
      ["br", 0],
      "end",
      "end",
      get("n"),
    ],
  },
  {
    // xdl_build_script: the changes from both files' flags (`changed` offset by one, 0 at both
    // ends), four i32 each (i1, i2, chg1, chg2) at `out`; returns how many.
    name: "script",
    params: ["changed1", "count1", "changed2", "count2", "out"],
    locals: ["i1", "i2", "s1", "s2", "n"],
    result: true,
    body: [
      "block",
      "loop",
      get("i1"),
      get("count1"),
      "i32.lt_s",
      get("i2"),
      get("count2"),
      "i32.lt_s",
      "i32.or",
      "i32.eqz",
      ["br_if", 1],
      ...flagAt("changed1", "i1"),
      ...flagAt("changed2", "i2"),
      "i32.or",
      "if",
      get("i1"),
      set("s1"),
      get("i2"),
      set("s2"),
      ...skipChanged("changed1", "i1"),
      ...skipChanged("changed2", "i2"),
      get("out"),
      get("s1"),
      "i32.store",
      get("out"),
      konst(4),
      "i32.add",
      get("s2"),
      "i32.store",
      get("out"),
      konst(8),
      "i32.add",
      get("i1"),
      get("s1"),
      "i32.sub",
      "i32.store",
      get("out"),
      konst(12),
      "i32.add",
      get("i2"),
      get("s2"),
      "i32.sub",
      "i32.store",
      ...bump("out", [konst(16)]),
      ...bump("n", [konst(1)]),
      "else",
      ...bump("i1", [konst(1)]),
      ...bump("i2", [konst(1)]),
      "end",
      ["br", 0],
      "end",
      "end",
      get("n"),
    ],
  },
  {
    // git's get_indent for line `line`: -1 for a blank line, a TAB to the next multiple of 8,
    // at most MAX_INDENT.
    name: "indent",
    params: ["base", "starts", "line"],
    locals: ["p", "end", "c", "n"],
    result: true,
    body: [
      get("base"),
      ...loadAt("starts", [get("line")]),
      "i32.add",
      set("p"),
      get("base"),
      ...loadAt("starts", [get("line"), konst(1), "i32.add"]),
      "i32.add",
      set("end"),
      "block",
      "loop",
      get("p"),
      get("end"),
      "i32.ge_u",
      ["br_if", 1],
      get("p"),
      "i32.load8_u",
      tee("c"),
      konst(0x20),
      "i32.eq",
      "if",
      ...bump("n", [konst(1)]),
      "else",
      get("c"),
      konst(0x09),
      "i32.eq",
      "if",
      ...bump("n", [konst(8), get("n"), konst(7), "i32.and", "i32.sub"]),
      "else",
      // \n \v \f \r are white space that adds nothing; anything else ends the indent
      get("c"),
      konst(0x0a),
      "i32.sub",
      konst(4),
      "i32.ge_u",
      "if",
      get("n"),
      "return",
      "end",
      "end",
      "end",
      get("n"),
      konst(INDENT.MAX_INDENT),
      "i32.ge_s",
      "if",
      konst(INDENT.MAX_INDENT),
      "return",
      "end",
      ...bump("p", [konst(1)]),
      ["br", 0],
      "end",
      "end",
      konst(-1),
    ],
  },
  {
    // score_add_split for a split above line `split` of a file (lines at base/starts, `count` of
    // them): adds its effective indent and penalty to the two i32 at SCORE_AT.
    name: "scoreSplit",
    params: ["base", "starts", "count", "split"],
    locals: [
      "endOfFile",
      "indent",
      "preBlank",
      "preIndent",
      "postBlank",
      "postIndent",
      "penalty",
      "i",
      "blankAfter",
      "totalBlank",
      "effective",
    ],
    result: false,
    body: [
      get("split"),
      get("count"),
      "i32.ge_s",
      tee("endOfFile"),
      "if",
      konst(-1),
      set("indent"),
      "else",
      get("base"),
      get("starts"),
      get("split"),
      call("indent"),
      set("indent"),
      "end",
      konst(-1),
      set("preIndent"),
      get("split"),
      konst(1),
      "i32.sub",
      set("i"),
      "block",
      "loop",
      get("i"),
      konst(0),
      "i32.lt_s",
      ["br_if", 1],
      get("base"),
      get("starts"),
      get("i"),
      call("indent"),
      tee("preIndent"),
      konst(-1),
      "i32.ne",
      ["br_if", 1],
      ...bump("preBlank", [konst(1)]),
      get("preBlank"),
      konst(INDENT.MAX_BLANKS),
      "i32.eq",
      "if",
      konst(0),
      set("preIndent"),
      ["br", 2],
      "end",
      ...bump("i", [konst(-1)]),
      ["br", 0],
      "end",
      "end",
      konst(-1),
      set("postIndent"),
      get("split"),
      konst(1),
      "i32.add",
      set("i"),
      "block",
      "loop",
      get("i"),
      get("count"),
      "i32.ge_s",
      ["br_if", 1],
      get("base"),
      get("starts"),
      get("i"),
      call("indent"),
      tee("postIndent"),
      konst(-1),
      "i32.ne",
      ["br_if", 1],
      ...bump("postBlank", [konst(1)]),
      get("postBlank"),
      konst(INDENT.MAX_BLANKS),
      "i32.eq",
      "if",
      konst(0),
      set("postIndent"),
      ["br", 2],
      "end",
      ...bump("i", [konst(1)]),
      ["br", 0],
      "end",
      "end",
      get("preIndent"),
      konst(-1),
      "i32.eq",
      get("preBlank"),
      "i32.eqz",
      "i32.and",
      "if",
      ...bump("penalty", [konst(INDENT.START_OF_FILE_PENALTY)]),
      "end",
      get("endOfFile"),
      "if",
      ...bump("penalty", [konst(INDENT.END_OF_FILE_PENALTY)]),
      "end",
      get("indent"),
      konst(-1),
      "i32.eq",
      "if",
      get("postBlank"),
      konst(1),
      "i32.add",
      set("blankAfter"),
      "end",
      get("preBlank"),
      get("blankAfter"),
      "i32.add",
      set("totalBlank"),
      ...bump("penalty", [
        konst(INDENT.TOTAL_BLANK_WEIGHT),
        get("totalBlank"),
        "i32.mul",
        konst(INDENT.POST_BLANK_WEIGHT),
        get("blankAfter"),
        "i32.mul",
        "i32.add",
      ]),
      get("indent"),
      get("postIndent"),
      get("indent"),
      konst(-1),
      "i32.ne",
      "select",
      set("effective"),
      konst(SCORE_AT),
      konst(SCORE_AT),
      "i32.load",
      get("effective"),
      "i32.add",
      "i32.store",
      get("effective"),
      konst(-1),
      "i32.ne",
      get("preIndent"),
      konst(-1),
      "i32.ne",
      "i32.and",
      "if",
      get("effective"),
      get("preIndent"),
      "i32.gt_s",
      "if",
      ...bump("penalty", [
        konst(INDENT.RELATIVE_INDENT_WITH_BLANK_PENALTY),
        konst(INDENT.RELATIVE_INDENT_PENALTY),
        get("totalBlank"),
        "select",
      ]),
      "else",
      get("effective"),
      get("preIndent"),
      "i32.lt_s",
      "if",
      get("postIndent"),
      konst(-1),
      "i32.ne",
      get("postIndent"),
      get("effective"),
      "i32.gt_s",
      "i32.and",
      "if",
      ...bump("penalty", [
        konst(INDENT.RELATIVE_OUTDENT_WITH_BLANK_PENALTY),
        konst(INDENT.RELATIVE_OUTDENT_PENALTY),
        get("totalBlank"),
        "select",
      ]),
      "else",
      ...bump("penalty", [
        konst(INDENT.RELATIVE_DEDENT_WITH_BLANK_PENALTY),
        konst(INDENT.RELATIVE_DEDENT_PENALTY),
        get("totalBlank"),
        "select",
      ]),
      "end",
      "end",
      "end",
      "end",
      konst(SCORE_AT + 4),
      konst(SCORE_AT + 4),
      "i32.load",
      get("penalty"),
      "i32.add",
      "i32.store",
    ],
  },
  {
    // xdl_change_compact with git's indent heuristic for one file (flags in `changed`, numbers in
    // `ids`, lines at base/starts), the other file's flags moved along (`ochanged`).
    name: "compact",
    params: ["changed", "ids", "count", "base", "starts", "ochanged", "ocount"],
    locals: [
      "gs",
      "ge",
      "os",
      "oe",
      "ok",
      "groupSize",
      "earliestEnd",
      "endMatchingOther",
      "shift",
      "bestShift",
      "bestIndent",
      "bestPenalty",
      "score",
      "penalty",
      "cmp",
    ],
    result: false,
    body: [
      ...skipChanged("changed", "ge"),
      ...skipChanged("ochanged", "oe"),
      "block",
      "loop",
      get("ge"),
      get("gs"),
      "i32.ne",
      "if",
      "loop",
      // slide the group as far up, then down, as it goes, until its size stops changing
      get("ge"),
      get("gs"),
      "i32.sub",
      set("groupSize"),
      konst(-1),
      set("endMatchingOther"),
      "block",
      "loop",
      ...groupSlideUp(G),
      get("ok"),
      "i32.eqz",
      ["br_if", 1],
      ...groupPrevious(GO),
      ...requireOk,
      ["br", 0],
      "end",
      "end",
      get("ge"),
      set("earliestEnd"),
      ...noteMatchingOther,
      "block",
      "loop",
      ...groupSlideDown(G),
      get("ok"),
      "i32.eqz",
      ["br_if", 1],
      ...groupNext(GO),
      ...requireOk,
      ...noteMatchingOther,
      ["br", 0],
      "end",
      "end",
      get("groupSize"),
      get("ge"),
      get("gs"),
      "i32.sub",
      "i32.ne",
      ["br_if", 0],
      "end",
      get("ge"),
      get("earliestEnd"),
      "i32.ne",
      "if",
      get("endMatchingOther"),
      konst(-1),
      "i32.ne",
      "if",
      // line the group up with the other file's last matching group
      ...slideUpWhile([get("oe"), get("os"), "i32.ne"]),
      "else",
      // the indent heuristic: the best of the last INDENT_HEURISTIC_MAX_SLIDING positions
      get("earliestEnd"),
      set("shift"),
      ...raise("shift", [get("ge"), get("groupSize"), "i32.sub", konst(1), "i32.sub"]),
      ...raise("shift", [get("ge"), konst(INDENT.INDENT_HEURISTIC_MAX_SLIDING), "i32.sub"]),
      konst(-1),
      set("bestShift"),
      konst(0),
      set("bestIndent"),
      konst(0),
      set("bestPenalty"),
      "block",
      "loop",
      get("shift"),
      get("ge"),
      "i32.gt_s",
      ["br_if", 1],
      konst(SCORE_AT),
      konst(0),
      "i32.store",
      konst(SCORE_AT + 4),
      konst(0),
      "i32.store",
      get("base"),
      get("starts"),
      get("count"),
      get("shift"),
      call("scoreSplit"),
      get("base"),
      get("starts"),
      get("count"),
      get("shift"),
      get("groupSize"),
      "i32.sub",
      call("scoreSplit"),
      konst(SCORE_AT),
      "i32.load",
      set("score"),
      konst(SCORE_AT + 4),
      "i32.load",
      set("penalty"),
      // cmp = INDENT_WEIGHT × sign(score - bestIndent) + (penalty - bestPenalty)
      get("score"),
      get("bestIndent"),
      "i32.gt_s",
      get("score"),
      get("bestIndent"),
      "i32.lt_s",
      "i32.sub",
      konst(INDENT.INDENT_WEIGHT),
      "i32.mul",
      get("penalty"),
      get("bestPenalty"),
      "i32.sub",
      "i32.add",
      set("cmp"),
      get("bestShift"),
      konst(-1),
      "i32.eq",
      get("cmp"),
      konst(0),
      "i32.le_s",
      "i32.or",
      "if",
      get("score"),
      set("bestIndent"),
      get("penalty"),
      set("bestPenalty"),
      get("shift"),
      set("bestShift"),
      "end",
      ...bump("shift", [konst(1)]),
      ["br", 0],
      "end",
      "end",
      ...slideUpWhile([get("ge"), get("bestShift"), "i32.le_s"]),
      "end",
      "end",
      "end",
      // the next group in both files
      ...groupNext(G),
      get("ok"),
      "i32.eqz",
      ["br_if", 1],
      ...groupNext(GO),
      ...requireOk,
      ["br", 0],
      "end",
      "end",
    ],
  },
  {
    // xdl_split: the middle of the box (off1, lim1) × (off2, lim2) of kept lines, searched from
    // both corners; past xdiff's cost bounds a good snake or the furthest-reaching point stands in
    // for the middle. Writes [i1, i2, minLow, minHigh] at `out`.
    name: "split",
    params: ["h1", "off1", "lim1", "h2", "off2", "lim2", "fb", "bb", "needMin", "mxcost", "out"],
    locals: [
      "dmin",
      "dmax",
      "fmid",
      "bmid",
      "odd",
      "fmin",
      "fmax",
      "bmin",
      "bmax",
      "ec",
      "gotSnake",
      "d",
      "i1",
      "i2",
      "prev1",
      "best",
      "dd",
      "v",
      "k",
      "fbest",
      "fbest1",
      "bbest",
      "bbest1",
    ],
    result: false,
    body: [
      get("off1"),
      get("lim2"),
      "i32.sub",
      set("dmin"),
      get("lim1"),
      get("off2"),
      "i32.sub",
      set("dmax"),
      get("off1"),
      get("off2"),
      "i32.sub",
      tee("fmid"),
      tee("fmin"),
      set("fmax"),
      get("lim1"),
      get("lim2"),
      "i32.sub",
      tee("bmid"),
      tee("bmin"),
      set("bmax"),
      get("fmid"),
      get("bmid"),
      "i32.sub",
      konst(1),
      "i32.and",
      set("odd"),
      ...kvAt("fb", [get("fmid")]),
      get("off1"),
      "i32.store",
      ...kvAt("bb", [get("bmid")]),
      get("lim1"),
      "i32.store",
      konst(1),
      set("ec"),
      "loop",
      konst(0),
      set("gotSnake"),
      // forward
      get("fmin"),
      get("dmin"),
      "i32.gt_s",
      "if",
      ...bump("fmin", [konst(-1)]),
      ...kvAt("fb", [get("fmin"), konst(1), "i32.sub"]),
      konst(-1),
      "i32.store",
      "else",
      ...bump("fmin", [konst(1)]),
      "end",
      get("fmax"),
      get("dmax"),
      "i32.lt_s",
      "if",
      ...bump("fmax", [konst(1)]),
      ...kvAt("fb", [get("fmax"), konst(1), "i32.add"]),
      konst(-1),
      "i32.store",
      "else",
      ...bump("fmax", [konst(-1)]),
      "end",
      ...diagonals("fmax", "fmin", [
        ...kvLoad("fb", [get("d"), konst(1), "i32.sub"]),
        ...kvLoad("fb", [get("d"), konst(1), "i32.add"]),
        "i32.ge_s",
        "if",
        ...kvLoad("fb", [get("d"), konst(1), "i32.sub"]),
        konst(1),
        "i32.add",
        set("i1"),
        "else",
        ...kvLoad("fb", [get("d"), konst(1), "i32.add"]),
        set("i1"),
        "end",
        get("i1"),
        set("prev1"),
        get("i1"),
        get("d"),
        "i32.sub",
        set("i2"),
        "block",
        "loop",
        get("i1"),
        get("lim1"),
        "i32.ge_s",
        ["br_if", 1],
        get("i2"),
        get("lim2"),
        "i32.ge_s",
        ["br_if", 1],
        ...h("h1", [get("i1")]),
        ...h("h2", [get("i2")]),
        "i32.ne",
        ["br_if", 1],
        ...bump("i1", [konst(1)]),
        ...bump("i2", [konst(1)]),
        ["br", 0],
        "end",
        "end",
        get("i1"),
        get("prev1"),
        "i32.sub",
        konst(SEARCH.XDL_SNAKE_CNT),
        "i32.gt_s",
        "if",
        konst(1),
        set("gotSnake"),
        "end",
        ...kvAt("fb", [get("d")]),
        get("i1"),
        "i32.store",
        ...all([
          [get("odd")],
          [get("bmin"), get("d"), "i32.le_s"],
          [get("d"), get("bmax"), "i32.le_s"],
        ]),
        "if",
        ...kvLoad("bb", [get("d")]),
        get("i1"),
        "i32.le_s",
        "if",
        ...splitResult([get("i1")], [get("i2")], 1, 1),
        "end",
        "end",
      ]),
      // backward
      get("bmin"),
      get("dmin"),
      "i32.gt_s",
      "if",
      ...bump("bmin", [konst(-1)]),
      ...kvAt("bb", [get("bmin"), konst(1), "i32.sub"]),
      konst(SEARCH.XDL_LINE_MAX),
      "i32.store",
      "else",
      ...bump("bmin", [konst(1)]),
      "end",
      get("bmax"),
      get("dmax"),
      "i32.lt_s",
      "if",
      ...bump("bmax", [konst(1)]),
      ...kvAt("bb", [get("bmax"), konst(1), "i32.add"]),
      konst(SEARCH.XDL_LINE_MAX),
      "i32.store",
      "else",
      ...bump("bmax", [konst(-1)]),
      "end",
      ...diagonals("bmax", "bmin", [
        ...kvLoad("bb", [get("d"), konst(1), "i32.sub"]),
        ...kvLoad("bb", [get("d"), konst(1), "i32.add"]),
        "i32.lt_s",
        "if",
        ...kvLoad("bb", [get("d"), konst(1), "i32.sub"]),
        set("i1"),
        "else",
        ...kvLoad("bb", [get("d"), konst(1), "i32.add"]),
        konst(1),
        "i32.sub",
        set("i1"),
        "end",
        get("i1"),
        set("prev1"),
        get("i1"),
        get("d"),
        "i32.sub",
        set("i2"),
        "block",
        "loop",
        get("i1"),
        get("off1"),
        "i32.le_s",
        ["br_if", 1],
        get("i2"),
        get("off2"),
        "i32.le_s",
        ["br_if", 1],
        ...h("h1", [get("i1"), konst(1), "i32.sub"]),
        ...h("h2", [get("i2"), konst(1), "i32.sub"]),
        "i32.ne",
        ["br_if", 1],
        ...bump("i1", [konst(-1)]),
        ...bump("i2", [konst(-1)]),
        ["br", 0],
        "end",
        "end",
        get("prev1"),
        get("i1"),
        "i32.sub",
        konst(SEARCH.XDL_SNAKE_CNT),
        "i32.gt_s",
        "if",
        konst(1),
        set("gotSnake"),
        "end",
        ...kvAt("bb", [get("d")]),
        get("i1"),
        "i32.store",
        ...all([
          [get("odd"), "i32.eqz"],
          [get("fmin"), get("d"), "i32.le_s"],
          [get("d"), get("fmax"), "i32.le_s"],
        ]),
        "if",
        get("i1"),
        ...kvLoad("fb", [get("d")]),
        "i32.le_s",
        "if",
        ...splitResult([get("i1")], [get("i2")], 1, 1),
        "end",
        "end",
      ]),
      get("needMin"),
      "i32.eqz",
      "if",
      get("gotSnake"),
      get("ec"),
      konst(SEARCH.XDL_HEUR_MIN_COST),
      "i32.gt_s",
      "i32.and",
      "if",
      // a good enough snake from the forward search, else from the backward one
      konst(0),
      set("best"),
      ...diagonals("fmax", "fmin", [
        ...distance("fmid"),
        ...kvLoad("fb", [get("d")]),
        tee("i1"),
        get("d"),
        "i32.sub",
        set("i2"),
        get("i1"),
        get("off1"),
        "i32.sub",
        get("i2"),
        get("off2"),
        "i32.sub",
        "i32.add",
        get("dd"),
        "i32.sub",
        set("v"),
        ...all([
          [get("v"), konst(SEARCH.XDL_K_HEUR), get("ec"), "i32.mul", "i32.gt_s"],
          [get("v"), get("best"), "i32.gt_s"],
          [get("off1"), konst(SEARCH.XDL_SNAKE_CNT), "i32.add", get("i1"), "i32.le_s"],
          [get("i1"), get("lim1"), "i32.lt_s"],
          [get("off2"), konst(SEARCH.XDL_SNAKE_CNT), "i32.add", get("i2"), "i32.le_s"],
          [get("i2"), get("lim2"), "i32.lt_s"],
        ]),
        "if",
        konst(1),
        set("k"),
        "block",
        "loop",
        ...h("h1", [get("i1"), get("k"), "i32.sub"]),
        ...h("h2", [get("i2"), get("k"), "i32.sub"]),
        "i32.ne",
        ["br_if", 1],
        get("k"),
        konst(SEARCH.XDL_SNAKE_CNT),
        "i32.eq",
        "if",
        get("v"),
        set("best"),
        get("out"),
        get("i1"),
        "i32.store",
        get("out"),
        konst(4),
        "i32.add",
        get("i2"),
        "i32.store",
        ["br", 2],
        "end",
        ...bump("k", [konst(1)]),
        ["br", 0],
        "end",
        "end",
        "end",
      ]),
      get("best"),
      konst(0),
      "i32.gt_s",
      "if",
      get("out"),
      konst(8),
      "i32.add",
      konst(1),
      "i32.store",
      get("out"),
      konst(12),
      "i32.add",
      konst(0),
      "i32.store",
      "return",
      "end",
      ...diagonals("bmax", "bmin", [
        ...distance("bmid"),
        ...kvLoad("bb", [get("d")]),
        tee("i1"),
        get("d"),
        "i32.sub",
        set("i2"),
        get("lim1"),
        get("i1"),
        "i32.sub",
        get("lim2"),
        get("i2"),
        "i32.sub",
        "i32.add",
        get("dd"),
        "i32.sub",
        set("v"),
        ...all([
          [get("v"), konst(SEARCH.XDL_K_HEUR), get("ec"), "i32.mul", "i32.gt_s"],
          [get("v"), get("best"), "i32.gt_s"],
          [get("off1"), get("i1"), "i32.lt_s"],
          [get("i1"), get("lim1"), konst(SEARCH.XDL_SNAKE_CNT), "i32.sub", "i32.le_s"],
          [get("off2"), get("i2"), "i32.lt_s"],
          [get("i2"), get("lim2"), konst(SEARCH.XDL_SNAKE_CNT), "i32.sub", "i32.le_s"],
        ]),
        "if",
        konst(0),
        set("k"),
        "block",
        "loop",
        ...h("h1", [get("i1"), get("k"), "i32.add"]),
        ...h("h2", [get("i2"), get("k"), "i32.add"]),
        "i32.ne",
        ["br_if", 1],
        get("k"),
        konst(SEARCH.XDL_SNAKE_CNT - 1),
        "i32.eq",
        "if",
        get("v"),
        set("best"),
        get("out"),
        get("i1"),
        "i32.store",
        get("out"),
        konst(4),
        "i32.add",
        get("i2"),
        "i32.store",
        ["br", 2],
        "end",
        ...bump("k", [konst(1)]),
        ["br", 0],
        "end",
        "end",
        "end",
      ]),
      get("best"),
      konst(0),
      "i32.gt_s",
      "if",
      get("out"),
      konst(8),
      "i32.add",
      konst(0),
      "i32.store",
      get("out"),
      konst(12),
      "i32.add",
      konst(1),
      "i32.store",
      "return",
      "end",
      "end",
      get("ec"),
      get("mxcost"),
      "i32.ge_s",
      "if",
      // past mxcost: the furthest-reaching point of either search
      konst(-1),
      set("fbest"),
      konst(-1),
      set("fbest1"),
      ...diagonals("fmax", "fmin", [
        ...kvLoad("fb", [get("d")]),
        tee("i1"),
        get("lim1"),
        get("i1"),
        get("lim1"),
        "i32.lt_s",
        "select",
        tee("i1"),
        get("d"),
        "i32.sub",
        set("i2"),
        get("lim2"),
        get("i2"),
        "i32.lt_s",
        "if",
        get("lim2"),
        get("d"),
        "i32.add",
        set("i1"),
        get("lim2"),
        set("i2"),
        "end",
        get("fbest"),
        get("i1"),
        get("i2"),
        "i32.add",
        "i32.lt_s",
        "if",
        get("i1"),
        get("i2"),
        "i32.add",
        set("fbest"),
        get("i1"),
        set("fbest1"),
        "end",
      ]),
      konst(SEARCH.XDL_LINE_MAX),
      set("bbest"),
      konst(SEARCH.XDL_LINE_MAX),
      set("bbest1"),
      ...diagonals("bmax", "bmin", [
        ...kvLoad("bb", [get("d")]),
        tee("i1"),
        get("off1"),
        get("i1"),
        get("off1"),
        "i32.gt_s",
        "select",
        tee("i1"),
        get("d"),
        "i32.sub",
        set("i2"),
        get("i2"),
        get("off2"),
        "i32.lt_s",
        "if",
        get("off2"),
        get("d"),
        "i32.add",
        set("i1"),
        get("off2"),
        set("i2"),
        "end",
        get("i1"),
        get("i2"),
        "i32.add",
        get("bbest"),
        "i32.lt_s",
        "if",
        get("i1"),
        get("i2"),
        "i32.add",
        set("bbest"),
        get("i1"),
        set("bbest1"),
        "end",
      ]),
      get("lim1"),
      get("lim2"),
      "i32.add",
      get("bbest"),
      "i32.sub",
      get("fbest"),
      get("off1"),
      get("off2"),
      "i32.add",
      "i32.sub",
      "i32.lt_s",
      "if",
      ...splitResult([get("fbest1")], [get("fbest"), get("fbest1"), "i32.sub"], 1, 0),
      "end",
      ...splitResult([get("bbest1")], [get("bbest"), get("bbest1"), "i32.sub"], 0, 1),
      "end",
      "end",
      ...bump("ec", [konst(1)]),
      ["br", 0],
      "end",
    ],
  },
  {
    // xdl_recs_cmp with an explicit stack (boxes of five i32: off1, lim1, off2, lim2, needMin,
    // taken in the recursion's order): marks the changed kept lines (changed[kept[i] + 1] = 1).
    name: "search",
    params: [
      "h1",
      "n1",
      "h2",
      "n2",
      "kept1",
      "kept2",
      "changed1",
      "changed2",
      "fb",
      "bb",
      "mxcost",
      "stack",
      "out",
    ],
    locals: ["sp", "off1", "lim1", "off2", "lim2", "min"],
    result: false,
    body: [
      get("stack"),
      set("sp"),
      ...pushBox([[konst(0)], [get("n1")], [konst(0)], [get("n2")], [konst(0)]]),
      "block",
      "loop",
      get("sp"),
      get("stack"),
      "i32.eq",
      ["br_if", 1],
      ...bump("sp", [konst(-20)]),
      ...loadAt("sp", [konst(0)]),
      set("off1"),
      ...loadAt("sp", [konst(1)]),
      set("lim1"),
      ...loadAt("sp", [konst(2)]),
      set("off2"),
      ...loadAt("sp", [konst(3)]),
      set("lim2"),
      ...loadAt("sp", [konst(4)]),
      set("min"),
      // the common start and end of the box
      "block",
      "loop",
      ...all([
        [get("off1"), get("lim1"), "i32.lt_s"],
        [get("off2"), get("lim2"), "i32.lt_s"],
      ]),
      "i32.eqz",
      ["br_if", 1],
      ...h("h1", [get("off1")]),
      ...h("h2", [get("off2")]),
      "i32.ne",
      ["br_if", 1],
      ...bump("off1", [konst(1)]),
      ...bump("off2", [konst(1)]),
      ["br", 0],
      "end",
      "end",
      "block",
      "loop",
      ...all([
        [get("off1"), get("lim1"), "i32.lt_s"],
        [get("off2"), get("lim2"), "i32.lt_s"],
      ]),
      "i32.eqz",
      ["br_if", 1],
      ...h("h1", [get("lim1"), konst(1), "i32.sub"]),
      ...h("h2", [get("lim2"), konst(1), "i32.sub"]),
      "i32.ne",
      ["br_if", 1],
      ...bump("lim1", [konst(-1)]),
      ...bump("lim2", [konst(-1)]),
      ["br", 0],
      "end",
      "end",
      get("off1"),
      get("lim1"),
      "i32.eq",
      "if",
      ...markKept("kept2", "changed2", "off2", "lim2"),
      "else",
      get("off2"),
      get("lim2"),
      "i32.eq",
      "if",
      ...markKept("kept1", "changed1", "off1", "lim1"),
      "else",
      get("h1"),
      get("off1"),
      get("lim1"),
      get("h2"),
      get("off2"),
      get("lim2"),
      get("fb"),
      get("bb"),
      get("min"),
      get("mxcost"),
      get("out"),
      call("split"),
      // the high box first, so the low one is taken first, as the recursion does
      ...pushBox([
        loadAt("out", [konst(0)]),
        [get("lim1")],
        loadAt("out", [konst(1)]),
        [get("lim2")],
        loadAt("out", [konst(3)]),
      ]),
      ...pushBox([
        [get("off1")],
        loadAt("out", [konst(0)]),
        [get("off2")],
        loadAt("out", [konst(1)]),
        loadAt("out", [konst(2)]),
      ]),
      "end",
      "end",
      ["br", 0],
      "end",
      "end",
    ],
  },
];

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

let compiled: WebAssembly.Module | null = null;

/** A fresh instance (its own memory) for one diff. */
function instantiate(): Exports {
  compiled ??= new WebAssembly.Module(assemble(FUNCTIONS) as Uint8Array<ArrayBuffer>);
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
