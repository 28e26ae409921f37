/**
 * irc's session service: the daemon that holds a session's IRC connection, and its light, read
 * with the same `status` request over the same socket that `irc status` uses (client.ts). Grey
 * ("off") when the workspace has no irc settings; red when no daemon answers or it reports an
 * error, with why and what to run; yellow while it connects; green once joined. Only the state is
 * shown: no server, channel or nick.
 */

import type { CliIo } from "../../core/host/io.ts";
import { PtermError } from "../../core/errors.ts";
import { lazyImport } from "../../core/lazy.ts";
import { join } from "../../core/fs/path.ts";
import type { ServiceReading, SessionService } from "../../core/session_service.ts";
import { callDaemon } from "./client.ts";
import { ENV_REL_PATH } from "./config.ts";
import { indicatorFor, type IrcState, type LastError, type StatusFields } from "./daemon_protocol.ts";

function configured(root: string): boolean {
  try {
    return Deno.statSync(join(root, ...ENV_REL_PATH.split("/"))).isFile;
  } catch {
    return false;
  }
}

/** Why a daemon that answered is not joined, and where to look. */
function stateReason(state: IrcState, lastError: LastError | undefined): string {
  const error = lastError ? `: ${lastError.error_code} ${lastError.message}` : "";
  if (state === "error") return `the irc daemon reports an error${error}. \`irc status\` shows it in full.`;
  if (state === "connected") return "the irc daemon is connected but not in its channel yet; `irc status` shows why.";
  return "the irc daemon has not connected yet: it connects on the first irc command, e.g. `irc status`.";
}

function readingOf(state: IrcState, lastError: LastError | undefined): ServiceReading {
  const light = indicatorFor(state);
  return { light, reason: light === "red" ? stateReason(state, lastError) : null };
}

async function read(root: string, session: string, signal: AbortSignal): Promise<ServiceReading> {
  if (!configured(root)) return { light: "off", reason: null };
  try {
    const status = await callDaemon(
      { id: session, dir: join(root, "sessions", session) },
      { v: 1, op: "status" },
      signal,
    ) as unknown as StatusFields;
    return readingOf(status.state, status.last_error);
  } catch (error) {
    // The daemon's first status starts its (lazy) connection and answers when that attempt ends.
    if (signal.aborted) return { light: "yellow", reason: null };
    const result = error instanceof PtermError ? error.result : undefined;
    if (typeof result?.state === "string") {
      return readingOf(result.state as IrcState, result.last_error as LastError | undefined);
    }
    if (error instanceof PtermError && error.code === "DaemonNotRunning") {
      return {
        light: "red",
        reason: `no irc daemon answers for session ${session}. Start one in another terminal and keep it running: ` +
          `pterm irc-daemon --session ${session} --root ${JSON.stringify(root)}`,
      };
    }
    return { light: "red", reason: `the irc daemon did not answer: ${(error as Error).message}` };
  }
}

async function serve(
  io: CliIo,
  options: { root: string; session: string; signal: AbortSignal; ready: () => void },
): Promise<void> {
  // Unix sockets: the irc commands are unavailable on Windows, and say so themselves.
  if (Deno.build.os === "windows") return options.ready();
  const daemonIo: CliIo = {
    ...io,
    // Its forwarded lines are not a host's protocol messages: stderr, like every log.
    writeOut: (text) => io.writeErr(text),
    writeErr: (text) => {
      // runDaemon says so once its socket accepts connections.
      if (text.includes("] listening on ")) options.ready();
      return io.writeErr(text);
    },
  };
  try {
    const { runDaemon } = await lazyImport<typeof import("./daemon.ts")>(new URL("./daemon.ts", import.meta.url));
    await runDaemon(daemonIo, { root: options.root, session: options.session, signal: options.signal });
  } finally {
    options.ready();
  }
}

export const ircService: SessionService = { label: "IRC", configured, serve, read };
