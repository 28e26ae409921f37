/**
 * What goes over the wire and what comes back, against a real ngIRCd: CR/LF can never start
 * a raw command, a 10 KB text is split on UTF-8 boundaries within IRC's 512-byte line (as
 * relayed) without a flood kick, inbound text is sanitised, two channels keep their own
 * cursors, and pull bounds long batches (head + [...TRUNCATED...] + tail, artifact for full).
 */

import assert from "node:assert/strict";
import { join } from "../../../core/fs/path.ts";
import { TRUNCATION_MARKER } from "../../../core/truncate.ts";
import { exec, execOk, makeRoot } from "../../_support/helpers.ts";
import { eventually, plainEnv, startDaemon, writeEnv } from "./harness.ts";
import { startNgircd } from "./ngircd.ts";
import { Peer } from "./peer.ts";

const options = { sanitizeOps: false, sanitizeResources: false };
const encoder = new TextEncoder();

interface Message {
  id: string;
  nick: string;
  text: string;
  kind: string;
  truncated?: true;
}

Deno.test("irc messages: injection, long texts, sanitising, cursors, truncation", options, async (t) => {
  await using server = await startNgircd();
  await using dir = await makeRoot();
  await writeEnv(dir.path, plainEnv(server));
  await using _daemon = await startDaemon(dir.path);
  // An IRC operator with +F, so the peer's own bursts are not throttled by the server.
  const peer = await Peer.connect(server.plainPort, "alice", server.password, {
    oper: { name: server.operName, password: server.operPassword },
  });
  try {
    await peer.join("#lemon");
    await execOk(dir.path, "irc status");

    await t.step("CR/LF in a text become separate PRIVMSGs, never raw commands", async () => {
      const stdin = "hello\r\nQUIT :bye\r\nJOIN #evil\rNICK evil\nPRIVMSG alice :\x01DCC SEND x\x01\n";
      const envelope = await execOk(dir.path, "irc send --text-stdin", { stdin });
      assert.equal(envelope.result?.lines, 5);
      await peer.waitFor((l) => l.command === "PRIVMSG" && l.params[1].startsWith("PRIVMSG alice"));
      assert.deepEqual(peer.messagesFrom("ptermbot").map((l) => [l.params[0], l.params[1]]), [
        ["#lemon", "hello"],
        ["#lemon", "QUIT :bye"],
        ["#lemon", "JOIN #evil"],
        ["#lemon", "NICK evil"],
        ["#lemon", "PRIVMSG alice :DCC SEND x"],
      ]);
      const status = await execOk(dir.path, "irc status");
      assert.equal(status.result?.state, "joined");
      assert.equal(status.result?.nick, "ptermbot");
      const from = peer.lines.length;
      await peer.raw("WHOIS ptermbot");
      const channels = await peer.waitFor((l) => l.command === "319", 5_000, "WHOIS channels", from);
      assert.equal(channels.params.at(-1)?.trim().replace(/^[@+]/, ""), "#lemon", "pterm did not join #evil");
    });

    await t.step(
      "a 10 KB text: split on UTF-8 boundaries, each relayed line within 512 bytes, no flood kick",
      async () => {
        const unit = "pterm é 你好 🍋 ";
        let text = "";
        while (encoder.encode(text + unit).length <= 10 * 1024) text += unit;
        text = text.trimEnd();
        const before = peer.messagesFrom("ptermbot").length;
        const envelope = await execOk(dir.path, "irc send --text-stdin", { stdin: text, timeoutMs: 120_000 });
        const lines = envelope.result?.lines as number;
        assert.ok(lines >= 21, `${lines} lines`);
        assert.equal(envelope.result?.message_len, [...text].length);
        const got = (await peer.waitForCount(
          (l) => l.command === "PRIVMSG" && l.prefix.startsWith("ptermbot!"),
          before + lines,
          60_000,
        ))
          .slice(before);
        assert.equal(got.map((l) => l.params[1]).join(""), text, "the pieces join back to the text");
        for (const line of got) {
          assert.ok(
            encoder.encode(line.raw).length + 2 <= 512,
            `relayed line of ${encoder.encode(line.raw).length} bytes`,
          );
          assert.ok(!line.params[1].includes("\uFFFD"), "no character was cut in half");
        }
        assert.equal((await execOk(dir.path, "irc status")).result?.state, "joined", "still joined: no flood kick");
      },
    );

    await t.step("inbound text is sanitised: no escapes, IRC formatting or bidi controls", async () => {
      await peer.say(
        "#lemon",
        "\x1b[31mred\x1b[0m \x02bold\x02 \x0304,01colour\x03 \u202Eevil\x07 \x1b]0;title\x07done",
      );
      await peer.say("#lemon", "\x01ACTION waves\x01");
      await peer.say("#lemon", "\x01VERSION\x01");
      await peer.raw("NOTICE #lemon :a notice");
      await peer.sync();
      await eventually(async () => (await execOk(dir.path, "irc pull --peek")).result?.returned === 3);
      const pulled = await execOk(dir.path, "irc pull");
      const messages = pulled.result?.messages as Message[];
      assert.deepEqual(messages.map((m) => [m.kind, m.text]), [
        ["privmsg", "red bold colour evil done"],
        ["action", "waves"],
        ["notice", "a notice"],
      ]);
      // deno-lint-ignore no-control-regex
      assert.ok(!/[\x00-\x1f\x7f]/.test(pulled.stdout.replaceAll("\n", "")), "stdout has no control characters");
      const log = await Deno.readTextFile(join(dir.path, "sessions", "default", "irc", "messages", "#lemon.jsonl"));
      assert.ok(!log.includes("\\u001b") && !log.includes("\\u202e"), "the JSONL log holds sanitised text");
    });

    await t.step("two channels keep their own cursors", async () => {
      await execOk(dir.path, 'irc send --to #other --confirm --text "joining"');
      await peer.join("#other");
      await peer.say("#other", "o1");
      await peer.say("#lemon", "l1");
      await peer.say("#other", "o2");
      await peer.sync();
      await eventually(async () => (await execOk(dir.path, "irc pull --peek --from #other")).result?.returned === 2);
      const other = await execOk(dir.path, "irc pull --from #other");
      assert.deepEqual((other.result?.messages as Message[]).map((m) => [m.id, m.text]), [["1", "o1"], ["2", "o2"]]);
      assert.equal(other.result?.cursor_after, "2");
      const lemon = await execOk(dir.path, "irc pull");
      assert.deepEqual((lemon.result?.messages as Message[]).map((m) => m.text), ["l1"]);
      assert.equal(lemon.result?.cursor_before, "3");
      await peer.say("#other", "o3");
      await peer.sync();
      await eventually(async () => (await execOk(dir.path, "irc pull --peek --from #other")).result?.returned === 1);
      assert.equal((await execOk(dir.path, "irc pull")).result?.returned, 0, "#lemon has nothing new");
      const again = await execOk(dir.path, "irc pull --from #other");
      assert.deepEqual((again.result?.messages as Message[]).map((m) => m.text), ["o3"]);
    });

    await t.step("a long batch: head + [...TRUNCATED...] + tail; cut texts; full spills to an artifact", async () => {
      const long = "x".repeat(200) + " middle " + "y".repeat(200);
      const lines = Array.from({ length: 40 }, (_, i) => `PRIVMSG #lemon :${i} ${long}`);
      await peer.raw(...lines);
      await peer.sync();
      await eventually(async () => (await execOk(dir.path, "irc pull --peek")).result?.returned !== 0);
      await eventually(async () => {
        const peek = await execOk(dir.path, "irc pull --peek --format full");
        return (peek.result?.returned as number) + (peek.result?.omitted_count as number) === 40;
      });

      const full = await execOk(dir.path, "irc pull --peek --format full");
      assert.equal(full.result?.truncated, true);
      assert.ok((full.result?.omitted_count as number) > 0);
      assert.ok((full.result?.messages as Message[]).every((m) => m.truncated === undefined), "full keeps texts whole");
      const artifact = full.result?.artifact as string;
      assert.ok(artifact, "the whole batch went to an artifact");
      assert.ok(full.artifacts.some((a) => a.path === artifact));
      const saved = (await Deno.readTextFile(join(dir.path, artifact))).trim().split("\n").map((l) => JSON.parse(l));
      assert.equal(saved.length, 40);
      assert.equal(saved[39].text, `39 ${long}`);

      const summary = await execOk(dir.path, "irc pull");
      const messages = summary.result?.messages as Message[];
      assert.equal(summary.result?.truncated, true);
      assert.equal(messages.length + (summary.result?.omitted_count as number), 40);
      assert.equal(messages[0].text.startsWith("0 xxx"), true, "the head starts with the first message");
      assert.equal(messages.at(-1)?.text.endsWith("yyy"), true);
      assert.ok(messages.at(-1)!.text.startsWith("39 "), "the tail ends with the last message");
      for (const m of messages) {
        assert.equal(m.truncated, true);
        assert.ok(encoder.encode(m.text).length <= 300);
        assert.ok(m.text.includes(TRUNCATION_MARKER));
      }
      assert.ok(summary.stdout.includes(`${TRUNCATION_MARKER} ${summary.result?.omitted_count} messages left out`));
      const ids = messages.map((m) => Number(m.id));
      assert.equal(summary.result?.cursor_after, String(ids.at(-1)), "the cursor moves to the tail's last message");
      // The cursor moved past the messages left out only because they are saved whole and named.
      const summaryArtifact = summary.result?.artifact as string;
      assert.ok(summaryArtifact, "a summary that leaves messages out names an artifact holding them");
      assert.ok(summary.stdout.includes(`the whole batch: ${summaryArtifact}`));
      const kept = (await Deno.readTextFile(join(dir.path, summaryArtifact))).trim().split("\n").map((l) =>
        JSON.parse(l) as Message
      );
      assert.deepEqual(kept.map((m) => m.id), saved.map((m) => m.id), "every message of the batch, omitted ones too");
      assert.equal((await execOk(dir.path, "irc pull")).result?.returned, 0, "nothing is shown twice");
    });

    await t.step("bad targets are refused before anything is sent", async () => {
      const envelope = await exec(dir.path, 'irc send --to "#bad,#worse" --confirm --text x');
      assert.equal(envelope.error_code, "InvalidArgs");
      const empty = await exec(dir.path, "irc send --text-stdin", { stdin: "\x01\x02\n\n" });
      assert.equal(empty.error_code, "InvalidArgs");
      const both = await exec(dir.path, "irc send --text a --text-stdin", { stdin: "b" });
      assert.equal(both.error_code, "InvalidArgs");
    });
  } finally {
    await peer.close();
  }
});
