/**
 * `irc send "text"`: the message as the argument means --text, against a real
 * ngIRCd with a second client reading the channel. Giving it two ways, or as several unquoted
 * words, is a usage error that shows the line to run, and nothing is sent.
 */

import assert from "node:assert/strict";
import { exec, execOk, makeRoot } from "../../_support/helpers.ts";
import { plainEnv, startDaemon, writeEnv } from "./harness.ts";
import { startNgircd } from "./ngircd.ts";
import { Peer } from "./peer.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

Deno.test(
  'irc send "text" posts the text as --text does; two ways at once or loose words send nothing',
  options,
  async (t) => {
    await using server = await startNgircd();
    await using dir = await makeRoot();
    await writeEnv(dir.path, plainEnv(server));
    await using _daemon = await startDaemon(dir.path);
    const peer = await Peer.connect(server.plainPort, "alice", server.password);
    try {
      await peer.join("#lemon");
      const received = () => peer.messagesFrom("ptermbot", "#lemon").map((l) => l.params[1]);

      await t.step("the argument is the message", async () => {
        const envelope = await execOk(dir.path, 'irc send "build 42 passed"');
        assert.equal(envelope.result?.delivery, "delivered");
        assert.equal(envelope.result?.message_len, 15);
        await peer.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "build 42 passed");
        await execOk(dir.path, "irc send --to '#lemon' -- '-5 degrees outside'");
        await peer.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "-5 degrees outside");
        await execOk(dir.path, 'irc send --text "same as before"');
        await peer.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "same as before");
      });

      await t.step("refused, with the line to run, and nothing sent", async () => {
        const before = received().length;
        const cases: [string, string | undefined, RegExp][] = [
          ['irc send "one" --text "two"', undefined, /given twice/],
          ['irc send "one" --text-stdin', "two", /from stdin \(--text-stdin\) or on the line, not both/],
          ["irc send build passed", undefined, /quote the message: `irc send "build passed"`/],
          ["irc send '#lemon' hello there", undefined, /write `irc send --to '#lemon' --confirm "hello there"`/],
          ["irc send", undefined, /give the message: `irc send "<text>"`/],
        ];
        for (const [line, stdin, message] of cases) {
          const envelope = await exec(dir.path, line, { stdin });
          assert.equal(envelope.error_code, "InvalidArgs", `${line}: ${envelope.stderr}`);
          assert.match(envelope.stderr, message);
          assert.match(envelope.stderr, /Run `irc send --help`/);
        }
        await execOk(dir.path, 'irc send "marker"');
        await peer.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "marker");
        assert.deepEqual(received().slice(before), ["marker"], "only the marker reached the channel");
      });
    } finally {
      await peer.close();
    }
  },
);
