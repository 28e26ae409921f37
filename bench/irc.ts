// deno-lint-ignore-file no-console -- a script: printing is its output
/**
 * irc: how long a message takes through pterm, against a plain IRC client through the same
 * ngIRCd in the same run, and what the daemon costs in memory while idle.
 *
 * - send → receive: from the start of `irc send` to the other client reading the line
 *   (in-process kernel, and the whole `pterm exec` process); baseline: a raw client's PRIVMSG
 *   to the same reader.
 * - arrive → pull: from the other client writing a message to `irc pull` returning it
 *   (pulling in a loop); baseline: the same message reaching a raw client.
 * - idle RSS of the daemon (VmRSS in /proc), next to an idle `deno run` and to ngIRCd.
 *
 * Iterations are spaced so neither side hits ngIRCd's per-client flood penalty.
 * `deno run -A bench/irc.ts [--quick]`
 */

import { commands } from "../commands/index.ts";
import { Registry } from "../core/registry.ts";
import { execute } from "../core/runtime.ts";
import { CODE_DIRS, makeRoot } from "../tests/_support/helpers.ts";
import { plainEnv, startDaemon, writeEnv } from "../tests/commands/irc/harness.ts";
import { startNgircd } from "../tests/commands/irc/ngircd.ts";
import { Peer } from "../tests/commands/irc/peer.ts";
import { processMemoryKiB, ptermCommand, quick } from "./_timing.ts";

const ROUNDS = quick ? 8 : 40;
const CLI_ROUNDS = quick ? 3 : 10;
const SPACING_MS = 400;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function stats(samples: number[]): { median: number; p90: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5), p90: at(0.9) };
}

await using server = await startNgircd();
await using dir = await makeRoot("pterm-bench-irc-");
// No client-side pacing in the way of a single message: the spacing above keeps us polite.
await writeEnv(dir.path, plainEnv(server, { IRC_SEND_BURST: 20, IRC_SEND_INTERVAL_MS: 50 }));
await using daemon = await startDaemon(dir.path);
const reader = await Peer.connect(server.plainPort, "reader", server.password);
const writer = await Peer.connect(server.plainPort, "writer", server.password);
const kernel = { registry: new Registry(commands), codeDirs: CODE_DIRS };
const run = async (line: string) => {
  const envelope = await execute(kernel, {
    root: dir.path,
    session: "default",
    line,
    stdin: { kind: "none" },
    terminal: { color: false },
  });
  if (envelope.exit_code !== 0) throw new Error(`${line}: ${envelope.stderr}`);
  return envelope;
};

try {
  await reader.join("#lemon");
  await writer.join("#lemon");
  await run("irc status");
  await run("irc pull");
  await sleep(1_000);

  const received = async (text: string, from: number) =>
    (await reader.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === text, 20_000, text, from)).at;

  // send → receive
  const ptermSend: number[] = [];
  const rawSend: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    let from = reader.lines.length;
    let started = performance.now();
    await run(`irc send --text "bench ${i}"`);
    ptermSend.push((await received(`bench ${i}`, from)) - started);
    await sleep(SPACING_MS);
    from = reader.lines.length;
    started = performance.now();
    await writer.say("#lemon", `raw ${i}`);
    rawSend.push((await received(`raw ${i}`, from)) - started);
    await sleep(SPACING_MS);
  }
  const cliSend: number[] = [];
  for (let i = 0; i < CLI_ROUNDS; i++) {
    const from = reader.lines.length;
    const started = performance.now();
    const output = await new Deno.Command(ptermCommand()[0], {
      args: [...ptermCommand().slice(1), "exec", "--root", dir.path, `irc send --text "cli ${i}"`],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
    if (!output.success) throw new Error("pterm exec irc send failed");
    cliSend.push((await received(`cli ${i}`, from)) - started);
    await sleep(SPACING_MS);
  }

  // arrive → pull
  const arriveToPull: number[] = [];
  const pullCall: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const text = `incoming ${i}`;
    const started = performance.now();
    await writer.say("#lemon", text);
    while (true) {
      const envelope = await run("irc pull");
      if ((envelope.result?.messages as { text: string }[]).some((m) => m.text === text)) break;
    }
    arriveToPull.push(performance.now() - started);
    const callStarted = performance.now();
    await run("irc pull");
    pullCall.push(performance.now() - callStarted);
    await sleep(SPACING_MS);
  }
  // The kernel's own floor for one call (sandbox worker, audit), for the pull row.
  const helloCall: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const started = performance.now();
    await run("hello");
    helloCall.push(performance.now() - started);
  }

  // idle memory
  await sleep(2_000);
  const daemonRss = processMemoryKiB(daemon.pid, "VmRSS");
  const idle = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-worker-options", "data:text/javascript,setTimeout(()=>{},60000)"],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  await sleep(1_500);
  const idleRss = processMemoryKiB(idle.pid, "VmRSS");
  idle.kill("SIGKILL");
  await idle.status;
  const ngircdRss = processMemoryKiB(server.pid()!, "VmRSS");

  const ms = (n: number) => n.toFixed(1);
  const rows: string[][] = [];
  const row = (what: string, pterm: number[], baselineName: string, baseline: number[] | null) => {
    const p = stats(pterm);
    const b = baseline ? stats(baseline) : null;
    rows.push([
      what,
      ms(p.median),
      ms(p.p90),
      baselineName,
      b ? ms(b.median) : "",
      b ? ms(b.p90) : "",
      b ? `${(p.median / b.median).toFixed(1)}×` : "",
    ]);
  };
  row("irc send → other client has it (in-process kernel)", ptermSend, "raw client PRIVMSG → other client", rawSend);
  row("pterm exec 'irc send' process → other client has it", cliSend, "raw client PRIVMSG → other client", rawSend);
  row("message written → irc pull returns it (pull loop)", arriveToPull, "raw client PRIVMSG → other client", rawSend);
  row("one irc pull call (in-process kernel)", pullCall, "`hello` through the same kernel", helloCall);
  const header = ["measurement (ms)", "pterm median", "pterm p90", "baseline", "median", "p90", "pterm ÷ baseline"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => "| " + cells.map((c, i) => c.padEnd(widths[i])).join(" | ") + " |";
  console.log(
    `## irc latency (${ROUNDS} rounds, ${CLI_ROUNDS} CLI rounds; ngIRCd on loopback; Deno ${Deno.version.deno})\n`,
  );
  console.log([line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n"));

  const mem = [
    ["pterm irc-daemon, connected and idle", daemonRss],
    ["deno run of an idle one-liner (runtime floor)", idleRss],
    ["ngircd (the server)", ngircdRss],
  ] as const;
  console.log("\n## idle memory (VmRSS)\n");
  console.log("| process | RSS MiB |\n| --- | --- |");
  for (const [name, kib] of mem) console.log(`| ${name} | ${(kib / 1024).toFixed(1)} |`);
} finally {
  await reader.close();
  await writer.close();
}
