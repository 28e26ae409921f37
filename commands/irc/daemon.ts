/**
 * `pterm irc-daemon --session ID [--root DIR]`: the host-side process that owns one agent
 * session's IRC connection. It runs in the foreground for the life of the session, listens
 * on `<root>/sessions/ID/irc.sock` (owner-only), refuses to run twice for a session (an
 * flock on `irc.lock`, released by the OS even when a daemon is killed), replaces a stale
 * socket, and on SIGINT/SIGTERM sends QUIT, closes and removes its socket.
 *
 * It is host code, started by the agent host (not the agent): it reads the secrets file
 * directly, and runs the IRC connection in a Worker allowed only `net` to the server.
 */

import { resolveWorkspace } from "../../core/host/workspace.ts";
import type { CliIo } from "../../core/host/io.ts";
import { type ErrorCode, isErrorCode, PtermError } from "../../core/errors.ts";
import { IRC_ERROR_CODES } from "./error_codes.ts";
import { join } from "../../core/fs/path.ts";
import { DEFAULTS, loadConfig } from "./config.ts";
import {
  type DaemonRequest,
  type DaemonResponse,
  LOCK_NAME,
  MAX_FRAME_BYTES,
  PROTOCOL_VERSION,
  SOCKET_NAME,
  STATE_DIR,
} from "./daemon_protocol.ts";
import { IrcSession } from "./session.ts";
import { MessageStore } from "./store.ts";
import { concatBytes } from "../../core/bytes.ts";

/** Unix socket paths are limited by sockaddr_un (108 bytes on Linux, 104 on macOS, with the NUL). */
const MAX_SOCKET_PATH_BYTES = 103;
const REQUEST_TIMEOUT_MS = 10_000;

export interface DaemonOptions {
  readonly root?: string;
  readonly session?: string;
  /** Stops the daemon like SIGTERM does (for embedding; the CLI uses signals). */
  readonly signal?: AbortSignal;
}

function protocolError(code: ErrorCode, message: string, result?: Record<string, unknown>): DaemonResponse {
  return { v: PROTOCOL_VERSION, ok: false, error: { code, message, ...(result ? { result } : {}) } };
}

function parseRequest(line: string): DaemonRequest {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new PtermError("InvalidArgs", "the request is not JSON");
  }
  const r = value as Record<string, unknown>;
  if (typeof r !== "object" || r === null) throw new PtermError("InvalidArgs", "the request is not a JSON object");
  if (r.v !== PROTOCOL_VERSION) {
    throw new PtermError(
      "DaemonVersionMismatch",
      `the irc daemon speaks protocol v${PROTOCOL_VERSION}, the command sent v${String(r.v)}; the host must restart ` +
        "`pterm irc-daemon` with the same pterm version as the commands.",
    );
  }
  const optionalName = (v: unknown) => v === null || (typeof v === "string" && v.length <= 200);
  switch (r.op) {
    case "status":
      return { v: 1, op: "status" };
    case "send":
      if (optionalName(r.to) && typeof r.text === "string" && typeof r.confirm === "boolean") {
        return { v: 1, op: "send", to: r.to as string | null, text: r.text, confirm: r.confirm };
      }
      break;
    case "pull":
      if (optionalName(r.from) && Number.isInteger(r.limit) && (r.limit as number) >= 1) {
        return { v: 1, op: "pull", from: r.from as string | null, limit: Math.min(r.limit as number, 10_000) };
      }
      break;
    case "commit":
      if (
        typeof r.from === "string" && r.from.length <= 200 && typeof r.cursor_after === "string" &&
        /^\d{1,15}$/.test(r.cursor_after)
      ) {
        return { v: 1, op: "commit", from: r.from, cursor_after: r.cursor_after };
      }
      break;
  }
  throw new PtermError("InvalidArgs", `the request (op ${JSON.stringify(r.op)}) is malformed`);
}

async function readLine(conn: Deno.Conn): Promise<string> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const buffer = new Uint8Array(64 * 1024);
  while (true) {
    const n = await conn.read(buffer);
    if (n === null) break;
    const newline = buffer.subarray(0, n).indexOf(0x0a);
    chunks.push(buffer.slice(0, newline < 0 ? n : newline));
    total += newline < 0 ? n : newline;
    if (newline >= 0) break;
    if (total > MAX_FRAME_BYTES) throw new PtermError("InputTooLarge", "the request is too large");
  }
  return new TextDecoder().decode(concatBytes(chunks));
}

async function writeAll(conn: Deno.Conn, text: string): Promise<void> {
  const bytes = new TextEncoder().encode(text);
  let written = 0;
  while (written < bytes.length) written += await conn.write(bytes.subarray(written));
}

export async function runDaemon(io: CliIo, options: DaemonOptions): Promise<number> {
  if (Deno.build.os === "windows") {
    throw new PtermError(
      "UnsupportedPlatform",
      "pterm irc-daemon needs Unix domain sockets, which pterm supports on Linux and macOS only; the irc " +
        "commands are unavailable on Windows.",
      { helpFor: "pterm irc-daemon" },
    );
  }
  const { root, session: sessionId } = resolveWorkspace(io, options.root, options.session);
  const sessionDir = join(root, "sessions", sessionId);
  const socketPath = join(sessionDir, SOCKET_NAME);
  if (new TextEncoder().encode(socketPath).length > MAX_SOCKET_PATH_BYTES) {
    throw new PtermError(
      "InvalidArgs",
      `the socket path ${socketPath} is longer than ${MAX_SOCKET_PATH_BYTES} bytes, the Unix socket limit; ` +
        "use a workspace root with a shorter path.",
      { helpFor: "pterm irc-daemon" },
    );
  }
  await Deno.mkdir(sessionDir, { recursive: true, mode: 0o700 });
  // Owner-only: the socket inside grants whoever reaches it the session's IRC identity.
  await Deno.chmod(sessionDir, 0o700);

  const lock = await Deno.open(join(sessionDir, LOCK_NAME), { read: true, write: true, create: true, mode: 0o600 });
  if (!(await lock.tryLock(true))) {
    lock.close();
    throw new PtermError(
      "DaemonAlreadyRunning",
      `an irc daemon is already running for session ${sessionId} (it holds ${join(sessionDir, LOCK_NAME)}); ` +
        "stop it first, or start this one with another --session.",
      { helpFor: "pterm irc-daemon" },
    );
  }

  let logChain: Promise<void> = Promise.resolve();
  const log = (line: string) => {
    const text = `pterm irc-daemon [${sessionId}] ${line}\n`;
    logChain = logChain.then(() => io.writeErr(text)).catch(() => {});
  };
  const forward = (line: string) => io.writeOut(line);

  let bufferMessages: number = DEFAULTS.bufferMessages;
  try {
    bufferMessages = (await loadConfig(root)).bufferMessages;
  } catch (error) {
    // The daemon still starts: the commands report the problem, and the .env is reread on connect.
    log(`warning: ${(error as Error).message}`);
  }
  let listener: Deno.Listener | null = null;
  let store: MessageStore | null = null;
  let session: IrcSession | null = null;
  const signals: Deno.Signal[] = ["SIGINT", "SIGTERM"];
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  try {
    store = await MessageStore.open(
      join(sessionDir, STATE_DIR),
      bufferMessages,
      (error) => log(`error: ${error.message}`),
    );
    session = new IrcSession({ root, sessionId, store, log, forward });
    // We hold the lock, so a socket file left here belongs to a daemon that is gone: replace it.
    await Deno.remove(socketPath).catch(() => {});
    listener = Deno.listen({ transport: "unix", path: socketPath });
    await Deno.chmod(socketPath, 0o600);
    for (const signal of signals) Deno.addSignalListener(signal, stop);
    options.signal?.addEventListener("abort", stop);
    log(`listening on ${socketPath} (pid ${Deno.pid})`);

    const serving = serve(listener, session, log);
    await stopped;
    log("stopping: sending QUIT");
    listener.close();
    await session.shutdown();
    await serving;
  } finally {
    for (const signal of signals) {
      try {
        Deno.removeSignalListener(signal, stop);
      } catch { /* never added */ }
    }
    try {
      listener?.close();
    } catch { /* closed above */ }
    await Deno.remove(socketPath).catch(() => {});
    await store?.close();
    await lock.unlock().catch(() => {});
    lock.close();
  }
  log("stopped");
  await logChain;
  return 0;
}

async function serve(listener: Deno.Listener, session: IrcSession, log: (line: string) => void): Promise<void> {
  const inFlight = new Set<Promise<void>>();
  try {
    for await (const conn of listener) {
      const handling = handle(conn, session, log).finally(() => inFlight.delete(handling));
      inFlight.add(handling);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.BadResource)) log(`error: the socket failed: ${(error as Error).message}`);
  }
  await Promise.allSettled([...inFlight]);
}

async function handle(conn: Deno.Conn, session: IrcSession, log: (line: string) => void): Promise<void> {
  let response: DaemonResponse;
  try {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const line = await Promise.race([
      readLine(conn),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new PtermError("Timeout", "no request within 10 s")), REQUEST_TIMEOUT_MS);
      }),
    ]).finally(() => clearTimeout(timer));
    const request = parseRequest(line);
    // The client sends nothing after its request: the connection ending (the call's timeout, the
    // client killed) is the sign it is gone, and an unfinished send is cancelled.
    const gone = new AbortController();
    conn.read(new Uint8Array(1)).then(() => gone.abort(), () => gone.abort());
    response = { v: PROTOCOL_VERSION, ok: true, result: await dispatch(session, request, gone.signal) };
  } catch (error) {
    if (error instanceof PtermError && isErrorCode(error.code, IRC_ERROR_CODES)) {
      response = protocolError(error.code, error.message, error.result);
    } else {
      log(`error: ${(error as Error).stack ?? error}`);
      response = protocolError("Internal", `internal error in the irc daemon (a bug): ${(error as Error).message}`);
    }
  }
  try {
    await writeAll(conn, JSON.stringify(response) + "\n");
  } catch { /* the command gave up (timeout); nothing to tell */ }
  try {
    conn.close();
  } catch { /* already closed */ }
}

async function dispatch(
  session: IrcSession,
  request: DaemonRequest,
  clientGone: AbortSignal,
): Promise<Record<string, unknown>> {
  switch (request.op) {
    case "status":
      return await session.status();
    case "send":
      return { ...await session.send(request.to, request.text, request.confirm, clientGone) };
    case "pull":
      return { ...await session.pull(request.from, request.limit) };
    case "commit":
      return await session.commit(request.from, request.cursor_after);
  }
}
