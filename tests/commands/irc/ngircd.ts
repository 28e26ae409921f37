/**
 * A real IRC server for the irc tests: Debian's ngIRCd, started on loopback on free ports
 * from a config written to a temp folder — a plain port, a TLS port with a certificate signed
 * by a CA made here with openssl, a server password, MaxNickLength = 9 and an IRC operator
 * (so a test client can set user mode +F and send a burst without being throttled).
 */

import { join } from "../../../core/fs/path.ts";

export const NGIRCD_BINARY = "ngircd";

export interface IrcServerOptions {
  readonly password?: string;
  /**
   * Serve TLS with a self-signed certificate (no CA of its own) instead: "ca" as a bare
   * `openssl req -x509` makes it (basicConstraints CA:TRUE), "leaf" with CA:FALSE.
   * `caPem` is then that certificate.
   */
  readonly selfSigned?: "ca" | "leaf";
}

export interface IrcServer extends AsyncDisposable {
  readonly host: string;
  readonly plainPort: number;
  readonly tlsPort: number;
  readonly password: string;
  readonly operName: string;
  readonly operPassword: string;
  /** PEM of the CA that signed the server certificate. */
  readonly caPem: string;
  readonly dir: string;
  /** Kills the server (SIGKILL: a crash, not a shutdown). */
  kill(): Promise<void>;
  /** Starts it again on the same ports. */
  start(): Promise<void>;
  /** The server's log so far (for failure messages). */
  log(): string;
  /** The server process's id (null while it is down). */
  pid(): number | null;
}

async function run(command: string, args: string[], cwd: string): Promise<void> {
  const output = await new Deno.Command(command, { args, cwd, stdout: "null", stderr: "piped" }).output();
  if (!output.success) {
    throw new Error(`${command} ${args.join(" ")} failed: ${new TextDecoder().decode(output.stderr)}`);
  }
}

/** A port nobody listens on right now. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** One self-signed certificate for 127.0.0.1, used as the server's own. */
export async function makeSelfSigned(
  dir: string,
  kind: "ca" | "leaf",
): Promise<{ caPem: string; certPath: string; keyPath: string }> {
  await run("openssl", [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-keyout",
    "self.key",
    "-out",
    "self.pem",
    "-days",
    "2",
    "-subj",
    "/CN=127.0.0.1",
    "-addext",
    "subjectAltName=IP:127.0.0.1,DNS:localhost",
    ...(kind === "leaf" ? ["-addext", "basicConstraints=critical,CA:FALSE"] : []),
  ], dir);
  for (const file of ["self.pem", "self.key"]) await Deno.chmod(join(dir, file), 0o644);
  return {
    caPem: await Deno.readTextFile(join(dir, "self.pem")),
    certPath: join(dir, "self.pem"),
    keyPath: join(dir, "self.key"),
  };
}

/** A CA and a server certificate for 127.0.0.1/localhost signed by it (EC keys: fast to make). */
export async function makeCertificates(dir: string): Promise<{ caPem: string; certPath: string; keyPath: string }> {
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  await run("openssl", [
    "req",
    "-x509",
    ...ec,
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
    "-days",
    "2",
    "-subj",
    "/CN=pterm test CA",
  ], dir);
  await run("openssl", ["req", ...ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1"], dir);
  await Deno.writeTextFile(
    join(dir, "server.ext"),
    "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n" +
      "subjectAltName=IP:127.0.0.1,DNS:localhost\n",
  );
  await run("openssl", [
    "x509",
    "-req",
    "-in",
    "server.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "server.pem",
    "-days",
    "2",
    "-extfile",
    "server.ext",
  ], dir);
  // ngIRCd drops root privileges before it reads nothing more; as another user it must read these.
  for (const file of ["server.pem", "server.key", "ca.pem"]) await Deno.chmod(join(dir, file), 0o644);
  return {
    caPem: await Deno.readTextFile(join(dir, "ca.pem")),
    certPath: join(dir, "server.pem"),
    keyPath: join(dir, "server.key"),
  };
}

async function waitForPort(port: number, timeoutMs: number, alive: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!alive()) throw new Error("ngircd exited while starting");
    try {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      conn.close();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`ngircd did not listen on ${port} within ${timeoutMs} ms`);
}

export async function startNgircd(options: IrcServerOptions = {}): Promise<IrcServer> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "pterm-ngircd-" }));
  await Deno.chmod(dir, 0o755);
  const { caPem, certPath, keyPath } = options.selfSigned
    ? await makeSelfSigned(dir, options.selfSigned)
    : await makeCertificates(dir);
  const plainPort = freePort();
  const tlsPort = freePort();
  const password = options.password ?? `srv-${crypto.randomUUID().slice(0, 8)}`;
  const operName = "tester";
  const operPassword = `op-${crypto.randomUUID().slice(0, 8)}`;
  const confPath = join(dir, "ngircd.conf");
  await Deno.writeTextFile(
    confPath,
    [
      "[Global]",
      "Name = irc.pterm.test",
      "Info = pterm test server",
      "Listen = 127.0.0.1",
      `Ports = ${plainPort}`,
      `Password = ${password}`,
      "MotdPhrase = pterm tests",
      "[Limits]",
      "MaxNickLength = 9",
      "PingTimeout = 120",
      "PongTimeout = 20",
      "MaxConnectionsIP = 0",
      "[Options]",
      "PAM = no",
      "Ident = no",
      "DNS = no",
      "OperCanUseMode = yes",
      "[SSL]",
      `CertFile = ${certPath}`,
      `KeyFile = ${keyPath}`,
      `Ports = ${tlsPort}`,
      "[Operator]",
      `Name = ${operName}`,
      `Password = ${operPassword}`,
      "",
    ].join("\n"),
  );
  let child: Deno.ChildProcess | null = null;
  let exited = true;
  let logText = "";
  let logDone: Promise<void> = Promise.resolve();

  const start = async () => {
    child = new Deno.Command(NGIRCD_BINARY, {
      args: ["-n", "-f", confPath],
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
    await waitForPort(plainPort, 15_000, () => !exited);
    await waitForPort(tlsPort, 15_000, () => !exited);
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
    tlsPort,
    password,
    operName,
    operPassword,
    caPem,
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
