/**
 * The warm `git status` cache (commands/git/worktree/fsmonitor.ts) against real git: random sequences of
 * work-tree changes made by real processes (real git, `sh`, `ln`, `mv`, `chmod`, plain Deno writes,
 * same-second rewrites of the same size) between status calls, every answer compared with
 * `git status --porcelain=v2 -uall` of the same moment; then the focused cases one by one. Real
 * git's own status runs between calls too, and rewrites the index behind the cache.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import {
  changesSeenHere,
  closeMonitors,
  lastScanReason,
  monitoredStatus,
  type StatusSource,
} from "../../../commands/git/worktree/fsmonitor.ts";
import { openRepo } from "../../../commands/git/repo/repo.ts";
import { computeStatus, stagedRenames, statusFiles } from "../../../commands/git/porcelain/status.ts";
import { pathPolicy } from "../../../commands/git/worktree/worktree.ts";
import { makeRoot, watchedTempBase } from "../../_support/helpers.ts";
import { git, porcelainFiles } from "../../commands/git/oracle.ts";
import { actionArb, apply, freshRepo, sh } from "./tree_changes.ts";

const sources: Record<StatusSource, number> = { scan: 0, watcher: 0 };
/** Where trees are made: a file system the cache watches (null: none here, so only scans can be checked). */
const WATCHED = await watchedTempBase();
const reasons: Record<string, number> = {};

/** pterm's answer through the cache, as "XY path" lines. */
async function cachedStatus(repo: string, warm = true, rel = "r"): Promise<string[]> {
  const opened = openRepo(repo, rel, repo);
  const policy = pathPolicy(rel, opened.dir);
  const options = { untracked: true, paths: null };
  const context = { warm };
  const { index, work, source } = await monitoredStatus(context, opened, policy, options);
  sources[source]++;
  if (source === "scan") {
    const reason = lastScanReason.replace(/^(folder|\S+:) .*? (\w+)$/, "$1 … $2");
    reasons[reason] = (reasons[reason] ?? 0) + 1;
  }
  const report = await computeStatus(opened, index, policy, options, work);
  // Staged renames paired as the status handler pairs them (and as git status does).
  return statusFiles(report, await stagedRenames(opened, index, report)).map((f) => `${f.xy} ${f.path}`).sort();
}

/** The same answer as real git now, then again right after (real git may have refreshed the index). */
async function agree(repo: string, what: string): Promise<void> {
  const expected = await porcelainFiles(repo);
  assert.deepEqual(await cachedStatus(repo), expected, `after ${what}`);
}

Deno.test("warm git status cache: random changes by real processes, every answer as real git's", async () => {
  await using dir = await makeRoot(undefined, WATCHED ?? undefined);
  const outside = `${dir.path}/outside.txt`;
  await Deno.writeTextFile(outside, "outside\n");
  let round = 0;
  try {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(actionArb, fc.boolean()), { minLength: 4, maxLength: 14 }),
        async (actions) => {
          const repo = `${dir.path}/r${round++}`;
          await freshRepo(repo);
          await agree(repo, "the first call");
          for (const [i, [action, pause]] of actions.entries()) {
            await apply(repo, action, outside);
            // A pause lets folder timestamps age past the racy window, so the kept answer is used.
            if (pause) await new Promise((resolve) => setTimeout(resolve, 40));
            await agree(repo, `step ${i}: ${JSON.stringify(action)}`);
            // A second call with nothing changed in between.
            await agree(repo, `step ${i} again: ${JSON.stringify(action)}`);
          }
          await closeMonitors();
        },
      ),
      { numRuns: Number(Deno.env.get("FSMONITOR_RUNS") ?? 25) },
    );
  } finally {
    await closeMonitors();
  }
  if (WATCHED !== null) {
    assert.ok(sources.watcher > 50, `the kept answer served calls (${JSON.stringify({ sources, reasons })})`);
  }
});

const pause = () => new Promise((resolve) => setTimeout(resolve, 40));

/** Calls until the kept answer serves (folder timestamps past the racy window), checking each. */
async function settle(repo: string): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await pause();
    const before = sources.watcher;
    await agree(repo, "settling");
    if (sources.watcher > before) return;
  }
  assert.fail(`the kept answer never served (${lastScanReason})`);
}

Deno.test({
  name: "warm git status cache: the focused cases",
  ignore: WATCHED === null, // each case checks that the kept answer served
  fn: focusedCases,
});

async function focusedCases(t: Deno.TestContext): Promise<void> {
  await using dir = await makeRoot(undefined, WATCHED!);
  const outside = `${dir.path}/outside.txt`;
  await Deno.writeTextFile(outside, "outside\n");
  const repo = `${dir.path}/r`;
  await freshRepo(repo);
  try {
    await agree(repo, "the first call");
    await settle(repo);

    await t.step("a same-size rewrite in the same second as the last answer (racy git)", async () => {
      await Deno.writeTextFile(`${repo}/a.txt`, "A.txt\n");
      await agree(repo, "the racy rewrite");
      await Deno.writeTextFile(`${repo}/a.txt`, "a.txt\n");
      await agree(repo, "the racy rewrite back");
      await settle(repo);
    });

    await t.step("an editor's save: a new file renamed over the old one", async () => {
      await sh(repo, "printf 'saved\\n' > src/c.ts.swp && mv -f src/c.ts.swp src/c.ts");
      await agree(repo, "the rename-over");
      await settle(repo);
      await sh(repo, "printf 'src/c.ts\\n' > src/c.ts.swp && mv -f src/c.ts.swp src/c.ts");
      await agree(repo, "the rename-over back");
      await settle(repo);
    });

    await t.step("a folder deleted and re-created, then a file in it changed", async () => {
      await sh(repo, "cp -a src src.keep && rm -rf src && mv src.keep src");
      await agree(repo, "the re-created folder");
      await settle(repo);
      // The new folder has its own inotify watch: a later edit in it is seen.
      await Deno.writeTextFile(`${repo}/src/deep/e.md`, "changed in the re-created folder\n");
      await pause();
      const before = sources.watcher;
      await agree(repo, "an edit in the re-created folder");
      assert.equal(sources.watcher, before + 1, "answered from the watcher's event");
    });

    await t.step("a link to a file outside the tree swapped in (no event comes for it)", async () => {
      await settle(repo);
      // Made outside the tree and moved in: the only event is for a path that resolves outside.
      await sh(dir.path, `ln -s '${outside}' link && mv -f link r/b.txt`);
      await pause();
      await agree(repo, "the link swapped in");
      // No event came: the folder's changed stamp made the call list it again (the test fails without that).
      await settle(repo);
      await Deno.writeTextFile(outside, "the link's target changed, not the link\n");
      await agree(repo, "the link's target rewritten");
    });

    await t.step("files made and removed: the folder is listed again, nothing else scanned", async () => {
      const kept = async (what: string) => {
        await pause();
        const before = sources.watcher;
        await agree(repo, what);
        assert.equal(sources.watcher, before + 1, `${what}: answered from the kept state (${lastScanReason})`);
      };
      await settle(repo);
      await Deno.writeTextFile(`${repo}/src/new.txt`, "untracked\n");
      await kept("an untracked file made");
      await Deno.writeTextFile(`${repo}/src/new.txt`, "untracked, longer\n");
      await kept("the untracked file written again");
      await Deno.writeTextFile(`${repo}/src/x.log`, "ignored\n");
      await kept("an ignored file made");
      await Deno.remove(`${repo}/src/new.txt`);
      await kept("the untracked file removed");
      await Deno.remove(`${repo}/lib/f.js`);
      await kept("a tracked file removed");
      await git(repo, "checkout", "--", "lib/f.js");
      await agree(repo, "the tracked file checked out again");
      await Deno.remove(`${repo}/src/x.log`);
      await settle(repo);
    });

    await t.step("chmod +x", async () => {
      await settle(repo);
      await Deno.chmod(`${repo}/lib/f.js`, 0o755);
      await pause();
      await agree(repo, "chmod +x");
    });

    await t.step("real git add, commit and checkout between calls", async () => {
      await git(repo, "add", "-A");
      await agree(repo, "git add -A");
      await git(repo, "commit", "-qm", "step");
      await agree(repo, "git commit");
      await settle(repo);
      await git(repo, "checkout", "-q", "-b", "side");
      await Deno.writeTextFile(`${repo}/lib/g.js`, "side\n");
      await git(repo, "commit", "-qam", "side");
      await agree(repo, "a commit on a new branch");
      await git(repo, "checkout", "-q", "main");
      await agree(repo, "checkout main");
      await settle(repo);
      await git(repo, "update-index", "--assume-unchanged", "lib/g.js");
      await Deno.writeTextFile(`${repo}/lib/g.js`, "assumed unchanged\n");
      await agree(repo, "assume-unchanged set behind the cache");
      await git(repo, "update-index", "--no-assume-unchanged", "lib/g.js");
      await agree(repo, "assume-unchanged cleared");
      await git(repo, "checkout", "-q", "--", ".");
      await agree(repo, "checkout -- .");
    });

    await t.step("the repository replaced wholesale", async () => {
      await settle(repo);
      const other = `${dir.path}/other`;
      await freshRepo(other);
      await Deno.writeTextFile(`${other}/a.txt`, "another repository\n");
      await sh(dir.path, `rm -rf r && mv other r`);
      await agree(repo, "the replaced repository");
      await settle(repo);
      await Deno.writeTextFile(`${repo}/b.txt`, "edited in the replaced repository\n");
      await pause();
      await agree(repo, "an edit in the replaced repository");
    });

    await t.step("more events than the watcher's queue holds while the worker is busy", async () => {
      await settle(repo);
      const writer = new Deno.Command("sh", {
        args: ["-c", "mkdir -p many && for i in $(seq 1 700); do echo $i > many/f$i; done; echo burst > a.txt"],
        cwd: repo,
      }).spawn();
      // Busy, as a worker running a long scan is: nothing drains Deno's queue meanwhile.
      const until = Date.now() + 1500;
      while (Date.now() < until) { /* busy */ }
      await writer.status;
      await agree(repo, "a burst of 2,000+ events");
      assert.equal(lastScanReason, "the watcher lost events", "Deno's queue overflowed: a rescan");
      await settle(repo);
    });
  } finally {
    await closeMonitors();
  }
}

Deno.test("warm git status cache: without a warm worker nothing is kept and no watcher runs", async () => {
  await using dir = await makeRoot();
  const repo = `${dir.path}/r`;
  await freshRepo(repo);
  const before = { ...sources };
  for (let i = 0; i < 3; i++) {
    await Deno.writeTextFile(`${repo}/a.txt`, `cold ${i}\n`);
    assert.deepEqual(await cachedStatus(repo, false), await porcelainFiles(repo));
  }
  assert.equal(sources.watcher, before.watcher);
  assert.equal(sources.scan, before.scan + 3);
  // No cookie was ever written into .git.
  for await (const entry of Deno.readDir(`${repo}/.git`)) assert.doesNotMatch(entry.name, /pterm-fsmonitor/);
});

Deno.test({
  name: "warm git status cache: a repository at the workspace root; pterm's own state beside it",
  ignore: WATCHED === null, // it checks that the kept answer served
  fn: rootRepository,
});

async function rootRepository(): Promise<void> {
  await using dir = await makeRoot(undefined, WATCHED!);
  const repo = dir.path;
  await freshRepo(repo);
  // What `pterm init`/the kernel keep at a workspace root, which real git is told to ignore.
  await Deno.writeTextFile(`${repo}/.git/info/exclude`, "audit/\nartifacts/\nsessions/\npterm.json\n");
  await Deno.mkdir(`${repo}/audit`);
  await Deno.writeTextFile(`${repo}/audit/log.jsonl`, "{}\n");
  const check = async (what: string) =>
    assert.deepEqual(await cachedStatus(repo, true, "."), await porcelainFiles(repo), what);
  try {
    await check("the first call");
    let kept = 0;
    for (let i = 0; i < 6; i++) {
      await pause();
      // An audit record appended between calls, as the kernel does for every call.
      await Deno.writeTextFile(`${repo}/audit/log.jsonl`, `{"call":${i}}\n`, { append: true });
      const before = sources.watcher;
      await check(`call ${i}`);
      kept += sources.watcher - before;
    }
    assert.ok(kept >= 4, `pterm's own writes did not cost a scan each (${kept} of 6 kept; ${lastScanReason})`);
    await Deno.writeTextFile(`${repo}/a.txt`, "changed beside the audit log\n");
    await check("an edit next to pterm's state");
  } finally {
    await closeMonitors();
  }
}

Deno.test({
  name: "warm git status cache: a tree on an anonymous device (tmpfs here; nfs, 9p, virtiofs alike) is never watched",
  ignore: !(await Deno.stat("/dev/shm").then((info) => info.isDirectory, () => false)),
  fn: async () => {
    const shm = await Deno.makeTempDir({ dir: "/dev/shm", prefix: "pterm-fsmonitor-" });
    try {
      const repo = `${shm}/r`;
      await freshRepo(repo);
      assert.equal(changesSeenHere(repo), false);
      const before = { ...sources };
      for (let i = 0; i < 4; i++) {
        await Deno.writeTextFile(`${repo}/a.txt`, `edit ${i}\n`);
        await pause();
        assert.deepEqual(await cachedStatus(repo), await porcelainFiles(repo));
      }
      assert.equal(sources.watcher, before.watcher, "every answer came from a scan");
      assert.equal(sources.scan, before.scan + 4);
    } finally {
      await closeMonitors();
      await Deno.remove(shm, { recursive: true });
    }
  },
});
