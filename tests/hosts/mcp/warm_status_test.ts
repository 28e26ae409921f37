/**
 * `git status` through a warm `pterm mcp` server (its git worker keeps the answer between calls,
 * commands/git/worktree/fsmonitor.ts), driven by the official SDK client over stdio: random sequences of
 * work-tree changes by real processes between calls, every answer compared with real git's of the
 * same moment; and a server whose inotify watches run out (a user namespace with a lower
 * `user.max_inotify_watches`): it falls back to scanning and is never wrong.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { baseEnv, makeRoot, ptermArgs, watchedTempBase } from "../../_support/helpers.ts";

/** Trees on a file system the warm cache watches where this machine has one (else only scans answer). */
const WATCHED = (await watchedTempBase()) ?? undefined;
import { porcelainFiles } from "../../commands/git/oracle.ts";
import { connectModern, MODERN_REVISION } from "./client.ts";
import { actionArb, apply, freshRepo, sh } from "./tree_changes.ts";

interface StatusResult {
  files: { path: string; xy: string }[];
  truncated: boolean;
}

async function mcpStatus(client: Client, repo: string): Promise<string[]> {
  const result = await client.callTool({
    name: "terminal_exec",
    arguments: { command: `git status --repo ${repo}` },
  });
  assert.ok(!result.isError, JSON.stringify(result.content));
  const status = (result.structuredContent as { result: StatusResult }).result;
  assert.equal(status.truncated, false);
  return status.files.map((f) => `${f.xy} ${f.path}`).sort();
}

Deno.test("warm pterm mcp: git status after random changes by real processes agrees with real git", async () => {
  await using dir = await makeRoot(undefined, WATCHED);
  const outside = `${dir.path}/outside.txt`;
  await Deno.writeTextFile(outside, "outside\n");
  const { client } = await connectModern(dir.path, "warm-status");
  let round = 0;
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(actionArb, fc.boolean()), { minLength: 4, maxLength: 12 }), async (steps) => {
        const name = `r${round++}`;
        const repo = `${dir.path}/${name}`;
        await freshRepo(repo);
        assert.deepEqual(await mcpStatus(client, name), await porcelainFiles(repo), "the first call");
        for (const [i, [action, pause]] of steps.entries()) {
          await apply(repo, action, outside);
          if (pause) await new Promise((resolve) => setTimeout(resolve, 40));
          const expected = await porcelainFiles(repo);
          assert.deepEqual(await mcpStatus(client, name), expected, `step ${i}: ${JSON.stringify(action)}`);
          assert.deepEqual(await mcpStatus(client, name), expected, `step ${i} again`);
        }
      }),
      { numRuns: 8 },
    );
  } finally {
    await client.close();
  }
});

/** Whether this machine lets an unprivileged process make a user namespace and lower its limits there. */
async function userNamespaces(): Promise<boolean> {
  try {
    const out = await new Deno.Command("unshare", {
      args: ["-U", "-r", "sh", "-c", "echo 7 > /proc/sys/user/max_inotify_watches"],
      stdout: "null",
      stderr: "null",
    }).output();
    return out.success;
  } catch {
    return false;
  }
}

Deno.test({
  name: "warm pterm mcp: more folders than inotify watches left, now or later: scans, never wrong",
  ignore: Deno.build.os !== "linux" || !(await userNamespaces()),
  fn: async (t) => {
    await using dir = await makeRoot(undefined, WATCHED);
    const small = `${dir.path}/small`;
    await freshRepo(small);
    const big = `${dir.path}/big`;
    await freshRepo(big);
    await sh(
      big,
      "for i in $(seq 1 40); do mkdir -p d$i && echo $i > d$i/f; done && git add -A && git commit -qm dirs",
    );
    const folders = async (repo: string) =>
      Number(
        new TextDecoder().decode(
          (await new Deno.Command("sh", { args: ["-c", "find . -type d | wc -l"], cwd: repo }).output()).stdout,
        ).trim(),
      );
    // Enough watches for `small` as it is (and a few more), far too few for `big`.
    const limit = (await folders(small)) + 2;
    assert.ok(limit < (await folders(big)));
    const args = ptermArgs(["mcp", "--root", dir.path, "--session", "watch-limit"]);
    const script = `echo ${limit} > /proc/sys/user/max_inotify_watches && exec "$0" "$@"`;
    const transport = new StdioClientTransport({
      command: "unshare",
      args: ["-U", "-r", "sh", "-c", script, Deno.execPath(), ...args],
      env: { ...baseEnv(), NO_COLOR: "1" },
      stderr: "pipe",
    });
    const client = new Client({ name: "pterm-test-limit", version: "1.0.0" }, {
      versionNegotiation: { mode: { pin: MODERN_REVISION } },
    });
    await client.connect(transport);
    try {
      await t.step("a tree with more folders than watches: the watcher cannot start", async () => {
        for (let i = 0; i < 3; i++) {
          await Deno.writeTextFile(`${big}/d${i + 1}/f`, `edit ${i}\n`);
          assert.deepEqual(await mcpStatus(client, "big"), await porcelainFiles(big));
        }
      });
      await t.step("watches run out for folders made after the watcher started", async () => {
        assert.deepEqual(await mcpStatus(client, "small"), await porcelainFiles(small));
        await new Promise((resolve) => setTimeout(resolve, 40));
        assert.deepEqual(await mcpStatus(client, "small"), await porcelainFiles(small));
        await sh(small, "mkdir -p n1/n2/n3/n4 && echo a > n1/n2/n3/n4/x && git add -A && git commit -qm deep");
        for (let i = 0; i < 4; i++) {
          await new Promise((resolve) => setTimeout(resolve, 40));
          assert.deepEqual(await mcpStatus(client, "small"), await porcelainFiles(small), `call ${i}`);
          // A folder without a watch: its edits would go unseen by a watcher that kept going.
          await Deno.writeTextFile(`${small}/n1/n2/n3/n4/x`, `edit ${i}\n`);
          assert.deepEqual(await mcpStatus(client, "small"), await porcelainFiles(small), `call ${i} after the edit`);
        }
      });
    } finally {
      await client.close();
    }
  },
});

Deno.test("warm pterm mcp: a named pipe made in the work tree stalls Deno's watcher; answers stay right", async () => {
  await using dir = await makeRoot(undefined, WATCHED);
  const repo = `${dir.path}/r`;
  await freshRepo(repo);
  const { client, transport } = await connectModern(dir.path, "fifo");
  let exited: Promise<unknown> | null = null;
  try {
    const agree = async (what: string) =>
      assert.deepEqual(await mcpStatus(client, "r"), await porcelainFiles(repo), what);
    await agree("the first call");
    await new Promise((resolve) => setTimeout(resolve, 40));
    await agree("a kept answer");
    // Deno's watcher thread opens each event's path; opening a FIFO blocks until a writer comes.
    await sh(repo, "mkfifo src/pipe");
    const started = performance.now();
    await agree("after the pipe was made");
    assert.ok(performance.now() - started < 10_000, "the call waited for its cookie at most a bounded time");
    await Deno.writeTextFile(`${repo}/a.txt`, "edited after the pipe\n");
    await agree("an edit after the watcher stalled");
    await Deno.remove(`${repo}/src/pipe`);
    await Deno.writeTextFile(`${repo}/b.txt`, "edited after the pipe went\n");
    await agree("an edit after the pipe went");
  } finally {
    const pid = transport.pid;
    await client.close();
    if (pid) {
      // The server still exits when its client goes.
      exited = (async () => {
        for (let i = 0; i < 100; i++) {
          if (!(await Deno.stat(`/proc/${pid}`).then(() => true, () => false))) return;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        throw new Error("the server did not exit within 10 s of its client closing");
      })();
    }
  }
  await exited;
});

Deno.test("warm pterm mcp: 12 concurrent git status calls while files change, each as real git saw it", async () => {
  await using dir = await makeRoot(undefined, WATCHED);
  const repo = `${dir.path}/r`;
  await freshRepo(repo);
  const { client } = await connectModern(dir.path, "concurrent");
  try {
    // Several workers now hold their own watcher and kept answer of the same tree.
    await Promise.all(Array.from({ length: 12 }, () => mcpStatus(client, "r")));
    for (let round = 0; round < 4; round++) {
      await Deno.writeTextFile(`${repo}/src/c.ts`, `round ${round}\n`);
      await Deno.writeTextFile(`${repo}/new${round}.txt`, "new\n");
      await new Promise((resolve) => setTimeout(resolve, 40));
      const expected = await porcelainFiles(repo);
      const answers = await Promise.all(Array.from({ length: 12 }, () => mcpStatus(client, "r")));
      for (const answer of answers) assert.deepEqual(answer, expected, `round ${round}`);
    }
  } finally {
    await client.close();
  }
});
