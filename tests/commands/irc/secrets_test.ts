/**
 * Secrets stay in the .env: the server password, the channel key, the NickServ and SASL passwords never
 * appear in argv, stdout, stderr, results, the audit log, artifacts, the message logs, the
 * daemon's output or any other file under the root — only in the .env itself. Even when
 * someone on IRC posts one of them, it is redacted before it is stored or shown.
 */

import assert from "node:assert/strict";
import type { Envelope } from "../../../core/envelope.ts";
import { exec, makeRoot } from "../../_support/helpers.ts";
import { eventually, filesUnder, plainEnv, startDaemon, writeEnv } from "./harness.ts";
import { startNgircd } from "./ngircd.ts";
import { Peer } from "./peer.ts";

Deno.test("irc: no password reaches any output or any file under the root", {
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  await using server = await startNgircd();
  await using dir = await makeRoot();
  const secrets = {
    IRC_SERVER_PASSWORD: server.password,
    IRC_CHANNEL_KEY: `key-${crypto.randomUUID().slice(0, 12)}`,
    IRC_NICKSERV_PASSWORD: `ns-${crypto.randomUUID().slice(0, 12)}`,
    IRC_SASL_PASSWORD: `sasl-${crypto.randomUUID().slice(0, 12)}`,
  };
  const envPath = await writeEnv(dir.path, plainEnv(server, { ...secrets, IRC_AUTO_FORWARD_TO_AGENT: 1 }));
  const peer = await Peer.connect(server.plainPort, "alice", server.password);
  const envelopes: Envelope[] = [];
  const run = async (line: string, stdin?: string) => {
    const envelope = await exec(dir.path, line, { stdin });
    envelopes.push(envelope);
    return envelope;
  };
  const outputs: string[] = [];
  try {
    await peer.join("#lemon");
    await peer.raw(`MODE #lemon +k ${secrets.IRC_CHANNEL_KEY}`);
    await peer.sync();

    const daemon = await startDaemon(dir.path);
    assert.equal((await run("irc status")).result?.state, "joined");
    await run('irc send --text "hello"');
    await run("irc send --text-stdin", "line one\nline two");
    await run('irc send --to nobody --confirm --text "x"');
    await run('irc send --to alice --text "no confirm"');
    await peer.say(
      "#lemon",
      `the server password is ${secrets.IRC_SERVER_PASSWORD} and the key ${secrets.IRC_CHANNEL_KEY}`,
    );
    await peer.say("ptermbot", `psst: ${secrets.IRC_NICKSERV_PASSWORD}`);
    await peer.sync();
    await eventually(async () => (await exec(dir.path, "irc pull --peek")).result?.returned === 1);
    const pulled = await run("irc pull --format full");
    assert.match(JSON.stringify(pulled.result), /password is \*\*\* and the key \*\*\*/);
    await run("irc pull --from alice");
    await run("irc status --help");
    // The daemon's own argv, as `ps` shows it (Linux).
    const cmdline = await Deno.readTextFile(`/proc/${daemon.pid}/cmdline`).catch(() => "");
    if (Deno.build.os === "linux") assert.match(cmdline, /irc-daemon/);
    await daemon.stop("SIGTERM");
    outputs.push(daemon.stdout(), daemon.stderr(), cmdline);
    assert.match(daemon.stdout(), /password is \*\*\* and the key \*\*\*/, "the forwarded copy is redacted too");

    // A second daemon of the session reloads the logs and cursors.
    const again = await startDaemon(dir.path);
    await run("irc status");
    await run("irc pull");
    await again.stop("SIGTERM");
    outputs.push(again.stdout(), again.stderr());

    for (const [name, secret] of Object.entries(secrets)) {
      for (const envelope of envelopes) {
        assert.ok(!JSON.stringify(envelope).includes(secret), `${name} in the envelope of a call`);
      }
      for (const output of outputs) assert.ok(!output.includes(secret), `${name} in the daemon's output`);
    }
    let files = 0;
    for await (const path of filesUnder(dir.path, (p) => p === envPath)) {
      files++;
      const bytes = await Deno.readFile(path);
      const text = new TextDecoder().decode(bytes);
      for (const [name, secret] of Object.entries(secrets)) {
        assert.ok(!text.includes(secret), `${name} found in ${path.slice(dir.path.length + 1)}`);
      }
    }
    assert.ok(files >= 10, `${files} files checked (audit records, logs, cursors, artifacts)`);
  } finally {
    await peer.close();
  }
});
