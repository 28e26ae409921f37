/**
 * The daemon's life: one per session, QUIT and cleanup on SIGTERM, a stale socket after a
 * crash replaced, cursors surviving a restart, the server dying and coming back, and the
 * auto-forward stream.
 */

import assert from "node:assert/strict";
import { exec, execOk, makeRoot } from "../../_support/helpers.ts";
import { eventually, plainEnv, startDaemon, writeEnv } from "./harness.ts";
import { freePort, startNgircd } from "./ngircd.ts";
import { Peer } from "./peer.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("irc-daemon: one per session, QUIT on SIGTERM, stale socket replaced", options, async (t) => {
  await using server = await startNgircd();
  await using dir = await makeRoot();
  await writeEnv(dir.path, plainEnv(server));
  const peer = await Peer.connect(server.plainPort, "alice", server.password);
  try {
    await peer.join("#lemon");
    const first = await startDaemon(dir.path);

    await t.step("the socket and its folder are owner-only", async () => {
      assert.equal((await Deno.stat(first.socketPath)).mode! & 0o777, 0o600);
      assert.equal((await Deno.stat(`${dir.path}/sessions/default`)).mode! & 0o777, 0o700);
    });

    await t.step("a second daemon for the same session refuses to start", async () => {
      await using second = await startDaemon(dir.path, { waitReady: false });
      const status = await second.status;
      assert.equal(status.code, 1);
      assert.match(second.stderr(), /DaemonAlreadyRunning/);
      assert.match(second.stderr(), /already running for session default/);
      assert.equal((await execOk(dir.path, "irc status")).result?.state, "joined", "the first one still serves");
    });

    await t.step("another session gets its own daemon", async () => {
      await writeEnv(dir.path, plainEnv(server));
      await using other = await startDaemon(dir.path, { session: "other" });
      assert.notEqual(other.socketPath, first.socketPath);
      const envelope = await exec(dir.path, "irc pull --peek", { session: "other" });
      assert.equal(envelope.exit_code, 0, envelope.stderr);
    });

    await t.step("SIGTERM: QUIT reaches the channel, the socket is removed, exit 0", async () => {
      const status = await first.stop("SIGTERM");
      assert.equal(status.code, 0, first.stderr());
      const quit = await peer.waitFor((l) => l.command === "QUIT" && l.prefix.startsWith("ptermbot!"), 5_000, "QUIT");
      assert.match(quit.params[0] ?? "", /pterm session ended/);
      assert.equal(await exists(first.socketPath), false);
      assert.equal((await exec(dir.path, "irc status")).error_code, "DaemonNotRunning");
    });

    await t.step("a crashed daemon leaves a stale socket; the next one replaces it", async () => {
      const crashed = await startDaemon(dir.path);
      await execOk(dir.path, "irc status");
      await crashed.stop("SIGKILL");
      assert.equal(await exists(crashed.socketPath), true, "the socket file was left behind");
      const envelope = await exec(dir.path, "irc status");
      assert.equal(envelope.error_code, "DaemonNotRunning");
      assert.match(envelope.stderr, /left over from a daemon that stopped/);
      await using next = await startDaemon(dir.path);
      await eventually(async () => (await exec(dir.path, "irc status")).result?.state === "joined", 15_000, "rejoin");
      assert.ok(next.pid > 0);
    });
  } finally {
    await peer.close();
  }
});

Deno.test("irc-daemon: pull cursors survive a daemon restart in the same session", options, async () => {
  await using server = await startNgircd();
  await using dir = await makeRoot();
  await writeEnv(dir.path, plainEnv(server));
  const peer = await Peer.connect(server.plainPort, "alice", server.password);
  try {
    await peer.join("#lemon");
    const daemon = await startDaemon(dir.path);
    await execOk(dir.path, "irc status");
    for (const text of ["one", "two", "three"]) await peer.say("#lemon", text);
    await peer.sync();
    await eventually(async () => (await execOk(dir.path, "irc pull --peek")).result?.returned === 3);
    assert.equal((await execOk(dir.path, "irc pull --limit 1")).result?.cursor_after, "1");
    const stopped = await daemon.stop("SIGINT");
    assert.equal(stopped.code, 0, "SIGINT stops it cleanly too");

    await using restarted = await startDaemon(dir.path);
    const pulled = await execOk(dir.path, "irc pull");
    assert.equal(pulled.result?.cursor_before, "1");
    assert.deepEqual((pulled.result?.messages as { id: string; text: string }[]).map((m) => [m.id, m.text]), [
      ["2", "two"],
      ["3", "three"],
    ]);
    await peer.waitFor((l) => l.command === "JOIN" && l.prefix.startsWith("ptermbot!"), 10_000, "the rejoin", 5);
    await peer.say("#lemon", "four");
    await peer.sync();
    await eventually(async () => (await execOk(dir.path, "irc pull --peek")).result?.returned === 1);
    const next = await execOk(dir.path, "irc pull");
    assert.deepEqual((next.result?.messages as { id: string }[]).map((m) => m.id), ["4"], "ids continue");
    assert.ok(restarted.pid > 0);
  } finally {
    await peer.close();
  }
});

Deno.test("irc: the server dies and comes back; the next send reconnects", options, async (t) => {
  await using server = await startNgircd();
  await using dir = await makeRoot();
  await writeEnv(dir.path, plainEnv(server));
  await using daemon = await startDaemon(dir.path);
  await execOk(dir.path, 'irc send --text "before"');

  await t.step("killed server: status is red with the reason", async () => {
    await server.kill();
    await eventually(async () => (await execOk(dir.path, "irc status")).result?.state === "error", 10_000, "error");
    const status = await execOk(dir.path, "irc status");
    assert.equal(status.result?.indicator, "red");
    assert.equal((status.result?.last_error as { error_code: string }).error_code, "ConnectionLost");
  });

  await t.step("send while it is down: bounded retries, then NotConnected with the reason", async () => {
    const started = Date.now();
    const envelope = await exec(dir.path, 'irc send --text "while down"');
    assert.equal(envelope.error_code, "NotConnected");
    assert.match(envelope.stderr, /\(3 attempts\): ConnectionRefused/);
    assert.ok(Date.now() - started < 30_000, "the retries are bounded");
    const status = await execOk(dir.path, "irc status");
    assert.equal((status.result?.last_error as { error_code: string }).error_code, "ConnectionRefused");
  });

  await t.step("server back: the next send reconnects and is delivered", async () => {
    await server.start();
    const peer = await Peer.connect(server.plainPort, "alice", server.password);
    try {
      await peer.join("#lemon");
      const envelope = await execOk(dir.path, 'irc send --text "after the restart"');
      assert.equal(envelope.result?.reconnected, true);
      assert.equal(envelope.result?.joined_default_channel, true);
      await peer.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "after the restart");
      const status = await execOk(dir.path, "irc status");
      assert.equal(status.result?.state, "joined");
      assert.equal(status.result?.connection_count, 2);
      assert.equal(status.result?.last_error, undefined);
    } finally {
      await peer.close();
    }
  });
  assert.ok(daemon.stderr().includes("connection ended: ConnectionLost"));
});

Deno.test("irc: reconnection attempts are rate-limited", options, async () => {
  await using dir = await makeRoot();
  // Nothing listens on this port: every attempt is refused at once.
  await writeEnv(dir.path, {
    IRC_SERVER: "127.0.0.1",
    IRC_PORT: freePort(),
    IRC_CHANNEL: "#lemon",
    IRC_NICK: "ptermbot",
  });
  await using _daemon = await startDaemon(dir.path);
  const status = await execOk(dir.path, "irc status");
  assert.equal((status.result?.last_error as { error_code: string }).error_code, "ConnectionRefused");
  const messages: string[] = [];
  for (let i = 0; i < 4; i++) {
    const envelope = await exec(dir.path, 'irc send --text "x"');
    assert.equal(envelope.error_code, "NotConnected");
    messages.push(envelope.stderr);
  }
  assert.match(messages[0], /\(3 attempts\): ConnectionRefused/);
  // 1 (status) + 3 + 3 + 3 attempts, then the limit of 10 per minute.
  assert.match(messages[3], /10 connection attempts were made in the last minute; retry in \d+ s/);
});

Deno.test("irc: IRC_AUTO_FORWARD_TO_AGENT=1 writes sanitised, bounded, third-party JSON lines", options, async () => {
  await using server = await startNgircd();
  await using dir = await makeRoot();
  await writeEnv(dir.path, plainEnv(server, { IRC_AUTO_FORWARD_TO_AGENT: 1 }));
  await using daemon = await startDaemon(dir.path);
  const peer = await Peer.connect(server.plainPort, "alice", server.password, {
    oper: { name: server.operName, password: server.operPassword },
  });
  try {
    await peer.join("#lemon");
    assert.equal((await execOk(dir.path, "irc status")).result?.auto_forward, true);
    await peer.say("#lemon", "\x1b[2Jhello \x02agent\x02");
    await eventually(() => daemon.stdout().includes("\n"), 5_000, "a forwarded line");
    const first = JSON.parse(daemon.stdout().split("\n")[0]);
    assert.equal(first.type, "irc.messages");
    assert.equal(first.third_party, true);
    assert.match(first.notice, /third parties/);
    assert.equal(first.conversation, "#lemon");
    assert.deepEqual(first.messages.map((m: { nick: string; text: string }) => [m.nick, m.text]), [
      ["alice", "hello agent"],
    ]);

    // A burst is forwarded within the same total bound as `irc pull --format summary`.
    const long = "z".repeat(400);
    await peer.raw(...Array.from({ length: 60 }, (_, i) => `PRIVMSG #lemon :${i} ${long}`));
    await eventually(() => daemon.stdout().includes('"59 zzz'), 10_000, "the burst forwarded");
    const lines = daemon.stdout().trim().split("\n").slice(1).map((l) => JSON.parse(l));
    const delivered = lines.reduce((n, l) => n + l.messages.length + l.omitted_count, 0);
    assert.equal(delivered, 60);
    for (const line of lines) {
      assert.ok(new TextEncoder().encode(JSON.stringify(line.messages)).length < 9 * 1024, "bounded");
      for (const m of line.messages) assert.ok(new TextEncoder().encode(m.text).length <= 300);
    }
    assert.ok(lines.some((l) => l.truncated && l.omitted_count > 0));
    // Forwarding does not consume: irc pull still has them.
    assert.equal((await execOk(dir.path, "irc pull --peek --limit 1000")).result?.remaining, 0);
  } finally {
    await peer.close();
  }
});
