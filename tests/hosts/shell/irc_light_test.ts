/**
 * The prompt's IRC light against a real ngIRCd and a real `pterm irc-daemon`: red while no
 * daemon answers, green once the daemon has joined, red again when the server dies — all while
 * the shell sits idle at its prompt. It shows the state only: no server, channel or nick.
 */

import assert from "node:assert/strict";
import { makeRoot } from "../../_support/helpers.ts";
import { plainEnv, startDaemon, writeEnv } from "../../commands/irc/harness.ts";
import { startNgircd } from "../../commands/irc/ngircd.ts";
import { TerminalShell } from "./tmux.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

/** The last prompt line on the screen. */
function lastPrompt(screen: string): string {
  return screen.split("\n").filter((line) => line.startsWith("agent-7 ● IRC")).at(-1) ?? "";
}

Deno.test("the IRC light follows the session's daemon while the shell is idle", options, async () => {
  await using server = await startNgircd();
  await using root = await makeRoot();
  await writeEnv(root.path, plainEnv(server));
  await using shell = await TerminalShell.start({ root: root.path, env: { NO_COLOR: "1" } });
  const red = await shell.waitFor((s) => lastPrompt(s) === "agent-7 ● IRC:red › ");
  // The red light says why, once, with the line that fixes it: the one the daemon is started with here.
  const reason = /^IRC:red: no irc daemon answers for session agent-7\. .*: pterm (irc-daemon .*)$/m.exec(red);
  assert.ok(reason, red);
  assert.equal(reason[1], `irc-daemon --session agent-7 --root ${JSON.stringify(root.path)}`);

  await using daemon = await startDaemon(root.path, { session: "agent-7" });
  const joined = await shell.waitFor((s) => lastPrompt(s) === "agent-7 ● IRC:green › ");
  for (const detail of ["#lemon", "ptermbot", "127.0.0.1", String(server.plainPort)]) {
    assert.ok(!joined.includes(detail), `the prompt shows no ${detail}`);
  }

  await server.kill();
  await shell.waitFor((s) => lastPrompt(s) === "agent-7 ● IRC:red › ");
  // The reason shows above the next prompt: the daemon's own error this time, and where to read it in full.
  await shell.line("");
  const lost = await shell.waitFor(/^IRC:red: the irc daemon (reports an error|is connected|has not)/m);
  assert.match(lost, /`irc status`/);
  await daemon.stop();
});

Deno.test("with colour the light is the dot's colour: green once joined", options, async () => {
  await using server = await startNgircd();
  await using root = await makeRoot();
  await writeEnv(root.path, plainEnv(server));
  await using _daemon = await startDaemon(root.path, { session: "agent-7" });
  await using shell = await TerminalShell.start({ root: root.path });
  await shell.waitForPrompt();
  const deadline = Date.now() + 20_000;
  while (!(await shell.screenWithColours()).includes("\x1b[32m●")) {
    if (Date.now() > deadline) throw new Error(`no green light:\n${await shell.screenWithColours()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
});

Deno.test("yellow while the daemon connects to a server that never answers", options, async () => {
  // A TCP server that accepts and stays silent: registration never completes.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    try {
      for await (const conn of listener) held.push(conn);
    } catch { /* closed */ }
  })();
  try {
    await using root = await makeRoot();
    await writeEnv(root.path, {
      IRC_SERVER: "127.0.0.1",
      IRC_PORT: (listener.addr as Deno.NetAddr).port,
      IRC_CHANNEL: "#lemon",
      IRC_NICK: "ptermbot",
    });
    await using _daemon = await startDaemon(root.path, { session: "agent-7" });
    await using shell = await TerminalShell.start({ root: root.path, env: { NO_COLOR: "1" } });
    await shell.waitFor((s) => lastPrompt(s) === "agent-7 ● IRC:yellow › ");
    // Yellow is shown from the daemon's first attempt; the accept may land a moment later on a loaded machine.
    const connected = Date.now() + 10_000;
    while (held.length === 0 && Date.now() < connected) await new Promise((r) => setTimeout(r, 50));
    assert.ok(held.length >= 1, "the daemon did connect");
  } finally {
    listener.close();
    for (const conn of held) conn.close();
    await accepting;
  }
});
