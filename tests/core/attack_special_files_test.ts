/**
 * FIFOs, sockets and devices in the workspace. Opening a FIFO waits for a writer and a device may
 * never end, so a command that reads one hangs until its timeout and then tells the agent to retry
 * with a larger one. The kernel's confinement refuses them for every declared path; git, which
 * takes pathspecs of its own, reports them as real git does (a tracked file replaced by a FIFO is
 * modified, ` M`; staging, diffing or stashing it is refused) instead of taking the FIFO for a
 * deleted file and staging — or committing — that deletion.
 */

import assert from "node:assert/strict";
import { exec, makeRoot } from "../_support/helpers.ts";
import { assertFsck, git, gitInit, porcelainFiles, pterm, write } from "../commands/git/oracle.ts";

/** Short enough that a regression (a read that waits) fails fast as a Timeout, not a hang. */
const TIMEOUT_MS = 10_000;

async function mkfifo(path: string): Promise<void> {
  const made = await new Deno.Command("mkfifo", { args: [path] }).output();
  assert.ok(made.success, `mkfifo ${path}`);
}

Deno.test("declared paths naming a FIFO or a socket are refused at once, never opened", async (t) => {
  await using root = await makeRoot();
  await mkfifo(`${root.path}/pipe.pdf`);
  await mkfifo(`${root.path}/pipe.diff`);
  await mkfifo(`${root.path}/out.md`);
  await write(`${root.path}/doc.txt`, "not a document\n");
  const socket = Deno.listen({ transport: "unix", path: `${root.path}/sock.pdf` });
  try {
    const cases: [string, string, string][] = [
      ["doc extract of a FIFO", "doc extract pipe.pdf", "`pipe.pdf` is a named pipe (FIFO)"],
      ["doc info of a socket", "doc info sock.pdf", "`sock.pdf` is a socket"],
      ["patch --file of a FIFO", "patch apply --file pipe.diff", "`pipe.diff` is a named pipe (FIFO)"],
      ["doc --out to a FIFO", "doc extract doc.txt -o out.md", "`out.md` is a named pipe (FIFO)"],
    ];
    for (const [label, line, message] of cases) {
      await t.step(label, async () => {
        const started = performance.now();
        const envelope = await exec(root.path, line, { timeoutMs: TIMEOUT_MS });
        assert.equal(envelope.error_code, "InvalidPath", `${line}: ${envelope.stderr}`);
        assert.ok(envelope.stderr.includes(message), envelope.stderr);
        assert.ok(!envelope.stderr.includes(root.path), "no host path in the message");
        // Not a timing assertion of speed: a read that waited would have ended as a Timeout above.
        assert.ok(performance.now() - started < TIMEOUT_MS);
      });
    }
    await t.step("a symlink to a FIFO is refused the same way", async () => {
      await Deno.symlink("pipe.pdf", `${root.path}/link.pdf`);
      const envelope = await exec(root.path, "doc extract link.pdf", { timeoutMs: TIMEOUT_MS });
      assert.equal(envelope.error_code, "InvalidPath", envelope.stderr);
      assert.ok(envelope.stderr.includes("named pipe"), envelope.stderr);
    });
    await t.step("a patch whose target is a FIFO is refused, the FIFO left alone", async () => {
      const patch = "--- a/pipe.pdf\n+++ b/pipe.pdf\n@@ -1 +1 @@\n-x\n+y\n";
      const envelope = await exec(root.path, "patch apply", { stdin: patch, timeoutMs: TIMEOUT_MS });
      assert.equal(envelope.error_code, "InvalidPath", envelope.stderr);
      assert.ok(Deno.lstatSync(`${root.path}/pipe.pdf`).isFifo);
    });
  } finally {
    socket.close();
  }
});

Deno.test("git: a FIFO at a tracked path is a modified file, as real git says; staging it is refused", async (t) => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInit(dir);
  await write(`${dir}/f.txt`, "a\n");
  await write(`${dir}/empty.txt`, "");
  await write(`${dir}/g.txt`, "g\n");
  await Deno.symlink("g.txt", `${dir}/link`);
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "base");
  for (const path of ["f.txt", "empty.txt", "link"]) {
    await Deno.remove(`${dir}/${path}`);
    await mkfifo(`${dir}/${path}`);
  }
  await mkfifo(`${dir}/untracked-pipe`);
  const headBefore = await git(dir, "rev-parse", "HEAD");
  const indexBefore = await Deno.readFile(`${dir}/.git/index`);

  await t.step("status agrees with real git (M for a file, T for a link, no untracked FIFO)", async () => {
    const envelope = await exec(root.path, "git status --repo r", { timeoutMs: TIMEOUT_MS });
    assert.equal(envelope.exit_code, 0, envelope.stderr);
    const files = (envelope.result as { files: { path: string; xy: string }[] }).files
      .map((f) => `${f.xy} ${f.path}`).sort();
    assert.deepEqual(files, await porcelainFiles(dir));
    assert.deepEqual(files, [".M empty.txt", ".M f.txt", ".T link"]);
  });

  for (const line of ["git add f.txt", "git add --all", "git commit -a -m x", "git diff", "git stash"]) {
    await t.step(`${line}: refused as real git refuses it, nothing staged or committed`, async () => {
      const envelope = await exec(root.path, `${line} --repo r`, { timeoutMs: TIMEOUT_MS });
      assert.equal(envelope.error_code, "InvalidPath", `${line}: ${envelope.stderr}`);
      assert.match(envelope.stderr, /is a named pipe \(FIFO\), which git cannot store/);
      assert.equal(await git(dir, "rev-parse", "HEAD"), headBefore);
      assert.deepEqual(await Deno.readFile(`${dir}/.git/index`), indexBefore);
      assert.deepEqual(await git(dir, "stash", "list"), "");
    });
  }

  await t.step("real git refuses the same lines", async () => {
    for (const args of [["add", "f.txt"], ["add", "--all"], ["diff"]]) {
      const out = await new Deno.Command("git", { args, cwd: dir, stdout: "null", stderr: "null" }).output();
      assert.ok(!out.success, `git ${args.join(" ")} succeeded`);
    }
  });

  await t.step("grep passes the FIFO by; checkout puts the files back over it", async () => {
    const grep = await exec(root.path, "git grep g --repo r", { timeoutMs: TIMEOUT_MS });
    assert.equal(grep.exit_code, 0, grep.stderr);
    await pterm(root.path, "git checkout --repo r -- f.txt empty.txt link");
    assert.equal(await Deno.readTextFile(`${dir}/f.txt`), "a\n");
    assert.deepEqual(await porcelainFiles(dir), []);
    await assertFsck(dir);
  });
});
