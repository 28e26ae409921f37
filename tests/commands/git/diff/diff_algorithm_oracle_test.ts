/**
 * The line diff git is asked for: `--histogram`, `--diff-algorithm=histogram|myers|default|minimal`,
 * `--minimal` and `diff.algorithm` in the repository's config, through the whole `git diff`,
 * `git show` and `git log -p` path, against the real git byte for byte — on random files (repeated
 * lines, lines past histogram's 64-occurrence limit, CRLF, Latin-1, no final newline) and on a real
 * project's history (linenoise, tests/fixtures/diff). Patience, which pterm does not have, is
 * refused in every spelling, never answered with another diff.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { makeRoot } from "../../../_support/helpers.ts";
import { git, GIT_ENV, gitInit, pterm, ptermTry, result } from "../oracle.ts";
import type { Envelope } from "../../../../core/envelope.ts";

const latin1 = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
const utf8 = (text: string) => new TextEncoder().encode(text);

async function gitBytes(cwd: string, ...args: string[]): Promise<Uint8Array> {
  const out = await new Deno.Command("git", {
    args,
    cwd,
    env: GIT_ENV,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  assert.equal(out.code, 0, `git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  return out.stdout;
}

/** The patch pterm gave: the artifact's bytes when there is one, else stdout (then all UTF-8). */
async function patchOf(root: string, envelope: Envelope, prefix = ""): Promise<Uint8Array> {
  const r = result(envelope);
  if (r.patch_artifact) return await Deno.readFile(`${root}/${r.patch_artifact}`);
  const text = envelope.stdout.slice(prefix.length);
  return utf8(text);
}

const show = (bytes: Uint8Array) => new TextDecoder("latin1").decode(bytes);

/** Lines as bytes (one character per byte); code-shaped, repeated, so histogram and Myers part ways. */
const POOL = [
  "}",
  "",
  "\treturn 0;",
  "if (x) {",
  "int f(void) {",
  "a",
  "b",
  "c",
  "x = 1;",
  "caf\xE9", // Latin-1
  "  indented",
];

/** A file: lines from the pool (some repeated more than 64 times), LF or CRLF, maybe no final newline. */
const fileArb = fc.tuple(
  fc.array(
    fc.tuple(fc.constantFrom(...POOL), fc.boolean(), fc.oneof(fc.constant(1), fc.constant(1), fc.integer({ max: 70 }))),
    { maxLength: 40 },
  ),
  fc.boolean(),
).map(([lines, finalNewline]) => {
  const text = lines.flatMap(([line, crlf, times]) => Array(Math.max(1, times)).fill(line + (crlf ? "\r\n" : "\n")))
    .join("");
  return finalNewline || text === "" ? text : text.replace(/\r?\n$/, "");
});

/** Two versions: the second edits the first (lines replaced, inserted, deleted, blocks moved). */
const pairArb = fc.tuple(fileArb, fc.array(fc.tuple(fc.nat(), fc.nat(3), fc.constantFrom(...POOL)), { maxLength: 10 }))
  .map(([base, edits]) => {
    const lines = base.split(/(?<=\n)/).filter((l) => l !== "");
    for (const [at, op, line] of edits) {
      const k = at % (lines.length + 1);
      if (op === 0) lines.splice(k, 1);
      else if (op === 1) lines.splice(k, 0, line + "\n");
      else if (op === 2) lines.splice(k, 1, line + "\n");
      else lines.splice(k, 0, ...lines.slice(0, Math.min(5, k)));
    }
    const text = lines.map((l, i) => i < lines.length - 1 && !l.endsWith("\n") ? l + "\n" : l).join("");
    return [latin1(base), latin1(text)] as const;
  });

Deno.test("property: git diff --histogram / --minimal / --diff-algorithm / diff.algorithm give git's patch, byte for byte", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  let runs = 0;
  let parted = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(pairArb, { minLength: 1, maxLength: 4 }), async (pairs) => {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
      await gitInit(dir);
      await Deno.writeTextFile(`${dir}/.gitattributes`, "* -text\n");
      for (const [k, [before]] of pairs.entries()) await Deno.writeFile(`${dir}/f${k}`, before);
      await git(dir, "add", "-A");
      await git(dir, "commit", "-qm", "before");
      for (const [k, [, after]] of pairs.entries()) await Deno.writeFile(`${dir}/f${k}`, after);
      const cases: [string, string[]][] = [
        ["--histogram", ["--histogram"]],
        ["--diff-algorithm=histogram", ["--diff-algorithm=histogram"]],
        ["--minimal", ["--minimal"]],
        ["--histogram --minimal", ["--histogram", "--minimal"]],
        ["--diff-algorithm=myers", ["--diff-algorithm=myers"]],
        ["", []],
      ];
      for (const [flags, gitFlags] of cases) {
        const ours = await patchOf(root.path, await pterm(root.path, `git diff --repo r ${flags}`));
        const theirs = await gitBytes(dir, "diff", "--no-color", ...gitFlags);
        assert.equal(show(ours), show(theirs), `git diff ${flags}`);
      }
      const myers = show(await gitBytes(dir, "diff", "--no-color"));
      if (myers !== show(await gitBytes(dir, "diff", "--no-color", "--histogram"))) parted++;
      // diff.algorithm in the repository's config, as git reads it (any case).
      await git(dir, "config", "diff.algorithm", runs++ % 2 ? "Histogram" : "minimal");
      const ours = await patchOf(root.path, await pterm(root.path, "git diff --repo r"));
      assert.equal(show(ours), show(await gitBytes(dir, "diff", "--no-color")), "diff.algorithm");
      // The stat counts follow the algorithm too.
      const stat = await pterm(root.path, "git diff --repo r --stat");
      const theirStat = new TextDecoder().decode(await gitBytes(dir, "diff", "--stat"));
      assert.equal(stat.stdout, theirStat, "--stat");
    }),
    { numRuns: 60 },
  );
  assert.ok(parted >= 5, `git's histogram and Myers diffs differ in ${parted} of 60 runs: the property tests both`);
});

Deno.test("a real project's history (linenoise, 151 commits) diffs as git's: histogram, Myers, minimal, show and log -p", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  const bundle = new URL("../../../fixtures/diff/linenoise.bundle", import.meta.url).pathname;
  await git(root.path, "clone", "-q", bundle, dir);
  const commits = (await git(dir, "rev-list", "--no-merges", "HEAD")).trim().split("\n");
  let differ = 0;
  let compared = 0;
  for (const commit of commits) {
    const parent = (await git(dir, "rev-list", "--parents", "-n1", commit)).trim().split(" ")[1];
    if (!parent) continue;
    const histogram = await gitBytes(dir, "diff", "--no-color", "--histogram", parent, commit);
    const myers = await gitBytes(dir, "diff", "--no-color", parent, commit);
    if (show(histogram) !== show(myers)) differ++;
    compared++;
    const line = `git diff --repo r ${parent} ${commit}`;
    assert.equal(
      show(await patchOf(root.path, await pterm(root.path, `${line} --histogram`))),
      show(histogram),
      commit,
    );
    assert.equal(show(await patchOf(root.path, await pterm(root.path, line))), show(myers), commit);
    if (compared % 10 === 0) {
      const minimal = await gitBytes(dir, "diff", "--no-color", "--minimal", parent, commit);
      assert.equal(show(await patchOf(root.path, await pterm(root.path, `${line} --minimal`))), show(minimal), commit);
    }
  }
  assert.ok(differ >= 5, `histogram and Myers differ on ${differ} of ${compared} commits: the history tests both`);

  // show and log -p under diff.algorithm=histogram: git's patches.
  await git(dir, "config", "diff.algorithm", "histogram");
  for (const commit of commits.slice(0, 20)) {
    const envelope = await pterm(root.path, `git show --repo r ${commit}`);
    const header = envelope.stdout.slice(0, envelope.stdout.indexOf("diff --git"));
    const theirs = await gitBytes(dir, "show", "--no-color", "--format=", commit);
    assert.equal(show(await patchOf(root.path, envelope, header)), show(theirs.subarray(theirs[0] === 10 ? 1 : 0)));
  }
  const logged = await pterm(root.path, "git log --repo r -p --max 30");
  const saved = logged.artifacts.find((a) => a.path.endsWith("log.txt"));
  const log = show(saved ? await Deno.readFile(`${root.path}/${saved.path}`) : utf8(logged.stdout));
  const listed: string[] = result(logged).commits.map((c: { id: string }) => c.id);
  assert.equal(listed.length, 30);
  for (const commit of listed) {
    const parents = (await git(dir, "rev-list", "--parents", "-n1", commit)).trim().split(" ");
    if (parents.length !== 2) continue;
    const theirs = show(await gitBytes(dir, "diff", "--no-color", "--histogram", parents[1], commit));
    assert.ok(log.includes(theirs), `git log -p holds git's histogram patch of ${commit}`);
  }
});

Deno.test("patience is refused in every spelling, and an unknown diff.algorithm stops the diff as it stops git", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInit(dir);
  await Deno.writeTextFile(`${dir}/a.txt`, "a\n");
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "a");
  await Deno.writeTextFile(`${dir}/a.txt`, "b\n");
  for (const line of ["git diff --patience", "git show --patience", "git log -p --patience", "git diff --anchored=x"]) {
    const refused = await ptermTry(root.path, `${line} --repo r`);
    assert.notEqual(refused.exit_code, 0, line);
    assert.match(refused.stderr + JSON.stringify(refused.result), /patience/, line);
  }
  const flag = await ptermTry(root.path, "git diff --repo r --diff-algorithm=patience");
  assert.equal(flag.error_code, "UnsupportedFormat");
  assert.match(flag.stderr, /histogram/);
  const unknown = await ptermTry(root.path, "git diff --repo r --diff-algorithm=fast");
  assert.equal(unknown.error_code, "InvalidArgs");
  const both = await ptermTry(root.path, "git diff --repo r --diff-algorithm=myers --minimal");
  assert.equal(both.error_code, "InvalidArgs");

  await git(dir, "config", "diff.algorithm", "patience");
  for (const line of ["git diff", "git show", "git log -p"]) {
    const refused = await ptermTry(root.path, `${line} --repo r`);
    assert.equal(refused.error_code, "UnsupportedFormat", line);
    assert.match(refused.stderr, /diff\.algorithm is 'patience'/, line);
  }
  // The command line wins over the config, as in git.
  const histogram = await pterm(root.path, "git diff --repo r --diff-algorithm=histogram");
  assert.equal(histogram.stdout, new TextDecoder().decode(await gitBytes(dir, "diff", "--histogram")));

  await git(dir, "config", "diff.algorithm", "fast");
  assert.notEqual(
    (await new Deno.Command("git", { args: ["diff"], cwd: dir, env: GIT_ENV, clearEnv: true }).output()).code,
    0,
  );
  const bad = await ptermTry(root.path, "git diff --repo r");
  assert.equal(bad.error_code, "InvalidConfig");
  // A log without patches needs no diff.
  assert.equal((await ptermTry(root.path, "git log --repo r")).exit_code, 0);
});
