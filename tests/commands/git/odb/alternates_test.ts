/**
 * Alternates (`objects/info/alternates`, as `git clone --shared` and `--reference` leave them)
 * under pterm's confinement rules, on repositories the real git builds: a folder in `secrets/`, in
 * pterm's own state, behind a symbolic link into either, or outside the root — named directly or
 * by an alternate's own alternates — is refused with an error naming the alternates file and line
 * (and no host path); relative lines are read from the folder whose file holds them; chains are
 * followed as deep as git follows them (5 levels below the repository's, deeper ones ignored as git
 * ignores them) and a cycle ends; what pterm reads is what git reads.
 */

import assert from "node:assert/strict";
import { makeRoot } from "../../../_support/helpers.ts";
import type { Envelope } from "../../../../core/envelope.ts";
import { git, gitInit, gitRaw, pterm, ptermTry, result, write } from "../oracle.ts";

/** A repository at `dir` with `commits` commits of its own, packed. */
async function source(dir: string, commits = 2, tag = "src"): Promise<void> {
  await gitInit(dir);
  for (let i = 0; i < commits; i++) {
    await write(`${dir}/f.txt`, `${tag} ${i}\n`);
    await git(dir, "add", "-A");
    await git(dir, "commit", "-qm", `${tag} ${i}`);
  }
  await git(dir, "gc", "-q");
}

const ids = (envelope: Envelope) => result(envelope).commits.map((c: { id: string }) => c.id);

async function gitLog(dir: string): Promise<string[]> {
  return (await git(dir, "log", "--format=%H")).trim().split("\n");
}

Deno.test("alternates into a secret folder, pterm's state or through a link into them are refused, naming the line", async () => {
  await using root = await makeRoot();
  await source(`${root.path}/secrets/src`);
  await source(`${root.path}/cache/src`);
  await source(`${root.path}/plain`);
  await git(root.path, "clone", "-q", "--shared", `${root.path}/secrets/src`, "from-secret");
  await git(root.path, "clone", "-q", "--shared", `${root.path}/cache/src`, "from-state");
  // Real git reads them all (it knows nothing of pterm's rules).
  for (const name of ["from-secret", "from-state"]) assert.equal((await gitLog(`${root.path}/${name}`)).length, 2);

  const secret = await ptermTry(root.path, "git log --repo from-secret");
  assert.equal(secret.error_code, "SecretPathDenied", secret.stderr);
  assert.match(secret.stderr, /from-secret\/\.git\/objects\/info\/alternates, line 1/);
  assert.match(secret.stderr, /secrets\/src\/\.git\/objects/);

  const state = await ptermTry(root.path, "git log --repo from-state");
  assert.equal(state.error_code, "PathEscape", state.stderr);
  assert.match(state.stderr, /from-state\/\.git\/objects\/info\/alternates, line 1/);
  assert.match(state.stderr, /pterm's own state/);

  // A line naming a harmless-looking folder that is a symbolic link into secrets/: its canonical place counts.
  await git(root.path, "clone", "-q", "--shared", `${root.path}/plain`, "linked");
  await Deno.symlink(`${root.path}/secrets/src/.git`, `${root.path}/innocent`);
  await Deno.writeTextFile(
    `${root.path}/linked/.git/objects/info/alternates`,
    `# borrowed\n${root.path}/plain/.git/objects\n${root.path}/innocent/objects\n`,
  );
  // The whole list is checked when the repository first borrows, as git links it all at once.
  const secretHead = (await git(`${root.path}/secrets/src`, "rev-parse", "HEAD")).trim();
  const linked = await ptermTry(root.path, `git show --repo linked ${secretHead}`);
  assert.equal(linked.error_code, "SecretPathDenied", linked.stderr);
  assert.match(linked.stderr, /linked\/\.git\/objects\/info\/alternates, line 3/);
  for (const refused of [secret, state, linked]) assert.ok(!refused.stderr.includes(root.path), "no host path");
});

Deno.test("an alternate of an alternate outside the root is refused, and no host path is printed", async () => {
  await using root = await makeRoot();
  await using outside = await makeRoot("pterm-outside-");
  await source(`${outside.path}/far`);
  await git(root.path, "clone", "-q", "--shared", `${outside.path}/far`, "middle");
  await git(root.path, "clone", "-q", "--shared", `${root.path}/middle`, "r");
  assert.equal((await gitLog(`${root.path}/r`)).length, 2);
  const refused = await ptermTry(root.path, "git log --repo r");
  assert.equal(refused.error_code, "PathEscape", refused.stderr);
  assert.match(refused.stderr, /middle\/\.git\/objects\/info\/alternates, line 1/);
  assert.ok(!refused.stderr.includes(outside.path) && !refused.stderr.includes(root.path), refused.stderr);
  // git's quoted form is refused by name, not misread as a folder whose name holds the quotes.
  await Deno.writeTextFile(`${root.path}/middle/.git/objects/info/alternates`, `"${root.path}/x/.git/objects"\n`);
  const quoted = await ptermTry(root.path, "git log --repo r");
  assert.equal(quoted.error_code, "UnsupportedFormat", quoted.stderr);
  assert.match(quoted.stderr, /middle\/\.git\/objects\/info\/alternates, line 1 is in git's quoted form/);
  // A relative line that climbs out of the root is refused before anything there is looked at.
  await Deno.writeTextFile(`${root.path}/middle/.git/objects/info/alternates`, "../../../../../../../../etc\n");
  const climbed = await ptermTry(root.path, "git log --repo r");
  assert.equal(climbed.error_code, "PathEscape", climbed.stderr);
});

Deno.test("relative alternates are read from the folder whose alternates file holds them, as git reads them", async () => {
  await using root = await makeRoot();
  await source(`${root.path}/a`, 2, "a");
  await git(root.path, "clone", "-q", "--shared", `${root.path}/a`, "b");
  await write(`${root.path}/b/f.txt`, "b\n");
  await git(`${root.path}/b`, "commit", "-qam", "b");
  await git(`${root.path}/b`, "gc", "-q");
  await git(root.path, "clone", "-q", "--shared", `${root.path}/b`, "deep/c");
  // Relative lines, each from its own objects folder: c → b, b → a.
  await Deno.writeTextFile(`${root.path}/deep/c/.git/objects/info/alternates`, "../../../../b/.git/objects\n");
  await Deno.writeTextFile(`${root.path}/b/.git/objects/info/alternates`, "../../../a/.git/objects\n");
  const theirs = await gitLog(`${root.path}/deep/c`);
  assert.equal(theirs.length, 3);
  assert.deepEqual(ids(await pterm(root.path, "git log --repo deep/c")), theirs);
});

Deno.test("alternates chains: followed 5 levels below the repository's as git follows them, deeper ignored; a cycle ends", async () => {
  await using root = await makeRoot();
  // c0 ← c1 ← … ← c7: each a --shared clone of the one before with one commit of its own.
  await source(`${root.path}/c0`, 1, "c0");
  for (let k = 1; k <= 7; k++) {
    await git(root.path, "clone", "-q", "--shared", `${root.path}/c${k - 1}`, `c${k}`);
    await write(`${root.path}/c${k}/f.txt`, `c${k}\n`);
    await git(`${root.path}/c${k}`, "commit", "-qam", `c${k}`);
  }
  // c6 reaches c0 at git's last level: the whole history, as git.
  assert.deepEqual(ids(await pterm(root.path, "git log --repo c6")), await gitLog(`${root.path}/c6`));
  // c7 would need a sixth level: git ignores it ("nesting too deep") and cannot read c0's commit; nor can pterm.
  const theirs = await gitRaw(`${root.path}/c7`, ["log", "--format=%H"]);
  assert.notEqual(theirs.code, 0, "git stops at c0's commit");
  assert.match(theirs.stderr, /nesting too deep/);
  const ours = await ptermTry(root.path, "git log --repo c7");
  assert.notEqual(ours.exit_code, 0, "pterm does not read past git's depth either");
  const c1 = (await git(`${root.path}/c1`, "rev-parse", "HEAD")).trim();
  // What git reaches from c7 (c1 is 5 levels below), pterm reads.
  assert.equal((await pterm(root.path, `git show --repo c7 ${c1}:f.txt`)).stdout, "c1\n");
  assert.equal(await git(`${root.path}/c7`, "show", `${c1}:f.txt`), "c1\n");

  // A cycle (c0 borrows back from c1): every object is still found once, and a missing one is an answer, not a hang.
  await Deno.writeTextFile(`${root.path}/c0/.git/objects/info/alternates`, `${root.path}/c1/.git/objects\n`);
  assert.deepEqual(ids(await pterm(root.path, "git log --repo c1")), await gitLog(`${root.path}/c1`));
  const missing = await ptermTry(root.path, `git show --repo c0 ${"1".repeat(40)}`);
  assert.notEqual(missing.exit_code, 0);
  assert.notEqual(missing.error_code, "Internal", missing.stderr);
});
