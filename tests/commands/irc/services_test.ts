/**
 * SASL and accounts against real services: InspIRCd linked to Debian's atheme-services. The
 * account is registered with atheme's NickServ by a raw client; pterm logs in with SASL PLAIN
 * (IRC_NICKSERV_PASSWORD, the account's password), the server confirms the login to others
 * (WHOIS 330), and a channel for registered users only (+M) then takes its messages — each
 * send in the ledger against what a peer received. A wrong password is SaslFailed, once.
 */

import assert from "node:assert/strict";
import { exec, makeRoot } from "../../_support/helpers.ts";
import { eventually, plainEnv, startDaemon, writeEnv } from "./harness.ts";
import { startInspircd } from "./inspircd.ts";
import { Ledger } from "./ledger.ts";
import { Peer } from "./peer.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

Deno.test("irc with atheme services on InspIRCd: SASL login, +M channel, wrong password", options, async (t) => {
  await using server = await startInspircd({ services: true });
  await server.registerAccount("ptermbot", "acct-pass-1");
  const watcher = await Peer.connect(server.plainPort, "watcher", server.password, {
    oper: { name: server.operName, password: server.operPassword },
  });
  await watcher.join("#quiet");
  await watcher.raw("MODE #quiet +M");
  const ledger = new Ledger();

  try {
    await t.step("SASL PLAIN with the account's password: logged in, as the server tells others", async () => {
      await using dir = await makeRoot();
      await writeEnv(dir.path, plainEnv(server, { IRC_CHANNEL: "#quiet", IRC_NICKSERV_PASSWORD: "acct-pass-1" }));
      await using daemon = await startDaemon(dir.path);
      const status = await exec(dir.path, "irc status");
      assert.equal(status.result?.state, "joined", JSON.stringify(status.result));
      assert.deepEqual(status.result?.nickserv, {
        identified: true,
        reason: "logged in with SASL; NickServ IDENTIFY was not needed",
      });
      const from = watcher.lines.length;
      await watcher.raw("WHOIS ptermbot");
      const account = await watcher.waitFor((l) => l.command === "330" || l.command === "318", 5_000, "WHOIS", from);
      assert.equal(account.command, "330", "WHOIS shows the account pterm is logged in as");
      assert.equal(account.params[2], "ptermbot");

      // +M admits registered users: now the message goes through, and the ledger says so.
      const lines = ledger.lines(2);
      const envelope = ledger.record(
        lines,
        await exec(dir.path, "irc send --text-stdin", { stdin: lines.join("\n") }),
        watcher,
      );
      assert.equal(envelope.exit_code, 0, envelope.stderr);
      assert.ok(!daemon.stderr().includes("acct-pass-1"));
      await daemon.stop();
    });

    await t.step("the wrong account password: SaslFailed, not retried, nothing sent", async () => {
      await using dir = await makeRoot();
      await writeEnv(dir.path, plainEnv(server, { IRC_CHANNEL: "#quiet", IRC_NICKSERV_PASSWORD: "not-the-one" }));
      await using daemon = await startDaemon(dir.path);
      let status = await exec(dir.path, "irc status");
      await eventually(
        async () => {
          status = await exec(dir.path, "irc status");
          return status.result?.state === "error";
        },
        15_000,
        "the SASL failure",
      );
      assert.equal((status.result?.last_error as { error_code: string }).error_code, "SaslFailed");
      const lines = ledger.lines(1);
      const envelope = ledger.record(
        lines,
        await exec(dir.path, "irc send --text-stdin", { stdin: lines[0] }),
        watcher,
      );
      assert.equal(envelope.error_code, "NotConnected");
      assert.match(envelope.stderr, /\(1 attempt; not retried: another attempt cannot fix this\): SaslFailed/);
      await daemon.stop();
    });

    await watcher.sync();
    ledger.check();
  } finally {
    await watcher.close();
  }
});
