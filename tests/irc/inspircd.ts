/**
 * A second real IRC server for the irc tests: Debian's InspIRCd 3, started on a free loopback
 * port from a config written to a temp folder — a connection password, an IRC operator,
 * `callerid` (user mode +g: 716/717 refusals) and `services_account` (channel mode +M: 477).
 * It announces CASEMAPPING=rfc1459, where ngIRCd announces ascii. Plain TCP only (the TLS
 * cases run against ngIRCd). As root (as here, in containers) it needs --runasroot.
 */

import { join } from "../../core/path.ts";
import { freePort, type IrcServer } from "./ngircd.ts";

export const INSPIRCD_BINARY = "/usr/sbin/inspircd";

async function waitForPort(port: number, timeoutMs: number, alive: () => boolean, log: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!alive()) throw new Error(`inspircd exited while starting:\n${log()}`);
    try {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      conn.close();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`inspircd did not listen on ${port} within ${timeoutMs} ms:\n${log()}`);
}

export async function startInspircd(options: { password?: string } = {}): Promise<IrcServer> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "pterm-inspircd-" }));
  const plainPort = freePort();
  const password = options.password ?? `srv-${crypto.randomUUID().slice(0, 8)}`;
  const operName = "tester";
  const operPassword = `op-${crypto.randomUUID().slice(0, 8)}`;
  const confPath = join(dir, "inspircd.conf");
  await Deno.writeTextFile(
    confPath,
    [
      `<server name="irc.inspircd.test" description="pterm test server" network="PtermNet">`,
      `<admin name="pterm" nick="pterm" email="pterm@example.invalid">`,
      `<bind address="127.0.0.1" port="${plainPort}" type="clients">`,
      // No flood limits worth the name (tests send bursts), no DNS or ident lookups (loopback only).
      `<connect name="main" allow="*" password="${password}" maxchans="50" timeout="20" pingfreq="120" ` +
      `hardsendq="4M" softsendq="4M" recvq="64K" threshold="1000" commandrate="1000000" localmax="1000" ` +
      `globalmax="1000" useident="no" resolvehostnames="no">`,
      `<class name="ServerOperators" commands="*" privs="*" usermodes="*" chanmodes="*" snomasks="*">`,
      `<type name="NetAdmin" classes="ServerOperators">`,
      `<oper name="${operName}" password="${operPassword}" host="*@*" type="NetAdmin">`,
      `<log method="file" type="* -USERINPUT -USEROUTPUT" level="default" target="${join(dir, "ircd.log")}">`,
      `<pid file="${join(dir, "inspircd.pid")}">`,
      `<module name="callerid">`,
      `<module name="services_account">`,
      `<module name="cap">`,
      "",
    ].join("\n"),
  );
  let child: Deno.ChildProcess | null = null;
  let exited = true;
  let logText = "";
  let logDone: Promise<void> = Promise.resolve();

  const start = async () => {
    child = new Deno.Command(INSPIRCD_BINARY, {
      args: ["--nofork", "--runasroot", `--config=${confPath}`],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    exited = false;
    const current = child;
    current.status.then(() => {
      if (child === current) exited = true;
    });
    const collect = async (stream: ReadableStream<Uint8Array>) => {
      for await (const chunk of stream.pipeThrough(new TextDecoderStream())) logText += chunk;
    };
    logDone = Promise.all([collect(current.stdout), collect(current.stderr)]).then(() => {});
    await waitForPort(plainPort, 15_000, () => !exited, () => logText);
  };

  const kill = async () => {
    const current = child;
    if (!current) return;
    try {
      current.kill("SIGKILL");
    } catch { /* already gone */ }
    await current.status;
    await logDone;
    child = null;
    exited = true;
  };

  await start();
  return {
    host: "127.0.0.1",
    plainPort,
    tlsPort: 0,
    password,
    operName,
    operPassword,
    caPem: "",
    dir,
    kill,
    start,
    log: () => logText,
    pid: () => (child as Deno.ChildProcess | null)?.pid ?? null,
    async [Symbol.asyncDispose]() {
      await kill();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

/** Both real servers, for tests that must hold on each. */
export const SERVERS = [
  { name: "ngIRCd", start: async () => (await import("./ngircd.ts")).startNgircd() },
  { name: "InspIRCd", start: startInspircd },
] as const;
