/**
 * Running `pterm irc-daemon` as the host would: a real `deno run main.ts irc-daemon` process,
 * with the .env written into the workspace root first.
 */

import { join } from "../../../core/fs/path.ts";
import { ENV_REL_PATH } from "../../../commands/irc/config.ts";
import { SOCKET_NAME } from "../../../commands/irc/daemon_protocol.ts";
import { ptermArgs } from "../../_support/helpers.ts";
import type { IrcServer } from "./ngircd.ts";

export async function writeEnv(root: string, values: Record<string, string | number>): Promise<string> {
  const path = join(root, ...ENV_REL_PATH.split("/"));
  await Deno.mkdir(join(path, ".."), { recursive: true });
  const text = Object.entries(values).map(([k, v]) => `${k}=${v}`).join("\n") + "\n";
  await Deno.writeTextFile(path, text);
  return path;
}

/** The .env of a plain connection to `server`, throttled lightly so tests stay fast. */
export function plainEnv(server: IrcServer, overrides: Record<string, string | number> = {}) {
  return {
    IRC_SERVER: server.host,
    IRC_PORT: server.plainPort,
    IRC_TLS: 0,
    IRC_CHANNEL: "#lemon",
    IRC_NICK: "ptermbot",
    IRC_SERVER_PASSWORD: server.password,
    IRC_SEND_INTERVAL_MS: 100,
    ...overrides,
  };
}

export interface Daemon extends AsyncDisposable {
  readonly pid: number;
  readonly socketPath: string;
  /** Everything the daemon printed so far. */
  stdout(): string;
  stderr(): string;
  /** Sends a signal and waits for the exit. */
  stop(signal?: Deno.Signal): Promise<Deno.CommandStatus>;
  readonly status: Promise<Deno.CommandStatus>;
}

export interface StartOptions {
  readonly session?: string;
  /** Wait for the socket (default); false for a daemon expected to refuse to start. */
  readonly waitReady?: boolean;
}

export async function startDaemon(root: string, options: StartOptions = {}): Promise<Daemon> {
  const session = options.session ?? "default";
  const socketPath = join(root, "sessions", session, SOCKET_NAME);
  const child = new Deno.Command(Deno.execPath(), {
    args: ptermArgs(["irc-daemon", "--session", session, "--root", root]),
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let out = "";
  let err = "";
  const collect = async (stream: ReadableStream<Uint8Array>, add: (s: string) => void) => {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) add(chunk);
  };
  const collected = Promise.all([collect(child.stdout, (s) => out += s), collect(child.stderr, (s) => err += s)]);
  const status = child.status.then(async (s) => {
    await collected;
    return s;
  });
  let exited = false;
  status.then(() => exited = true);
  if (options.waitReady !== false) {
    const deadline = Date.now() + 20_000;
    while (!err.includes("listening on")) {
      if (exited) throw new Error(`the daemon exited while starting:\n${err}`);
      if (Date.now() > deadline) throw new Error(`the daemon did not start:\n${err}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  const stop = async (signal: Deno.Signal = "SIGTERM") => {
    if (!exited) {
      try {
        child.kill(signal);
      } catch { /* gone */ }
    }
    return await status;
  };
  return {
    pid: child.pid,
    socketPath,
    stdout: () => out,
    stderr: () => err,
    stop,
    status,
    async [Symbol.asyncDispose]() {
      await stop("SIGKILL");
    },
  };
}

/** Every file under `dir` (recursively), except those `skip` names. */
export async function* filesUnder(dir: string, skip: (path: string) => boolean = () => false): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (skip(path)) continue;
    if (entry.isDirectory) yield* filesUnder(path, skip);
    else if (entry.isFile) yield path;
  }
}

/** Polls `check` until it returns true. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  what = "it",
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
