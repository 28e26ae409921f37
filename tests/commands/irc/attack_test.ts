/**
 * Security: the NickServ password goes only to a verified NickServ. On a
 * server without services any user can take the nick NickServ; pterm must not send it
 * `IDENTIFY <password>`. Run against both real servers (ngIRCd, InspIRCd): an ordinary user
 * named NickServ gets nothing and `irc status` says why; an IRC operator named NickServ (what
 * WHOIS shows for a network service) gets the IDENTIFY; IRC_NICKSERV_HOSTMASK, when set,
 * must match.
 */

import assert from "node:assert/strict";
import { exec, makeRoot } from "../../_support/helpers.ts";
import { eventually, plainEnv, startDaemon, writeEnv } from "../irc/harness.ts";
import { SERVERS } from "../irc/inspircd.ts";
import { Peer } from "../irc/peer.ts";

const options = { sanitizeOps: false, sanitizeResources: false };
const PASSWORD = "ns-secret-7a1b";

type NickServStatus = { identified: boolean; reason: string } | undefined;

async function nickservStatus(root: string): Promise<NonNullable<NickServStatus>> {
  let status: NickServStatus;
  await eventually(
    async () => {
      status = (await exec(root, "irc status")).result?.nickserv as NickServStatus;
      return status !== undefined;
    },
    15_000,
    "the NickServ decision in irc status",
  );
  return status!;
}

for (const { name, start } of SERVERS) {
  Deno.test(`security: NickServ IDENTIFY never goes to an impostor (${name})`, options, async (t) => {
    await using server = await start();

    const run = async (
      impostorIsOper: boolean,
      extra: Record<string, string> = {},
    ): Promise<{ status: NonNullable<NickServStatus>; got: string[] }> => {
      const nickserv = await Peer.connect(
        server.plainPort,
        "NickServ",
        server.password,
        impostorIsOper ? { oper: { name: server.operName, password: server.operPassword } } : {},
      );
      await using dir = await makeRoot();
      await writeEnv(dir.path, plainEnv(server, { IRC_NICKSERV_PASSWORD: PASSWORD, ...extra }));
      await using daemon = await startDaemon(dir.path);
      try {
        const status = await nickservStatus(dir.path);
        await nickserv.sync();
        const got = nickserv.lines.filter((l) => l.command === "PRIVMSG").map((l) => l.params[1]);
        assert.ok(!daemon.stderr().includes(PASSWORD) && !JSON.stringify(status).includes(PASSWORD));
        return { status, got };
      } finally {
        await daemon.stop();
        await nickserv.close();
      }
    };

    await t.step("an ordinary user named NickServ: no IDENTIFY, and status says why", async () => {
      const { status, got } = await run(false);
      assert.deepEqual(got, [], "the impostor received a message");
      assert.equal(status.identified, false);
      assert.match(status.reason, /ordinary user, not a network service/);
    });

    await t.step("a NickServ WHOIS shows as operator/service: IDENTIFY is sent", async () => {
      const { status, got } = await run(true);
      assert.deepEqual(got, [`IDENTIFY ${PASSWORD}`]);
      assert.equal(status.identified, true);
    });

    await t.step("IRC_NICKSERV_HOSTMASK set and not matching: no IDENTIFY even to an operator", async () => {
      const { status, got } = await run(true, { IRC_NICKSERV_HOSTMASK: "NickServ!*@services.example" });
      assert.deepEqual(got, []);
      assert.equal(status.identified, false);
      assert.match(status.reason, /does not match IRC_NICKSERV_HOSTMASK/);
    });

    await t.step("IRC_NICKSERV_HOSTMASK matching: IDENTIFY is sent", async () => {
      const { status, got } = await run(false, { IRC_NICKSERV_HOSTMASK: "NickServ!*@127.0.0.1" });
      assert.deepEqual(got, [`IDENTIFY ${PASSWORD}`]);
      assert.equal(status.identified, true);
    });

    await t.step("no NickServ on the server at all: nothing sent, status says so", async () => {
      await using dir = await makeRoot();
      await writeEnv(dir.path, plainEnv(server, { IRC_NICKSERV_PASSWORD: PASSWORD }));
      await using daemon = await startDaemon(dir.path);
      const status = await nickservStatus(dir.path);
      assert.equal(status.identified, false);
      assert.match(status.reason, /no user named NickServ/);
      await daemon.stop();
    });
  });
}
