/**
 * `pterm server run`: the warm session server of one workspace root and one pterm version. The
 * kernel, the declarations and a pool of sandbox workers load once (as in `pterm mcp`); each call
 * a `pterm exec` client hands over (hosts/cli/warm_client.ts) is one `execute` — the same grammar,
 * confinement, sandbox worker per call, audit record (origin `exec`) and envelope as the cold path.
 *
 * One per root and version: it holds `<root>/sessions/.server/v<version>.lock`, listens on the
 * `.sock` beside it (the folder 0700, the socket 0600, both this user's), and refuses calls for
 * another root or version. It leaves when idle for `idleMs`, when its root is moved or removed,
 * on `pterm server stop`, SIGINT or SIGTERM: it stops listening, lets running calls finish and
 * removes its socket.
 */

import { resolveWorkspace } from "../../core/host/workspace.ts";
import type { App } from "../../core/host/app.ts";
import type { CliIo } from "../../core/host/io.ts";
import {
  LineReader,
  MAX_SOCKET_PATH_BYTES,
  serverDir,
  serverLockPath,
  serverSocketPath,
  type WireStdin,
  writeMessage,
} from "../cli/warm_client.ts";
import type { Envelope } from "../../core/envelope.ts";
import { PtermError } from "../../core/errors.ts";
import { assertRootHoldsNoPtermCode } from "../../core/root_guard.ts";
import { loadConfig } from "../../core/config.ts";
import { DEFAULT_LIMITS } from "../../core/limits.ts";
import { Registry } from "../../core/registry.ts";
import { execute, type Kernel } from "../../core/runtime.ts";
import type { StdinSource } from "../../core/stdin.ts";
import { SandboxPool } from "../mcp/sandbox_pool.ts";

/** Why calls must not run on `root` now (it holds pterm's code, or lies inside it); null when they may. */
function unsafeRootReason(root: string): string | null {
  try {
    assertRootHoldsNoPtermCode(root);
    return null;
  } catch (error) {
    if (error instanceof PtermError) return error.message;
    throw error;
  }
}
export const DEFAULT_IDLE_MS = 15 * 60_000;
/** The largest first message (a call with its stdin inline). */
const MAX_CALL_BYTES = 512 * 1024 * 1024;

export interface ServerOptions {
  readonly root?: string;
  readonly idleMs?: number;
  /** Told once the socket listens (for `pterm server start`, which waits for it). */
  readonly onListening?: (socketPath: string) => void;
}

function stdinSource(wire: WireStdin, lines: LineReader, conn: Deno.Conn): StdinSource {
  switch (wire.kind) {
    case "text":
      return { kind: "text", text: wire.text };
    case "bytes":
      return { kind: "bytes", bytes: Uint8Array.fromBase64(wire.base64) };
    case "stream": {
      let stream: ReadableStream<Uint8Array> | null = null;
      return {
        kind: "stream",
        get stream() {
          if (stream === null) {
            // Asked for only when the command reads stdin, as the cold path opens it only then.
            writeMessage(conn, { t: "stdin" }).catch(() => {});
            stream = lines.rest();
          }
          return stream;
        },
      };
    }
    default:
      return { kind: "none" };
  }
}

export async function runSessionServer(
  io: CliIo,
  app: Omit<App, "hostCommands">,
  options: ServerOptions,
): Promise<number> {
  const { root } = resolveWorkspace(io, options.root);
  const socketPath = serverSocketPath(root, app.version);
  if (new TextEncoder().encode(socketPath).length > MAX_SOCKET_PATH_BYTES) {
    throw new PtermError(
      "UnsupportedPlatform",
      `the server socket path ${socketPath} is longer than ${MAX_SOCKET_PATH_BYTES} bytes, the Unix socket limit; ` +
        "use a workspace root with a shorter path (pterm exec still works there, without the server).",
      { helpFor: "pterm server" },
    );
  }
  const dir = serverDir(root);
  Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Owner-only: whoever reaches the socket runs commands in this workspace.
  Deno.chmodSync(dir, 0o700);
  const lock = await Deno.open(serverLockPath(root, app.version), {
    read: true,
    write: true,
    create: true,
    mode: 0o600,
  });
  if (!(await lock.tryLock(true))) {
    lock.close();
    throw new PtermError(
      "DaemonAlreadyRunning",
      `a session server of pterm ${app.version} already serves ${root}; see \`pterm server status\`.`,
      { helpFor: "pterm server" },
    );
  }
  const log = (line: string) => io.writeErr(`pterm server [${root}] ${line}\n`).catch(() => {});

  const registry = new Registry(app.commands);
  const pool = new SandboxPool();
  const kernel: Kernel = { registry, codeDirs: app.codeDirs, version: app.version, sandboxes: pool };
  const idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  const started = Date.now();
  let calls = 0;
  /** Calls handed over and not yet answered; status and stop messages are not calls. */
  let callsRunning = 0;
  let lastActivity = Date.now();
  const inFlight = new Set<Promise<void>>();
  let stopping = false;

  // We hold the lock, so a socket file here is a gone server's: replace it.
  await Deno.remove(socketPath).catch(() => {});
  const listener = Deno.listen({ transport: "unix", path: socketPath });
  Deno.chmodSync(socketPath, 0o600);

  const stop = (why: string) => {
    if (stopping) return;
    stopping = true;
    log(`stopping: ${why}`);
    try {
      listener.close();
    } catch {
      // already closed
    }
  };

  /** The root as the server knows it is still where it was (a moved root gets no calls). */
  const rootInPlace = (): boolean => {
    try {
      return Deno.realPathSync(root) === root && Deno.lstatSync(socketPath).isSocket === true;
    } catch {
      return false;
    }
  };

  /** The longest deadline a call may have here, which the client waits for (pterm.json may raise it). */
  const configuredMaxTimeout = async (): Promise<number> => {
    try {
      return (await loadConfig(root, registry, app.version)).limits.timeout_ms_max;
    } catch {
      // An invalid pterm.json: the call itself reports it, within the default deadline.
      return DEFAULT_LIMITS.timeout_ms_max;
    }
  };

  const handle = async (conn: Deno.Conn): Promise<void> => {
    const lines = new LineReader(conn);
    try {
      const first = await lines.next(MAX_CALL_BYTES);
      if (first === null) return;
      if (first.t === "status") {
        await writeMessage(conn, {
          t: "status",
          pid: Deno.pid,
          version: app.version,
          root,
          socket: socketPath,
          started_at: new Date(started).toISOString(),
          calls,
          calls_running: callsRunning,
          idle_exit_ms: idleMs,
        });
        return;
      }
      if (first.t === "stop") {
        await writeMessage(conn, { t: "stopping", pid: Deno.pid });
        stop("asked to stop");
        return;
      }
      if (first.t !== "call") {
        await writeMessage(conn, { t: "refused", reason: `unknown message ${String(first.t)}` });
        return;
      }
      if (first.v !== app.version) {
        await writeMessage(conn, { t: "refused", reason: `this server is pterm ${app.version}, not ${first.v}` });
        return;
      }
      if (first.root !== root || !rootInPlace()) {
        await writeMessage(conn, { t: "refused", reason: `this server serves ${root}, not ${first.root}` });
        if (!rootInPlace()) stop("its root moved or its socket is gone");
        return;
      }
      if (stopping) {
        await writeMessage(conn, { t: "refused", reason: "the server is stopping" });
        return;
      }
      // The client hands over without checking the root for pterm's code (hosts/cli/warm_exec.ts):
      // the check is here, before every call. Refused, the client's cold path reports UnsafeRoot.
      const unsafe = unsafeRootReason(root);
      if (unsafe !== null) {
        await writeMessage(conn, { t: "refused", reason: unsafe });
        return;
      }
      await writeMessage(conn, { t: "ready", timeout_ms_max: await configuredMaxTimeout() });
      const go = await lines.next(1024);
      // No "go": the client gave up waiting and runs the call itself; nothing may run here.
      if (go === null || go.t !== "go") return;
      calls++;
      callsRunning++;
      try {
        const envelope: Envelope = await execute(kernel, {
          root,
          session: String(first.session),
          line: String(first.line),
          stdin: stdinSource(first.stdin as WireStdin, lines, conn),
          timeoutMs: typeof first.timeoutMs === "number" ? first.timeoutMs : undefined,
          terminal: { color: first.color === true },
        });
        await writeMessage(conn, { t: "envelope", envelope });
      } finally {
        callsRunning--;
        lastActivity = Date.now();
      }
    } catch (error) {
      if (!(error instanceof Deno.errors.BrokenPipe || error instanceof Deno.errors.ConnectionReset)) {
        log(`a connection failed: ${(error as Error).message}`);
      }
    } finally {
      try {
        conn.close();
      } catch {
        // already closed
      }
    }
  };

  const idleTimer = setInterval(() => {
    if (!rootInPlace()) stop("its root moved or its socket is gone");
    else if (callsRunning === 0 && Date.now() - lastActivity >= idleMs) stop(`idle for ${idleMs} ms`);
  }, Math.min(1_000, idleMs));
  const onSignal = () => stop("signal");
  Deno.addSignalListener("SIGINT", onSignal);
  Deno.addSignalListener("SIGTERM", onSignal);

  log(`listening on ${socketPath} (pid ${Deno.pid}, pterm ${app.version})`);
  options.onListening?.(socketPath);
  try {
    for await (const conn of listener) {
      const task: Promise<void> = handle(conn).finally(() => inFlight.delete(task));
      inFlight.add(task);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.BadResource)) log(`the socket failed: ${(error as Error).message}`);
  } finally {
    stopping = true;
    clearInterval(idleTimer);
    Deno.removeSignalListener("SIGINT", onSignal);
    Deno.removeSignalListener("SIGTERM", onSignal);
    await Promise.allSettled([...inFlight]);
    pool.close();
    // Only our own socket: a root moved away holds it elsewhere, and removing by path is then harmless.
    await Deno.remove(socketPath).catch(() => {});
    lock.close();
  }
  return 0;
}
