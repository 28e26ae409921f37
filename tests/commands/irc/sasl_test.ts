/**
 * SASL PLAIN, server-time and NickServ IDENTIFY. ngIRCd offers neither SASL nor server-time,
 * so these run against the scripted server (tests/commands/irc/scripted_server.ts), which records
 * what pterm sends.
 */

import assert from "node:assert/strict";
import { execOk, makeRoot } from "../../_support/helpers.ts";
import { eventually, startDaemon, writeEnv } from "./harness.ts";
import { startScriptedServer } from "./scripted_server.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

function env(port: number, extra: Record<string, string | number> = {}) {
  return { IRC_SERVER: "127.0.0.1", IRC_PORT: port, IRC_CHANNEL: "#lemon", IRC_NICK: "ptermbot", ...extra };
}

Deno.test("irc: SASL PLAIN when the server offers it; server-time kept", options, async () => {
  await using server = startScriptedServer({ offerSasl: true, saslPassword: "sasl-pw-1" });
  await using dir = await makeRoot();
  await writeEnv(dir.path, env(server.port, { IRC_SASL_USERNAME: "account", IRC_SASL_PASSWORD: "sasl-pw-1" }));
  await using _daemon = await startDaemon(dir.path);
  assert.equal((await execOk(dir.path, "irc status")).result?.state, "joined");
  assert.ok(server.received.includes("CAP REQ :sasl server-time"), server.received.join("\n"));
  assert.ok(server.received.includes("AUTHENTICATE PLAIN"));
  assert.ok(server.received.includes(`AUTHENTICATE ${btoa("account\0account\0sasl-pw-1")}`));
  const capEnd = server.received.indexOf("CAP END");
  assert.ok(capEnd > server.received.indexOf("AUTHENTICATE PLAIN"), "CAP END only after authentication");
  assert.ok(!server.received.some((l) => l.includes("NickServ")), "no NickServ IDENTIFY after SASL");

  await server.send("@time=2026-01-02T03:04:05.678Z :bob!b@h PRIVMSG #lemon :timed");
  await eventually(async () => (await execOk(dir.path, "irc pull --peek")).result?.returned === 1);
  const message = ((await execOk(dir.path, "irc pull")).result?.messages as Record<string, string>[])[0];
  assert.equal(message.server_time, "2026-01-02T03:04:05.678Z");
  assert.equal(message.nick, "bob");
});

Deno.test("irc: a wrong SASL password ends in SaslFailed", options, async () => {
  await using server = startScriptedServer({ offerSasl: true, saslPassword: "right" });
  await using dir = await makeRoot();
  await writeEnv(dir.path, env(server.port, { IRC_NICKSERV_PASSWORD: "wrong-one" }));
  await using daemon = await startDaemon(dir.path);
  const status = await execOk(dir.path, "irc status");
  assert.equal(status.result?.state, "error");
  assert.equal((status.result?.last_error as { error_code: string }).error_code, "SaslFailed");
  // IRC_SASL_PASSWORD defaults to IRC_NICKSERV_PASSWORD, and the account to the nick.
  assert.ok(server.received.includes(`AUTHENTICATE ${btoa("ptermbot\0ptermbot\0wrong-one")}`));
  assert.ok(!daemon.stderr().includes("wrong-one"));
});

Deno.test("irc: NickServ IDENTIFY when the server has no SASL", options, async () => {
  await using server = startScriptedServer({ offerSasl: false });
  await using dir = await makeRoot();
  await writeEnv(dir.path, env(server.port, { IRC_NICKSERV_PASSWORD: "ns-pass-9" }));
  await using _daemon = await startDaemon(dir.path);
  assert.equal((await execOk(dir.path, "irc status")).result?.state, "joined");
  assert.ok(!server.received.some((l) => l.startsWith("AUTHENTICATE")));
  assert.ok(server.received.includes("CAP END"));
  await server.waitFor((l) => l === "PRIVMSG NickServ :IDENTIFY ns-pass-9");
  const identify = server.received.indexOf("PRIVMSG NickServ :IDENTIFY ns-pass-9");
  assert.ok(identify < server.received.findIndex((l) => l.startsWith("JOIN")), "identify before joining");
});
