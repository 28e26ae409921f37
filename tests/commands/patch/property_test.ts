/**
 * Properties, run through the patch engine itself (the code `patch apply` runs in its worker):
 * 1. a random edit, expressed as line and block blocks, reproduces the target text;
 * 2. every diff the real `git diff` produces applies through git.diff and gives git's result;
 * 3. the same diff still applies with shifted context, whitespace noise, wrong or missing
 *    `@@` counts, or wrapped in a code fence.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { createWorkspace } from "../../../core/context.ts";
import { runPatch } from "../../../commands/patch/engine.ts";
import { makeRoot } from "../../_support/helpers.ts";
import { block, git, patchOf } from "./helpers.ts";

let runs = 0;

async function applyText(root: string, patch: string): Promise<void> {
  await runPatch({
    mode: "apply",
    command: "patch apply",
    text: patch,
    workspace: createWorkspace(root),
    noCommit: false,
    config: {},
    session: { id: "prop", dir: `${root}/sessions/prop` },
    runId: `run-${runs++}`,
    signal: new AbortController().signal,
    git: null,
    durable: false,
  });
}

// ---- 1. random line/block edits -----------------------------------------------------------------

type Edit =
  | { kind: "line.insert" | "line.append" | "line.replace"; at: number; body: string[]; byKeys: boolean }
  | { kind: "line.delete"; at: number; byKeys: boolean }
  | { kind: "block.replace"; at: number; span: number; body: string[] }
  | { kind: "block.delete"; at: number; span: number };

const word = fc.constantFrom("alpha", "beta", "gamma", "delta", "  indented", "x = 1", "", "return y", "}");
const bodyArb = fc.array(word, { minLength: 1, maxLength: 3 });
const editArb: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({
    kind: fc.constantFrom("line.insert" as const, "line.append" as const, "line.replace" as const),
    at: fc.nat(),
    body: bodyArb,
    byKeys: fc.boolean(),
  }),
  fc.record({ kind: fc.constant("line.delete" as const), at: fc.nat(), byKeys: fc.boolean() }),
  fc.record({ kind: fc.constant("block.replace" as const), at: fc.nat(), span: fc.nat({ max: 3 }), body: bodyArb }),
  fc.record({ kind: fc.constant("block.delete" as const), at: fc.nat(), span: fc.nat({ max: 3 }) }),
);

/** Lines carry a unique marker `#n#` (so keys can name one line), unless they come from a body. */
function marked(n: number, text: string): string {
  return `#${n}# ${text}`;
}

function markerOf(line: string): string | null {
  return /^#\d+#/.exec(line)?.[0] ?? null;
}

Deno.test("property: a random edit expressed as line/block blocks reproduces the target", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(word, { minLength: 1, maxLength: 25 }),
      fc.array(editArb, { minLength: 1, maxLength: 8 }),
      async (
        initial,
        edits,
      ) => {
        await using dir = await makeRoot();
        let model = initial.map((t, i) => marked(i, t));
        await Deno.writeTextFile(`${dir.path}/f.txt`, model.join("\n") + "\n");
        const blocks: string[] = [];
        for (const edit of edits) {
          if (model.length === 0) break;
          const at = edit.at % model.length;
          const marker = markerOf(model[at]);
          if (edit.kind === "block.replace" || edit.kind === "block.delete") {
            // Scope from a marked line to the first later line holding the end marker.
            const end = Math.min(model.length - 1, at + edit.span);
            const endMarker = markerOf(model[end]);
            if (!marker || !endMarker || (end > at && endMarker === marker)) continue;
            const params = [`start-keys=${marker}`, ...(end > at ? [`end-keys=${endMarker}`] : [`end-keys=${marker}`])];
            if (end === at) continue; // end-keys searches after the start line
            const body = edit.kind === "block.replace" ? edit.body : [];
            const written = body[0] === "" ? ["", ...body] : body;
            blocks.push(block(edit.kind, "f.txt", [...params, ...written]));
            model = [...model.slice(0, at), ...body, ...model.slice(end + 1)];
            continue;
          }
          const locator = edit.byKeys && marker ? `keys=${marker}` : `lineno=${at + 1}`;
          if (edit.kind === "line.delete") {
            blocks.push(block(edit.kind, "f.txt", [locator]));
            model = [...model.slice(0, at), ...model.slice(at + 1)];
            continue;
          }
          // A body right after the parameters: a leading blank line needs the blank separator first.
          const body = edit.body[0] === "" ? ["", ...edit.body] : edit.body;
          blocks.push(block(edit.kind, "f.txt", [locator, ...body]));
          const cut = edit.kind === "line.insert" ? at : at + 1;
          const removed = edit.kind === "line.replace" ? 1 : 0;
          const start = edit.kind === "line.replace" ? at : cut;
          model = [...model.slice(0, start), ...edit.body, ...model.slice(start + removed)];
        }
        if (blocks.length === 0) return;
        await applyText(dir.path, patchOf(...blocks));
        const expected = model.length ? model.join("\n") + "\n" : "";
        assert.equal(await Deno.readTextFile(`${dir.path}/f.txt`), expected, patchOf(...blocks));
      },
    ),
    { numRuns: 120 },
  );
});

// ---- 2 & 3. real git diffs ----------------------------------------------------------------------

interface Texts {
  before: string;
  after: string;
}

const vocabulary = fc.constantFrom("a", "b", "c", "{", "}", "  return 1", "", "x = y", "  if (ok) {", "  }");

function joinLines(lines: string[], finalNewline: boolean, crlf: boolean): string {
  if (lines.length === 0) return "";
  const eol = crlf ? "\r\n" : "\n";
  return lines.join(eol) + (finalNewline ? eol : "");
}

/** Before/after texts: `after` is `before` with random line edits. */
function textsArb(unique: boolean): fc.Arbitrary<Texts> {
  const lineArb = unique ? fc.nat({ max: 1_000_000 }).map((n) => `line ${n} ${"=".repeat(n % 3)}`) : vocabulary;
  return fc.record({
    lines: fc.array(lineArb, { minLength: unique ? 3 : 0, maxLength: 40 }),
    ops: fc.array(fc.tuple(fc.nat(), fc.nat({ max: 2 }), fc.array(lineArb, { maxLength: 3 })), {
      minLength: 1,
      maxLength: 6,
    }),
    beforeNl: fc.boolean(),
    afterNl: fc.boolean(),
    crlf: unique ? fc.constant(false) : fc.boolean(),
  }).map(({ lines, ops, beforeNl, afterNl, crlf }) => {
    const base = unique ? [...new Set(lines)] : lines;
    let after = [...base];
    for (const [at, remove, insert] of ops) {
      const pos = after.length === 0 ? 0 : at % (after.length + 1);
      after = [
        ...after.slice(0, pos),
        ...(unique ? insert.map((l) => `${l} new`) : insert),
        ...after.slice(pos + remove),
      ];
    }
    return {
      before: joinLines(base, beforeNl || base.length === 0, crlf),
      after: joinLines(after, afterNl || after.length === 0, crlf),
    };
  }).filter((t) => t.before !== t.after);
}

/** `git diff` of f.txt from `before` to `after`, in a scratch repository. */
async function realDiff(scratch: string, texts: Texts): Promise<string> {
  await Deno.writeTextFile(`${scratch}/f.txt`, texts.before);
  await git(scratch, "add", "f.txt");
  await Deno.writeTextFile(`${scratch}/f.txt`, texts.after);
  return await git(scratch, "-c", "core.autocrlf=false", "diff", "--no-color", "--no-ext-diff", "f.txt");
}

/** Whether real `git apply --check` accepts `diff` for f.txt holding `text`. */
async function gitApplies(text: string, diff: string): Promise<boolean> {
  await using dir = await makeRoot("pterm-git-apply-");
  await Deno.writeTextFile(`${dir.path}/f.txt`, text);
  await Deno.writeTextFile(`${dir.path}/d.diff`, diff);
  const out = await new Deno.Command("git", {
    // A diff without a single context line is read as pterm reads it: by its text and line number
    // (git apply --unidiff-zero), once it is not all of the file.
    args: ["apply", "--check", ...(/^ /m.test(diff) ? [] : ["--unidiff-zero"]), "d.diff"],
    cwd: dir.path,
    env: { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", HOME: dir.path },
    stdout: "null",
    stderr: "null",
  }).output();
  return out.success;
}

function diffPatch(diff: string): string {
  return patchOf(`=== git.diff: "." ===\n${diff.endsWith("\n") ? diff : diff + "\n"}=== end ===\n`);
}

async function applyDiffTo(before: string, diff: string): Promise<string> {
  await using dir = await makeRoot();
  await Deno.writeTextFile(`${dir.path}/f.txt`, before);
  await applyText(dir.path, diffPatch(diff));
  return await Deno.readTextFile(`${dir.path}/f.txt`);
}

Deno.test("property: every diff the real git diff produces applies through git.diff", async () => {
  await using scratch = await makeRoot("pterm-git-oracle-");
  await git(scratch.path, "init", "-q");
  await fc.assert(
    fc.asyncProperty(textsArb(false), async (texts) => {
      const diff = await realDiff(scratch.path, texts);
      assert.equal(await applyDiffTo(texts.before, diff), texts.after, diff);
    }),
    { numRuns: 80 },
  );
});

type Noise = "shift" | "whitespace" | "counts" | "no-numbers" | "fence";

function addNoise(diff: string, noise: Noise, seed: number): string {
  const lines = diff.replace(/\n$/, "").split("\n");
  switch (noise) {
    case "shift":
      return diff; // the file is shifted instead (see below)
    case "whitespace":
      return lines.map((l, i) => (l.startsWith(" ") && (i + seed) % 2 === 0 ? l + "  \t" : l)).join("\n") + "\n";
    case "counts":
      return lines.map((l) =>
        l.replace(
          /^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@/,
          (_, a, _b, c) => `@@ -${a},${(seed % 97) + 1} +${c},${seed % 5} @@`,
        )
      )
        .join("\n") + "\n";
    case "no-numbers":
      return lines.map((l) => l.replace(/^@@ .* @@/, "@@ @@")).join("\n") + "\n";
    case "fence":
      return "Here is the change:\n\n```diff\n" + diff + "```\n";
  }
}

Deno.test("property: the same diff applies with shifted context, whitespace noise, wrong counts or a fence", async () => {
  await using scratch = await makeRoot("pterm-git-oracle-");
  await git(scratch.path, "init", "-q");
  const noiseArb = fc.constantFrom<Noise>("shift", "whitespace", "counts", "no-numbers", "fence");
  await fc.assert(
    fc.asyncProperty(textsArb(true), noiseArb, fc.nat({ max: 1000 }), async (texts, noise, seed) => {
      const diff = addNoise(await realDiff(scratch.path, texts), noise, seed);
      // Shifted: the file gained lines above everything the diff knows about.
      const prefix = noise === "shift"
        ? Array.from({ length: 1 + (seed % 7) }, (_, i) => `added above ${i}\n`).join("")
        : "";
      if (noise === "shift" && !(await gitApplies(prefix + texts.before, diff))) {
        // A hunk stated at line 1 must start the file, as git apply anchors it: lines above it are
        // not "shifted context" but a file the diff was not made for. pterm refuses as git does.
        await assert.rejects(applyDiffTo(prefix + texts.before, diff), /NoMatch|does not fit|fits nowhere/);
        return;
      }
      assert.equal(await applyDiffTo(prefix + texts.before, diff), prefix + texts.after, `${noise}\n${diff}`);
    }),
    { numRuns: 100 },
  );
});

Deno.test("a real multi-file git diff (new, deleted, renamed and edited, mode change, no final newline) applies", async () => {
  await using scratch = await makeRoot("pterm-git-oracle-");
  const base: Record<string, string> = {
    "src/a.py": Array.from({ length: 30 }, (_, i) => `line ${i}`).join("\n") + "\n",
    "src/old_name.py": Array.from({ length: 20 }, (_, i) => `def f${i}(): return ${i}`).join("\n") + "\n",
    "gone.txt": "bye\n",
    "run.sh": "#!/bin/sh\necho hi\n",
    "tail.txt": "no newline at the end",
    "with space/file name.txt": "spaced\n",
    "docs/说明.txt": "第一版\n",
  };
  for (const [path, content] of Object.entries(base)) {
    await Deno.mkdir(`${scratch.path}/${path}`.replace(/\/[^/]+$/, ""), { recursive: true });
    await Deno.writeTextFile(`${scratch.path}/${path}`, content);
  }
  await git(scratch.path, "init", "-q");
  await git(scratch.path, "add", "-A");
  await git(scratch.path, "commit", "-q", "-m", "base");
  await Deno.writeTextFile(
    `${scratch.path}/src/a.py`,
    base["src/a.py"].replace("line 3\n", "LINE 3\n").replace("line 25\n", ""),
  );
  await Deno.remove(`${scratch.path}/src/old_name.py`);
  await Deno.writeTextFile(`${scratch.path}/src/new_name.py`, base["src/old_name.py"].replace("return 7", "return 70"));
  await Deno.remove(`${scratch.path}/gone.txt`);
  await Deno.writeTextFile(`${scratch.path}/new.txt`, "brand new\n");
  await Deno.writeTextFile(`${scratch.path}/docs/说明.txt`, "第二版\n");
  await Deno.chmod(`${scratch.path}/run.sh`, 0o755);
  await Deno.writeTextFile(`${scratch.path}/tail.txt`, "still no newline, changed");
  await Deno.writeTextFile(`${scratch.path}/with space/file name.txt`, "spaced out\n");
  await git(scratch.path, "add", "-A");
  const diff = await git(scratch.path, "diff", "--cached", "-M", "--no-color");
  assert.match(diff, /rename from src\/old_name.py/);
  assert.match(diff, /new mode 100755/);
  assert.match(diff, /"a\/docs\/\\350/, "git quotes the non-ASCII path");

  await using target = await makeRoot();
  for (const [path, content] of Object.entries(base)) {
    await Deno.mkdir(`${target.path}/${path}`.replace(/\/[^/]+$/, ""), { recursive: true });
    await Deno.writeTextFile(`${target.path}/${path}`, content);
  }
  await applyText(target.path, diffPatch(diff));
  for (
    const path of [
      "src/a.py",
      "src/new_name.py",
      "new.txt",
      "run.sh",
      "tail.txt",
      "with space/file name.txt",
      "docs/说明.txt",
    ]
  ) {
    assert.equal(
      await Deno.readTextFile(`${target.path}/${path}`),
      await Deno.readTextFile(`${scratch.path}/${path}`),
      path,
    );
  }
  for (const gone of ["src/old_name.py", "gone.txt"]) {
    await assert.rejects(Deno.stat(`${target.path}/${gone}`), Deno.errors.NotFound);
  }
  assert.equal(((await Deno.stat(`${target.path}/run.sh`)).mode ?? 0) & 0o777, 0o755);
});
