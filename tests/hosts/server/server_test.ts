/**
 * The warm session server and `pterm exec`'s client of it, as real processes: a real server
 * (`pterm server run`) or a real socket the test listens on, real `pterm exec` processes, real git.
 * What must hold: a warm call's envelope and audit record are the cold call's; nothing is shared
 * across roots, versions or users; a killed, stale, silent or slow server falls back to the cold
 * path or answers with a code, never hangs.
 */

import assert from "node:assert/strict";
import { baseEnv, cli, makeRoot, ptermArgs } from "../../_support/helpers.ts";
import { type AuditRecord, stateOf } from "../../../core/audit.ts";
import {
  LineReader,
  serverDir,
  serverSocketPath,
  untrustedReason,
  writeMessage,
} from "../../../hosts/cli/warm_client.ts";
import { askServer } from "../../../hosts/server/spawn.ts";
import { VERSION } from "../../../version.ts";

const git = (cwd: string, ...args: string[]) =>
  new Deno.Command("git", { args, cwd, stdout: "piped", stderr: "piped", env: { GIT_CONFIG_NOSYSTEM: "1" } })
    .output();

interface Server extends AsyncDisposable {
  readonly child: Deno.ChildProcess;
}

/** `pterm server run` for `root`, in the foreground of a child this test owns; ready when it answers. */
async function startServer(root: string, idleMs = 120_000, env: Record<string, string> = {}): Promise<Server> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ptermArgs(["server", "run", "--root", root, "--idle-ms", String(idleMs)]),
    clearEnv: true,
    env: { ...baseEnv(), ...env },
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const until = Date.now() + 30_000;
  while (await askServer(root, VERSION, "status") === null) {
    if (Date.now() > until) {
      child.kill("SIGKILL");
      throw new Error("the server did not answer");
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    child,
    async [Symbol.asyncDispose]() {
      try {
        child.kill("SIGKILL");
      } catch { /* already gone */ }
      await child.status;
    },
  };
}

async function callsServed(root: string): Promise<number> {
  const status = await askServer(root, VERSION, "status");
  assert.ok(status, "the server answers");
  return status.calls as number;
}

function records(root: string): AuditRecord[] {
  const out: AuditRecord[] = [];
  let dir: Iterable<Deno.DirEntry>;
  try {
    dir = Deno.readDirSync(`${root}/audit`);
  } catch {
    return out;
  }
  for (const day of dir) {
    for (const entry of Deno.readDirSync(`${root}/audit/${day.name}`)) {
      const path = `${root}/audit/${day.name}/${entry.name}`;
      if (entry.name.endsWith(".json")) out.push(JSON.parse(Deno.readTextFileSync(path)));
    }
  }
  return out.sort((a, b) => a.run_id.localeCompare(b.run_id));
}

/** What differs between two runs of the same call by nature: its id, its time, its duration. */
function comparable(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (key, v) => {
    if (key === "run_id" || key === "timestamp" || key === "duration_ms") return "<varies>";
    if (typeof v === "string") return v.replace(/\d{8}T\d{9}Z-[0-9a-f]{8}/g, "<run>");
    return v;
  }));
}

async function seedWorkspace(root: string): Promise<void> {
  await Deno.writeTextFile(`${root}/notes.txt`, "one\ntwo\nthree\n");
  await git(root, "init", "-q", "-b", "main");
  await Deno.writeTextFile(`${root}/tracked.txt`, "tracked\n");
}

const PATCH = "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,4 @@\n one\n two\n+two and a half\n three\n";
const MORE_PATCH = "--- a/notes.txt\n+++ b/notes.txt\n@@ -3,2 +3,3 @@\n two and a half\n three\n+four\n";

/** The same calls, as a script would make them: a command line, a failure, streamed stdin, a JSON request. */
async function theCalls(root: string, env: Record<string, string>) {
  const envelopes = [];
  envelopes.push((await cli(["exec", "--root", root, "hello"], { env })).envelope);
  envelopes.push((await cli(["exec", "--root", root, "cat notes.txt"], { env })).envelope);
  envelopes.push((await cli(["exec", "--root", root, "cat missing.txt"], { env })).envelope);
  envelopes.push((await cli(["exec", "--root", root, "git status"], { env })).envelope);
  envelopes.push((await cli(["exec", "--root", root, "patch apply"], { env, stdin: PATCH })).envelope);
  // Stdin from a file (--stdin-file), read by the client and handed over as bytes.
  await Deno.writeTextFile(`${root}/more.diff`, MORE_PATCH);
  envelopes.push(
    (await cli(["exec", "--root", root, "--stdin-file", `${root}/more.diff`, "patch apply"], { env })).envelope,
  );
  envelopes.push(
    (await cli(["exec", "--root", root, "--request", "-"], {
      env,
      stdin: JSON.stringify({ command: "grep -n half notes.txt" }),
    })).envelope,
  );
  envelopes.push((await cli(["exec", "--root", root, "git add --all"], { env })).envelope);
  envelopes.push((await cli(["exec", "--root", root, "git status"], { env })).envelope);
  return envelopes;
}

Deno.test("server: a warm call's envelope and audit record are the cold call's, and the workspace ends the same", async () => {
  await using cold = await makeRoot("pterm-cold-");
  await using warm = await makeRoot("pterm-warm-");
  await seedWorkspace(cold.path);
  await seedWorkspace(warm.path);
  await using _server = await startServer(warm.path);

  const coldEnvelopes = await theCalls(cold.path, { PTERM_SERVER: "off" });
  const warmEnvelopes = await theCalls(warm.path, {});
  assert.equal(await callsServed(warm.path), warmEnvelopes.length, "every warm call went to the server");
  assert.ok(coldEnvelopes.every((e) => e !== null));
  assert.deepEqual(coldEnvelopes.map((e) => e!.exit_code !== 0), [
    false,
    false,
    true,
    false,
    false,
    false,
    false,
    false,
    false,
  ]);
  assert.deepEqual(comparable(warmEnvelopes), comparable(coldEnvelopes));
  assert.deepEqual(comparable(records(warm.path)), comparable(records(cold.path)));
  assert.equal(records(warm.path).length, warmEnvelopes.length);

  // What the person's own git sees afterwards is the same in both.
  const coldGit = new TextDecoder().decode((await git(cold.path, "status", "--porcelain")).stdout);
  const warmGit = new TextDecoder().decode((await git(warm.path, "status", "--porcelain")).stdout);
  assert.equal(warmGit, coldGit);
  assert.match(warmGit, /^A {2}notes\.txt$/m);
  assert.equal(await Deno.readTextFile(`${warm.path}/notes.txt`), "one\ntwo\ntwo and a half\nthree\nfour\n");
});

Deno.test("server: its folder is 0700 and its socket 0600, both this user's", async () => {
  await using root = await makeRoot();
  await using _server = await startServer(root.path);
  const socket = Deno.lstatSync(serverSocketPath(root.path, VERSION));
  const folder = Deno.lstatSync(serverDir(root.path));
  assert.ok(socket.isSocket);
  assert.equal(socket.mode! & 0o777, 0o600);
  assert.equal(folder.mode! & 0o777, 0o700);
  assert.equal(socket.uid, Deno.uid());
  assert.equal(untrustedReason(socket, folder, Deno.uid()), null);
});

Deno.test("server: a socket of another user, open to others or not a socket is never connected to", async () => {
  await using root = await makeRoot();
  await using _server = await startServer(root.path);
  const path = serverSocketPath(root.path, VERSION);
  const socket = Deno.lstatSync(path);
  const folder = Deno.lstatSync(serverDir(root.path));
  // The owner check, on the real socket's real file information, as another uid would see it.
  assert.match(untrustedReason(socket, folder, Deno.uid()! + 1)!, /belongs to uid/);
  assert.match(untrustedReason(Deno.lstatSync(`${root.path}`), folder, Deno.uid())!, /not a socket/);

  // Opened to others: the client no longer trusts it and runs the call cold.
  await Deno.chmod(path, 0o666);
  assert.match(untrustedReason(Deno.lstatSync(path), folder, Deno.uid())!, /open to other users/);
  const opened = await cli(["exec", "--root", root.path, "hello"]);
  assert.equal(opened.code, 0);
  await Deno.chmod(path, 0o600);
  assert.equal(await callsServed(root.path), 0, "the call did not go to the socket open to others");
  await Deno.chmod(serverDir(root.path), 0o755);
  const folderOpen = await cli(["exec", "--root", root.path, "hello"]);
  assert.equal(folderOpen.code, 0);
  await Deno.chmod(serverDir(root.path), 0o700);
  assert.equal(await callsServed(root.path), 0, "nor through a folder open to others");
  assert.equal(records(root.path).length, 2, "both ran, cold");
  assert.equal((await cli(["exec", "--root", root.path, "hello"])).code, 0);
  assert.equal(await callsServed(root.path), 1, "closed again, the server serves");
});

Deno.test("server: two roots never share a server", async () => {
  await using a = await makeRoot();
  await using b = await makeRoot();
  await using _server = await startServer(a.path);
  const inB = await cli(["exec", "--root", b.path, "hello"]);
  assert.equal(inB.code, 0);
  assert.equal(await callsServed(a.path), 0, "a call in b is not a's");
  assert.equal(records(b.path).length, 1, "b's call is in b's audit");
  assert.equal(records(a.path).length, 0);

  // A client that reaches a's socket asking for b is refused, and nothing runs.
  const conn = await Deno.connect({ transport: "unix", path: serverSocketPath(a.path, VERSION) });
  await writeMessage(conn, {
    t: "call",
    v: VERSION,
    root: b.path,
    session: "default",
    line: "hello",
    stdin: { kind: "none" },
    color: false,
  });
  const answer = await new LineReader(conn).next(65536);
  conn.close();
  assert.equal(answer?.t, "refused");
  assert.match(String(answer?.reason), /serves/);
  assert.equal(records(a.path).length + records(b.path).length, 1);
});

Deno.test("server: a server of another version is not used", async () => {
  await using root = await makeRoot();
  await using _server = await startServer(root.path);
  // Asked for another version's call, the server refuses before anything runs.
  const conn = await Deno.connect({ transport: "unix", path: serverSocketPath(root.path, VERSION) });
  await writeMessage(conn, {
    t: "call",
    v: `${VERSION}-other`,
    root: root.path,
    session: "default",
    line: "hello",
    stdin: { kind: "none" },
    color: false,
  });
  const answer = await new LineReader(conn).next(65536);
  conn.close();
  assert.equal(answer?.t, "refused");
  assert.match(String(answer?.reason), /not 0|not .*other/);
  assert.equal(records(root.path).length, 0);

  // Another version's socket beside ours is never opened by this version's client.
  const otherPath = serverSocketPath(root.path, "0.0.0-other");
  const other = Deno.listen({ transport: "unix", path: otherPath });
  await Deno.chmod(otherPath, 0o600);
  let connections = 0;
  const accepting = (async () => {
    for await (const c of other) {
      connections++;
      c.close();
    }
  })().catch(() => {});
  await Deno.remove(serverSocketPath(root.path, VERSION)); // ours gone too: only the other one is there
  const call = await cli(["exec", "--root", root.path, "hello"]);
  other.close();
  await accepting;
  assert.equal(call.code, 0, "the call ran cold");
  assert.equal(connections, 0);
  assert.equal(records(root.path).length, 1);
});

Deno.test("server: kill -9 mid-call: the client answers with a code at once, the record is kept, the retry runs cold", async () => {
  await using root = await makeRoot();
  // A call that takes a while: a search through a large file.
  const line = "0123456789 abcdefghij ".repeat(4) + "\n";
  await Deno.writeTextFile(`${root.path}/big.txt`, line.repeat(400_000));
  await using server = await startServer(root.path);
  const client = new Deno.Command(Deno.execPath(), {
    args: ptermArgs(["exec", "--root", root.path, "grep -c nowhere-to-be-found big.txt"]),
    clearEnv: true,
    env: { ...baseEnv(), NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // Wait until the call is the server's and its record says it runs, then kill the server.
  const until = Date.now() + 30_000;
  while (!records(root.path).some((r) => r.state === "running")) {
    assert.ok(Date.now() < until, "the call started on the server");
    await new Promise((r) => setTimeout(r, 10));
  }
  server.child.kill("SIGKILL");
  const killedAt = Date.now();
  const out = await client.output();
  assert.ok(Date.now() - killedAt < 5_000, "no hang");
  const envelope = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.equal(envelope.error_code, "DaemonNotRunning");
  assert.notEqual(out.code, 0);
  assert.match(envelope.stderr, /outcome is unknown|audit record/);
  // The record is there: running now, interrupted once its deadline has passed; never lost.
  const [record] = records(root.path);
  assert.equal(record.command, "grep -c nowhere-to-be-found big.txt");
  const state = stateOf(record, Date.parse(record.timestamp) + record.timeout_ms + 61_000);
  assert.equal(state, "interrupted");

  // The socket file is left behind (stale): the same call again runs cold and succeeds.
  assert.ok(Deno.lstatSync(serverSocketPath(root.path, VERSION)).isSocket);
  const retry = await cli(["exec", "--root", root.path, "grep -c nowhere-to-be-found big.txt"]);
  assert.equal(retry.code, 1, retry.stderr + retry.stdout);
  assert.equal(retry.envelope?.result?.lines_matched ?? 0, 0);
  assert.equal(records(root.path).filter((r) => r.state === "finished").length, 1);

  // And a new server replaces the stale socket.
  await using _again = await startServer(root.path);
  assert.equal((await cli(["exec", "--root", root.path, "hello"])).code, 0);
  assert.equal(await callsServed(root.path), 1);
});

/** A socket at the server's path that this test answers by hand (a hung or slow server). */
function fakeServer(root: string, answer: (conn: Deno.Conn, lines: LineReader) => Promise<void>) {
  Deno.mkdirSync(serverDir(root), { recursive: true, mode: 0o700 });
  Deno.chmodSync(serverDir(root), 0o700);
  const path = serverSocketPath(root, VERSION);
  const listener = Deno.listen({ transport: "unix", path });
  Deno.chmodSync(path, 0o600);
  const open: Deno.Conn[] = [];
  const serving = (async () => {
    for await (const conn of listener) {
      open.push(conn);
      answer(conn, new LineReader(conn)).catch(() => {});
    }
  })().catch(() => {});
  return {
    async [Symbol.asyncDispose]() {
      listener.close();
      for (const conn of open) {
        try {
          conn.close();
        } catch { /* closed */ }
      }
      await serving;
    },
  };
}

Deno.test("server: a server that never says ready: the call runs cold within a second, once", async () => {
  await using root = await makeRoot();
  await using _fake = await fakeServer(root.path, async (_conn, lines) => {
    await lines.next(1 << 20); // reads the call, then says nothing
    await new Promise(() => {});
  });
  const started = Date.now();
  const call = await cli(["exec", "--root", root.path, "hello"]);
  assert.equal(call.code, 0, call.stderr);
  assert.ok(Date.now() - started < 15_000);
  assert.equal(records(root.path).length, 1, "run once, cold");
});

Deno.test("server: a server silent past the call's deadline: the client answers Timeout, no hang", async () => {
  await using root = await makeRoot();
  await using _fake = await fakeServer(root.path, async (conn, lines) => {
    await lines.next(1 << 20);
    await writeMessage(conn, { t: "ready", timeout_ms_max: 600_000 });
    await lines.next(1024); // "go": the call is the server's, which then never answers
    await new Promise(() => {});
  });
  const started = Date.now();
  const call = await cli(["exec", "--root", root.path, "--timeout-ms", "300", "hello"]);
  const took = Date.now() - started;
  assert.equal(call.envelope?.error_code, "Timeout", call.stdout);
  assert.equal(call.code, 124);
  assert.ok(took < 20_000, `answered after ${took} ms`);
  assert.match(call.envelope!.stderr, /pterm runs list/);
  assert.equal(records(root.path).length, 0, "the client did not also run it cold");
});

Deno.test("server: a moved root is not served from its old place; the server leaves", async () => {
  await using base = await makeRoot();
  const before = `${base.path}/before`;
  const after = `${base.path}/after`;
  await Deno.mkdir(before);
  await using server = await startServer(before);
  await Deno.rename(before, after);
  const call = await cli(["exec", "--root", after, "hello"]);
  assert.equal(call.code, 0, call.stderr);
  assert.equal(records(after).length, 1);
  const status = await Promise.race([
    server.child.status,
    new Promise<null>((r) => setTimeout(() => r(null), 10_000)),
  ]);
  assert.ok(status !== null, "the server left once its root moved");
  assert.equal((await cli(["exec", "--root", after, "hello"])).code, 0);
});

Deno.test("server: a root that comes to hold the server's code is refused before every call; the call runs cold", async () => {
  // The client hands a call over without looking for pterm's code in the root; the server looks, each
  // call. Its module cache is reached through a link that is re-pointed into the root while it runs.
  await using base = await makeRoot();
  const root = `${base.path}/root`;
  await Deno.mkdir(`${base.path}/real`, { recursive: true });
  await Deno.mkdir(`${root}/cache/deno`, { recursive: true });
  const cache = Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`;
  await Deno.symlink(await Deno.realPath(cache), `${base.path}/real/deno`);
  await Deno.symlink(`${base.path}/real`, `${base.path}/link`);
  await using _server = await startServer(root, 120_000, { DENO_DIR: `${base.path}/link/deno` });
  assert.equal((await cli(["exec", "--root", root, "hello"])).code, 0);
  assert.equal(await callsServed(root), 1, "served warm while the root holds none of its code");

  await Deno.remove(`${base.path}/link`);
  await Deno.symlink(`${root}/cache`, `${base.path}/link`);
  const call = await cli(["exec", "--root", root, "hello"]);
  assert.equal(call.code, 0, call.stderr + call.envelope?.stderr);
  assert.equal(await callsServed(root), 1, "the server refused the call: its module cache is in the root now");
  assert.equal(records(root).length, 2, "the cold path ran it, with its audit record");
});

Deno.test("server: a --stdin-file that cannot be read is NotFound with the hint, as cold; the server runs nothing", async () => {
  await using root = await makeRoot();
  await using _server = await startServer(root.path);
  const missing = `${root.path}/no-such-file.diff`;
  const warm = await cli(["exec", "--root", root.path, "--stdin-file", missing, "patch apply"]);
  const cold = await cli(["exec", "--root", root.path, "--stdin-file", missing, "patch apply"], {
    env: { PTERM_SERVER: "off" },
  });
  assert.equal(warm.code, 1);
  assert.equal(warm.envelope?.error_code, "NotFound");
  assert.match(warm.envelope?.stderr ?? "", /no-such-file\.diff[\s\S]*Hint: Run `pterm exec --help`/);
  assert.deepEqual(comparable(warm.envelope), comparable(cold.envelope));
  assert.equal(await callsServed(root.path), 0, "no call reached the server");
  // The file written, the same line is handed over and runs.
  await Deno.writeTextFile(`${root.path}/notes.txt`, "one\n");
  await Deno.writeTextFile(missing, "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1,2 @@\n one\n+two\n");
  const again = await cli(["exec", "--root", root.path, "--stdin-file", missing, "patch apply"]);
  assert.equal(again.envelope?.exit_code, 0, again.envelope?.stderr);
  assert.equal(await callsServed(root.path), 1);
  assert.equal(await Deno.readTextFile(`${root.path}/notes.txt`), "one\ntwo\n");
});

Deno.test("server: start, status and stop as a person runs them; idle exit", async () => {
  await using root = await makeRoot();
  const start = await cli(["server", "start", "--root", root.path, "--idle-ms", "1500"]);
  assert.equal(start.code, 0, start.stderr);
  const started = JSON.parse(start.stdout);
  assert.equal(started.running, true);
  assert.equal(started.version, VERSION);
  assert.equal(started.root, root.path);
  const again = await cli(["server", "start", "--root", root.path]);
  assert.equal(JSON.parse(again.stdout).pid, started.pid, "one server per root and version");
  assert.equal((await cli(["exec", "--root", root.path, "hello"])).code, 0);
  const status = JSON.parse((await cli(["server", "status", "--root", root.path])).stdout);
  assert.equal(status.calls, 1);
  const stop = await cli(["server", "stop", "--root", root.path]);
  assert.equal(stop.code, 0, stop.stderr);
  assert.equal(JSON.parse(stop.stdout).stopped, true);
  const none = await cli(["server", "status", "--root", root.path]);
  assert.equal(none.code, 1);
  assert.equal(JSON.parse(none.stdout).running, false);

  // Idle exit: started with a short idle time, it leaves by itself.
  assert.equal((await cli(["server", "start", "--root", root.path, "--idle-ms", "500"])).code, 0);
  const until = Date.now() + 15_000;
  while (await askServer(root.path, VERSION, "status") !== null) {
    assert.ok(Date.now() < until, "the idle server left");
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.throws(() => Deno.lstatSync(serverSocketPath(root.path, VERSION)), Deno.errors.NotFound);
});

Deno.test("server: piped stdin past the limit is answered InputTooLarge warm as cold, not as a lost server", async () => {
  await using cold = await makeRoot();
  await using warm = await makeRoot();
  const big = "+".repeat(2 * 1024 * 1024);
  for (const root of [cold.path, warm.path]) {
    await Deno.writeTextFile(`${root}/pterm.json`, JSON.stringify({ limits: { stdin_bytes: 4096 } }));
  }
  await using _server = await startServer(warm.path);
  // pterm stops reading at the limit: the writer of the pipe sees it closed, as `yes | pterm ...` would.
  const piped = async (root: string, env: Record<string, string>) => {
    const child = new Deno.Command(Deno.execPath(), {
      args: ptermArgs(["exec", "--root", root, "patch apply"]),
      clearEnv: true,
      env: { ...baseEnv(), NO_COLOR: "1", ...env },
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const sending = new Blob([big]).stream().pipeTo(child.stdin).catch(() => {});
    const out = await child.output();
    await sending;
    return { code: out.code, envelope: JSON.parse(new TextDecoder().decode(out.stdout)) };
  };
  const coldCall = await piped(cold.path, { PTERM_SERVER: "off" });
  const warmCall = await piped(warm.path, {});
  assert.equal(coldCall.envelope.error_code, "InputTooLarge");
  assert.equal(await callsServed(warm.path), 1);
  assert.deepEqual(comparable(warmCall.envelope), comparable(coldCall.envelope));
  assert.equal(warmCall.code, coldCall.code);
});
