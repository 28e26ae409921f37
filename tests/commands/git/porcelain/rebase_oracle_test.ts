/**
 * `git rebase` held to the real git: each scenario is built once with git, copied, and rebased by pterm in one copy
 * (p/) and by git in the other (g/). Both must print the same (stdout byte for byte; stderr as git's, before
 * pterm's own `[Error]` paragraph on a stop), stop the same way with the same `.git/rebase-merge/` state, and end
 * in the same repository: the same commits (tree, message, author with its date, parents), the same branches,
 * HEAD, ORIG_HEAD, reflog entries, index and work tree. Rebased commits differ only in their committer's date
 * (pterm stamps now), so their ids are compared through their subjects. A rebase stopped by one is finished by
 * the other, and `git fsck --strict` is clean at the end of each.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import type { Envelope } from "../../../../core/envelope.ts";
import { exec, makeRoot, type TempDir } from "../../../_support/helpers.ts";
import { assertFsck, git, type GitOutput, gitRaw, porcelainFiles, ptermTry, write } from "../oracle.ts";
import { cloneRealRepo } from "../real_repos.ts";
import { worktreeFiles } from "../twin.ts";

/** A repository built with git at `base/`, then copied to p/ (pterm's) and g/ (git's). */
class Pair implements AsyncDisposable {
  private constructor(readonly root: TempDir) {}
  get base() {
    return `${this.root.path}/base`;
  }
  get p() {
    return `${this.root.path}/p`;
  }
  get g() {
    return `${this.root.path}/g`;
  }
  /** The commits of the scenario as built (the same ids in both copies). */
  original = new Set<string>();

  static async create(): Promise<Pair> {
    const pair = new Pair(await makeRoot("pterm-rebase-"));
    await Deno.mkdir(pair.base);
    await git(pair.base, "init", "-q", "-b", "main");
    await git(pair.base, "config", "user.name", "Oracle");
    await git(pair.base, "config", "user.email", "oracle@example.com");
    return pair;
  }

  async [Symbol.asyncDispose]() {
    await this.root[Symbol.asyncDispose]();
  }

  async commit(files: Record<string, string | null>, subject: string, author = "Oracle <oracle@example.com>") {
    for (const [path, text] of Object.entries(files)) {
      if (text === null) await Deno.remove(`${this.base}/${path}`);
      else await write(`${this.base}/${path}`, text);
    }
    await git(this.base, "add", "-A");
    await git(this.base, "commit", "-q", "--allow-empty", "-m", subject, `--author=${author}`);
  }

  /** Copies base/ to p/ and g/ (git's own copy: nothing of pterm's in it). */
  async split(): Promise<void> {
    for (const line of (await git(this.base, "rev-list", "--all")).split("\n")) if (line) this.original.add(line);
    for (const to of [this.p, this.g]) {
      const out = await new Deno.Command("cp", { args: ["-a", this.base, to] }).output();
      assert.equal(out.code, 0);
    }
  }

  /** Runs `git <args>` through pterm in p/ and through git in g/. */
  async both(args: string[], gitArgs = args): Promise<{ p: Envelope; g: GitOutput }> {
    const line = `git ${args.map((a) => (/[\s"']/.test(a) ? `"${a}"` : a)).join(" ")} --repo p`;
    const p = await ptermTry(this.root.path, line);
    const g = await gitRaw(this.g, ["-c", "core.editor=true", ...gitArgs]);
    return { p, g };
  }

  /** The commits pterm or git made (not in the scenario as built), as `<subject>` labels for their ids. */
  async labels(dir: string): Promise<[RegExp, string][]> {
    const out: [RegExp, string][] = [];
    const ids = new Set<string>();
    for (const ref of ["--all", "HEAD"]) {
      for (const line of (await gitRaw(dir, ["log", "--format=%H", ref])).stdout.split("\n")) if (line) ids.add(line);
    }
    for (const line of (await gitRaw(dir, ["reflog", "--format=%H"])).stdout.split("\n")) if (line) ids.add(line);
    for (const id of ids) {
      if (this.original.has(id)) continue;
      const subject = (await git(dir, "log", "-1", "--format=%s", id)).trim();
      out.push([new RegExp(`\\b${id.slice(0, 7)}[0-9a-f]{0,33}\\b`, "g"), `<new: ${subject}>`]);
    }
    return out;
  }

  async normalize(dir: string, text: string): Promise<string> {
    let out = text;
    for (const [pattern, label] of await this.labels(dir)) out = out.replace(pattern, label);
    return out.replaceAll(dir, "<dir>");
  }

  /** What the two printed must be the same (pterm's stderr: git's, then its own paragraph on failure). */
  async assertSamePrint(run: { p: Envelope; g: GitOutput }, note: string): Promise<void> {
    const { p, g } = run;
    assert.equal(p.exit_code === 0, g.code === 0, `${note}: exit ${p.exit_code} vs git ${g.code}\n${p.stderr}`);
    assert.equal(await this.normalize(this.p, p.stdout), await this.normalize(this.g, g.stdout), `${note}: stdout`);
    const gitErr = await this.normalize(this.g, g.stderr);
    const ours = await this.normalize(this.p, p.stderr);
    if (p.exit_code === 0) assert.equal(ours, gitErr, `${note}: stderr`);
    else {
      assert.equal(ours.slice(0, gitErr.length), gitErr, `${note}: stderr`);
      assert.match(ours.slice(gitErr.length), /^\[Error\] /, `${note}: pterm's paragraph after git's text`);
    }
  }

  /** Every observable of the two repositories, new commits named by their subjects. */
  async assertSameState(note: string, options: { authorDates?: boolean } = {}): Promise<void> {
    const view = async (dir: string) => {
      const run = async (...args: string[]) => await this.normalize(dir, (await gitRaw(dir, args)).stdout);
      const state: Record<string, unknown> = {
        head: await run("symbolic-ref", "-q", "HEAD"),
        headCommit: await run("rev-parse", "HEAD"),
        origHead: await run("rev-parse", "-q", "--verify", "ORIG_HEAD"),
        refs: await run("for-each-ref", "--format=%(refname) %(objectname)"),
        // Sorted: commits of equal dates are listed in another order than commits of different ones.
        log: (await run(
          "log",
          "--all",
          `--format=%H %T %P|%an|%ae|${options.authorDates === false ? "" : "%ad"}|%cn|%ce|%B%x00`,
        )).split("\0").map((c) => c.trim()).sort(),
        headLog: await run("log", "HEAD", "--format=%H %T %P|%s"),
        reflog: await run("reflog", "--format=%H %gs"),
        status: await porcelainFiles(dir),
        shortStatus: await run("status", "--short"),
        lsFiles: await run("ls-files", "--stage"),
        files: await worktreeFiles(dir),
      };
      for (const branch of (await git(dir, "for-each-ref", "--format=%(refname)", "refs/heads")).split("\n")) {
        if (branch) state[`reflog ${branch}`] = await run("reflog", "show", "--format=%H %gs", branch);
      }
      const stateDir = `${dir}/.git/rebase-merge`;
      const kept: Record<string, string> = {};
      try {
        for await (const entry of Deno.readDir(stateDir)) {
          // git's help text in the backup and its patch file are for a person; pterm writes the commands and not the
          // patch (git reads neither to go on).
          if (entry.name === "git-rebase-todo.backup" || entry.name === "patch") continue;
          let text = await Deno.readTextFile(`${stateDir}/${entry.name}`);
          if (entry.name === "author-script") text = text.replace(/(GIT_AUTHOR_DATE=').*'/, "$1…'");
          kept[entry.name] = await this.normalize(dir, text);
        }
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      }
      state["rebase-merge"] = kept;
      for (const name of ["REBASE_HEAD", "MERGE_MSG"]) {
        try {
          state[name] = await this.normalize(dir, await Deno.readTextFile(`${dir}/.git/${name}`));
        } catch {
          state[name] = null;
        }
      }
      return state;
    };
    const [p, g] = [await view(this.p), await view(this.g)];
    // The committer's date is the only difference: pterm stamps now, the oracle's git a fixed date.
    assert.deepEqual(p, g, note);
    await assertFsck(this.p);
  }

  /** `git status` (long, short, short with the branch) byte for byte. */
  async assertSameStatus(note: string): Promise<void> {
    for (const args of [["status"], ["status", "-s"], ["status", "-sb"]]) {
      const { p, g } = await this.both(args);
      assert.equal(p.exit_code, 0, p.stderr);
      assert.equal(await this.normalize(this.p, p.stdout), await this.normalize(this.g, g.stdout), `${note}: ${args}`);
    }
  }

  async writeBoth(path: string, text: string): Promise<void> {
    await write(`${this.p}/${path}`, text);
    await write(`${this.g}/${path}`, text);
  }
}

/** base; topic with three commits (the second changes f's line 2); main changing f's line 2 otherwise when `clash`. */
async function topicAndMain(pair: Pair, clash: boolean): Promise<void> {
  await pair.commit({ "f.txt": "1\n2\n3\n", "g.txt": "g\n" }, "base");
  await git(pair.base, "switch", "-q", "-c", "topic");
  await pair.commit({ "t.txt": "t\n" }, "topic one", "Ada <ada@example.com>");
  await pair.commit({ "f.txt": "1\nT\n3\n" }, "topic two\n\nwith a body\n");
  await pair.commit({ "u.txt": "u\n", "g.txt": null }, "topic three");
  await git(pair.base, "switch", "-q", "main");
  await pair.commit({ "f.txt": clash ? "1\nM\n3\n" : "0\n1\n2\n3\n" }, "main change");
  await git(pair.base, "switch", "-q", "topic");
  await pair.split();
}

Deno.test("git rebase <upstream> makes what git makes and prints what git prints", async (t) => {
  await t.step("linear: three commits onto main, a content merge on the way", async () => {
    await using pair = await Pair.create();
    await topicAndMain(pair, false);
    const run = await pair.both(["rebase", "main"]);
    assert.equal(run.p.exit_code, 0, run.p.stderr);
    assert.match(run.p.stderr, /Successfully rebased and updated refs\/heads\/topic\.\n$/);
    await pair.assertSamePrint(run, "rebase main");
    await pair.assertSameState("after the rebase");
    const result = run.p.result as { outcome: string; picked: unknown[] };
    assert.equal(result.outcome, "rebased");
    assert.equal(result.picked.length, 3);
  });

  await t.step("conflict: stops with git's state and status; --continue finishes", async () => {
    await using pair = await Pair.create();
    await topicAndMain(pair, true);
    const stop = await pair.both(["rebase", "main"]);
    assert.equal(stop.p.error_code, "Conflict");
    assert.equal(stop.p.exit_code, 1);
    await pair.assertSamePrint(stop, "the stop");
    await pair.assertSameState("stopped");
    await pair.assertSameStatus("stopped");
    const again = await pair.both(["rebase", "main"]);
    await pair.assertSamePrint(again, "a second rebase while one is stopped");
    const early = await pair.both(["rebase", "--continue"]);
    await pair.assertSamePrint(early, "--continue with the conflict still there");
    await pair.writeBoth("f.txt", "1\nresolved\n3\n");
    await pair.both(["add", "f.txt"]);
    await pair.assertSameStatus("resolved, not continued");
    const done = await pair.both(["rebase", "--continue"]);
    await pair.assertSamePrint(done, "--continue");
    await pair.assertSameState("after --continue");
  });

  await t.step("conflicts of names stop as git's ort prints them: rename/delete, rename/rename", async () => {
    await using pair = await Pair.create();
    const lines = (name: string) => [1, 2, 3, 4, 5, 6].map((n) => `${name} line ${n}\n`).join("");
    await pair.commit({ "z.txt": lines("z"), "y.txt": lines("y"), "m.txt": lines("m"), "w.txt": lines("w") }, "base");
    await git(pair.base, "switch", "-q", "-c", "topic");
    // z renamed and changed (rename/delete and the new name's modify/delete), y renamed (rename/rename),
    // w renamed as is (rename/delete alone), m deleted (modify/delete).
    await pair.commit(
      {
        "z.txt": null,
        "a2.txt": `${lines("z")}more\n`,
        "y.txt": null,
        "c.txt": lines("y"),
        "w.txt": null,
        "x/w.txt": lines("w"),
        "m.txt": null,
      },
      "topic moves",
    );
    await git(pair.base, "switch", "-q", "main");
    await pair.commit(
      { "z.txt": null, "w.txt": null, "y.txt": null, "b.txt": lines("y"), "m.txt": `${lines("m")}+\n` },
      "main",
    );
    await git(pair.base, "switch", "-q", "topic");
    await pair.split();
    const stop = await pair.both(["rebase", "main"]);
    assert.equal(stop.p.error_code, "Conflict");
    assert.match(stop.p.stdout, /^CONFLICT \(rename\/delete\): z\.txt renamed to a2\.txt in /);
    await pair.assertSamePrint(stop, "the stop");
    await pair.assertSameState("stopped");
    const aborted = await pair.both(["rebase", "--abort"]);
    await pair.assertSamePrint(aborted, "--abort");
    await pair.assertSameState("after --abort");
  });

  await t.step("--skip drops the stopped commit; --abort puts everything back", async () => {
    await using pair = await Pair.create();
    await topicAndMain(pair, true);
    await pair.both(["rebase", "main"]);
    const skipped = await pair.both(["rebase", "--skip"]);
    await pair.assertSamePrint(skipped, "--skip");
    await pair.assertSameState("after --skip");
    await pair.both(["reset", "--hard", "ORIG_HEAD"]);
    await pair.writeBoth("untracked.txt", "kept\n");
    await pair.both(["rebase", "main"]);
    const aborted = await pair.both(["rebase", "--abort"]);
    await pair.assertSamePrint(aborted, "--abort");
    await pair.assertSameState("after --abort");
    const none = await pair.both(["rebase", "--abort"]);
    assert.equal(none.p.error_code, "NotFound");
    await pair.assertSamePrint(none, "--abort with no rebase");
  });

  await t.step("a pick resolved to HEAD's version is dropped by --continue, as git drops it", async () => {
    await using pair = await Pair.create();
    await topicAndMain(pair, true);
    await pair.both(["rebase", "main"]);
    await pair.both(["checkout", "--ours", "f.txt"]);
    await pair.both(["add", "f.txt"]);
    const done = await pair.both(["rebase", "--continue"]);
    await pair.assertSamePrint(done, "--continue of an emptied pick");
    await pair.assertSameState("after --continue");
  });

  await t.step("a pick an untracked file is in the way of stops, rescheduled, until the file is gone", async () => {
    await using pair = await Pair.create();
    await topicAndMain(pair, true);
    await pair.both(["rebase", "main"]);
    await pair.writeBoth("f.txt", "1\nresolved\n3\n");
    await pair.both(["add", "f.txt"]);
    await pair.writeBoth("u.txt", "an untracked file of the person's\n");
    const blocked = await pair.both(["rebase", "--continue"]);
    assert.equal(blocked.p.error_code, "UncommittedChanges");
    assert.notEqual(blocked.g.code, 0);
    // git's whole text, its checkout's lines about the file first, then pterm's paragraph.
    assert.match(
      blocked.g.stderr,
      /error: The following untracked working tree files would be overwritten by merge:\n/,
    );
    await pair.assertSamePrint(blocked, "a pick blocked by an untracked file");
    assert.equal(await Deno.readTextFile(`${pair.p}/u.txt`), "an untracked file of the person's\n");
    await pair.assertSameState("rescheduled");
    for (const dir of [pair.p, pair.g]) await Deno.remove(`${dir}/u.txt`);
    const done = await pair.both(["rebase", "--continue"]);
    await pair.assertSamePrint(done, "--continue once the file is gone");
    await pair.assertSameState("finished");
  });

  await t.step("--quit forgets the rebase and keeps HEAD, index and files", async () => {
    await using pair = await Pair.create();
    await topicAndMain(pair, true);
    await pair.both(["rebase", "main"]);
    const quit = await pair.both(["rebase", "--quit"]);
    await pair.assertSamePrint(quit, "--quit");
    await pair.assertSameState("after --quit");
  });

  await t.step("--onto <newbase> <upstream> <branch>, and <upstream> <branch> from another branch", async () => {
    await using pair = await Pair.create();
    await pair.commit({ "a.txt": "a\n" }, "base");
    await git(pair.base, "switch", "-q", "-c", "A");
    await pair.commit({ "b.txt": "b\n" }, "A one");
    await git(pair.base, "switch", "-q", "-c", "B");
    await pair.commit({ "c.txt": "c\n" }, "B one");
    await pair.commit({ "c.txt": "c\nc\n" }, "B two");
    await git(pair.base, "switch", "-q", "main");
    await pair.commit({ "m.txt": "m\n" }, "main one");
    await pair.split();
    const onto = await pair.both(["rebase", "--onto", "main", "A", "B"]);
    await pair.assertSamePrint(onto, "--onto main A B");
    await pair.assertSameState("after --onto");
    const branch = await pair.both(["switch", "main"], ["switch", "-q", "main"]);
    assert.equal(branch.p.exit_code, 0);
    const other = await pair.both(["rebase", "main", "A"]);
    await pair.assertSamePrint(other, "rebase main A");
    await pair.assertSameState("after rebase main A");
  });

  await t.step("commits upstream has already are skipped (patch-id); one emptied on the way is dropped", async () => {
    await using pair = await Pair.create();
    await pair.commit({ "f.txt": "1\n2\n3\n" }, "base");
    await git(pair.base, "switch", "-q", "-c", "topic");
    await pair.commit({ "b.txt": "b\n" }, "topic b");
    await pair.commit({ "f.txt": "1\nX\n3\n" }, "same change");
    await pair.commit({}, "empty one");
    await pair.commit({ "c.txt": "c\n" }, "topic c");
    await git(pair.base, "switch", "-q", "main");
    await pair.commit({ "f.txt": "1\nX\n3\n" }, "same change upstream");
    await pair.commit({ "b.txt": "b\n", "d.txt": "d\n" }, "main adds b and d");
    // An empty commit on each side: no patch to match, so the branch's is picked (and kept) as git keeps it.
    await pair.commit({}, "main empty");
    await git(pair.base, "switch", "-q", "topic");
    await pair.split();
    const run = await pair.both(["rebase", "main"]);
    assert.match(run.p.stderr, /warning: skipped previously applied commit/);
    assert.match(run.p.stderr, /dropping [0-9a-f]{40} topic b -- patch contents already upstream/);
    await pair.assertSamePrint(run, "rebase with skipped and dropped commits");
    await pair.assertSameState("after");
  });

  await t.step("merge commits on the branch are dropped, their sides picked", async () => {
    await using pair = await Pair.create();
    await pair.commit({ "f.txt": "1\n" }, "base");
    await git(pair.base, "switch", "-q", "-c", "topic");
    await pair.commit({ "a.txt": "a\n" }, "topic a");
    await git(pair.base, "switch", "-q", "-c", "side");
    await pair.commit({ "s.txt": "s\n" }, "side s");
    await git(pair.base, "switch", "-q", "topic");
    await pair.commit({ "b.txt": "b\n" }, "topic b");
    await git(pair.base, "merge", "-q", "--no-ff", "-m", "merge side", "side");
    await pair.commit({ "c.txt": "c\n" }, "topic c");
    await git(pair.base, "switch", "-q", "main");
    await pair.commit({ "m.txt": "m\n" }, "main m");
    await git(pair.base, "switch", "-q", "topic");
    await pair.split();
    const run = await pair.both(["rebase", "main"]);
    await pair.assertSamePrint(run, "rebase over a merge");
    await pair.assertSameState("after");
  });

  await t.step("a tracked secret file follows the rebase on disk, as checkout and cherry-pick keep it", async () => {
    await using pair = await Pair.create();
    await pair.commit({ ".env": "A=1\nB=2\nC=3\nD=4\nTOKEN=one\n", "a.txt": "a\n" }, "base");
    await git(pair.base, "switch", "-q", "-c", "topic");
    await pair.commit({ "b.txt": "b\n" }, "topic b");
    await pair.commit({ ".env": "A=1\nB=2\nC=3\nD=4\nTOKEN=topic\n" }, "topic touches the secret");
    await git(pair.base, "switch", "-q", "main");
    await pair.commit({ ".env": "A=main\nB=2\nC=3\nD=4\nTOKEN=one\n" }, "main changes the secret");
    await git(pair.base, "switch", "-q", "topic");
    await pair.split();
    const run = await pair.both(["rebase", "main"]);
    await pair.assertSamePrint(run, "rebase over a secret");
    assert.doesNotMatch(JSON.stringify(run.p), /TOKEN=|A=main/, "the secret's content is never shown");
    await pair.assertSameState("secret in step");
  });

  await t.step("up to date, fast-forward, and a dirty work tree refused as git refuses it", async () => {
    await using pair = await Pair.create();
    await pair.commit({ "a.txt": "a\n" }, "base");
    await git(pair.base, "switch", "-q", "-c", "topic");
    await pair.commit({ "b.txt": "b\n" }, "topic b");
    await git(pair.base, "branch", "behind", "main");
    await pair.split();
    const upToDate = await pair.both(["rebase", "main"]);
    assert.equal(upToDate.p.stdout, "Current branch topic is up to date.\n");
    await pair.assertSamePrint(upToDate, "up to date");
    await pair.assertSameState("up to date");
    const ff = await pair.both(["rebase", "topic", "behind"]);
    await pair.assertSamePrint(ff, "fast-forward");
    await pair.assertSameState("fast-forward");
    await pair.both(["switch", "topic"], ["switch", "-q", "topic"]);
    await pair.writeBoth("a.txt", "changed\n");
    const dirty = await pair.both(["rebase", "main~0"]);
    assert.equal(dirty.p.error_code, "UncommittedChanges");
    await pair.assertSamePrint(dirty, "unstaged changes");
    await pair.both(["add", "a.txt"]);
    const staged = await pair.both(["rebase", "main~0"]);
    await pair.assertSamePrint(staged, "staged changes");
    await pair.assertSameState("refused");
  });
});

Deno.test("a rebase stopped by one is finished by the other", async (t) => {
  await t.step("pterm stops, the person's git --continue finishes", async () => {
    await using pair = await Pair.create();
    await topicAndMain(pair, true);
    await pair.both(["rebase", "main"]);
    await pair.writeBoth("f.txt", "1\nresolved\n3\n");
    for (const dir of [pair.p, pair.g]) {
      await git(dir, "add", "f.txt");
      const done = await gitRaw(dir, ["-c", "core.editor=true", "rebase", "--continue"]);
      assert.equal(done.code, 0, `${dir}: ${done.stderr}`);
    }
    await pair.assertSameState("both finished by git");
  });

  await t.step("git stops, pterm's --continue, --skip and --abort finish", async () => {
    await using pair = await Pair.create();
    await topicAndMain(pair, true);
    for (const dir of [pair.p, pair.g]) assert.equal((await gitRaw(dir, ["rebase", "main"])).code, 1);
    await pair.assertSameStatus("stopped by git");
    await pair.writeBoth("f.txt", "1\nresolved\n3\n");
    await pair.both(["add", "f.txt"]);
    const done = await pair.both(["rebase", "--continue"]);
    await pair.assertSamePrint(done, "pterm's --continue of git's rebase");
    await pair.assertSameState("finished");
    await pair.both(["reset", "--hard", "ORIG_HEAD"]);
    for (const dir of [pair.p, pair.g]) assert.equal((await gitRaw(dir, ["rebase", "main"])).code, 1);
    const skipped = await pair.both(["rebase", "--skip"]);
    await pair.assertSamePrint(skipped, "pterm's --skip of git's rebase");
    await pair.assertSameState("skipped");
    await pair.both(["reset", "--hard", "ORIG_HEAD"]);
    for (const dir of [pair.p, pair.g]) assert.equal((await gitRaw(dir, ["rebase", "main"])).code, 1);
    const aborted = await pair.both(["rebase", "--abort"]);
    await pair.assertSamePrint(aborted, "pterm's --abort of git's rebase");
    await pair.assertSameState("aborted");
  });

  await t.step("a commit or a committing patch during a rebase does not conclude it", async () => {
    await using pair = await Pair.create();
    await topicAndMain(pair, true);
    await pair.both(["rebase", "main"]);
    const patch = await exec(pair.root.path, "patch apply --repo p -m 'resolve'", {
      stdin: "*** Begin Patch\n*** Update File: t.txt\n@@\n-t\n+t2\n*** End Patch\n",
    });
    assert.equal(patch.error_code, "Conflict", patch.stderr);
    assert.match(patch.stderr, /a rebase is in progress .*`git rebase --continue --repo p`/s);
    assert.equal(await Deno.readTextFile(`${pair.p}/t.txt`), "t\n");
    await pair.writeBoth("f.txt", "1\nresolved\n3\n");
    await pair.both(["add", "f.txt"]);
    const commit = await pair.both(["commit", "-m", "resolved by hand"], ["commit", "-q", "-m", "resolved by hand"]);
    assert.equal(commit.p.exit_code, 0, commit.p.stderr);
    const status = await pair.both(["status"]);
    assert.equal((status.p.result as { in_progress: string }).in_progress, "rebase");
    await pair.assertSameStatus("after a commit during the rebase");
    const done = await pair.both(["rebase", "--continue"]);
    await pair.assertSamePrint(done, "--continue after a commit");
    // That commit was made now by pterm and at the oracle's fixed date by git: its author date is left out.
    await pair.assertSameState("finished", { authorDates: false });
  });
});

/** A random history: a base of files, then commits on main and on topic, each rewriting or adding a few lines. */
const edit = fc.record({
  file: fc.constantFrom("a.txt", "b.txt", "c.txt"),
  line: fc.integer({ min: 0, max: 5 }),
  text: fc.constantFrom("x", "y", "z", "shared"),
});
const history = fc.record({
  main: fc.array(fc.array(edit, { minLength: 1, maxLength: 2 }), { minLength: 0, maxLength: 3 }),
  topic: fc.array(fc.array(edit, { minLength: 0, maxLength: 2 }), { minLength: 1, maxLength: 4 }),
});

Deno.test("property: on random histories pterm's rebase and git's agree, stop or not", async () => {
  await fc.assert(
    fc.asyncProperty(history, async (shape) => {
      await using pair = await Pair.create();
      const files: Record<string, string[]> = {
        "a.txt": ["0", "1", "2", "3", "4", "5"],
        "b.txt": ["0", "1", "2", "3", "4", "5"],
        "c.txt": ["0", "1", "2", "3", "4", "5"],
      };
      const snapshot = (state: Record<string, string[]>) =>
        Object.fromEntries(Object.entries(state).map(([k, v]) => [k, v.join("\n") + "\n"]));
      await pair.commit(snapshot(files), "base");
      const apply = async (branch: string, commits: typeof shape.main) => {
        const state = structuredClone(files);
        for (const [i, edits] of commits.entries()) {
          for (const e of edits) state[e.file][e.line] = e.text;
          await pair.commit(snapshot(state), `${branch} ${i}`);
        }
      };
      await git(pair.base, "switch", "-q", "-c", "topic");
      await apply("topic", shape.topic);
      await git(pair.base, "switch", "-q", "main");
      await apply("main", shape.main);
      await git(pair.base, "switch", "-q", "topic");
      await pair.split();
      const run = await pair.both(["rebase", "main"]);
      await pair.assertSamePrint(run, JSON.stringify(shape));
      await pair.assertSameState(JSON.stringify(shape));
      if (run.g.code !== 0) {
        await pair.assertSameStatus("stopped");
        const aborted = await pair.both(["rebase", "--abort"]);
        await pair.assertSamePrint(aborted, "--abort");
        await pair.assertSameState("aborted");
      }
    }),
    {
      numRuns: 12,
      examples: [
        // a.txt changed on both sides, topic's change already on main: git merges it (and says
        // `Auto-merging a.txt`) though the result is main's.
        [{
          main: [[{ file: "c.txt", line: 1, text: "x" }, { file: "a.txt", line: 0, text: "x" }], [{
            file: "a.txt",
            line: 4,
            text: "shared",
          }]],
          topic: [[{ file: "c.txt", line: 0, text: "x" }, { file: "a.txt", line: 4, text: "shared" }]],
        }],
        // topic's first commit is part of main's (dropped as empty when picked), its second stops on a conflict:
        // git's rewritten-list already maps the dropped commit to HEAD.
        [{
          main: [[{ file: "a.txt", line: 3, text: "y" }, { file: "a.txt", line: 0, text: "x" }]],
          topic: [[{ file: "a.txt", line: 3, text: "y" }], [{ file: "a.txt", line: 0, text: "shared" }], []],
        }],
      ],
    },
  );
});

/**
 * Branches of a real project (BurntSushi/toml, tests/fixtures/history), each rebased onto the commit it was merged
 * into, as its author could have instead of merging: two go through, one stops on a conflict and is aborted.
 */
const TOML_BRANCHES = [
  { merge: "a0629e4", note: "3 commits (base-prefixed integers) onto 10 newer ones", stops: false },
  { merge: "237e946", note: "3 commits (UnmarshalTOML) onto 3 newer ones", stops: false },
  { merge: "b453653", note: "3 commits (inline tables) onto 51 newer ones", stops: true },
];

for (const branch of TOML_BRANCHES) {
  Deno.test({
    name: `on toml's repository: its branch merged by ${branch.merge}, ${branch.note}, rebased as git does`,
    sanitizeResources: false,
    sanitizeOps: false,
  }, async () => {
    await using pair = await Pair.create();
    await Deno.remove(pair.base, { recursive: true });
    await cloneRealRepo("toml", pair.base);
    await git(pair.base, "config", "user.name", "Oracle");
    await git(pair.base, "config", "user.email", "oracle@example.com");
    const onto = (await git(pair.base, "rev-parse", `${branch.merge}^1`)).trim();
    await git(pair.base, "switch", "-q", "-c", "topic", `${branch.merge}^2`);
    await pair.split();
    const run = await pair.both(["rebase", onto]);
    assert.equal(run.g.code !== 0, branch.stops, `git's rebase ${branch.stops ? "went through" : "stopped"}`);
    await pair.assertSamePrint(run, `rebase of ${branch.merge}^2 onto ${branch.merge}^1`);
    await pair.assertSameState(`toml, ${branch.merge}^2 rebased`);
    if (branch.stops) {
      await pair.assertSameStatus("stopped on toml's conflict");
      const aborted = await pair.both(["rebase", "--abort"]);
      await pair.assertSamePrint(aborted, "--abort");
      await pair.assertSameState("toml, aborted");
    }
  });
}
