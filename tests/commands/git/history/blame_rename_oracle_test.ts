/**
 * `git blame` prints what real git's blame prints, byte for byte — default text, `--porcelain`,
 * `--line-porcelain`, `-L` — on histories where files are renamed (moved into folders too),
 * copied whole and merged, random ones and real projects' (tests/fixtures/history): a line older
 * than its file's move is blamed on the commit that wrote it, under the path it had there, as
 * git's blame follows renames.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { join, relative } from "node:path";
import { exec, makeRoot } from "../../../_support/helpers.ts";
import { git, gitRaw } from "../oracle.ts";
import { cloneRealRepo, fullStdout, type RealRepo } from "../real_repos.ts";

type Edit = { at: number; kind: "insert" | "delete" | "change"; text: string };
type Step =
  | { kind: "edit"; file: number; edits: Edit[] }
  | { kind: "rename"; file: number; intoFolder: boolean }
  | { kind: "copy"; file: number }
  | { kind: "renameAndEdit"; file: number; edits: Edit[] };

const edit: fc.Arbitrary<Edit> = fc.record({
  at: fc.nat(40),
  kind: fc.constantFrom("insert" as const, "delete" as const, "change" as const),
  text: fc.constantFrom("alpha", "beta", "gamma", "delta", "}", ""),
});
const edits = fc.array(edit, { minLength: 1, maxLength: 3 });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("edit" as const), file: fc.nat(5), edits }),
  fc.record({ kind: fc.constant("rename" as const), file: fc.nat(5), intoFolder: fc.boolean() }),
  fc.record({ kind: fc.constant("copy" as const), file: fc.nat(5) }),
  fc.record({ kind: fc.constant("renameAndEdit" as const), file: fc.nat(5), edits }),
);

function applyEdits(lines: string[], list: readonly Edit[], tag: string): string[] {
  const out = [...lines];
  for (const e of list) {
    const at = out.length ? e.at % (out.length + (e.kind === "insert" ? 1 : 0)) : 0;
    if (e.kind === "insert" || out.length === 0) out.splice(at, 0, `${e.text} ${tag}`);
    else if (e.kind === "delete") out.splice(at, 1);
    else out[at] = `${e.text} ${tag}`;
  }
  return out;
}

/** Every query spelling compared with real git, byte for byte, for one file. */
async function assertSameBlame(root: string, repo: string, file: string, length: number): Promise<void> {
  const spellings = [[], ["--porcelain"], ["--line-porcelain"], ["-s"], ["-e"], ["-l"]];
  if (length >= 4) spellings.push(["-L", `2,${length - 1}`], ["--porcelain", "-L", "2,+2"]);
  for (const flags of spellings) {
    const real = await git(repo, "-c", "color.ui=never", "--no-pager", "blame", ...flags, "--", file);
    const envelope = await exec(root, `git blame --repo ${relative(root, repo)} ${flags.join(" ")} -- ${file}`);
    assert.equal(envelope.exit_code, 0, envelope.stderr);
    assert.equal(await fullStdout(root, envelope), real, `git blame ${flags.join(" ")} -- ${file}`);
  }
}

/** Commits `steps` on files f0..; returns the files the last commit has, with their line counts. */
async function buildHistory(repo: string, steps: readonly Step[], mergeSide: Edit[] | null) {
  await git(repo, "init", "-q", "-b", "main");
  const files: { path: string; lines: string[] }[] = [];
  const writeFile = async (f: { path: string; lines: string[] }) => {
    await Deno.mkdir(join(repo, f.path, ".."), { recursive: true });
    await Deno.writeTextFile(join(repo, f.path), f.lines.map((x) => x + "\n").join(""));
  };
  for (let i = 0; i < 2; i++) {
    files.push({ path: `f${i}.txt`, lines: Array.from({ length: 10 }, (_, k) => `file ${i} line ${k}`) });
    await writeFile(files[i]);
  }
  await git(repo, "add", ".");
  await git(repo, "commit", "-q", "-m", "base", "--date=@1700000000 +0200");
  let sideMade = false;
  for (const [n, s] of steps.entries()) {
    if (n === 1 && mergeSide) {
      await git(repo, "checkout", "-q", "-b", "side");
      files[0].lines = applyEdits(files[0].lines, mergeSide, "side");
      await writeFile(files[0]);
      await git(repo, "commit", "-q", "--allow-empty", "-am", "side work", `--date=@${1700000050} -0530`);
      await git(repo, "checkout", "-q", "main");
      await git(repo, "checkout", "-q", "main", "--", ".");
      files[0].lines = (await Deno.readTextFile(join(repo, files[0].path))).split("\n").slice(0, -1);
      sideMade = true;
    }
    const f = files[s.file % files.length];
    if (s.kind === "edit") {
      f.lines = applyEdits(f.lines, s.edits, `c${n}`);
      await writeFile(f);
      await git(repo, "add", f.path);
    } else if (s.kind === "rename" || s.kind === "renameAndEdit") {
      const to = s.kind === "rename" && s.intoFolder ? `dir${n}/moved${n}.txt` : `moved${n}.txt`;
      await Deno.mkdir(join(repo, to, ".."), { recursive: true });
      await git(repo, "mv", f.path, to);
      f.path = to;
      if (s.kind === "renameAndEdit") {
        f.lines = applyEdits(f.lines, s.edits.slice(0, 1), `r${n}`);
        await writeFile(f);
        await git(repo, "add", f.path);
      }
    } else {
      const copy = { path: `copy${n}.txt`, lines: [...f.lines] };
      files.push(copy);
      await writeFile(copy);
      await git(repo, "add", copy.path);
    }
    await git(
      repo,
      "commit",
      "-q",
      "--allow-empty",
      "-m",
      `step ${n} ${s.kind}`,
      `--date=@${1700000100 + n * 100} +0100`,
    );
  }
  if (sideMade) {
    const merged = await gitRaw(repo, ["merge", "-q", "--no-edit", "side"]);
    if (merged.code !== 0) await git(repo, "merge", "--abort");
  }
  const tracked = (await git(repo, "ls-files")).split("\n").filter(Boolean);
  const out: { path: string; length: number }[] = [];
  for (const path of tracked) {
    out.push({ path, length: (await Deno.readTextFile(join(repo, path))).split("\n").length - 1 });
  }
  return out;
}

Deno.test({
  name: "git blame follows renames and prints real git's text byte for byte (default, porcelain, -L)",
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(step, { minLength: 2, maxLength: 7 }),
      fc.option(fc.array(edit, { minLength: 1, maxLength: 2 })),
      async (steps, side) => {
        await using root = await makeRoot("pterm-blame-rename-");
        const repo = join(root.path, "r");
        await Deno.mkdir(repo);
        const files = await buildHistory(repo, steps, side);
        for (const f of files) await assertSameBlame(root.path, repo, f.path, f.length);
      },
    ),
    { numRuns: 10 },
  );
});

Deno.test({
  name: "git blame: a file moved twice deep in a long history keeps its old lines' commits (as git)",
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  await using root = await makeRoot("pterm-blame-deep-");
  const repo = join(root.path, "r");
  await Deno.mkdir(repo);
  const steps: Step[] = [];
  for (let n = 0; n < 40; n++) {
    if (n === 8) steps.push({ kind: "rename", file: 0, intoFolder: true });
    else if (n === 25) steps.push({ kind: "renameAndEdit", file: 0, edits: [{ at: 3, kind: "change", text: "beta" }] });
    else steps.push({ kind: "edit", file: n % 3 === 0 ? 1 : 0, edits: [{ at: n * 7, kind: "insert", text: "gamma" }] });
  }
  const files = await buildHistory(repo, steps, null);
  const moved = files.find((f) => f.path === "moved25.txt")!;
  // The base commit's lines are blamed on it under their first name (before the bug: on the move).
  const porcelain = await git(repo, "blame", "--porcelain", "moved25.txt");
  assert.match(porcelain, /^filename f0\.txt$/m);
  assert.match(porcelain, /^filename dir8\/moved8\.txt$/m);
  await assertSameBlame(root.path, repo, moved.path, moved.length);
  // What the person does next: their own git reads the same repository and agrees.
  const envelope = await exec(root.path, "git blame --porcelain moved25.txt");
  assert.equal(envelope.stdout, porcelain);
});

/**
 * Files of real projects: moved twice (toml's type_toml.go and cmd/tomlv/main.go), moved with edits in the moving
 * commit (kleur's), and one never moved but long, written over a history of merges (toml's decode.go).
 */
const REAL_FILES: [RealRepo, { file: string; moved: boolean }[]][] = [
  ["toml", [
    { file: "type_toml.go", moved: true },
    { file: "cmd/tomlv/main.go", moved: true },
    { file: "meta.go", moved: true },
    { file: "decode.go", moved: false },
  ]],
  ["kleur", [{ file: "index.mjs", moved: true }, { file: "test/utils.js", moved: true }]],
];

Deno.test({
  name: "git blame of real projects' moved files (toml, kleur): every spelling as git's, over the whole file",
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  await using root = await makeRoot("pterm-blame-real-");
  for (const [name, files] of REAL_FILES) {
    const repo = await cloneRealRepo(name, join(root.path, name));
    for (const { file, moved } of files) {
      // A moved file: git's own blame names lines under an older path, so following the move is exercised.
      const porcelain = await git(repo, "blame", "--porcelain", "--", file);
      const names = new Set([...porcelain.matchAll(/^filename (.*)$/gm)].map((m) => m[1]));
      if (moved) assert.ok(names.size > 1, `${name} ${file}: git blames it under one path only (${[...names]})`);
      const length = (await Deno.readTextFile(join(repo, file))).split("\n").length - 1;
      await assertSameBlame(root.path, repo, file, length);
    }
  }
});

Deno.test({
  name: "git blame in a shallow clone marks the boundary commit's lines `^` as git does, every line answered",
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  await using root = await makeRoot("pterm-blame-shallow-");
  const full = join(root.path, "full");
  await Deno.mkdir(full);
  const steps: Step[] = [];
  for (let n = 0; n < 12; n++) {
    steps.push(
      n === 6
        ? { kind: "rename", file: 0, intoFolder: false }
        : { kind: "edit", file: 0, edits: [{ at: n * 5, kind: "insert", text: "delta" }] },
    );
  }
  await buildHistory(full, steps, null);
  const shallow = join(root.path, "shallow");
  await git(root.path, "clone", "-q", "--depth", "4", `file://${full}`, shallow);
  const length = (await Deno.readTextFile(join(shallow, "moved6.txt"))).split("\n").length - 1;
  const real = await git(shallow, "blame", "moved6.txt");
  assert.match(real, /^\^/m);
  await assertSameBlame(root.path, shallow, "moved6.txt", length);
});
