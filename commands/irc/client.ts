/** The `irc` commands' side of the daemon socket (protocol: daemon_protocol.ts). */

import type { SessionInfo } from "../../core/context.ts";
import { isErrorCode, PtermError } from "../../core/errors.ts";
import { IRC_ERROR_CODES } from "./error_codes.ts";
import { join } from "../../core/fs/path.ts";
import { type DaemonRequest, type DaemonResponse, MAX_FRAME_BYTES, SOCKET_NAME } from "./daemon_protocol.ts";
import { concatBytes } from "../../core/bytes.ts";

export function socketPathOf(session: SessionInfo): string {
  return join(session.dir, SOCKET_NAME);
}

function notRunning(session: SessionInfo, why: string): PtermError {
  return new PtermError(
    "DaemonNotRunning",
    `no irc daemon answers for session ${session.id} (${why}). The host, not the agent, must start one for ` +
      // The workspace root stays unnamed: errors never print host paths.
      `this session and keep it running: pterm irc-daemon --session ${session.id} --root <the workspace root>`,
  );
}

/** Sends one request to the session's daemon and returns its result, or throws its error. */
export async function callDaemon(
  session: SessionInfo,
  request: DaemonRequest,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  if (Deno.build.os === "windows") {
    throw new PtermError(
      "UnsupportedPlatform",
      "the irc commands talk to their daemon over a Unix socket, which pterm supports on Linux and macOS only.",
    );
  }
  let conn: Deno.UnixConn;
  try {
    conn = await Deno.connect({ transport: "unix", path: socketPathOf(session) });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw notRunning(session, "its socket does not exist");
    if (error instanceof Deno.errors.ConnectionRefused) {
      throw notRunning(session, "its socket is left over from a daemon that stopped");
    }
    throw error;
  }
  const abort = () => conn.close();
  signal.addEventListener("abort", abort, { once: true });
  try {
    const bytes = new TextEncoder().encode(JSON.stringify(request) + "\n");
    let written = 0;
    while (written < bytes.length) written += await conn.write(bytes.subarray(written));
    const chunks: Uint8Array[] = [];
    let total = 0;
    const buffer = new Uint8Array(64 * 1024);
    while (true) {
      const n = await conn.read(buffer);
      if (n === null) break;
      chunks.push(buffer.slice(0, n));
      total += n;
      if (buffer[n - 1] === 0x0a) break;
      if (total > MAX_FRAME_BYTES) throw new PtermError("Internal", "the irc daemon's answer is too large (a bug)");
    }
    const text = new TextDecoder().decode(concatBytes(chunks)).trim();
    if (!text) throw notRunning(session, "the daemon closed the connection without answering");
    const response = JSON.parse(text) as DaemonResponse;
    if (response.ok) return response.result;
    const code = isErrorCode(response.error.code, IRC_ERROR_CODES) ? response.error.code : "Internal";
    throw new PtermError(code, response.error.message, { result: response.error.result });
  } catch (error) {
    if (signal.aborted) throw signal.reason ?? error;
    if (error instanceof Deno.errors.ConnectionReset || error instanceof Deno.errors.BrokenPipe) {
      throw notRunning(session, "the daemon closed the connection without answering");
    }
    throw error;
  } finally {
    signal.removeEventListener("abort", abort);
    try {
      conn.close();
    } catch { /* closed by abort */ }
  }
}
