/**
 * `irc status | send | pull` against a real ngIRCd, with a second client in the channel:
 * the lazy connection reused, the confirm gate, cursors per channel, peek, truncation, the
 * nick limit and a missing config, plus CRLF injection and a 10 KB text.
 */

import assert from "node:assert/strict";
import { commands } from "../../../commands/index.ts";
import { Registry } from "../../../core/registry.ts";
import { execute } from "../../../core/runtime.ts";
import { CODE_DIRS, exec, execOk, makeRoot } from "../../_support/helpers.ts";
import { eventually, plainEnv, startDaemon, writeEnv } from "./harness.ts";
import { startNgircd } from "./ngircd.ts";
import { Peer } from "./peer.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

Deno.test("irc without a daemon: DaemonNotRunning names the command the host must run", options, async () => {
  await using dir = await makeRoot();
  for (const line of ["irc status", 'irc send --text "hi"', "irc pull"]) {
    const envelope = await exec(dir.path, line, { session: "agent-7" });
    assert.equal(envelope.error_code, "DaemonNotRunning", line);
    assert.equal(envelope.exit_code, 1);
    assert.match(envelope.stderr, /The host, not the agent, must start one/);
    assert.ok(
      envelope.stderr.includes("pterm irc-daemon --session agent-7 --root <the workspace root>"),
      envelope.stderr,
    );
    // Errors never print host paths.
    assert.ok(!envelope.stderr.includes(dir.path), envelope.stderr);
    assert.match(envelope.stderr, /Hint: Run `irc (status|send|pull) --help`/);
  }
});

Deno.test("irc: config errors name the key, never the value", options, async (t) => {
  await using server = await startNgircd();
  await using dir = await makeRoot();
  await using _daemon = await startDaemon(dir.path);

  await t.step("no .env at all: MissingConfig", async () => {
    const envelope = await exec(dir.path, "irc status");
    assert.equal(envelope.error_code, "MissingConfig");
    assert.match(envelope.stderr, /skills\/irc-cli\/secrets\/\.env does not exist/);
    assert.equal(envelope.result?.state, "error");
    assert.equal(envelope.result?.indicator, "red");
  });

  await t.step("a required key missing: MissingConfig naming it", async () => {
    const env = plainEnv(server) as Record<string, string | number>;
    delete env.IRC_CHANNEL;
    await writeEnv(dir.path, env);
    const envelope = await exec(dir.path, 'irc send --text "x"');
    assert.equal(envelope.error_code, "MissingConfig");
    assert.match(envelope.stderr, /IRC_CHANNEL is not set/);
    assert.ok(!envelope.stderr.includes(server.password));
  });

  await t.step("IRC_NICK of 10 characters: NickTooLong", async () => {
    await writeEnv(dir.path, plainEnv(server, { IRC_NICK: "abcdefghij" }));
    const envelope = await exec(dir.path, "irc status");
    assert.equal(envelope.error_code, "NickTooLong");
    assert.match(envelope.stderr, /10 characters long; IRC nicks here may have at most 9/);
    assert.ok(!envelope.stderr.includes("abcdefghij"), "the message names the key, not the value");
  });

  await t.step("a bad value: InvalidConfig naming the key", async () => {
    await writeEnv(dir.path, plainEnv(server, { IRC_PORT: "sixty" }));
    const envelope = await exec(dir.path, "irc status");
    assert.equal(envelope.error_code, "InvalidConfig");
    assert.match(envelope.stderr, /IRC_PORT .* must be a whole number/);
  });

  await t.step("fixed .env: the next command connects without restarting the daemon", async () => {
    await writeEnv(dir.path, plainEnv(server, { IRC_NICK: "abcdefghi" }));
    const envelope = await execOk(dir.path, "irc status");
    assert.equal(envelope.result?.state, "joined");
    assert.equal(envelope.result?.nick, "abcdefghi");
  });
});

Deno.test("irc: status, send and pull through one lazily made, reused connection", options, async (t) => {
  await using server = await startNgircd();
  await using dir = await makeRoot();
  await writeEnv(dir.path, plainEnv(server));
  await using daemon = await startDaemon(dir.path);
  const peer = await Peer.connect(server.plainPort, "alice", server.password);
  try {
    await peer.join("#lemon");

    await t.step("before any command the daemon has not connected (lazy)", async () => {
      await peer.sync();
      assert.ok(!peer.lines.some((l) => l.command === "JOIN" && l.prefix.startsWith("ptermbot!")));
    });

    await t.step("status connects, joins and shows a green light", async () => {
      const envelope = await execOk(dir.path, "irc status");
      assert.deepEqual(
        {
          state: envelope.result?.state,
          indicator: envelope.result?.indicator,
          server: envelope.result?.server,
          port: envelope.result?.port,
          tls: envelope.result?.tls,
          nick: envelope.result?.nick,
          channel: envelope.result?.channel,
          connection_count: envelope.result?.connection_count,
        },
        {
          state: "joined",
          indicator: "green",
          server: "127.0.0.1",
          port: server.plainPort,
          tls: false,
          nick: "ptermbot",
          channel: "#lemon",
          connection_count: 1,
        },
      );
      assert.equal(envelope.result?.last_error, undefined);
      assert.match(envelope.stdout, /^● green IRC joined #lemon as ptermbot/);
      assert.ok(!envelope.stdout.includes("\x1b["), "no colour when the terminal does not allow it");
      await peer.waitFor((l) => l.command === "JOIN" && l.prefix.startsWith("ptermbot!"), 5_000, "pterm's JOIN");
    });

    await t.step("on a colour terminal the dot is green (ANSI)", async () => {
      const envelope = await execute(
        { registry: new Registry(commands), codeDirs: CODE_DIRS },
        { root: dir.path, session: "default", line: "irc status", stdin: { kind: "none" }, terminal: { color: true } },
      );
      assert.equal(envelope.exit_code, 0);
      assert.ok(envelope.stdout.startsWith("\x1b[32m●\x1b[0m green IRC joined"), JSON.stringify(envelope.stdout));
    });

    await t.step("send to the default channel needs no --confirm", async () => {
      const envelope = await execOk(dir.path, 'irc send --text "hello from pterm"');
      assert.deepEqual(envelope.result, {
        ok: true,
        command: "irc send",
        to: "#lemon",
        message_len: 16,
        lines: 1,
        delivery: "delivered",
        lines_written: 1,
        lines_confirmed: 1,
        channel_members: 1, // the peer
        session_bound: true,
        connected: true,
        joined_default_channel: true,
        reconnected: false,
      });
      const got = await peer.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "hello from pterm");
      assert.equal(got.params[0], "#lemon");
    });

    await t.step("--text-stdin sends each line of a multi-line text", async () => {
      await execOk(dir.path, "irc send --text-stdin", { stdin: "first line\nsecond line\n" });
      await peer.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "second line");
      const texts = peer.messagesFrom("ptermbot", "#lemon").map((l) => l.params[1]);
      assert.deepEqual(texts.slice(-2), ["first line", "second line"]);
    });

    await t.step("many sends reuse one connection (one JOIN, connection_count 1)", async () => {
      for (let i = 0; i < 3; i++) await execOk(dir.path, `irc send --text "again ${i}"`);
      await peer.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "again 2");
      const joins = peer.lines.filter((l) => l.command === "JOIN" && l.prefix.startsWith("ptermbot!"));
      assert.equal(joins.length, 1);
      assert.equal((await execOk(dir.path, "irc status")).result?.connection_count, 1);
    });

    await t.step("pull returns what alice wrote, once", async () => {
      await peer.say("#lemon", "hi pterm");
      await peer.say("#lemon", "second message");
      await peer.sync();
      await eventually(async () => (await execOk(dir.path, "irc pull --peek")).result?.returned === 2);
      const first = await execOk(dir.path, "irc pull");
      assert.equal(first.result?.from, "#lemon");
      assert.equal(first.result?.returned, 2);
      assert.equal(first.result?.cursor_before, undefined);
      assert.equal(first.result?.cursor_after, "2");
      assert.equal(first.result?.dropped_count, 0);
      assert.equal(first.result?.truncated, false);
      assert.equal(first.result?.third_party, true);
      const messages = first.result?.messages as { id: string; nick: string; text: string; kind: string }[];
      assert.deepEqual(messages.map((m) => [m.id, m.nick, m.text, m.kind]), [
        ["1", "alice", "hi pterm", "privmsg"],
        ["2", "alice", "second message", "privmsg"],
      ]);
      assert.match(first.stdout, /\[1\] \d\d:\d\d:\d\d <alice> hi pterm/);
      const again = await execOk(dir.path, "irc pull");
      assert.equal(again.result?.returned, 0, "nothing is delivered twice");
      assert.equal(again.result?.cursor_before, "2");
      assert.equal(again.result?.cursor_after, "2");
    });

    await t.step("--peek does not move the cursor", async () => {
      await peer.say("#lemon", "third");
      await peer.sync();
      await eventually(async () => (await execOk(dir.path, "irc pull --peek")).result?.returned === 1);
      const peek = await execOk(dir.path, "irc pull --peek");
      assert.equal(peek.result?.cursor_after, undefined);
      assert.equal(peek.result?.peek, true);
      const pull = await execOk(dir.path, "irc pull");
      assert.deepEqual((pull.result?.messages as { text: string }[]).map((m) => m.text), ["third"]);
      assert.equal(pull.result?.cursor_after, "3");
    });

    await t.step("--limit leaves the rest for the next pull", async () => {
      for (let i = 1; i <= 5; i++) await peer.say("#lemon", `n${i}`);
      await peer.sync();
      await eventually(async () => (await execOk(dir.path, "irc pull --peek")).result?.returned === 5);
      const part = await execOk(dir.path, "irc pull --limit 2");
      assert.deepEqual((part.result?.messages as { text: string }[]).map((m) => m.text), ["n1", "n2"]);
      assert.equal(part.result?.remaining, 3);
      const rest = await execOk(dir.path, "irc pull");
      assert.deepEqual((rest.result?.messages as { text: string }[]).map((m) => m.text), ["n3", "n4", "n5"]);
    });

    await t.step("ConfirmRequired for a nick or another channel without --confirm", async () => {
      for (const line of ['irc send --to alice --text "psst"', 'irc send --to #other --text "x"']) {
        const envelope = await exec(dir.path, line);
        assert.equal(envelope.error_code, "ConfirmRequired", line);
        assert.match(envelope.stderr, /needs --confirm/);
      }
      await peer.sync();
      assert.ok(!peer.lines.some((l) => l.params.includes("psst")), "nothing was sent");
    });

    await t.step("with --confirm: a private message, and a DM conversation of its own", async () => {
      await execOk(dir.path, 'irc send --to alice --confirm --text "psst"');
      const dm = await peer.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "psst");
      assert.equal(dm.params[0], "alice");
      await peer.say("ptermbot", "psst back");
      await peer.sync();
      await eventually(async () => (await execOk(dir.path, "irc pull --peek --from alice")).result?.returned === 1);
      const pulled = await execOk(dir.path, "irc pull --from alice");
      assert.equal((pulled.result?.messages as { text: string }[])[0].text, "psst back");
    });

    await t.step("a nick that does not exist: NotFound from the server's answer", async () => {
      const envelope = await exec(dir.path, 'irc send --to nobody --confirm --text "hello?"');
      assert.equal(envelope.error_code, "NotFound");
      assert.match(envelope.stderr, /nobody/);
    });

    await t.step("daemon stdout stays empty with auto-forward off (the default)", () => {
      assert.equal(daemon.stdout(), "");
      assert.ok(!daemon.stderr().includes(server.password));
    });
  } finally {
    await peer.close();
  }
});
