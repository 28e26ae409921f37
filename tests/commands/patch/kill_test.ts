/**
 * The guarantee when pterm is killed mid-apply (commands/patch/README.md): every file is at any
 * moment either its old or its new content, and the next `patch apply` rolls the tree back to
 * exactly what it was before the killed run. Tested by SIGKILLing the real `pterm` process at
 * two moments — while it prepares (journal written, nothing switched) and while it switches
 * files into place (some files new, some old) — and then running pterm again.
 */

import assert from "node:assert/strict";
import { baseEnv, cli, exec, makeRoot, ptermArgs } from "../../_support/helpers.ts";
import { block, fingerprint, git, patchOf, writeTree } from "./helpers.ts";

const FILES = 300;
const name = (i: number) => `f/${String(i).padStart(4, "0")}.txt`;
const oldText = (i: number) => `old ${i}\n`.repeat(200);
const newText = (i: number) => `new ${i}\n`.repeat(300);

async function setup(root: string): Promise<string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < FILES; i++) files[name(i)] = oldText(i);
  files["gone/only.txt"] = "to be deleted\n";
  await writeTree(root, files);
  const blocks = [];
  for (let i = 0; i < FILES; i++) blocks.push(block("file.write", name(i), newText(i).trimEnd().split("\n")));
  blocks.push(block("file.delete", "gone/only.txt"));
  blocks.push(block("file.write", "fresh/dir/new.txt", ["created"]));
  return patchOf(...blocks);
}

function spawnApply(root: string, patch: string, flags: string[] = []): Deno.ChildProcess {
  const child = new Deno.Command(Deno.execPath(), {
    args: ptermArgs(["exec", "--root", root, ["patch apply", ...flags].join(" ")]),
    clearEnv: true,
    env: { ...baseEnv(), NO_COLOR: "1" },
    stdin: "piped",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  // A process killed before it read all of its input breaks the pipe: expected when a kill lands that early.
  writer.write(new TextEncoder().encode(patch)).then(() => writer.close()).catch(() => {});
  return child;
}

async function hasEntries(dir: string): Promise<boolean> {
  try {
    for await (const _ of Deno.readDir(dir)) return true;
  } catch { /* not there yet */ }
  return false;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

async function journalPresent(root: string): Promise<boolean> {
  const dir = `${root}/sessions/default/patch`;
  const runs = await Array.fromAsync(Deno.readDir(dir)).catch(() => []);
  for (const run of runs) if (await exists(`${dir}/${run.name}/journal.json`)) return true;
  return false;
}

/** Polls until `ready` holds (or the process ends), then kills the process with SIGKILL. */
async function killWhen(child: Deno.ChildProcess, ready: () => Promise<boolean>): Promise<boolean> {
  let done = false;
  child.status.then(() => (done = true));
  const deadline = Date.now() + 60_000;
  while (!done && Date.now() < deadline) {
    if (await ready()) {
      child.kill("SIGKILL");
      await child.status;
      return true;
    }
    await new Promise((r) => setTimeout(r, 0));
  }
  await child.status;
  return false;
}

/**
 * Runs `patch apply` and kills it once its first target is replaced: targets switch in path
 * order, so that marks the switch phase (some files new, some old). False if it finished first.
 */
async function killApplyWhileSwitching(
  root: string,
  patch: string,
  tree: string,
  flags: string[] = [],
): Promise<boolean> {
  const first = `${tree}/${name(0)}`;
  const firstIno = (await Deno.stat(first)).ino;
  return await killWhen(spawnApply(root, patch, flags), async () => {
    try {
      return (await Deno.stat(first)).ino !== firstIno;
    } catch {
      return false;
    }
  });
}

/** Every target holds exactly its old or its new content: never a mix, never a torn file. */
async function assertNoTornFile(root: string): Promise<{ switched: number }> {
  let switched = 0;
  for (let i = 0; i < FILES; i++) {
    const text = await Deno.readTextFile(`${root}/${name(i)}`);
    if (text === newText(i)) switched++;
    else assert.equal(text, oldText(i), `${name(i)} is neither old nor new`);
  }
  return { switched };
}

async function recoverWithNextRun(root: string, before: Record<string, string>, flags: string[] = []) {
  const next = await cli(["exec", "--root", root, ["patch apply", ...flags].join(" ")], {
    stdin: patchOf(block("file.write", "after.txt", ["next run"])),
  });
  assert.equal(next.envelope?.exit_code, 0, next.stdout + next.stderr);
  // deno-lint-ignore no-explicit-any
  const recovered = (next.envelope!.result as any).recovered;
  assert.equal(recovered.length, 1);
  assert.equal(recovered[0].action, "rolled_back");
  const now = await fingerprint(root);
  delete now[flags.includes("--repo") ? "r/after.txt" : "after.txt"];
  assert.deepEqual(now, before, "the tree is exactly as before the killed run");
}

Deno.test("killed while preparing: nothing switched, the next run cleans up", async () => {
  await using dir = await makeRoot();
  const patch = await setup(dir.path);
  const before = await fingerprint(dir.path);
  const killed = await killWhen(spawnApply(dir.path, patch), () => journalPresent(dir.path));
  assert.ok(killed, "the run was killed before it finished");
  await assertNoTornFile(dir.path);
  await recoverWithNextRun(dir.path, before);
});

Deno.test("killed while switching files into place: old and new mixed, the next run rolls back", async () => {
  // A kill has to land inside a short window; every attempt must recover, one must land mid-switch.
  let midSwitch = false;
  for (let attempt = 0; attempt < 5 && !midSwitch; attempt++) {
    await using dir = await makeRoot();
    const patch = await setup(dir.path);
    const before = await fingerprint(dir.path);
    const killed = await killApplyWhileSwitching(dir.path, patch, dir.path);
    if (!killed) continue;
    const { switched } = await assertNoTornFile(dir.path);
    midSwitch = switched >= 1 && switched < FILES;
    await recoverWithNextRun(dir.path, before);
  }
  assert.ok(midSwitch, "one kill landed while files were being switched");
});

/** The same tree as a committed repository at `<root>/r`. */
async function setupRepo(root: string): Promise<{ patch: string; repo: string }> {
  const repo = `${root}/r`;
  await Deno.mkdir(repo);
  const patch = await setup(repo);
  await git(repo, "init", "-q", "-b", "main");
  await git(repo, "add", "-A");
  await git(repo, "commit", "-q", "-m", "base");
  return { patch, repo };
}

Deno.test("in a repository, killed mid-switch: files, index, HEAD and the stale lock are all recovered", async () => {
  let midSwitch = false;
  for (let attempt = 0; attempt < 5 && !midSwitch; attempt++) {
    await using dir = await makeRoot();
    const { patch, repo } = await setupRepo(dir.path);
    const before = await fingerprint(dir.path);
    const killed = await killApplyWhileSwitching(dir.path, patch, repo, ["--repo", "r"]);
    if (!killed) continue;
    const { switched } = await assertNoTornFile(repo);
    midSwitch = switched >= 1 && switched < FILES;
    // The dead run still "holds" git's lock file; the next run removes it because it is that run's.
    // (The next run does not commit, so HEAD, refs and index compare as they are.)
    await recoverWithNextRun(dir.path, before, ["--repo", "r", "--no-commit"]);
  }
  assert.ok(midSwitch, "one kill landed while files were being switched");
});

Deno.test("in a repository, killed around the commit: the next run leaves it consistent, old or new", async () => {
  let kills = 0;
  for (let attempt = 0; attempt < 5 && kills < 2; attempt++) {
    await using dir = await makeRoot();
    const { patch, repo } = await setupRepo(dir.path);
    const before = await fingerprint(dir.path);
    const headFile = `${repo}/.git/refs/heads/main`;
    const head = await Deno.readTextFile(headFile);
    const killed = await killWhen(spawnApply(dir.path, patch, ["--repo", "r"]), async () => {
      try {
        return (await Deno.readTextFile(headFile)) !== head;
      } catch {
        return false;
      }
    });
    if (!killed) continue;
    kills++;
    const next = await cli(["exec", "--root", dir.path, "patch apply --repo r"], {
      stdin: patchOf(block("file.write", "after.txt", ["next run"])),
    });
    if (next.envelope?.error_code === "StaleJournal") {
      // Killed after its commit moved the branch and its index was written, before the journal said
      // so: the repository no longer matches the journal, so recovery refuses rather than guess.
      // Discarding keeps the run's own commit, which is whole.
      assert.match(next.envelope.stderr, /patch recover --discard/);
      const discarded = await cli(["exec", "--root", dir.path, "patch recover --discard"]);
      assert.equal(discarded.envelope?.exit_code, 0, discarded.stdout + discarded.stderr);
      assert.equal(await git(repo, "status", "--porcelain"), "");
      assert.equal(
        await git(repo, "show", "--format=%s", "--name-only", "HEAD").then((s) => s.split("\n")[0]),
        "chore: apply file ops patch",
      );
      await git(repo, "fsck", "--strict", "--no-progress");
      await assertNoTornFile(repo);
      continue;
    }
    assert.equal(next.envelope?.exit_code, 0, next.stdout + next.stderr);
    // deno-lint-ignore no-explicit-any
    const [recovered] = (next.envelope!.result as any).recovered;
    // None: the kill landed after the run had finished (its journal already gone), so its commit stands whole.
    if (recovered?.action === "rolled_back") {
      const now = await fingerprint(dir.path);
      // The next run committed after.txt on top of the restored state; compare everything else.
      assert.equal(await git(repo, "rev-parse", "HEAD~1"), head);
      assert.equal(await git(repo, "show", "--name-only", "--format=", "HEAD"), "after.txt\n");
      for (const path of Object.keys(before)) {
        if (!path.startsWith("r/.git/")) assert.equal(now[path], before[path], path);
      }
    } else {
      if (recovered !== undefined) assert.equal(recovered.action, "rolled_forward");
      assert.equal(
        await git(repo, "show", "--format=%s", "--name-only", "HEAD~1").then((s) => s.split("\n")[0]),
        "chore: apply file ops patch",
      );
    }
    assert.equal(await git(repo, "status", "--porcelain"), "");
    await git(repo, "fsck", "--strict", "--no-progress");
    await assertNoTornFile(repo);
  }
  assert.ok(kills > 0, "a run was killed around its commit");
});

Deno.test("a timeout mid-apply (the worker's signal aborts it) leaves the tree as it was", async () => {
  // Timeouts at several moments: while parsing and planning, while preparing. (A worker that does not
  // stop within the grace period is terminated like a killed process: covered by the SIGKILL tests.)
  let timeouts = 0;
  for (const timeoutMs of [40, 120, 200, 280, 360, 450]) {
    await using dir = await makeRoot();
    const patch = await setup(dir.path);
    const before = await fingerprint(dir.path);
    const env = await exec(dir.path, "patch apply", { stdin: patch, timeoutMs });
    if (env.error_code !== "Timeout") {
      assert.equal(env.exit_code, 0, env.stderr);
      continue;
    }
    timeouts++;
    await assertNoTornFile(dir.path);
    const next = await exec(dir.path, "patch apply", {
      stdin: patchOf(block("file.write", "after.txt", ["next run"])),
    });
    assert.equal(next.exit_code, 0, next.stderr);
    const now = await fingerprint(dir.path);
    delete now["after.txt"];
    assert.deepEqual(now, before, `timeout ${timeoutMs} ms`);
  }
  assert.ok(timeouts > 0, "some runs timed out");
});

Deno.test("a killed run, then a person's own git work: recovery refuses (StaleJournal) and touches nothing", async () => {
  let killedOnce = false;
  for (let attempt = 0; attempt < 5 && !killedOnce; attempt++) {
    await using dir = await makeRoot();
    const { patch, repo } = await setupRepo(dir.path);
    const killed = await killApplyWhileSwitching(dir.path, patch, repo, ["--repo", "r"]);
    if (!killed) continue;
    killedOnce = true;
    // The person cleans up with real git, keeps working and commits.
    await Deno.remove(`${repo}/.git/index.lock`).catch(() => {});
    await git(repo, "checkout", "--", ".");
    await git(repo, "clean", "-fdq");
    await Deno.writeTextFile(`${repo}/${name(1)}`, "the person's edit\n");
    await Deno.writeTextFile(`${repo}/mine.txt`, "a file the person created\n");
    await git(repo, "add", "-A");
    await git(repo, "commit", "-q", "-m", "the person's commit");
    const head = await git(repo, "rev-parse", "HEAD");
    const reflog = await git(repo, "reflog", "--format=%H");
    const tree = await fingerprint(dir.path);
    delete tree["sessions/.patch.lock"];

    for (const line of ["patch apply --repo r", "patch recover"]) {
      const next = await cli(["exec", "--root", dir.path, line], {
        stdin: patchOf(block("file.write", "after.txt", ["next run"])),
      });
      assert.equal(next.envelope?.error_code, "StaleJournal", next.stdout + next.stderr);
      assert.match(next.envelope!.stderr, /patch recover --discard/);
      assert.match(next.envelope!.stderr, /changed/);
      assert.equal(await git(repo, "rev-parse", "HEAD"), head, "HEAD did not move");
      assert.equal(await git(repo, "reflog", "--format=%H"), reflog, "the reflog is the person's");
      const now = await fingerprint(dir.path);
      for (const path of Object.keys(tree)) {
        if (!path.startsWith("audit/") && !path.startsWith("artifacts/") && !path.startsWith("sessions/")) {
          assert.equal(now[path], tree[path], `${path} is untouched`);
        }
      }
    }
    assert.equal(await Deno.readTextFile(`${repo}/mine.txt`), "a file the person created\n");
    assert.equal(await Deno.readTextFile(`${repo}/${name(1)}`), "the person's edit\n");

    // The documented way on: discard the journal, keeping the tree as it is; patch works again.
    const discarded = await cli(["exec", "--root", dir.path, "patch recover --discard"]);
    assert.equal(discarded.envelope?.exit_code, 0, discarded.stdout + discarded.stderr);
    // deno-lint-ignore no-explicit-any
    assert.equal((discarded.envelope!.result as any).recovered[0].action, "discarded");
    assert.equal(await git(repo, "rev-parse", "HEAD"), head);
    assert.equal(await git(repo, "status", "--porcelain"), "");
    const after = await cli(["exec", "--root", dir.path, "patch apply --repo r"], {
      stdin: patchOf(block("file.write", "after.txt", ["next run"])),
    });
    assert.equal(after.envelope?.exit_code, 0, after.stdout + after.stderr);
    assert.equal(await git(repo, "rev-parse", "HEAD~1"), head);
    await git(repo, "fsck", "--strict", "--no-progress");
  }
  assert.ok(killedOnce, "a run was killed mid-apply");
});

/** 100 files of 200 lines, 10 lines of each edited: the benchmark's shape (1,000 line edits over 100 files). */
const EDITED_FILES = 100;
const editedName = (f: number) => `src/m${Math.floor(f / 50)}/file${f}.py`;
const editedOld = (f: number) =>
  Array.from({ length: 200 }, (_, i) => `    value_${i} = compute(#${f}.${i}#)\n`).join("");
const editedNew = (f: number) =>
  Array.from(
    { length: 200 },
    (_, i) => `    value_${i} = compute(#${f}.${i}#)${i % 20 === f % 20 ? "  # edited" : ""}\n`,
  )
    .join("");

/** A small deterministic generator (mulberry32), so a failing kill moment can be replayed from its seed. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

Deno.test("killed at random moments of a 100-file apply: each file old or new, and the retry completes it", async () => {
  const seed = Number(Deno.env.get("PTERM_KILL_SEED") ?? Date.now() % 100_000);
  const next = random(seed);
  const files: Record<string, string> = {};
  const expected: Record<string, string> = {};
  for (let f = 0; f < EDITED_FILES; f++) {
    files[editedName(f)] = editedOld(f);
    expected[editedName(f)] = editedNew(f);
  }
  const patch = patchOf(
    ...Array.from(
      { length: EDITED_FILES },
      (_, f) => block("file.write", editedName(f), editedNew(f).trimEnd().split("\n")),
    ),
  );
  // How long a whole run takes here, so that the kills fall over all of it: start-up, planning,
  // preparing, switching and cleaning up.
  await using timing = await makeRoot();
  await writeTree(timing.path, files);
  const started = performance.now();
  assert.equal((await (spawnApply(timing.path, patch)).status).code, 0);
  const duration = performance.now() - started;

  await using expectedTree = await makeRoot();
  await writeTree(expectedTree.path, expected);
  const ATTEMPTS = 10;
  let rolledBack = 0;
  /** One run killed (after `killAfter` ms, or as soon as its journal is on disk), then checked and retried. */
  const killAndRetry = async (killAfter: number | "journal", context: string) => {
    await using dir = await makeRoot();
    await writeTree(dir.path, files);
    const child = spawnApply(dir.path, patch);
    if (killAfter === "journal") {
      const journals = `${dir.path}/sessions/default/patch`;
      let done = false;
      child.status.then(() => done = true);
      while (!done && !(await hasEntries(journals))) await new Promise((r) => setTimeout(r, 0));
    } else {
      await new Promise((r) => setTimeout(r, killAfter));
    }
    try {
      child.kill("SIGKILL");
    } catch { /* it had already finished */ }
    await child.status;

    // Byte for byte, each file is its old or its new content.
    for (let f = 0; f < EDITED_FILES; f++) {
      const bytes = await Deno.readTextFile(`${dir.path}/${editedName(f)}`);
      assert.ok(
        bytes === editedOld(f) || bytes === editedNew(f),
        `${editedName(f)} is neither old nor new: ${context}`,
      );
    }
    // The person retries the same call: it finishes the dead run's work or rolls it back, then applies.
    const retry = await cli(["exec", "--root", dir.path, "patch apply"], { stdin: patch });
    assert.equal(retry.envelope?.exit_code, 0, `${context}: ${retry.stdout}${retry.stderr}`);
    // deno-lint-ignore no-explicit-any
    const recovered = (retry.envelope!.result as any).recovered ?? [];
    if (recovered.some((r: { action: string }) => r.action === "rolled_back")) rolledBack++;
    // Real git compares the tree with the expected one: no difference, no temporary file left beside a target.
    const diff = await new Deno.Command("git", {
      args: ["diff", "--no-index", "--stat", `${expectedTree.path}/src`, `${dir.path}/src`],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(new TextDecoder().decode(diff.stdout) + new TextDecoder().decode(diff.stderr), "", context);
    assert.equal(diff.code, 0, context);
    const runs = await Array.fromAsync(Deno.readDir(`${dir.path}/sessions/default/patch`)).catch(() => []);
    assert.deepEqual(runs.map((r) => r.name), [], `no journal or backup is left: ${context}`);
  };
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    // Spread over the run: attempt k kills somewhere in the k-th tenth of it.
    const delay = duration * (attempt + next()) / ATTEMPTS;
    await killAndRetry(
      delay,
      `seed ${seed} (PTERM_KILL_SEED), attempt ${attempt}, killed after ${delay.toFixed(0)} ms`,
    );
  }
  // On a loaded machine the spread moments can all miss the journal's window: then kill where it stands.
  for (let attempt = 0; attempt < 5 && rolledBack === 0; attempt++) {
    await killAndRetry("journal", `seed ${seed}, killed as its journal appeared, attempt ${attempt}`);
  }
  assert.ok(rolledBack > 0, `one kill at least landed while a journal stood (seed ${seed})`);
});
