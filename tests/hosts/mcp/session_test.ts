/**
 * The server is one agent session: its IRC connection (the irc daemon's code, in the server's
 * process) lives as long as the server and QUITs when the client disconnects or the server gets
 * SIGTERM — seen by another client on a real ngIRCd.
 */

import assert from "node:assert/strict";
import { makeRoot } from "../../_support/helpers.ts";
import { plainEnv, writeEnv } from "../../commands/irc/harness.ts";
import { startNgircd } from "../../commands/irc/ngircd.ts";
import { Peer } from "../../commands/irc/peer.ts";
import { connectLegacy, connectModern } from "./client.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    try {
      Deno.kill(pid, "SIGCONT");
    } catch {
      return true;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

Deno.test(
  "pterm mcp: the session's IRC connection lives with the server and QUITs when it ends",
  options,
  async (t) => {
    await using server = await startNgircd();
    await using dir = await makeRoot();
    await writeEnv(dir.path, plainEnv(server));
    const peer = await Peer.connect(server.plainPort, "alice", server.password);
    try {
      await peer.join("#lemon");

      await t.step("client disconnect (stdin closed): QUIT reaches the channel, the server exits", async () => {
        const { client, pid, stderr } = await connectModern(dir.path, "agent-7");
        const { tools } = await client.listTools();
        assert.equal(tools[0].annotations?.openWorldHint, true, "an IRC server is configured");
        const sent = await client.callTool({
          name: "terminal_exec",
          arguments: { command: 'irc send --text "hello from mcp"' },
        });
        assert.equal(sent.isError, false, JSON.stringify(sent.content));
        await peer.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "hello from mcp", 10_000, "the message");
        const from = peer.lines.length;
        // The same connection serves later calls: no second JOIN.
        const status = await client.callTool({ name: "terminal_exec", arguments: { command: "irc status" } });
        assert.equal((status.structuredContent as { result: { state: string } }).result.state, "joined");
        await client.close();
        const quit = await peer.waitFor(
          (l) => l.command === "QUIT" && l.prefix.startsWith("ptermbot!"),
          10_000,
          "QUIT",
          from,
        );
        assert.match(quit.params[0] ?? "", /pterm session ended/);
        assert.ok(!peer.lines.slice(from).some((l) => l.command === "JOIN" && l.prefix.startsWith("ptermbot!")));
        assert.ok(await gone(pid!), "the server exited");
        assert.match(stderr(), /stopping: sending QUIT/);
      });

      await t.step("SIGTERM: QUIT reaches the channel, the server exits", async () => {
        const { client, pid } = await connectLegacy(dir.path, "agent-8");
        const sent = await client.callTool({
          name: "terminal_exec",
          arguments: { command: 'irc send --text "second session"' },
        });
        assert.equal(sent.isError, false, JSON.stringify(sent.content));
        await peer.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "second session", 10_000, "the message");
        const from = peer.lines.length;
        Deno.kill(pid!, "SIGTERM");
        await peer.waitFor((l) => l.command === "QUIT" && l.prefix.startsWith("ptermbot!"), 10_000, "QUIT", from);
        assert.ok(await gone(pid!), "the server exited");
        await client.close().catch(() => {});
      });
    } finally {
      await peer.close();
    }
  },
);
