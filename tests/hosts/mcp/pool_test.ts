/**
 * The MCP server's warm workers (hosts/mcp/sandbox_pool.ts) through the real kernel: a worker whose call
 * finished runs the next call with the same command and permissions; nothing of an earlier call
 * reaches a later one; a call that timed out or failed ends its worker; and a reused git worker
 * sees every change real git made between calls, same-second ("racy") edits included.
 */

import assert from "node:assert/strict";
import { SandboxPool } from "../../../hosts/mcp/sandbox_pool.ts";
import { execute, type Kernel } from "../../../core/runtime.ts";
import { Registry } from "../../../core/registry.ts";
import type { Envelope } from "../../../core/envelope.ts";
import { probeCommands } from "../../fixtures/probe_commands.ts";
import { CODE_DIRS, makeRoot } from "../../_support/helpers.ts";
import { assertFsck, git, porcelainCounts } from "../../commands/git/oracle.ts";

function run(kernel: Kernel, root: string, line: string, timeoutMs?: number): Promise<Envelope> {
  return execute(kernel, {
    root,
    session: "pool",
    line,
    stdin: { kind: "none" },
    timeoutMs,
    terminal: { color: false },
    origin: "mcp",
  });
}

const jobs = (envelope: Envelope) => (envelope.result as { worker_jobs: number }).worker_jobs;

Deno.test("warm workers: reused after a normal finish, never after a timeout or failure, nothing leaks", async (t) => {
  await using dir = await makeRoot();
  const pool = new SandboxPool();
  const kernel: Kernel = { registry: new Registry(probeCommands), codeDirs: CODE_DIRS, sandboxes: pool };
  try {
    await t.step("the next call with the same command and permissions runs in the same worker", async () => {
      assert.equal(jobs(await run(kernel, dir.path, "probe linger")), 1);
      assert.equal(jobs(await run(kernel, dir.path, "probe linger")), 2);
      assert.equal(jobs(await run(kernel, dir.path, "probe linger")), 3);
    });

    await t.step("output an earlier call leaves behind never reaches a later call", async () => {
      const first = await run(kernel, dir.path, "probe linger --late 20");
      // This call holds its worker while the first call's timer writes.
      const second = await run(kernel, dir.path, "probe linger --hold 150");
      assert.equal(jobs(second), jobs(first) + 1, "the same worker");
      assert.doesNotMatch(second.stdout, /late output/);
      assert.equal(second.stdout, "");
    });

    await t.step("a call that timed out ends its worker; the next call gets a fresh one", async () => {
      const before = jobs(await run(kernel, dir.path, "probe linger"));
      assert.ok(before >= 1);
      const timedOut = await run(kernel, dir.path, "probe linger --spin 3000", 100);
      assert.equal(timedOut.error_code, "Timeout");
      assert.equal(jobs(await run(kernel, dir.path, "probe linger")), 1);
    });

    await t.step("a call that failed ends its worker", async () => {
      assert.ok(jobs(await run(kernel, dir.path, "probe linger")) >= 2);
      const failed = await run(kernel, dir.path, "probe linger --late nope");
      assert.equal(failed.error_code, "InvalidArgs", "refused before any worker ran: the worker stays");
      assert.equal((await run(kernel, dir.path, "probe crash")).error_code, "Internal");
      assert.equal((await run(kernel, dir.path, "probe crash")).error_code, "Internal");
    });

    await t.step("a worker allowed into one root never serves another", async () => {
      await using other = await makeRoot();
      assert.equal(jobs(await run(kernel, dir.path, "probe touch --path a.txt")), 1);
      assert.equal(jobs(await run(kernel, dir.path, "probe touch --path b.txt")), 2);
      assert.equal(jobs(await run(kernel, other.path, "probe touch --path a.txt")), 1, "another root: another worker");
      // A command with no file-system access has the same permissions whatever the root: it may share.
      assert.ok(jobs(await run(kernel, other.path, "probe linger")) > 1);
    });
  } finally {
    pool.close();
  }
});

Deno.test("warm workers: a reused git worker sees what real git and others changed between calls", async (t) => {
  await using dir = await makeRoot();
  const pool = new SandboxPool();
  const kernel: Kernel = { registry: new Registry(probeCommands), codeDirs: CODE_DIRS, sandboxes: pool };
  const repo = `${dir.path}/r`;
  const status = async () => {
    const envelope = await run(kernel, dir.path, "git status --repo r");
    assert.equal(envelope.exit_code, 0, envelope.stderr);
    return (envelope.result as { counts: Record<string, number> }).counts;
  };
  try {
    await git(dir.path, "init", "-q", "r");
    for (let i = 0; i < 50; i++) await Deno.writeTextFile(`${repo}/f${i}.txt`, `line ${i}\n`);
    await git(repo, "add", "-A");
    await git(repo, "commit", "-qm", "base");
    assert.deepEqual(await status(), (await porcelainCounts(repo)).counts);
    assert.ok(pool.idleCount >= 1, "the git worker went back to the pool");

    await t.step("a same-second edit of the same size right after a status", async () => {
      await status();
      // Same size, same second as the index entry may have been written: only the content differs.
      await Deno.writeTextFile(`${repo}/f1.txt`, "LINE 1\n");
      const counts = await status();
      assert.equal(counts.modified, 1);
      assert.deepEqual(counts, (await porcelainCounts(repo)).counts);
    });

    await t.step("real git commits, stages and removes between calls", async () => {
      await git(repo, "commit", "-qam", "edit f1");
      assert.deepEqual(await status(), (await porcelainCounts(repo)).counts);
      await Deno.writeTextFile(`${repo}/new.txt`, "new\n");
      await git(repo, "add", "new.txt");
      await git(repo, "rm", "-q", "f2.txt");
      await Deno.remove(`${repo}/f3.txt`);
      await Deno.writeTextFile(`${repo}/untracked.txt`, "u\n");
      const counts = await status();
      assert.deepEqual(counts, (await porcelainCounts(repo)).counts);
      assert.equal(counts.added, 1);
      assert.equal(counts.removed, 1);
      assert.equal(counts.missing, 1);
      assert.equal(counts.untracked, 1);
    });

    await t.step("pterm's own add and commit through a reused worker, then real git reads them", async () => {
      assert.equal((await run(kernel, dir.path, "git add --repo r --all")).exit_code, 0);
      assert.equal((await run(kernel, dir.path, "git add --repo r --all")).exit_code, 0);
      assert.equal((await run(kernel, dir.path, 'git commit --repo r --message "via pool"')).exit_code, 0);
      assert.equal((await git(repo, "status", "--porcelain")).trim(), "");
      assert.deepEqual(await status(), (await porcelainCounts(repo)).counts);
      await assertFsck(repo);
    });
  } finally {
    pool.close();
  }
});

/** inotify instances this process holds open (each watching worker has one). */
function inotifyInstances(): number {
  let count = 0;
  for (const entry of Deno.readDirSync("/proc/self/fd")) {
    try {
      if (Deno.readLinkSync(`/proc/self/fd/${entry.name}`) === "anon_inode:inotify") count++;
    } catch { /* closed meanwhile */ }
  }
  return count;
}

/** A root holding the repository `r` with one file. */
async function rootWithRepo(): Promise<Awaited<ReturnType<typeof makeRoot>>> {
  const dir = await makeRoot();
  await git(dir.path, "init", "-q", "r");
  await Deno.writeTextFile(`${dir.path}/r/a.txt`, "a\n");
  return dir;
}

Deno.test({
  name: "warm workers: only a pooled git worker watches the work tree; a one-shot run leaves no watcher",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await using dir = await rootWithRepo();
    const before = inotifyInstances();
    // As `pterm exec` runs it: a worker for this call only, told it is not warm.
    const cold: Kernel = { registry: new Registry(probeCommands), codeDirs: CODE_DIRS };
    assert.equal((await run(cold, dir.path, "git status --repo r")).exit_code, 0);
    assert.equal((await run(cold, dir.path, "git status --repo r")).exit_code, 0);
    assert.equal(inotifyInstances(), before, "no watcher outlives a one-shot call");
    const pool = new SandboxPool();
    const warm: Kernel = { registry: new Registry(probeCommands), codeDirs: CODE_DIRS, sandboxes: pool };
    try {
      assert.equal((await run(warm, dir.path, "git status --repo r")).exit_code, 0);
      assert.ok(inotifyInstances() > before, "the pooled worker watches the work tree between calls");
    } finally {
      pool.close();
    }
  },
});

Deno.test({
  name: "warm workers: one per command while its calls succeed, a spare after a loss, none left after idleMs",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await using dir = await rootWithRepo();
    const before = inotifyInstances();
    const pool = new SandboxPool({ idleMs: 1_000 });
    const kernel: Kernel = { registry: new Registry(probeCommands), codeDirs: CODE_DIRS, sandboxes: pool };
    const settle = () => new Promise((resolve) => setTimeout(resolve, 50));
    try {
      for (let call = 1; call <= 3; call++) {
        assert.equal(jobs(await run(kernel, dir.path, "probe linger")), call);
        await settle();
        assert.equal(pool.idleCount, 1, "a command whose calls succeed keeps one worker, not a spare beside it");
      }
      // A crash ends its worker: the first one leaves nothing; the next call of that command starts a spare.
      assert.equal((await run(kernel, dir.path, "probe crash")).error_code, "Internal");
      await settle();
      assert.equal(pool.idleCount, 1);
      assert.equal((await run(kernel, dir.path, "probe crash")).error_code, "Internal");
      await settle();
      assert.equal(pool.idleCount, 2, "after a lost worker, a spare waits for the next call");
      assert.equal((await run(kernel, dir.path, "git status --repo r")).exit_code, 0);
      await settle();
      assert.ok(inotifyInstances() > before, "the pooled git worker watches the work tree");

      // Idle past idleMs: every worker is stopped, its watcher with it.
      const deadline = Date.now() + 10_000;
      while ((pool.idleCount > 0 || inotifyInstances() > before) && Date.now() < deadline) await settle();
      assert.equal(pool.idleCount, 0, "idle workers are stopped after idleMs");
      assert.equal(inotifyInstances(), before, "a stopped git worker leaves no watcher");

      // The next call starts afresh and answers as before.
      assert.equal(jobs(await run(kernel, dir.path, "probe linger")), 1);
      const status = await run(kernel, dir.path, "git status --repo r");
      assert.equal(status.exit_code, 0);
      assert.deepEqual(
        (status.result as { counts: Record<string, number> }).counts,
        (await porcelainCounts(`${dir.path}/r`)).counts,
      );
    } finally {
      pool.close();
    }
  },
});
