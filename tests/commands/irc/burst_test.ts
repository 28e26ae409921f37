/**
 * 10,000 inbound messages in one burst: the in-memory ring keeps the newest
 * IRC_BUFFER_MESSAGES (default 1000), `dropped_count` says exactly how many the next pull
 * missed, and the JSONL log has every one of them, in order.
 */

import assert from "node:assert/strict";
import { join } from "../../../core/fs/path.ts";
import { DEFAULTS } from "../../../commands/irc/config.ts";
import { execOk, makeRoot } from "../../_support/helpers.ts";
import { eventually, plainEnv, startDaemon, writeEnv } from "./harness.ts";
import { startNgircd } from "./ngircd.ts";
import { Peer } from "./peer.ts";

const BURST = 10_000;

Deno.test("irc: a burst of 10,000 messages", { sanitizeOps: false, sanitizeResources: false }, async () => {
  await using server = await startNgircd();
  await using dir = await makeRoot();
  await writeEnv(dir.path, plainEnv(server));
  await using _daemon = await startDaemon(dir.path);
  const peer = await Peer.connect(server.plainPort, "flood", server.password, {
    oper: { name: server.operName, password: server.operPassword },
  });
  try {
    await peer.join("#lemon");
    await execOk(dir.path, "irc status");
    for (let start = 0; start < BURST; start += 500) {
      const lines = Array.from(
        { length: Math.min(500, BURST - start) },
        (_, i) => `PRIVMSG #lemon :burst ${start + i}`,
      );
      await peer.raw(...lines);
    }
    const log = join(dir.path, "sessions", "default", "irc", "messages", "#lemon.jsonl");
    const count = async () => (await Deno.readTextFile(log).catch(() => "")).split("\n").filter(Boolean).length;
    await eventually(async () => (await count()) === BURST, 90_000, "all 10,000 messages in the JSONL log");

    const lines = (await Deno.readTextFile(log)).trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(lines.length, BURST);
    lines.forEach((m, i) => {
      assert.equal(m.id, String(i + 1));
      assert.equal(m.text, `burst ${i}`);
      assert.equal(m.nick, "flood");
    });

    const capacity = DEFAULTS.bufferMessages;
    const pull = await execOk(dir.path, "irc pull --limit 1000");
    assert.equal(pull.result?.dropped_count, BURST - capacity);
    assert.equal(pull.result?.remaining, 0);
    assert.equal((pull.result?.returned as number) + (pull.result?.omitted_count as number), capacity);
    const messages = pull.result?.messages as { id: string; text: string }[];
    assert.equal(messages[0].id, String(BURST - capacity + 1), "the ring holds the newest messages");
    assert.equal(messages.at(-1)?.text, `burst ${BURST - 1}`);
    assert.equal(pull.result?.cursor_after, String(BURST));
    assert.match(pull.stdout, new RegExp(`${BURST - capacity} earlier messages were dropped`));

    const after = await execOk(dir.path, "irc pull");
    assert.equal(after.result?.returned, 0);
    assert.equal(after.result?.dropped_count, 0);
  } finally {
    await peer.close();
  }
});
