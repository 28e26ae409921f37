/**
 * Property tests of pterm's three-way text merge against the real git, on bytes:
 *
 * - xmerge.ts with Myers and the ALNUM level is what `git merge-file -p` runs (git 2.39's
 *   merge-file has no other algorithm): merged bytes and conflict count (its exit status) must
 *   match for every conflict style, favour (`--ours`, `--theirs`, `--union`), marker size and
 *   `-L` labels;
 * - diff3.ts's mergeText (histogram, zealous level: what `git merge`, `cherry-pick`, `revert`
 *   and `stash apply` run through merge-ort) is compared with `git merge-tree --write-tree` on
 *   the same three blobs committed as base, ours and theirs, under each `merge.conflictStyle`.
 *
 * Files are random edits of line lists drawn from a small pool (so lines repeat, where histogram
 * and Myers part ways), with CRLF and LF lines, Latin-1 and UTF-8 bytes, a BOM, no final
 * newline, empty files; and long files of a few lines repeated more than 64 times (where git's
 * histogram falls back to Myers).
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { mergeText } from "../../../../commands/git/merge/diff3.ts";
import {
  type ConflictStyle,
  diffScript,
  type Favor,
  MERGE_ZEALOUS_ALNUM,
  splitLines,
  xmerge,
} from "../../../../commands/git/merge/xmerge.ts";
import { GIT_ENV } from "../oracle.ts";

const latin1 = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
const asLatin1 = (bytes: Uint8Array) => new TextDecoder("latin1").decode(bytes);

/** Lines as byte strings: repeats, CRLF, braces and blank lines (where diffs slide), Latin-1, UTF-8 and a BOM. */
const POOL = [
  "a\n",
  "b\n",
  "c\n",
  "}\n",
  "\n",
  "{\n",
  "x y\n",
  "a\r\n",
  "\r\n",
  "\xe9t\xe9\n",
  "\xc3\xa9\n",
  "\xef\xbb\xbfa\n",
];

type Edit = [at: number, kind: number, line: string];

function applyEdits(base: readonly string[], edits: readonly Edit[]): string[] {
  const out = [...base];
  for (const [at, kind, line] of edits) {
    const p = out.length === 0 ? 0 : at % (out.length + 1);
    if (kind === 0) out.splice(p, 0, line);
    else if (kind === 1) out.splice(p, 1);
    else if (kind === 2) out.splice(p, 1, line);
    // A copy of an earlier run of lines (real edits repeat blocks: histogram and Myers differ there).
    else out.splice(p, 0, ...out.slice(Math.max(0, p - 3), p));
  }
  return out;
}

const editArb = fc.tuple(fc.nat(400), fc.nat(3), fc.constantFrom(...POOL));

/** Base, ours and theirs as byte strings; each may lose its final newline. */
const threeWayArb = fc.oneof(
  { weight: 4, arbitrary: fc.array(fc.constantFrom(...POOL), { maxLength: 16 }) },
  // Two lines, each more than 64 times: git's histogram falls back to Myers.
  { weight: 1, arbitrary: fc.array(fc.constantFrom("a\n", "}\n"), { minLength: 140, maxLength: 260 }) },
).chain((base) =>
  fc.record({
    base: fc.constant(base),
    ours: fc.array(editArb, { maxLength: base.length > 100 ? 14 : 6 }).map((edits) => applyEdits(base, edits)),
    theirs: fc.array(editArb, { maxLength: base.length > 100 ? 14 : 6 }).map((edits) => applyEdits(base, edits)),
    cut: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
  })
).map(({ base, ours, theirs, cut }) => {
  const text = (lines: string[], drop: boolean) => {
    const joined = lines.join("");
    return drop && joined.endsWith("\n") ? joined.slice(0, -1) : joined;
  };
  return { base: text(base, cut[0]), ours: text(ours, cut[1]), theirs: text(theirs, cut[2]) };
});

async function run(cwd: string, args: string[], stdin?: Uint8Array): Promise<Deno.CommandOutput> {
  const child = new Deno.Command("git", {
    args,
    cwd,
    env: GIT_ENV,
    stdin: stdin ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin) {
    const writer = child.stdin.getWriter();
    await writer.write(stdin);
    await writer.close();
  }
  return await child.output();
}

Deno.test("property: xmerge (Myers, ALNUM) gives git merge-file's bytes and conflict count", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pterm-xmerge-" });
  try {
    await fc.assert(
      fc.asyncProperty(
        threeWayArb,
        fc.constantFrom<ConflictStyle>("merge", "diff3", "zdiff3"),
        fc.constantFrom<Favor | undefined>(undefined, undefined, undefined, "ours", "theirs", "union"),
        fc.constantFrom(undefined, 3, 10),
        async ({ base, ours, theirs }, style, favor, markerSize) => {
          await Deno.writeFile(`${dir}/ours`, latin1(ours));
          await Deno.writeFile(`${dir}/base`, latin1(base));
          await Deno.writeFile(`${dir}/theirs`, latin1(theirs));
          const args = ["merge-file", "-p", "-L", "mine \xe9", "-L", "the base", "-L", "theirs:x"];
          if (style !== "merge") args.push(`--${style}`);
          if (favor) args.push(`--${favor}`);
          if (markerSize) args.push(`--marker-size=${markerSize}`);
          const real = await run(dir, [...args, "ours", "base", "theirs"]);
          const mine = xmerge(base, ours, theirs, {
            algorithm: "myers",
            level: MERGE_ZEALOUS_ALNUM,
            style,
            favor,
            markerSize,
            ours: asLatin1(new TextEncoder().encode("mine \xe9")),
            base: "the base",
            theirs: "theirs:x",
          });
          const note = JSON.stringify({ base, ours, theirs, style, favor, markerSize });
          assert.equal(mine.text, asLatin1(real.stdout), note);
          assert.equal(mine.conflicts, real.code, note);
        },
      ),
      { numRuns: 300 },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** A scratch repository where base, ours and theirs are committed and merged by git's merge-ort. */
class MergeOrt {
  private constructor(readonly dir: string) {}

  static async create(): Promise<MergeOrt> {
    const dir = await Deno.makeTempDir({ prefix: "pterm-ort-" });
    const init = await run(dir, ["init", "-q"]);
    assert.equal(init.code, 0);
    return new MergeOrt(dir);
  }

  /** merge-tree's merged file and whether it conflicted, with the base's label for the diff3 styles. */
  async merge(
    base: string,
    ours: string,
    theirs: string,
    style: ConflictStyle,
  ): Promise<{ text: string; conflicted: boolean; baseLabel: string }> {
    const commit = (ref: string, parent: boolean, text: string) =>
      `commit ${ref}\n${parent ? "" : "mark :1\n"}committer T <t@t> 0 +0000\ndata 0\n` +
      `${parent ? "from :1\n" : ""}M 100644 inline f\ndata ${text.length}\n${text}\n`;
    const stream = "reset refs/heads/base\n" + commit("refs/heads/base", false, base) +
      commit("refs/heads/ours", true, ours) + commit("refs/heads/theirs", true, theirs);
    const imported = await run(this.dir, ["fast-import", "--quiet", "--force"], latin1(stream));
    assert.equal(imported.code, 0, new TextDecoder().decode(imported.stderr));
    const merged = await run(this.dir, [
      "-c",
      `merge.conflictStyle=${style}`,
      "merge-tree",
      "--write-tree",
      "ours",
      "theirs",
    ]);
    assert.ok(merged.code === 0 || merged.code === 1, new TextDecoder().decode(merged.stderr));
    const tree = new TextDecoder().decode(merged.stdout).split("\n")[0];
    const blob = await run(this.dir, ["cat-file", "blob", `${tree}:f`]);
    const short = await run(this.dir, ["rev-parse", "--short", "base"]);
    return {
      text: asLatin1(blob.stdout),
      conflicted: merged.code === 1,
      baseLabel: new TextDecoder().decode(short.stdout).trim(),
    };
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await Deno.remove(this.dir, { recursive: true });
  }
}

async function assertLikeMergeOrt(ort: MergeOrt, base: string, ours: string, theirs: string, style: ConflictStyle) {
  const real = await ort.merge(base, ours, theirs, style);
  const mine = mergeText(base, ours, theirs, { ours: "ours", theirs: "theirs", base: real.baseLabel }, { style });
  const note = JSON.stringify({ base, ours, theirs, style });
  assert.equal(mine.text, real.text, note);
  assert.equal(mine.conflicts > 0, real.conflicted, note);
  return real;
}

Deno.test("property: pterm's text merge (histogram, zealous) gives git merge-ort's bytes and verdict", async () => {
  await using ort = await MergeOrt.create();
  await fc.assert(
    fc.asyncProperty(
      threeWayArb,
      fc.constantFrom<ConflictStyle>("merge", "merge", "diff3", "zdiff3"),
      async ({ base, ours, theirs }, style) => {
        await assertLikeMergeOrt(ort, base, ours, theirs, style);
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("text merge: fixed cases against git's merge-ort", async (t) => {
  await using ort = await MergeOrt.create();
  // The first three failed with the jsdiff (Myers) alignment pterm used before; the property found the first two.
  await t.step("git merges cleanly where a Myers alignment conflicted", async () => {
    const real = await assertLikeMergeOrt(ort, "\n{", "\n{\n", "a\n\n{\na\r\n\n{", "merge");
    assert.equal(real.conflicted, false);
  });
  await t.step("a conflict cut where git cuts it, blank lines left after it", async () => {
    const real = await assertLikeMergeOrt(ort, "a\n", "a\n\n\n", "a\nb\n\n\n\n", "merge");
    assert.equal(real.conflicted, true);
  });
  await t.step(
    "a real merge from git's history (environment.c, tests/fixtures/merge) that git finishes cleanly",
    async () => {
      const dir = new URL("../../../fixtures/merge/git-environment-c/", import.meta.url);
      const [base, ours, theirs] = await Promise.all(
        ["base", "ours", "theirs"].map(async (name) => asLatin1(await Deno.readFile(new URL(name, dir)))),
      );
      for (const style of ["merge", "diff3", "zdiff3"] as const) {
        const real = await assertLikeMergeOrt(ort, base, ours, theirs, style);
        assert.equal(real.conflicted, false);
      }
    },
  );
  await t.step("repeated braces: both sides add a function next to existing ones", async () => {
    const base = "int f() {\n  return 1;\n}\n\nint g() {\n  return 2;\n}\n";
    const ours = "int f() {\n  return 1;\n}\n\nint h() {\n  return 3;\n}\n\nint g() {\n  return 2;\n}\n";
    const theirs = "int f() {\n  return 10;\n}\n\nint g() {\n  return 2;\n}\n\nint k() {\n  return 2;\n}\n";
    for (const style of ["merge", "diff3", "zdiff3"] as const) await assertLikeMergeOrt(ort, base, ours, theirs, style);
  });
});

Deno.test("property: the histogram diff marks the lines `git diff --histogram` marks", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pterm-histogram-" });
  try {
    await fc.assert(
      fc.asyncProperty(threeWayArb, async ({ base, ours }) => {
        await Deno.writeFile(`${dir}/a`, latin1(base));
        await Deno.writeFile(`${dir}/b`, latin1(ours));
        // Merges slide change groups without the indent heuristic; -U0 makes each change a hunk.
        const real = await run(dir, ["diff", "--no-index", "--histogram", "--no-indent-heuristic", "-U0", "a", "b"]);
        const want = asLatin1(real.stdout).split("\n").filter((line) => line.startsWith("@@ ")).map((line) =>
          line.split(" @@")[0]
        );
        const range = (start: number, count: number) =>
          count === 1 ? `${start + 1}` : `${count === 0 ? start : start + 1},${count}`;
        const got = diffScript(splitLines(base), splitLines(ours), "histogram").map((c) =>
          `@@ -${range(c.i1, c.chg1)} +${range(c.i2, c.chg2)}`
        );
        assert.deepEqual(got, want, JSON.stringify({ base, ours }));
      }),
      { numRuns: 300 },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
