/**
 * What skills/irc-cli's examples need: a real ngIRCd, the .env in the fresh root, the
 * session's daemon, and "alice", a client in #lemon who answers every message of pterm's
 * with an echo (so a private message to her succeeds and a pull has something to show).
 */

import { plainEnv, startDaemon, writeEnv } from "./harness.ts";
import { startNgircd } from "./ngircd.ts";
import { Peer } from "./peer.ts";

export async function ircSkillSetup(root: string): Promise<() => Promise<void>> {
  const server = await startNgircd();
  await writeEnv(root, plainEnv(server));
  const daemon = await startDaemon(root);
  const alice = await Peer.connect(server.plainPort, "alice", server.password);
  await alice.join("#lemon");
  let stop = false;
  const echoing = (async () => {
    let seen = 0;
    while (!stop) {
      const line = await alice.waitFor(
        (l) => l.command === "PRIVMSG" && l.prefix.startsWith("ptermbot!"),
        500,
        "",
        seen,
      )
        .catch(() => null);
      if (!line) continue;
      seen = alice.lines.indexOf(line) + 1;
      const target = line.params[0] === "alice" ? "ptermbot" : line.params[0];
      await alice.say(target, `echo: ${line.params[1]}`);
    }
  })();
  return async () => {
    stop = true;
    await echoing;
    await alice.close();
    await daemon.stop("SIGTERM");
    await server[Symbol.asyncDispose]();
  };
}
