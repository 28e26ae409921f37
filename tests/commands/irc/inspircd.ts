/**
 * A second real IRC server for the irc tests: Debian's InspIRCd 3, started on a free loopback
 * port from a config written to a temp folder — a connection password, an IRC operator,
 * `callerid` (user mode +g: 716/717 refusals) and `services_account` (channel mode +M: 477).
 * It announces CASEMAPPING=rfc1459, where ngIRCd announces ascii. Plain TCP only (the TLS
 * cases run against ngIRCd). As root (as here, in containers) it needs --runasroot.
 *
 * With `services: true` Debian's atheme-services links to it as services.pterm.test (NickServ,
 * SaslServ; InspIRCd's `sasl` module sends SASL there), from a config written here too. Atheme
 * refuses to run as root, so as root it runs as `nobody` through util-linux's setpriv.
 */

import { join } from "../../../core/fs/path.ts";
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

export const ATHEME_BINARY = "atheme-services";
const SERVICES_NAME = "services.pterm.test";

export interface InspircdServer extends IrcServer {
  /** Registers a NickServ account (atheme) for `nick` with `password`; needs `services: true`. */
  registerAccount(nick: string, password: string): Promise<void>;
}

function athemeConfig(dir: string, linkPort: number, linkPassword: string): string {
  return `
loadmodule "modules/protocol/inspircd";
loadmodule "modules/backend/opensex";
loadmodule "modules/crypto/pbkdf2v2";
loadmodule "modules/nickserv/main";
loadmodule "modules/nickserv/identify";
loadmodule "modules/nickserv/register";
loadmodule "modules/saslserv/main";
loadmodule "modules/saslserv/plain";
serverinfo {
  name = "${SERVICES_NAME}"; desc = "pterm test services"; numeric = "00A"; recontime = 1;
  netname = "PtermNet"; hidehostsuffix = "users.pterm.test"; adminname = "pterm";
  adminemail = "pterm@example.invalid"; registeremail = "noreply@example.invalid"; auth = none;
  casemapping = rfc1459; loglevel = { error; info; network; }; maxlogins = 5; maxusers = 5;
  mdlimit = 30; emaillimit = 10; emailtime = 300;
};
uplink "irc.inspircd.test" {
  host = "127.0.0.1"; send_password = "${linkPassword}"; receive_password = "${linkPassword}"; port = ${linkPort};
};
nickserv { nick = "NickServ"; user = "NickServ"; host = "${SERVICES_NAME}"; real = "Nickname Services"; };
saslserv { nick = "SaslServ"; user = "SaslServ"; host = "${SERVICES_NAME}"; real = "SASL Authentication Agent"; };
general {
  helpchan = "#help"; permissive_mode = false; maxnicks = 5; commit_interval = 5; default_clone_allowed = 50;
  default_clone_warn = 40; uplink_sendq_limit = 1048576; flood_msgs = 50; flood_time = 10; kline_time = 7;
  clone_time = 0; language = "en";
};
logfile "${join(dir, "atheme.log")}" { error; info; };
`;
}

export async function startInspircd(
  options: { password?: string; services?: boolean } = {},
): Promise<InspircdServer> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "pterm-inspircd-" }));
  const plainPort = freePort();
  const password = options.password ?? `srv-${crypto.randomUUID().slice(0, 8)}`;
  const operName = "tester";
  const operPassword = `op-${crypto.randomUUID().slice(0, 8)}`;
  const confPath = join(dir, "inspircd.conf");
  const linkPort = freePort();
  const linkPassword = `link-${crypto.randomUUID().slice(0, 8)}`;
  const servicesLines = options.services
    ? [
      `<bind address="127.0.0.1" port="${linkPort}" type="servers">`,
      `<link name="${SERVICES_NAME}" ipaddr="127.0.0.1" port="${linkPort}" allowmask="127.0.0.1" ` +
      `sendpass="${linkPassword}" recvpass="${linkPassword}">`,
      `<uline server="${SERVICES_NAME}" silent="yes">`,
      `<sasl target="${SERVICES_NAME}">`,
      `<module name="spanningtree">`,
      `<module name="sasl">`,
    ]
    : [];
  await Deno.writeTextFile(
    confPath,
    [
      `<server name="irc.inspircd.test" description="pterm test server" network="PtermNet" id="001">`,
      ...servicesLines,
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
  let atheme: Deno.ChildProcess | null = null;
  const startServices = async () => {
    const athemeDir = join(dir, "atheme");
    await Deno.mkdir(join(athemeDir, "data"), { recursive: true });
    await Deno.writeTextFile(join(athemeDir, "atheme.conf"), athemeConfig(athemeDir, linkPort, linkPassword));
    const asRoot = Deno.uid() === 0;
    if (asRoot) {
      await Deno.chmod(dir, 0o755);
      for (const path of [athemeDir, join(athemeDir, "data"), join(athemeDir, "atheme.conf")]) {
        await Deno.chown(path, 65534, 65534);
      }
    }
    const args = [
      "-n",
      "-c",
      join(athemeDir, "atheme.conf"),
      "-D",
      join(athemeDir, "data"),
      "-p",
      join(athemeDir, "atheme.pid"),
      "-l",
      join(athemeDir, "atheme.log"),
    ];
    atheme = new Deno.Command(asRoot ? "setpriv" : ATHEME_BINARY, {
      args: asRoot ? ["--reuid=65534", "--regid=65534", "--clear-groups", ATHEME_BINARY, ...args] : args,
      cwd: athemeDir,
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    // Linked once NickServ answers a WHOIS.
    const deadline = Date.now() + 20_000;
    while (true) {
      const { Peer } = await import("./peer.ts");
      const probe = await Peer.connect(plainPort, `svc${crypto.randomUUID().slice(0, 5)}`, password);
      const from = probe.lines.length;
      await probe.raw("WHOIS NickServ");
      const reply = await probe.waitFor((l) => l.command === "311" || l.command === "401", 5_000, "WHOIS", from);
      await probe.close();
      if (reply.command === "311") return;
      if (Date.now() > deadline) throw new Error("atheme did not link to inspircd within 20 s");
      await new Promise((r) => setTimeout(r, 200));
    }
  };
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
    const services = atheme as Deno.ChildProcess | null;
    atheme = null;
    if (services) {
      try {
        services.kill("SIGKILL");
      } catch { /* gone */ }
      await services.status;
    }
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
  if (options.services) await startServices();
  return {
    async registerAccount(nick: string, accountPassword: string) {
      const { Peer } = await import("./peer.ts");
      const peer = await Peer.connect(plainPort, nick, password);
      try {
        await peer.raw(`PRIVMSG NickServ :REGISTER ${accountPassword} ${nick}@example.invalid`);
        await peer.waitFor(
          (l) => l.command === "NOTICE" && /is now registered/.test(l.params.at(-1) ?? ""),
          10_000,
          "NickServ REGISTER",
        );
      } finally {
        await peer.close();
      }
    },
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
