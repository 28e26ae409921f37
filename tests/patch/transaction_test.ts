/**
 * All or nothing: for every kind of failure, the tree is exactly as before (fingerprinted:
 * every path, content, mode). And the write phase itself: a failure while preparing, a change
 * made underneath, and a journal left behind all end in the original tree.
 */

import assert from "node:assert/strict";
import { createWorkspace } from "../../core/context.ts";
import { makeRoot } from "../helpers.ts";
import { recover, Transaction } from "../../commands/patch/transaction.ts";
import { View } from "../../commands/patch/view.ts";
import { TextDoc } from "../../commands/patch/text.ts";
import { apply, block, fingerprint, patchOf, writeTree } from "./helpers.ts";

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
  const changes = view.changes().map((c) => c.rel === "zzz.txt" ? { ...c, abs: `${dir.path}/blocker/zzz.txt` } : c);
  const tx = await Transaction.begin(options(dir.path, "run-prepare"));
  await assert.rejects(tx.write(changes, []), Deno.errors.NotADirectory);
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
    tx.write(view.changes(), []),
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
  await tx.write(view.changes(), (await view.emptiedDirs()).map((d) => view.absOf(d)));
  // The process "dies" here: no finish, no rollback.
  assert.equal(await Deno.readTextFile(`${dir.path}/a.txt`), "A2\n");
  const reports = await recover(dir.path, null, null);
  assert.deepEqual(reports.map((r) => [r.run_id, r.action]), [["run-killed", "rolled_back"]]);
  assert.deepEqual(await fingerprint(dir.path), before);
  assert.deepEqual(await recover(dir.path, null, null), [], "recovery runs once");

  const view2 = await planned(dir.path, editEverything);
  const tx2 = await Transaction.begin(options(dir.path, "run-committed"));
  await tx2.write(view2.changes(), []);
  await tx2.markCommitted();
  const after = await fingerprint(dir.path);
  const forward = await recover(dir.path, null, null);
  assert.deepEqual(forward.map((r) => r.action), ["rolled_forward"]);
  assert.deepEqual(await fingerprint(dir.path), after);
});
