/**
 * `git log -L <range>:<file>` lists the commits and line diffs real git lists, byte for byte: on
 * random linear histories of one file (lines inserted, removed and replaced, a last line without
 * its newline, renames, commits to another file), in every range spelling pterm takes, and on
 * histories with merges; then the refusals, and real git reading the same repository afterwards.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { git, GIT_ENV, gitRaw } from "../oracle.ts";
import { exec, makeRoot } from "../../../_support/helpers.ts";
import { Shaper } from "./history_repos.ts";

type Edit =
  | { kind: "insert"; at: number; lines: string[] }
  | { kind: "remove"; at: number; count: number }
  | { kind: "replace"; at: number; lines: string[] }
  | { kind: "newline"; keep: boolean }
  | { kind: "rename" }
  | { kind: "other" };

// A small alphabet: equal lines recur, so the diff has choices to make (and slides groups).
const line = fc.constantFrom("a", "b", "c", "x", "}", "", "  fn()", "return 1;");
const editArb: fc.Arbitrary<Edit> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("insert" as const),
      at: fc.nat(),
      lines: fc.array(line, { minLength: 1, maxLength: 4 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant("remove" as const), at: fc.nat(), count: fc.integer({ min: 1, max: 3 }) }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("replace" as const),
      at: fc.nat(),
      lines: fc.array(line, { minLength: 1, maxLength: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("newline" as const), keep: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("rename" as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("other" as const) }) },
);

/** Builds the history; returns the file's path at HEAD and its line count. */
async function build(shaper: Shaper, first: string[], edits: Edit[]): Promise<{ path: string; lines: number }> {
  let lines = [...first];
  let newline = true;
  let path = "src/f0.txt";
  let renames = 0;
  const text = () => lines.length ? lines.join("\n") + (newline ? "\n" : "") : "";
  await Deno.mkdir(`${shaper.dir}/src`, { recursive: true });
  await shaper.commit(path, text(), "root");
  for (const [n, edit] of edits.entries()) {
    if (edit.kind === "rename") {
      const next = `src/f${++renames}.txt`;
      await shaper.git("mv", path, next);
      await shaper.git("commit", "-q", "-m", `rename to ${next}`);
      path = next;
      continue;
    }
    if (edit.kind === "other") {
      await shaper.commit("other.txt", `${n}\n`, `other ${n}`);
      continue;
    }
    if (edit.kind === "insert") lines.splice(edit.at % (lines.length + 1), 0, ...edit.lines);
    else if (edit.kind === "remove" && lines.length > 1) lines.splice(edit.at % lines.length, edit.count);
    else if (edit.kind === "replace" && lines.length) {
      lines.splice(edit.at % lines.length, edit.lines.length, ...edit.lines);
    } else if (edit.kind === "newline") newline = edit.keep;
    if (lines.length === 0) lines = ["a"];
    const before = await Deno.readTextFile(`${shaper.dir}/${path}`);
    if (before === text()) continue;
    await shaper.commit(path, text(), `edit ${n}`);
  }
  // Lines as git counts them in the file: an empty last line without a newline after it is no line at all.
  const final = text();
  return { path, lines: final === "" ? 0 : final.split("\n").length - (final.endsWith("\n") ? 1 : 0) };
}

async function compare(root: string, name: string, args: string[]): Promise<void> {
  const ours = await exec(root, `git log --repo ${name} ${args.join(" ")}`);
  const theirs = await gitRaw(`${root}/${name}`, ["-c", "color.ui=never", "--no-pager", "log", ...args]);
  assert.equal(theirs.code, 0, theirs.stderr);
  assert.equal(ours.exit_code, 0, `${args.join(" ")}: ${ours.stderr}`);
  assert.equal(ours.stdout, theirs.stdout, `git log ${args.join(" ")}`);
}

Deno.test("git log -L follows a line range through random linear histories as git does", async () => {
  await using root = await makeRoot();
  let run = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(line, { minLength: 1, maxLength: 10 }),
      fc.array(editArb, { minLength: 1, maxLength: 10 }),
      fc.nat(),
      fc.nat(),
      async (first, edits, a, b) => {
        const name = `r${run++}`;
        await git(root.path, "init", "-q", "-b", "main", `${root.path}/${name}`);
        const { path, lines } = await build(new Shaper(`${root.path}/${name}`), first, edits);
        if (lines === 0) return; // an empty file has no range to follow
        const start = 1 + a % lines;
        const end = start + b % (lines - start + 1);
        await compare(root.path, name, ["-L", `${start},${end}:${path}`]);
        await compare(root.path, name, [`-L${start},+${end - start + 1}:${path}`, "--oneline"]);
        await compare(root.path, name, ["-L", `${end},-${end - start + 1}:${path}`, "--format=%s", "-n", "2"]);
        await compare(root.path, name, ["-L", `${start},:${path}`, "--pretty=format:%h-%s"]);
      },
    ),
    { numRuns: 60, endOnFailure: true },
  );
});

type HistoryOp =
  | { kind: "commit"; tip: number; edit: Edit; dt: number }
  | { kind: "branch"; from: number; dt: number }
  | { kind: "merge"; tips: [number, number]; take: number; edit: Edit | null; dt: number };

const dtArb = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 5000 }), fc.integer({ min: -3000, max: -1 }));
const contentEdit = editArb.filter((e) => e.kind !== "rename" && e.kind !== "other");
const historyOpArb: fc.Arbitrary<HistoryOp> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant("commit" as const), tip: fc.nat(), edit: contentEdit, dt: dtArb }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("branch" as const), from: fc.nat(), dt: dtArb }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("merge" as const),
      tips: fc.tuple(fc.nat(), fc.nat()),
      take: fc.nat(),
      edit: fc.option(contentEdit),
      dt: dtArb,
    }),
  },
);

function applyEdit(lines: string[], edit: Edit): string[] {
  const out = [...lines];
  if (edit.kind === "insert") out.splice(edit.at % (out.length + 1), 0, ...edit.lines);
  else if (edit.kind === "remove" && out.length > 1) out.splice(edit.at % out.length, edit.count);
  else if (edit.kind === "replace" && out.length) out.splice(edit.at % out.length, edit.lines.length, ...edit.lines);
  return out.length ? out : ["a"];
}

/** A history with branches and merges (built with commit-tree: merges take either side, or an evil edit). */
async function buildMerges(dir: string, first: string[], ops: HistoryOp[]): Promise<number> {
  let time = 1_700_000_000;
  let n = 0;
  const contents = new Map<string, string[]>();
  const all: string[] = [];
  const at = async (args: string[], input?: string) => {
    const env = { GIT_AUTHOR_DATE: `@${time} +0100`, GIT_COMMITTER_DATE: `@${time} +0100` };
    const out = await new Deno.Command("git", {
      args,
      cwd: dir,
      env: { ...GIT_ENV, ...env },
      clearEnv: true,
      stdin: input === undefined ? "null" : "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    if (input !== undefined) {
      const w = out.stdin.getWriter();
      await w.write(new TextEncoder().encode(input));
      await w.close();
    }
    const done = await out.output();
    if (done.code !== 0) throw new Error(new TextDecoder().decode(done.stderr));
    return new TextDecoder().decode(done.stdout).trim();
  };
  const make = async (parents: string[], lines: string[], step: number) => {
    time += step;
    const blob = await at(["hash-object", "-w", "--stdin"], lines.join("\n") + "\n");
    const tree = await at(["mktree"], `100644 blob ${blob}\tf.txt\n`);
    const oid = await at(["commit-tree", tree, ...parents.flatMap((p) => ["-p", p]), "-m", `c${n++}`]);
    contents.set(oid, lines);
    all.push(oid);
    return oid;
  };
  const tips = [await make([], first, 0)];
  for (const op of ops) {
    if (op.kind === "commit") {
      const i = op.tip % tips.length;
      tips[i] = await make([tips[i]], applyEdit(contents.get(tips[i])!, op.edit), op.dt);
    } else if (op.kind === "branch") tips.push(all[op.from % all.length]);
    else {
      const a = op.tips[0] % tips.length;
      const b = op.tips[1] % tips.length;
      if (a === b || tips[a] === tips[b]) continue;
      const taken = contents.get(op.take % 2 ? tips[b] : tips[a])!;
      tips[a] = await make([tips[a], tips[b]], op.edit ? applyEdit(taken, op.edit) : taken, op.dt);
    }
  }
  await at(["update-ref", "refs/heads/main", tips[0]]);
  return contents.get(tips[0])!.length;
}

Deno.test("git log -L through merges lists what git lists (a merge both sides changed: its header alone)", async () => {
  await using root = await makeRoot();
  let run = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(line, { minLength: 1, maxLength: 8 }),
      fc.array(historyOpArb, { minLength: 1, maxLength: 12 }),
      fc.nat(),
      fc.nat(),
      async (first, ops, a, b) => {
        const name = `m${run++}`;
        await git(root.path, "init", "-q", "-b", "main", `${root.path}/${name}`);
        const lines = await buildMerges(`${root.path}/${name}`, first, ops);
        const start = 1 + a % lines;
        const end = start + b % (lines - start + 1);
        await compare(root.path, name, ["-L", `${start},${end}:f.txt`]);
        await compare(root.path, name, ["-L", `${start},${end}:f.txt`, "--oneline"]);
      },
    ),
    { numRuns: 50, endOnFailure: true },
  );
});

Deno.test("git log -L shows a merge whose sides both changed the lines as git does: its header, then a blank line", async () => {
  await using root = await makeRoot();
  await git(root.path, "init", "-q", "-b", "main", `${root.path}/m`);
  const ops: HistoryOp[] = [
    { kind: "branch", from: 0, dt: 10 },
    { kind: "commit", tip: 0, edit: { kind: "replace", at: 1, lines: ["left"] }, dt: 10 },
    { kind: "commit", tip: 1, edit: { kind: "replace", at: 2, lines: ["right"] }, dt: 10 },
    { kind: "merge", tips: [0, 1], take: 0, edit: { kind: "replace", at: 2, lines: ["right"] }, dt: 10 },
  ];
  await buildMerges(`${root.path}/m`, ["a", "b", "c", "d"], ops);
  const ours = await exec(root.path, "git log --repo m -L 2,3:f.txt --oneline");
  assert.equal(ours.exit_code, 0, ours.stderr);
  assert.match(ours.stdout, /^[0-9a-f]{7} c3\n\n[0-9a-f]{7} c2\n\ndiff --git/);
  await compare(root.path, "m", ["-L", "2,3:f.txt"]);
  await compare(root.path, "m", ["-L", "2,3:f.txt", "--oneline"]);
});

/** The history of one file with a rename and a last line losing its newline (the spellings' fixture). */
async function spellingsRepo(root: string): Promise<void> {
  const dir = `${root}/s`;
  await git(root, "init", "-q", "-b", "main", dir);
  const shaper = new Shaper(dir);
  await Deno.mkdir(`${dir}/src`);
  await shaper.commit("src/f.py", "a\nb\nc\nd\ne\nf\n", "one");
  await shaper.commit("src/f.py", "a\nB\nc\nx\nd\ne\nf\n", "two");
  await shaper.commit("src/f.py", "a\nB\nc\nx\nd\nE\nf", "three");
  await shaper.git("mv", "src/f.py", "src/util.py");
  await shaper.git("commit", "-q", "-m", "move");
  await shaper.commit("src/util.py", "zz\na\nB\nc\nx\nd\nE\nf", "four");
  await shaper.commit("src/util.py", "zz\na\nB2\nc\nx\nd\nE\nf", "five");
}

Deno.test("git log -L: every range spelling pterm takes prints git's bytes", async () => {
  await using root = await makeRoot();
  await spellingsRepo(root.path);
  const spellings = [
    ["-L", "1,5:src/util.py"],
    ["-L", "2,3:src/util.py", "--oneline"],
    ["-L", "/B/,+2:src/util.py"],
    ["-L", "/c/,/E/:src/util.py", "--oneline"],
    ["-L", "^/a/,+1:src/util.py"],
    ["-L", "2,3:src/util.py", "-L", "6,7:src/util.py", "--oneline"],
    ["-L", "2,3:src/util.py", "-L", "3,5:src/util.py"],
    ["-L", "2,30:src/util.py", "--oneline"],
    ["-L", "3:src/util.py", "--oneline"],
    ["-L3,:src/util.py", "--format=%h%n%s"],
    ["-L", "2,3:src/util.py", "-p", "--oneline"],
    ["-L", "1,8:src/util.py", "HEAD~2", "--oneline"],
    ["-L", "1,8:src/util.py", "HEAD~4..HEAD", "--oneline"],
    ["-L", "1,8:src/util.py", "--author=Oracle", "-n", "2"],
    ["-L", "1,8:src/util.py", "--grep=t", "--oneline"],
  ];
  for (const args of spellings) await compare(root.path, "s", args);
  // The workspace is as it was: real git sees nothing changed.
  assert.equal(await git(`${root.path}/s`, "status", "--porcelain"), "");
});

Deno.test("git log -L refuses what git refuses, and names the forms pterm does not take", async () => {
  await using root = await makeRoot();
  await spellingsRepo(root.path);
  for (const args of [["-L", "9,10:src/util.py"], ["-L", "/nomatch/:src/util.py"], ["-L", "1,2:src/none.py"]]) {
    const ours = await exec(root.path, `git log --repo s ${args.join(" ")}`);
    const theirs = await gitRaw(`${root.path}/s`, ["log", ...args]);
    assert.notEqual(theirs.code, 0);
    assert.notEqual(ours.exit_code, 0, args.join(" "));
  }
  const refusals: [string, RegExp][] = [
    ["-L :nomatch:src/util.py", /no match/],
    ["-L 1,2:src/util.py -- src/util.py", /cannot be used with pathspec/],
    ["-L 1,2:src/util.py --stat", /-L with --stat is not available/],
    ["-L 1,2:src/util.py --graph", /-L with --graph is not available/],
    ["-L 1,2 src/util.py", /not 'start,end:file'/],
  ];
  for (const [line, message] of refusals) {
    const ours = await exec(root.path, `git log --repo s ${line}`);
    assert.notEqual(ours.exit_code, 0, line);
    assert.match(ours.stderr, message, line);
  }
  // The suggested line runs.
  const suggested = await exec(root.path, "git log --repo s -L 1,5:src/util.py --oneline");
  assert.equal(suggested.exit_code, 0, suggested.stderr);
});

Deno.test("git log -L :<funcname>:<file> finds the function as git's default function lines do", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/c`;
  await git(root.path, "init", "-q", "-b", "main", dir);
  const shaper = new Shaper(dir);
  const version = (body: string, extra: string) =>
    `#include <x.h>\n\nint helper(int a)\n{\n\treturn a;\n}\n\nint main(void)\n{\n${body}\treturn 0;\n}\n${extra}`;
  await shaper.commit("app.c", version("", ""), "one");
  await shaper.commit("app.c", version("\thelper(1);\n", ""), "two");
  await shaper.commit("app.c", version("\thelper(2);\n", "\nstatic void tail(void)\n{\n}\n"), "three");
  await shaper.commit("app.c", version("\thelper(2);\n\thelper(3);\n", "\nstatic void tail(void)\n{\n}\n"), "four");
  for (
    const args of [
      ["-L", ":main:app.c"],
      ["-L", ":helper:app.c", "--oneline"],
      ["-L", ":tail:app.c", "--oneline"],
      ["-L", "^:int:app.c", "--oneline"],
      ["-L", ":helper:app.c", "-L", ":main:app.c", "--oneline"],
    ]
  ) await compare(root.path, "c", args);
  // A driver with its own function lines (.gitattributes) is refused by name.
  await Deno.writeTextFile(`${dir}/.gitattributes`, "*.c diff=cpp\n");
  const ours = await exec(root.path, "git log --repo c -L :main:app.c");
  assert.notEqual(ours.exit_code, 0);
  assert.match(ours.stderr, /diff driver with its own function lines/);
});

Deno.test("git log -L on files past 1024 bytes (git trims their common tail before the diff) lists what git lists", async () => {
  await using root = await makeRoot();
  let run = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(line, { minLength: 1, maxLength: 6 }),
      fc.array(editArb, { minLength: 1, maxLength: 6 }),
      fc.nat(),
      async (first, edits, a) => {
        const name = `t${run++}`;
        await git(root.path, "init", "-q", "-b", "main", `${root.path}/${name}`);
        // A long run of equal lines at the end: where a change there lands depends on the trimmed tail.
        const padded = [...first, ...Array.from({ length: 160 }, (_, i) => (i % 3 ? "}" : "x = 1;      "))];
        const { path, lines } = await build(new Shaper(`${root.path}/${name}`), padded, edits);
        const start = 1 + a % lines;
        await compare(root.path, name, ["-L", `${start},+40:${path}`, "--oneline"]);
        await compare(root.path, name, ["-L", `1,${lines}:${path}`, "--oneline"]);
      },
    ),
    { numRuns: 20, endOnFailure: true },
  );
});
