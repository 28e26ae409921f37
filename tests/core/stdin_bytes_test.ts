/**
 * Stdin's bytes are never changed. A diff of Latin-1 files passed on stdin — in-process, through
 * a real `pterm exec` process (piped, `--stdin-file`, a `--request` JSON whose string escapes the
 * bytes as U+DC80–U+DCFF) — leaves the files byte for byte as `git apply` leaves them; a command
 * that reads stdin as text refuses such stdin with StdinNotUtf8 (its bytes recorded as they came),
 * and replaying that run refuses it again.
 */

import assert from "node:assert/strict";
import { cli, exec, makeRoot } from "../_support/helpers.ts";
import { git, gitRaw, write } from "../commands/git/oracle.ts";
import { connectModern } from "../hosts/mcp/client.ts";
import { concatBytes } from "../../core/bytes.ts";

const latin1 = (text: string) => Uint8Array.from([...text].map((c) => c.charCodeAt(0)));
const latin1Text = (bytes: Uint8Array) => String.fromCharCode(...bytes);
const ascii = (text: string) => new TextEncoder().encode(text);
const concat = (...parts: Uint8Array[]) => concatBytes(parts);

/** A diff (git's bytes) that changes a Latin-1 file and adds another. */
const DIFF = concat(
  ascii("diff --git a/old.txt b/old.txt\n--- a/old.txt\n+++ b/old.txt\n@@ -1,2 +1,2 @@\n"),
  latin1(" d\xe9j\xe0\n-vu\n+v\xfb\n"),
  ascii("diff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n"),
  latin1("+caf\xe9\n+na\xefve\n"),
);

/** A repository `r` under `root` holding the Latin-1 file old.txt, committed. */
async function repoIn(root: string): Promise<string> {
  const dir = `${root}/r`;
  await Deno.mkdir(dir, { recursive: true });
  await git(dir, "init", "-q", "-b", "main");
  await write(`${dir}/old.txt`, latin1("d\xe9j\xe0\nvu\n"));
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "base");
  return dir;
}

/** What `git apply` makes of DIFF in a fresh repository: each file's bytes. */
async function gitApplied(): Promise<Record<string, Uint8Array>> {
  await using root = await makeRoot();
  const dir = await repoIn(root.path);
  await Deno.writeFile(`${root.path}/diff.patch`, DIFF);
  await git(dir, "apply", `${root.path}/diff.patch`);
  return {
    "old.txt": await Deno.readFile(`${dir}/old.txt`),
    "new.txt": await Deno.readFile(`${dir}/new.txt`),
  };
}

async function assertFilesAs(dir: string, expected: Record<string, Uint8Array>, how: string): Promise<void> {
  for (const [path, bytes] of Object.entries(expected)) {
    assert.deepEqual(await Deno.readFile(`${dir}/${path}`), bytes, `${path} after ${how}`);
  }
  // The person's git sees the change as git apply would have left it: the Latin-1 line, not U+FFFD's bytes.
  const { stdout } = await new Deno.Command("git", { args: ["-C", dir, "diff", "HEAD", "--", "old.txt"] }).output();
  const shown = latin1Text(stdout);
  assert.ok(shown.includes("\n+v\xfb\n") && !shown.includes("\xef\xbf\xbd"), shown);
}

Deno.test("a Latin-1 diff on stdin is applied byte for byte as git apply applies it, however stdin comes", async (t) => {
  const expected = await gitApplied();

  await t.step("in-process, stdin as bytes", async () => {
    await using root = await makeRoot();
    const dir = await repoIn(root.path);
    const run = await exec(root.path, "patch apply --repo r", { stdin: DIFF });
    assert.equal(run.exit_code, 0, run.stderr);
    await assertFilesAs(dir, expected, "in-process stdin");
    // The run's recorded stdin is the bytes as sent.
    const stdinRef = run.artifacts.find((a) => a.path.endsWith("stdin.txt"));
    assert.ok(stdinRef);
    assert.deepEqual(await Deno.readFile(`${root.path}/${stdinRef.path}`), DIFF);
  });

  await t.step("pterm exec, piped stdin", async () => {
    await using root = await makeRoot();
    const dir = await repoIn(root.path);
    const run = await cli(["exec", "--root", root.path, "patch apply --repo r"], { stdin: DIFF });
    assert.equal(run.envelope?.exit_code, 0, run.stdout + run.stderr);
    await assertFilesAs(dir, expected, "piped stdin");
  });

  await t.step("pterm exec --stdin-file", async () => {
    await using root = await makeRoot();
    const dir = await repoIn(root.path);
    await using outside = await makeRoot();
    await Deno.writeFile(`${outside.path}/diff.patch`, DIFF);
    const run = await cli([
      "exec",
      "--root",
      root.path,
      "--stdin-file",
      `${outside.path}/diff.patch`,
      "patch apply --repo r",
    ]);
    assert.equal(run.envelope?.exit_code, 0, run.stdout + run.stderr);
    await assertFilesAs(dir, expected, "--stdin-file");
  });

  await t.step("pterm exec --request -, the bytes escaped as U+DC80–U+DCFF in the JSON string", async () => {
    await using root = await makeRoot();
    const dir = await repoIn(root.path);
    const escaped = [...DIFF].map((b) => String.fromCharCode(b < 0x80 ? b : 0xdc00 + b)).join("");
    const request = JSON.stringify({ command: "patch apply --repo r", stdin: escaped });
    const run = await cli(["exec", "--root", root.path, "--request", "-"], { stdin: request });
    assert.equal(run.envelope?.exit_code, 0, run.stdout + run.stderr);
    await assertFilesAs(dir, expected, "--request");
  });
});

Deno.test(
  "over MCP, a Latin-1 diff in terminal_exec's stdin string (bytes as U+DC80–U+DCFF) applies byte for byte",
  { sanitizeOps: false, sanitizeResources: false },
  async () => {
    const expected = await gitApplied();
    await using root = await makeRoot();
    const dir = await repoIn(root.path);
    const server = await connectModern(root.path, "stdin-bytes");
    try {
      const escaped = [...DIFF].map((b) => String.fromCharCode(b < 0x80 ? b : 0xdc00 + b)).join("");
      const called = await server.client.callTool({
        name: "terminal_exec",
        arguments: { command: "patch apply --repo r", stdin: escaped },
      });
      const envelope = called.structuredContent as { exit_code: number; stderr: string };
      assert.equal(envelope.exit_code, 0, envelope.stderr);
      await assertFilesAs(dir, expected, "MCP");
    } finally {
      await server.client.close();
    }
  },
);

Deno.test("stdin that is not UTF-8 is refused by a command that reads text, never read as U+FFFD", async (t) => {
  await using root = await makeRoot();
  const dir = await repoIn(root.path);
  await write(`${dir}/b.txt`, "b\n");
  await git(dir, "add", "b.txt");
  const message = latin1("caf\xe9 au lait\n");

  let refusedRun = "";
  await t.step("in-process: StdinNotUtf8 with the offset, nothing committed, the bytes recorded", async () => {
    const run = await exec(root.path, "git commit -F - --repo r", { stdin: message });
    assert.equal(run.error_code, "StdinNotUtf8", run.stderr);
    assert.match(run.stderr, /offset 3 \(byte 0xe9\)/);
    assert.equal((await git(dir, "log", "--format=%s")).trim(), "base");
    const stdinRef = run.artifacts.find((a) => a.path.endsWith("stdin.txt"));
    assert.ok(stdinRef);
    assert.deepEqual(await Deno.readFile(`${root.path}/${stdinRef.path}`), message);
    refusedRun = run.run_id;
  });

  await t.step("the same through a real pterm exec process", async () => {
    const run = await cli(["exec", "--root", root.path, "git commit -F - --repo r"], { stdin: message });
    assert.equal(run.envelope?.error_code, "StdinNotUtf8", run.stdout);
    assert.equal((await git(dir, "log", "--format=%s")).trim(), "base");
  });

  await t.step("replaying the refused run gives the command the same bytes: refused again", async () => {
    const replay = await cli(["runs", "replay", refusedRun, "--root", root.path]);
    assert.equal(replay.envelope?.error_code, "StdinNotUtf8", replay.stdout + replay.stderr);
  });

  await t.step("a lone surrogate that escapes no byte is refused, naming what to send", async () => {
    const run = await exec(root.path, "patch check --repo r", { stdin: "x\ud800y\n" });
    assert.equal(run.error_code, "StdinNotUtf8", run.stderr);
    assert.match(run.stderr, /--stdin-file <path>/);
  });

  await t.step("then the user sends the message as UTF-8: committed with it", async () => {
    const run = await exec(root.path, "git commit -F - --repo r", { stdin: "café au lait\n" });
    assert.equal(run.exit_code, 0, run.stderr);
    assert.equal((await git(dir, "log", "-1", "--format=%s")).trim(), "café au lait");
  });
});

Deno.test("a Latin-1 line quoted in a warning reaches the envelope as git's stderr read as UTF-8 shows it", async (t) => {
  // A new Latin-1 file whose line ends in spaces: git apply quotes the line in its whitespace warning.
  const diff = concat(
    ascii("diff --git a/w.txt b/w.txt\nnew file mode 100644\n--- /dev/null\n+++ b/w.txt\n@@ -0,0 +1 @@\n"),
    latin1("+caf\xe9  \n"),
  );
  const gitSide = await makeRoot();
  const theirs = await gitRaw(await repoIn(gitSide.path), ["apply"], diff);
  await gitSide[Symbol.asyncDispose]();
  assert.match(theirs.stderr, /caf\ufffd {2}/, theirs.stderr);

  await t.step("in-process", async () => {
    await using root = await makeRoot();
    await repoIn(root.path);
    const envelope = await exec(root.path, "git -C r apply", { stdin: diff });
    assert.equal(envelope.exit_code, 0, envelope.stderr);
    assert.equal(envelope.stderr, theirs.stderr);
  });

  await t.step("pterm exec's JSON, read by a strict reader", async () => {
    await using root = await makeRoot();
    await repoIn(root.path);
    const run = await cli(["exec", "--root", root.path, "git -C r apply"], { stdin: diff });
    // A lone surrogate would reach JSON as `\udce9`; the envelope holds well-formed text only.
    assert.doesNotMatch(run.stdout, /\\ud[89a-f][0-9a-f]{2}/i, run.stdout);
    assert.equal(run.envelope?.stderr, theirs.stderr);
  });
});
