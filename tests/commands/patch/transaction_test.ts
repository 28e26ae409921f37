/**
 * All or nothing: for every kind of failure, the tree is exactly as before (fingerprinted:
 * every path, content, mode). And the write phase itself: a failure while preparing, a change
 * made underneath, and a journal left behind all end in the original tree.
 */

import assert from "node:assert/strict";
import { createWorkspace } from "../../../core/context.ts";
import { makeRoot, pin } from "../../_support/helpers.ts";
import { recover, Transaction } from "../../../commands/patch/transaction.ts";
import { View } from "../../../commands/patch/view.ts";
import { TextDoc } from "../../../commands/patch/text.ts";
import { apply, block, fingerprint, git, patchOf, writeTree } from "./helpers.ts";

const TREE = {
  "src/app.py": "import os\n\ndef main():\n    print('hi')\n    return 0\n",
  "src/util.py": "def helper():\n    return 1\n\ndef helper2():\n    return 1\n",
  "docs/guide.md": "# Guide\n\nNote: timeout is 30 seconds.\n",
  "old/only.txt": "alone\n",
  "data.bin": "\u0000\u0001binary",
};

/** Blocks that succeed, touching every kind of change, placed before each failing block. */
const GOOD = [
  block("file.write", "new/created.txt", ["new"]),
  block("line.replace", "docs/guide.md", ["keys=timeout is 30", "Note: timeout is 60 seconds."]),
  block("file.delete", "old/only.txt"),
  block("file.move", "src/util.py", ["to=lib/util.py"]),
  block("file.chmod", "src/app.py", ["mode=700"]),
];

const FAILURES: Record<string, string> = {
  NoMatch: block("line.replace", "src/app.py", ["keys=print('bye')", "x"]),
  AmbiguousMatch: block("line.replace", "lib/util.py", ["keys=return 1", "return 2"]),
  "NoMatch (diff)": block("git.diff", "src/app.py", ["@@ -1,2 +1,2 @@", " import sys", "-def nope():", "+def yes():"]),
  "AmbiguousMatch (diff)": block("git.diff", "lib/util.py", ["@@ @@", "-    return 1", "+    return 2"]),
  PatchParseError: block("line.insert", "src/app.py", ["lineno=zero", "x"]),
  NotFound: block("file.delete", "not/there.txt"),
  AlreadyExists: block("file.move", "src/app.py", ["to=docs/guide.md"]),
  PathEscape: block("file.write", "../escape.txt", ["x"]),
  SecretPathDenied: block("file.write", "secrets/token.txt", ["x"]),
  GitDirDenied: block("file.write", ".git/HEAD", ["x"]),
  UnsupportedFormat: block("line.delete", "data.bin", ["lineno=1"]),
  PatchApplyError: block("git.diff", "src/app.py", ["--- a/other.py", "+++ b/other.py", "@@ -1 +1 @@", "-a", "+b"]),
  NotARepository: block("git.tag", ".", ["name=v1"]),
  "PatchParseError (structure)": '=== line.foo: "x" ===\n=== end ===\n',
};

for (const [kind, failing] of Object.entries(FAILURES)) {
  Deno.test(`a ${kind} after successful blocks leaves the tree exactly as it was`, async () => {
    await using dir = await makeRoot();
    await writeTree(dir.path, TREE);
    const before = await fingerprint(dir.path);
    const env = await apply(dir.path, patchOf(...GOOD, failing));
    assert.equal(env.error_code, kind.replace(/ \(.*\)$/, ""), env.stderr);
    assert.deepEqual(await fingerprint(dir.path), before);
    // No journal, backup or temporary file stays behind.
    const sessions = await Array.fromAsync(Deno.readDir(`${dir.path}/sessions`)).catch(() => []);
    const leftovers = sessions.filter((e) => e.isDirectory).map((e) => e.name);
    for (const session of leftovers) {
      const runs = await Array.fromAsync(Deno.readDir(`${dir.path}/sessions/${session}/patch`)).catch(() => []);
      assert.deepEqual(runs, []);
    }
  });
}

Deno.test("the same blocks without the failure apply (so the failures above are what stopped them)", async () => {
  await using dir = await makeRoot();
  await writeTree(dir.path, TREE);
  const env = await apply(dir.path, patchOf(...GOOD));
  assert.equal(env.exit_code, 0, env.stderr);
  assert.equal(await Deno.readTextFile(`${dir.path}/new/created.txt`), "new\n");
  await assert.rejects(Deno.stat(`${dir.path}/old`), Deno.errors.NotFound);
});

// ---- the write phase directly -----------------------------------------------------------------

async function planned(root: string, edit: (view: View) => Promise<void>) {
  const view = new View(createWorkspace(root), ".", root);
  await edit(view);
  return view;
}

function options(root: string, runId: string) {
  return {
    root,
    sessionDir: `${root}/sessions/s1`,
    session: "s1",
    runId,
    repoAbs: root,
    gitState: null,
    restoreGit: null,
    signal: new AbortController().signal,
  };
}

async function editEverything(view: View) {
  const a = await view.locate("a.txt", "p");
  await view.set(a.rel, a.abs, { kind: "file", content: TextDoc.fromText("A2\n"), mode: 0o644 });
  const n = await view.locate("deep/new/n.txt", "p");
  await view.set(n.rel, n.abs, { kind: "file", content: TextDoc.fromText("N\n"), mode: 0o600 });
  const d = await view.locate("gone/d.txt", "p");
  await view.set(d.rel, d.abs, { kind: "absent" });
  view.cleanupCandidates.add("gone");
}

Deno.test("a failure while preparing rolls back what was prepared; temporary files go too", async () => {
  await using dir = await makeRoot();
  await writeTree(dir.path, { "a.txt": "A\n", "gone/d.txt": "D\n", "blocker": "a file" });
  const before = await fingerprint(dir.path);
  const view = await planned(dir.path, async (view) => {
    await editEverything(view);
    const bad = await view.locate("zzz.txt", "p");
    await view.set(bad.rel, bad.abs, { kind: "file", content: TextDoc.fromText("x\n"), mode: 0o644 });
  });
  const changes = (await view.changes()).map((c) =>
    c.rel === "zzz.txt" ? { ...c, abs: `${dir.path}/blocker/zzz.txt` } : c
  );
  const tx = await Transaction.begin(options(dir.path, "run-prepare"));
  await assert.rejects(tx.write(changes, []), (e: Error & { code?: string }) => {
    assert.equal(e.code, "WriteFailed");
    assert.match(e.message, /^`blocker\/zzz\.txt` could not be written \(Not a directory, ENOTDIR\)/);
    return true;
  });
  await tx.rollback();
  assert.deepEqual(await fingerprint(dir.path), before);
});

Deno.test("a file changed between reading and writing stops the write with ConcurrentModification", async () => {
  await using dir = await makeRoot();
  await writeTree(dir.path, { "a.txt": "A\n", "gone/d.txt": "D\n" });
  const view = await planned(dir.path, editEverything);
  await new Promise((r) => setTimeout(r, 10));
  await Deno.writeTextFile(`${dir.path}/gone/d.txt`, "someone else\n");
  const before = await fingerprint(dir.path);
  const tx = await Transaction.begin(options(dir.path, "run-conflict"));
  await assert.rejects(
    tx.write(await view.changes(), []),
    (e: Error) => (e as { code?: string }).code === "ConcurrentModification",
  );
  await tx.rollback();
  assert.deepEqual(await fingerprint(dir.path), before);
});

Deno.test("a journal left after the switch is rolled back by recovery; a committed one is kept", async () => {
  await using dir = await makeRoot();
  await writeTree(dir.path, { "a.txt": "A\n", "gone/d.txt": "D\n" });
  await Deno.chmod(`${dir.path}/a.txt`, 0o640);
  const before = await fingerprint(dir.path);
  const view = await planned(dir.path, editEverything);
  const tx = await Transaction.begin(options(dir.path, "run-killed"));
  await tx.write(await view.changes(), (await view.emptiedDirs()).map((d) => view.absOf(d)));
  // The process "dies" here: no finish, no rollback.
  assert.equal(await Deno.readTextFile(`${dir.path}/a.txt`), "A2\n");
  const reports = await recover(dir.path, null, null);
  assert.deepEqual(reports.map((r) => [r.run_id, r.action]), [["run-killed", "rolled_back"]]);
  assert.deepEqual(await fingerprint(dir.path), before);
  assert.deepEqual(await recover(dir.path, null, null), [], "recovery runs once");

  const view2 = await planned(dir.path, editEverything);
  const tx2 = await Transaction.begin(options(dir.path, "run-committed"));
  await tx2.write(await view2.changes(), []);
  await tx2.markCommitted();
  const after = await fingerprint(dir.path);
  const forward = await recover(dir.path, null, null);
  assert.deepEqual(forward.map((r) => r.action), ["rolled_forward"]);
  assert.deepEqual(await fingerprint(dir.path), after);
});

// ---- an I/O error while switching -------------------------------------------------------------

async function leftovers(root: string): Promise<string[]> {
  const found: string[] = [];
  for await (const e of Deno.readDir(root)) {
    if (e.isDirectory && e.name !== ".git" && e.name !== "sessions") {
      found.push(...(await leftovers(`${root}/${e.name}`)).map((p) => `${e.name}/${p}`));
    } else if (/\.(restore-tmp|patch-tmp)$/.test(e.name)) found.push(e.name);
  }
  return found;
}

for (const stuck of ["b/two.txt (edited)", "b/gone.txt (deleted)"]) {
  Deno.test(`a file the OS will not let the switch change (${stuck}): every other file is put back, WriteFailed names it`, async (t) => {
    await using dir = await makeRoot();
    const root = dir.path;
    await writeTree(root, {
      "a/one.txt": "one\n",
      "b/two.txt": "two\n",
      "b/gone.txt": "gone\n",
      "c/three.txt": "three\n",
      "d/four.txt": "four\n",
    });
    await git(root, "init", "-q", "-b", "main");
    await git(root, "add", "-A");
    await git(root, "commit", "-qm", "base");
    const path = stuck.split(" ")[0];
    const undo = await pin(`${root}/${path}`);
    if (!undo) {
      t.step({ name: "no way to make a file unreplaceable here (root without chattr)", ignore: true, fn: () => {} });
      return;
    }
    try {
      const before = await fingerprint(root);
      // Files before the stuck one in the switch order are replaced first, so rollback has real work.
      const env = await apply(
        root,
        patchOf(
          block("file.write", "a/one.txt", ["ONE"]),
          block("file.write", "new/created.txt", ["created"]),
          block("file.chmod", "d/four.txt", ["mode=755"]),
          path === "b/two.txt" ? block("file.write", "b/two.txt", ["TWO"]) : block("file.delete", "b/gone.txt"),
          block("file.write", "c/three.txt", ["THREE"]),
        ),
      );
      assert.equal(env.error_code, "WriteFailed", env.stderr);
      assert.match(
        env.stderr,
        new RegExp(
          `\`${path}\` could not be (replaced|deleted|written) \\((Operation not permitted, EPERM|Permission denied, EACCES)\\)`,
        ),
      );
      assert.doesNotMatch(env.stderr, new RegExp(root));
      // deno-lint-ignore no-explicit-any
      assert.equal((env.result as any)?.failed_path, path);
      await undo();
      assert.deepEqual(await fingerprint(root), before);
      assert.deepEqual(await leftovers(root), []);
      const runs = await Array.fromAsync(Deno.readDir(`${root}/sessions/default/patch`)).catch(() => []);
      assert.deepEqual(runs, [], "no journal is left: the rollback finished");
      assert.equal(await git(root, "status", "--porcelain", "--untracked-files=no"), "");
    } finally {
      await undo();
    }
  });
}

Deno.test("a rollback that cannot put one file back restores the others, keeps the journal, and recover finishes it", async (t) => {
  await using dir = await makeRoot();
  await writeTree(dir.path, { "a.txt": "A\n", "gone/d.txt": "D\n", "p/z.txt": "Z\n" });
  const before = await fingerprint(dir.path);
  const view = await planned(dir.path, async (view) => {
    await editEverything(view);
    const z = await view.locate("p/z.txt", "p");
    await view.set(z.rel, z.abs, { kind: "file", content: TextDoc.fromText("Z2\n"), mode: 0o644 });
  });
  const tx = await Transaction.begin(options(dir.path, "run-stuck"));
  await tx.write(await view.changes(), (await view.emptiedDirs()).map((d) => view.absOf(d)));
  // After the switch, p/z.txt (new content) becomes unchangeable (in its own folder, for the
  // read-only-folder way of pinning), then the run fails and rolls back.
  const undo = await pin(`${dir.path}/p/z.txt`);
  if (!undo) {
    t.step({ name: "no way to make a file unreplaceable here (root without chattr)", ignore: true, fn: () => {} });
    return;
  }
  try {
    await assert.rejects(tx.rollback(), (e: Error & { code?: string }) => {
      assert.equal(e.code, "WriteFailed");
      assert.match(
        e.message,
        /could not put back `p\/z\.txt` \((Operation not permitted, EPERM|Permission denied, EACCES)\)/,
      );
      assert.match(e.message, /patch recover/);
      return true;
    });
    assert.equal(await Deno.readTextFile(`${dir.path}/a.txt`), "A\n", "the other files are back");
    assert.equal(await Deno.readTextFile(`${dir.path}/gone/d.txt`), "D\n");
    assert.deepEqual(await leftovers(dir.path), []);
    await undo();
    const reports = await recover(dir.path, null, null);
    assert.deepEqual(reports.map((r) => [r.run_id, r.action]), [["run-stuck", "rolled_back"]]);
    assert.deepEqual(await fingerprint(dir.path), before);
  } finally {
    await undo();
  }
});
