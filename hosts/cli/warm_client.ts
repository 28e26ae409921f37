/**
 * The client side of the session server (hosts/server/session_server.ts): how `pterm exec` hands its
 * call to a warm server of the same root and version, and when it must not.
 *
 * The server of a root and version listens on `<root>/sessions/.server/v<version>.sock`. A client
 * talks to it only when that socket is a socket owned by this user with no permission for anyone
 * else, in a folder owned by this user and closed to others; a socket of another version is never
 * looked at (its path differs, and the server checks the version again). The exchange:
 *
 *   client → {"t":"call", v, root, session, line, stdin, timeoutMs, color}
 *   server → {"t":"ready", timeout_ms_max} | {"t":"refused", reason}
 *   client → {"t":"go"}                       (from here the call is the server's)
 *   server → {"t":"stdin"}                    (only when the command reads a streamed stdin:
 *                                              the client then sends its stdin's bytes and closes)
 *   server → {"t":"envelope", envelope}
 *
 * Before "go" nothing has run, so any failure there (no socket, a stale one, refused, no "ready"
 * in time) falls back to the cold path. After "go" the call may have run: a lost server or one
 * silent past the call's deadline is answered with an error code, never retried and never a hang.
 *
 * This module is on the hot path: it imports nothing beyond the path helpers and the errors.
 */

import { join } from "../../core/fs/path.ts";
import { PtermError } from "../../core/errors.ts";

/** Where the server of a root keeps its socket and lock, under pterm's state. */
export function serverDir(root: string): string {
  return join(root, "sessions", ".server");
}

export function serverSocketPath(root: string, version: string): string {
  return join(serverDir(root), `v${version}.sock`);
}

export function serverLockPath(root: string, version: string): string {
  return join(serverDir(root), `v${version}.lock`);
}

/** sockaddr_un holds 108 bytes on Linux, 104 on macOS, with the NUL. */
export const MAX_SOCKET_PATH_BYTES = 103;

/** How long a server may take to say "ready" before the client runs the call itself. */
export const READY_TIMEOUT_MS = 1_000;
/** After the call's own deadline, how long the client still waits for the envelope. */
export const ENVELOPE_GRACE_MS = 5_000;

/**
 * Why a file must not be trusted as this user's server socket (null: it may be). The rule: a
 * socket, owned by `uid`, with no permission bits for group or others; its folder likewise owned
 * by `uid` and closed to others. Another user's socket in a shared folder is never connected to.
 */
export function untrustedReason(
  socket: Deno.FileInfo,
  folder: Deno.FileInfo,
  uid: number | null,
): string | null {
  if (!socket.isSocket) return "it is not a socket";
  if (uid !== null && socket.uid !== uid) return `the socket belongs to uid ${socket.uid}, not ${uid}`;
  if (((socket.mode ?? 0) & 0o077) !== 0) return "the socket is open to other users";
  if (!folder.isDirectory) return "its folder is not a folder";
  if (uid !== null && folder.uid !== uid) return `its folder belongs to uid ${folder.uid}, not ${uid}`;
  if (((folder.mode ?? 0) & 0o077) !== 0) return "its folder is open to other users";
  return null;
}

export type WireStdin =
  | { readonly kind: "none" }
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "bytes"; readonly base64: string }
  /** The client's stdin, sent only if the server asks for it. */
  | { readonly kind: "stream" };

export interface WarmCall {
  readonly root: string;
  readonly session: string;
  readonly line: string;
  readonly stdin: WireStdin;
  readonly timeoutMs?: number;
  readonly color: boolean;
}

export type WarmOutcome =
  | { readonly kind: "answered"; readonly envelope: Record<string, unknown> }
  /** Nothing ran: the caller runs the call itself. */
  | { readonly kind: "unavailable"; readonly reason: string }
  /** The call was handed over and no envelope came: the error to answer with. */
  | { readonly kind: "failed"; readonly error: PtermError };

const encoder = new TextEncoder();

/**
 * Newline-delimited JSON read from a connection; what follows the last line read stays readable.
 * It reads with `conn.read`, not `conn.readable`: that stream closes the whole connection when the
 * peer closes its writing half (a client's end of stdin), and the answer still has to go back.
 */
export class LineReader {
  #conn: Pick<Deno.Conn, "read">;
  #buffer = new Uint8Array(0);

  constructor(conn: Pick<Deno.Conn, "read">) {
    this.#conn = conn;
  }

  async #readChunk(): Promise<Uint8Array | null> {
    const chunk = new Uint8Array(64 * 1024);
    const n = await this.#conn.read(chunk);
    return n === null ? null : chunk.subarray(0, n);
  }

  /** The next line as JSON; null at the end of the stream. */
  async next(maxBytes: number): Promise<Record<string, unknown> | null> {
    while (true) {
      const newline = this.#buffer.indexOf(10);
      if (newline >= 0) {
        const line = this.#buffer.subarray(0, newline);
        this.#buffer = this.#buffer.slice(newline + 1);
        const value = JSON.parse(new TextDecoder().decode(line));
        if (typeof value !== "object" || value === null) throw new Error("a message is not a JSON object");
        return value as Record<string, unknown>;
      }
      if (this.#buffer.length > maxBytes) throw new Error(`a message is longer than ${maxBytes} bytes`);
      const value = await this.#readChunk();
      if (value === null) return null;
      const joined = new Uint8Array(this.#buffer.length + value.length);
      joined.set(this.#buffer);
      joined.set(value, this.#buffer.length);
      this.#buffer = joined;
    }
  }

  /** The rest of the stream, raw, starting with what was read past the last line. */
  rest(): ReadableStream<Uint8Array> {
    let pending: Uint8Array | null = this.#buffer.length ? this.#buffer : null;
    this.#buffer = new Uint8Array(0);
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        if (pending) {
          controller.enqueue(pending);
          pending = null;
          return;
        }
        const value = await this.#readChunk();
        if (value === null) controller.close();
        else controller.enqueue(value);
      },
    });
  }
}

export async function writeMessage(conn: Deno.Conn, message: unknown): Promise<void> {
  const bytes = encoder.encode(JSON.stringify(message) + "\n");
  let written = 0;
  while (written < bytes.length) written += await conn.write(bytes.subarray(written));
}

/**
 * Resolves with "timeout" after `ms` unless `done` settles first. The clock a caller may choose: a
 * timer that cannot be cleared but costs nothing to start (`AbortSignal.timeout`) is for a process
 * that exits once the call is answered (`pterm exec`); anything that lives on must clear its timers.
 */
export type CallClock = (ms: number, done: Promise<unknown>) => Promise<"timeout">;

/** setTimeout, cleared when `done` settles. Deno's setTimeout loads its Node timers on first use (~5 ms). */
export const clearedClock: CallClock = (ms, done) =>
  new Promise((resolve) => {
    const timer = setTimeout(() => resolve("timeout"), ms);
    done.finally(() => clearTimeout(timer)).catch(() => {});
  });

/**
 * A timer that is never cleared and keeps the event loop alive until it fires: only for a process that
 * exits as soon as its call is answered (`pterm exec`, which ends with `Deno.exit`). Starting it loads
 * nothing more.
 */
export const exitingProcessClock: CallClock = (ms) =>
  new Promise((resolve) => AbortSignal.timeout(ms).addEventListener("abort", () => resolve("timeout"), { once: true }));

function withTimeout<T>(promise: Promise<T>, ms: number, clock: CallClock): Promise<T | "timeout"> {
  return Promise.race([promise, clock(ms, promise)]);
}

/** This process's user id (the `pterm` task grants `--allow-sys=uid` for this alone); null where not allowed. */
export function processUid(): number | null {
  try {
    return Deno.uid();
  } catch {
    return null;
  }
}

/** Opens this user's server socket of `root` and `version`, or says why not. */
export async function connectServer(
  root: string,
  version: string,
): Promise<{ conn: Deno.Conn } | { reason: string }> {
  const path = serverSocketPath(root, version);
  if (encoder.encode(path).length > MAX_SOCKET_PATH_BYTES) return { reason: "the socket path is too long" };
  let socket: Deno.FileInfo;
  let folder: Deno.FileInfo;
  try {
    socket = Deno.lstatSync(path);
    folder = Deno.lstatSync(serverDir(root));
  } catch {
    return { reason: "no server" };
  }
  const uid = processUid();
  if (uid === null) return { reason: "this process cannot learn its own user id" };
  const untrusted = untrustedReason(socket, folder, uid);
  if (untrusted !== null) return { reason: `the server socket ${path} is not used: ${untrusted}` };
  try {
    return { conn: await Deno.connect({ transport: "unix", path }) };
  } catch (error) {
    // A socket file no server listens on (a killed server's): the cold path serves.
    return { reason: `no server listens on ${path}: ${(error as Error).message}` };
  }
}

async function sendStdin(conn: Deno.Conn, stdin: ReadableStream<Uint8Array> | null): Promise<void> {
  try {
    if (stdin) {
      for await (const chunk of stdin) {
        let written = 0;
        while (written < chunk.length) written += await conn.write(chunk.subarray(written));
      }
    }
  } finally {
    await conn.closeWrite().catch(() => {});
  }
}

/**
 * Hands one call to the warm server. `openStdin` gives the client's stdin when the server asks
 * for it (the command reads a streamed stdin).
 */
export async function callServer(
  version: string,
  call: WarmCall,
  openStdin: () => ReadableStream<Uint8Array> | null,
  options: { readonly readyTimeoutMs?: number; readonly maxTimeoutMs: number; readonly clock?: CallClock },
): Promise<WarmOutcome> {
  const clock = options.clock ?? clearedClock;
  const connected = await connectServer(call.root, version);
  if ("reason" in connected) return { kind: "unavailable", reason: connected.reason };
  const conn = connected.conn;
  const lines = new LineReader(conn);
  let handedOver = false;
  try {
    const ready = await withTimeout(
      (async () => {
        await writeMessage(conn, { t: "call", v: version, ...call });
        return await lines.next(64 * 1024);
      })(),
      options.readyTimeoutMs ?? READY_TIMEOUT_MS,
      clock,
    );
    if (ready === "timeout") return { kind: "unavailable", reason: "the server did not answer in time" };
    if (ready === null) return { kind: "unavailable", reason: "the server closed the connection" };
    if (ready.t !== "ready") {
      return { kind: "unavailable", reason: `the server refused the call: ${String(ready.reason ?? ready.t)}` };
    }
    await writeMessage(conn, { t: "go" });
    handedOver = true;
    // The server's configured maximum (pterm.json may raise it) bounds the call's own deadline.
    const maxTimeoutMs = typeof ready.timeout_ms_max === "number" ? ready.timeout_ms_max : options.maxTimeoutMs;
    const deadlineMs = Math.min(call.timeoutMs ?? maxTimeoutMs, maxTimeoutMs) + ENVELOPE_GRACE_MS;
    const answer = await withTimeout(
      (async () => {
        while (true) {
          const message = await lines.next(1024 * 1024 * 1024);
          if (message === null || message.t === "envelope") return message;
          if (message.t === "stdin") {
            // Sent beside the reading, not before it: a server that stops reading (stdin past its
            // limit) answers and closes, and its envelope, not the failed write, is the call's answer.
            sendStdin(conn, openStdin()).catch(() => {});
          }
        }
      })(),
      deadlineMs,
      clock,
    );
    if (answer === "timeout") {
      return {
        kind: "failed",
        error: new PtermError(
          "Timeout",
          `the session server did not answer within the call's deadline (${deadlineMs} ms); whether the ` +
            "command finished is in its audit record: `pterm runs list`. Stop the server with `pterm server stop`.",
        ),
      };
    }
    if (answer === null) {
      return {
        kind: "failed",
        error: new PtermError(
          "DaemonNotRunning",
          "the session server stopped during the call, so its outcome is unknown; its audit record shows whether " +
            "it finished: `pterm runs list`. Run the call again once you have checked.",
        ),
      };
    }
    return { kind: "answered", envelope: answer.envelope as Record<string, unknown> };
  } catch (error) {
    if (!handedOver) return { kind: "unavailable", reason: `the server failed: ${(error as Error).message}` };
    return {
      kind: "failed",
      error: new PtermError(
        "DaemonNotRunning",
        `the connection to the session server failed during the call (${(error as Error).message}); its audit ` +
          "record shows whether it finished: `pterm runs list`.",
      ),
    };
  } finally {
    try {
      conn.close();
    } catch {
      // already closed
    }
  }
}
