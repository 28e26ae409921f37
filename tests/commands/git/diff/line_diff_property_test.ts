/**
 * pterm's line diff (commands/git/diff/line_diff.ts, xdiff's algorithm) against the real git, on
 * random files of lines drawn from a small pool — repeated lines, CRLF, a missing final newline,
 * Latin-1 bytes, UTF-8, a BOM: the patch is git's own, byte for byte (`git diff --no-index` in
 * process; `git diff` through the pterm process), `git apply --check` accepts it and applying it
 * gives the new file exactly. The WebAssembly and JavaScript engines (and the mix of both that
 * runs when WebAssembly memory runs short) give the same text.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import {
  DEFAULT_ALGORITHM,
  type Engine,
  type LineAlgorithm,
  unifiedDiff,
} from "../../../../commands/git/diff/line_diff.ts";
import { histogramChanged } from "../../../../commands/git/diff/histogram.ts";
import { LineScan } from "../../../../commands/git/diff/line_scan.ts";
import { makeRoot } from "../../../_support/helpers.ts";
import { git, GIT_ENV, gitInit, pterm, result } from "../oracle.ts";

const latin1 = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
const chars = (bytes: Uint8Array) => Array.from(bytes, (b) => String.fromCharCode(b)).join("");
const utf8 = (text: string) => new TextEncoder().encode(text);

/** Runs the real git on bytes; its exit code and stdout as bytes. */
async function gitExact(
  cwd: string,
  args: string[],
  input?: Uint8Array,
): Promise<{ code: number; stdout: Uint8Array; stderr: string }> {
  const child = new Deno.Command("git", {
    args,
    cwd,
    env: GIT_ENV,
    clearEnv: true,
    stdin: input ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (input) {
    const writer = child.stdin.getWriter();
    await writer.write(input);
    await writer.close();
  }
  const out = await child.output();
  return { code: out.code, stdout: out.stdout, stderr: new TextDecoder().decode(out.stderr) };
}

/** Lines as bytes (written as one character per byte): UTF-8 é is "\xC3\xA9", Latin-1 é is "\xE9". */
const POOL = [
  "a",
  "b",
  "c",
  "x = 1;",
  "  indented",
  "\tmore",
  "",
  "}",
  "function f() {",
  "_private",
  "caf\xE9 cr\xE8me", // Latin-1
  "caf\xC3\xA9", // UTF-8
  "\xEF\xBB\xBFbom", // a UTF-8 BOM
];

/** A file: lines from the pool, each ending in LF or CRLF, the last one maybe without. */
const fileArb = (maxLines: number, pool: readonly string[], minLines = 0) =>
  fc.tuple(
    fc.array(fc.tuple(fc.constantFrom(...pool), fc.boolean()), {
      minLength: minLines,
      maxLength: maxLines,
      size: "max",
    }),
    fc.boolean(),
  ).map(([lines, finalNewline]) => {
    const text = lines.map(([line, crlf]) => line + (crlf ? "\r\n" : "\n")).join("");
    return latin1(finalNewline || text === "" ? text : text.replace(/\r?\n$/, ""));
  });

/** An edit of `base`: some lines replaced, inserted or deleted, so the two files share most lines. */
const pairArb = (maxLines: number, pool: readonly string[], minLines = 0) =>
  fc.tuple(
    fileArb(maxLines, pool, minLines),
    fileArb(maxLines, pool, minLines),
    fc.array(fc.nat(), { maxLength: 12 }),
    fc.boolean(),
  )
    .map(([base, other, cuts, unrelated]) => {
      if (unrelated) return [base, other] as const;
      const baseLines = chars(base).split(/(?<=\n)/);
      const otherLines = chars(other).split(/(?<=\n)/);
      const edited = [...baseLines];
      for (const [k, cut] of cuts.entries()) {
        const at = edited.length ? cut % (edited.length + 1) : 0;
        if (k % 3 === 0) edited.splice(at, 1);
        else edited.splice(at, k % 3 === 1 ? 1 : 0, otherLines[cut % Math.max(1, otherLines.length)] ?? "z\n");
      }
      // A line without its newline can only be the last one.
      const text = edited.map((line, i) => i < edited.length - 1 && !line.endsWith("\n") ? line + "\n" : line).join("");
      return [base, latin1(text)] as const;
    });

/**
 * The patch text as the bytes it stands for. pterm shows a UTF-8 file's lines as UTF-8 and any
 * other file's one character per byte; `+` lines come from the new file, the rest from the old.
 */
function patchBytes(text: string, before: Uint8Array, after: Uint8Array): Uint8Array {
  const isUtf8 = (bytes: Uint8Array) => {
    try {
      new TextDecoder("utf-8", { fatal: true }).decode(bytes);
      return true;
    } catch {
      return false;
    }
  };
  const oldUtf8 = isUtf8(before);
  const newUtf8 = isUtf8(after);
  const out: number[] = [];
  for (const line of text.split(/(?<=\n)/)) {
    const asUtf8 = line.startsWith("+") ? newUtf8 : oldUtf8;
    out.push(...(asUtf8 ? utf8(line) : latin1(line)));
  }
  return Uint8Array.from(out);
}

/**
 * Long files with the shapes xdiff's bounds are for: a few very frequent lines among lines only
 * one file has (xdl_cleanup_records, xdl_clean_mmatch's window), and hundreds of edits between
 * long common runs (the search passes XDL_HEUR_MIN_COST, takes XDL_SNAKE_CNT snakes, hits mxcost).
 */
const longPairArb = fc.tuple(
  fc.array(fc.oneof(fc.constantFrom("a\n", "b\n", "c\n"), fc.nat(100_000).map((n) => `u${n}\n`)), {
    minLength: 1000,
    maxLength: 4000,
    size: "max",
  }),
  fc.array(
    fc.tuple(
      fc.nat(),
      fc.nat(4),
      fc.oneof(fc.constantFrom("a\n", "b\n", "c\n"), fc.nat(100_000).map((n) => `v${n}\n`)),
      fc.integer({ min: 20, max: 160 }),
    ),
    { maxLength: 1500, size: "max" },
  ),
).map(([base, edits]) => {
  const edited = [...base];
  for (const [at, op, line, span] of edits) {
    const k = at % (edited.length + 1);
    if (op === 0) edited.splice(k, 1);
    else if (op === 4) {
      // a block rewritten: frequent lines among lines only the new file has
      const block = Array.from({ length: span }, (_, j) => j % 3 ? "abc"[(at + j) % 3] + "\n" : `w${at}.${j}\n`);
      edited.splice(k, span, ...block);
    } else edited.splice(k, op === 1 ? 1 : 0, line);
  }
  return [latin1(base.join("")), latin1(edited.join(""))] as const;
});

/** git's patch body (from the first `@@`) for two files, with --no-index (and `flags`, e.g. --histogram). */
async function gitBody(dir: string, before: Uint8Array, after: Uint8Array, ...flags: string[]): Promise<Uint8Array> {
  await Deno.writeFile(`${dir}/old`, before);
  await Deno.writeFile(`${dir}/new`, after);
  const out = await gitExact(dir, ["diff", "--no-index", "--no-color", ...flags, "old", "new"]);
  assert.ok(out.code === 0 || out.code === 1, out.stderr);
  const at = findHunks(out.stdout);
  return at < 0 ? new Uint8Array() : out.stdout.subarray(at);
}

function findHunks(bytes: Uint8Array): number {
  for (let i = 0; i + 2 < bytes.length; i++) {
    if (bytes[i] === 0x40 && bytes[i + 1] === 0x40 && (i === 0 || bytes[i - 1] === 10)) return i;
  }
  return -1;
}

/**
 * pterm's patch body for that pair: its bytes, which must also be what its text stands for
 * (before and after decide how the text reads).
 */
function ours(
  before: Uint8Array,
  after: Uint8Array,
  engine: Engine = "wasm",
  algorithm: LineAlgorithm = DEFAULT_ALGORITHM,
): Uint8Array {
  const diff = unifiedDiff(before, after, 3, engine, algorithm);
  assert.deepEqual(patchBytes(diff.text, before, after), diff.bytes, "the text shows the patch's bytes");
  return diff.bytes;
}

Deno.test("property: the line diff's hunks are git's, byte for byte (small files, every shape of line)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await fc.assert(
      fc.asyncProperty(pairArb(30, POOL), async ([before, after]) => {
        const mine = ours(before, after);
        assert.deepEqual(ours(before, after, "js"), mine, "the engines agree");
        assert.deepEqual(ours(before, after, "wasm-lines"), mine, "the engines agree");
        assert.deepEqual(mine, await gitBody(dir, before, after));
      }),
      { numRuns: 300 },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/**
 * Lines git may take as a hunk's function line (they start with a letter, `_` or `$`), shaped for
 * git's def_ff and sane_truncate_line: longer than its 80 bytes with a multi-byte character cut
 * by that limit, white space before the limit, valid UTF-8 of every length; and (second pool)
 * the sequences utf8.c refuses — a surrogate, overlong forms, past U+10FFFF, U+FFFE.
 */
const VALID_FUNCTION_LINES = [
  "long_" + "x".repeat(74) + "\xC3\xA9 after", // é's two bytes across byte 80
  "euro" + "x".repeat(74) + "\xE2\x82\xAC after", // € across byte 80
  "smile" + "x".repeat(72) + "\xF0\x9F\x98\x80 after", // an emoji across byte 80
  "w" + "y".repeat(76) + "    z", // white space just before the cut
  "trailing \t ",
  "$dollar",
  "k\xE2\x82\xAC euro",
  "e\xF0\x9F\x98\x80 emoji",
];
const INVALID_FUNCTION_LINES = [
  "s\xED\xA0\x80 surrogate",
  "o\xE0\x80\x80 overlong",
  "q\xC0\xAF overlong",
  "m\xF4\x90\x80\x80 too large",
  "f\xF5\x80\x80\x80 no such lead",
  "n\xEF\xBF\xBE U+FFFE",
  "t\xE2\x82 cut short",
];
// Fillers that git never takes as a function line, so the lines above stand out.
const FILLERS = ["", "  body;", "}", "1;", "\t- item", "  "];

Deno.test("property: --histogram and --minimal hunks are git's in every engine (repeated lines, past the 64 limit too)", async () => {
  const dir = await Deno.makeTempDir();
  const algorithms: [string[], LineAlgorithm][] = [
    [["--histogram"], { search: histogramChanged, minimal: false }],
    [["--minimal"], { search: null, minimal: true }],
    [["--histogram", "--minimal"], { search: histogramChanged, minimal: true }],
  ];
  // Runs of one line past histogram's 64-occurrence limit, so its fall-back to Myers is taken too.
  const repeated = fc.tuple(pairArb(30, POOL), fc.constantFrom("a\n", "}\n"), fc.integer({ min: 60, max: 90 }))
    .map(([[before, after], line, times]) => {
      const run = latin1(line.repeat(times));
      const join = (x: Uint8Array, y: Uint8Array) => Uint8Array.from([...x, ...y]);
      return [join(run, before), join(after, run)] as const;
    });
  try {
    await fc.assert(
      fc.asyncProperty(fc.oneof(pairArb(40, POOL), repeated), fc.nat(2), async ([before, after], pick) => {
        const [flags, algorithm] = algorithms[pick];
        const mine = ours(before, after, "wasm", algorithm);
        assert.deepEqual(ours(before, after, "js", algorithm), mine, "the engines agree");
        assert.deepEqual(ours(before, after, "wasm-lines", algorithm), mine, "the engines agree");
        assert.deepEqual(mine, await gitBody(dir, before, after, ...flags), flags.join(" "));
      }),
      { numRuns: 300 },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("property: hunk headers carry git's function line (80-byte cut, white space, UTF-8 rules) in both engines", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          pairArb(60, [...FILLERS, ...VALID_FUNCTION_LINES]),
          pairArb(60, [...FILLERS, ...VALID_FUNCTION_LINES, ...INVALID_FUNCTION_LINES]),
        ),
        async ([before, after]) => {
          const mine = ours(before, after);
          assert.deepEqual(ours(before, after, "js"), mine, "the engines agree");
          assert.deepEqual(ours(before, after, "wasm-lines"), mine, "the engines agree");
          assert.deepEqual(mine, await gitBody(dir, before, after));
        },
      ),
      { numRuns: 300 },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/**
 * Code-shaped lines for git's indent heuristic: blank and white-space-only lines, closing braces
 * at several depths, spaces and TABs mixed (a TAB after spaces goes to the next multiple of 8),
 * indents past MAX_INDENT.
 */
const INDENT_POOL = [
  "",
  "  ",
  "\t",
  "}",
  "  }",
  "\t}",
  "if (a) {",
  "  x;",
  "    y;",
  "\tz;",
  "  \tmixed;",
  "     \tfive and a tab;",
  "\t\tdeep;",
  " ".repeat(210) + "far;",
  "\r",
];

/**
 * Runs of repeated lines (up to 150, past INDENT_HEURISTIC_MAX_SLIDING) with code-shaped lines
 * between, then lines inserted and deleted: the change groups can slide, often far.
 */
const slidingPairArb = fc.tuple(
  fc.array(fc.tuple(fc.constantFrom(...INDENT_POOL), fc.integer({ min: 1, max: 150 })), {
    minLength: 1,
    maxLength: 12,
  }),
  fc.array(fc.tuple(fc.nat(), fc.nat(2), fc.constantFrom(...INDENT_POOL)), { minLength: 1, maxLength: 8 }),
).map(([runs, edits]) => {
  const base = runs.flatMap(([line, count]) => Array.from({ length: count }, () => line + "\n"));
  const edited = [...base];
  for (const [at, op, line] of edits) {
    const k = at % (edited.length + 1);
    if (op === 0) edited.splice(k, 1);
    else if (op === 1) edited.splice(k, 0, edited[Math.min(k, edited.length - 1)] ?? line + "\n");
    else edited.splice(k, 0, line + "\n", line + "\n");
  }
  return [latin1(base.join("")), latin1(edited.join(""))] as const;
});

Deno.test("property: change groups slide as git's indent heuristic slides them (code-shaped files, long runs)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await fc.assert(
      fc.asyncProperty(fc.oneof(slidingPairArb, pairArb(80, INDENT_POOL)), async ([before, after]) => {
        const mine = ours(before, after);
        assert.deepEqual(ours(before, after, "js"), mine, "the engines agree");
        assert.deepEqual(ours(before, after, "wasm-lines"), mine, "the engines agree");
        assert.deepEqual(mine, await gitBody(dir, before, after));
      }),
      { numRuns: 300 },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("property: long files of few distinct lines (xdiff's cost bounds and multi-match rules) diff as git's", async () => {
  // Thousands of lines from three: xdl_cleanup_records leaves frequent lines out among unmatched
  // ones, and the search passes XDL_HEUR_MIN_COST and mxcost, where git's diff stops being minimal.
  const dir = await Deno.makeTempDir();
  try {
    await fc.assert(
      fc.asyncProperty(fc.oneof(longPairArb, pairArb(3000, ["a", "b", "c"], 1000)), async ([before, after]) => {
        const mine = ours(before, after);
        assert.deepEqual(ours(before, after, "js"), mine, "the engines agree");
        assert.deepEqual(ours(before, after, "wasm-lines"), mine, "the engines agree");
        assert.deepEqual(mine, await gitBody(dir, before, after));
      }),
      // No shrinking: a counterexample of thousands of lines shrinks for minutes.
      { numRuns: 40, endOnFailure: true },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("property: pterm's `git diff` is git's patch, git apply --check accepts it, and applying it gives the new file", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await fc.assert(
    fc.asyncProperty(pairArb(40, POOL), async ([before, after]) => {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
      await gitInit(dir);
      // Text as git sees it: no attribute or autocrlf conversion in the way.
      await Deno.writeTextFile(`${dir}/.gitattributes`, "f -text\n");
      await Deno.writeFile(`${dir}/f`, before);
      await git(dir, "add", "-A");
      await git(dir, "commit", "-qm", "before");
      await Deno.writeFile(`${dir}/f`, after);
      const envelope = await pterm(root.path, "git diff --repo r");
      const r = result(envelope);
      // The artifact is the patch's bytes; stdout is only text, and only when every file is UTF-8.
      if (r.not_utf8.length) assert.ok(r.patch_artifact, "a patch that is not UTF-8 is saved as bytes");
      const patch = r.patch_artifact ? await Deno.readFile(`${root.path}/${r.patch_artifact}`) : utf8(envelope.stdout);
      const theirs = await gitExact(dir, ["diff", "--no-color"]);
      assert.equal(theirs.code, 0, theirs.stderr);
      assert.deepEqual(patch, theirs.stdout, "the same patch as git diff");
      if (patch.length === 0) return;
      await git(dir, "checkout", "--", "f");
      const check = await gitExact(dir, ["apply", "--check", "-"], patch);
      assert.equal(check.code, 0, `git apply --check refused: ${check.stderr}`);
      const apply = await gitExact(dir, ["apply", "-"], patch);
      assert.equal(apply.code, 0, apply.stderr);
      assert.deepEqual(await Deno.readFile(`${dir}/f`), after);
    }),
    { numRuns: 30 },
  );
});

Deno.test("the WebAssembly module validates (else every diff would quietly take the JavaScript engine)", () => {
  const bytes = new TextEncoder().encode("a\nb\n");
  assert.notEqual(LineScan.of(bytes, bytes), null);
});
