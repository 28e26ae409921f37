/**
 * The first step of `pterm exec`: hand the call to the root's session server (warm_client.ts) before
 * anything else of pterm is loaded. main.ts imports only this module; the kernel, the command table
 * and the CLI (hosts/cli/app.ts, one bundle of its own when pterm runs bundled) load only when no
 * server takes the call. A warm call's process then loads and runs what the hand-over needs and no
 * more: the exec options' parser, the workspace's checks, the socket exchange, the envelope's printing.
 *
 * Anything this step cannot settle — `--help`, `--request` (its stdin is read once, by the cold
 * path), words that do not parse, a root that does not exist yet, no server, a server that refuses
 * (a root that holds pterm's code: the server checks before every call) — is left to the cold path,
 * which reports it exactly as before; nothing has run then.
 */

import { resolve } from "../../core/fs/path.ts";
import type { Envelope } from "../../core/envelope.ts";
import { renderText } from "../../core/envelope.ts";
import { exitCodeFor, formatFailure, type PtermError } from "../../core/errors.ts";
import { parseArgs } from "../../core/flags.ts";
import { newRunId } from "../../core/run_id.ts";
import type { StdinSource } from "../../core/stdin.ts";
import type { CliIo } from "../../core/host/io.ts";
import { execSpec } from "../../core/host/options.ts";
import { hostCwd, locateWorkspace } from "../../core/host/workspace.ts";
import { DEFAULT_LIMITS } from "../../core/limits.ts";
import { callServer, exitingProcessClock, type WarmOutcome, type WireStdin } from "./warm_client.ts";

export function failureEnvelope(error: PtermError): Envelope {
  return {
    run_id: newRunId(),
    exit_code: exitCodeFor(error.code),
    stdout: "",
    stderr: formatFailure(error.message, error.helpFor ?? "pterm exec"),
    result: null,
    artifacts: [],
    error_code: error.code,
    duration_ms: 0,
    truncated: { stdout: false, stderr: false },
  };
}

export async function printEnvelope(io: CliIo, envelope: Envelope, asText: boolean): Promise<void> {
  await io.writeOut(asText ? renderText(envelope) : JSON.stringify(envelope) + "\n");
}

/**
 * A command line's stdin: the bytes of `--stdin-file` as they are (decoding happens once, in the
 * kernel: core/stdin.ts), else the process's stdin unless it is a terminal — opened only if the
 * command reads it, as creating the stream costs ~2 ms. `readFileWhenUsed`: the file is read when
 * its bytes are asked for (the hand-over asks only once a server has taken the connection), not now.
 */
export function execStdin(
  io: CliIo,
  stdinFile: string | undefined,
  options: { readonly readFileWhenUsed?: boolean } = {},
): StdinSource {
  if (stdinFile !== undefined) {
    const path = resolve(hostCwd(io), stdinFile);
    if (!options.readFileWhenUsed) return { kind: "bytes", bytes: Deno.readFileSync(path) };
    return {
      kind: "bytes",
      get bytes() {
        return Deno.readFileSync(path);
      },
    };
  }
  if (io.stdin.isTerminal) return { kind: "none" };
  return {
    kind: "stream",
    get stream() {
      return io.stdin.stream;
    },
  };
}

/** The exec call the server is handed: the workspace, the line, its stdin and deadline. */
export interface ExecCall {
  readonly root: string;
  readonly session: string;
  readonly line: string;
  readonly stdin: StdinSource;
  readonly timeoutMs?: number;
}

function wireStdin(stdin: StdinSource): WireStdin {
  switch (stdin.kind) {
    case "text":
      return { kind: "text", text: stdin.text };
    case "bytes":
      // Encoded when the call is written to a server that took the connection (a getter, read then).
      return {
        kind: "bytes",
        get base64() {
          return stdin.bytes.toBase64();
        },
      };
    case "stream":
      return { kind: "stream" };
    default:
      return { kind: "none" };
  }
}

/**
 * Hands `call` to this root's session server of `version`, if one is up. $PTERM_SERVER=`off` keeps
 * every call of its process cold.
 */
export async function handToServer(io: CliIo, version: string, call: ExecCall): Promise<WarmOutcome> {
  if (io.env("PTERM_SERVER") === "off") return { kind: "unavailable", reason: "PTERM_SERVER is off" };
  return await callServer(
    version,
    {
      root: call.root,
      session: call.session,
      line: call.line,
      stdin: wireStdin(call.stdin),
      timeoutMs: call.timeoutMs,
      color: io.stdoutIsTerminal && !io.env("NO_COLOR"),
    },
    () => call.stdin.kind === "stream" ? call.stdin.stream : null,
    // This process exits once the call is answered (main.ts), so its timers need not be cleared.
    { maxTimeoutMs: DEFAULT_LIMITS.timeout_ms_max, clock: exitingProcessClock },
  );
}

/** What the first step settled: the call answered (its exit code), or the cold path's turn. */
export type WarmStep =
  | { readonly kind: "answered"; readonly exitCode: number }
  /** `unavailable`: why no server took the call, when one was asked (the cold path asks no second time). */
  | { readonly kind: "cold"; readonly unavailable?: string };

/** `pterm exec <words>` through the root's session server, when one is up and the words are a plain call. */
export async function tryWarmExec(io: CliIo, version: string): Promise<WarmStep> {
  if (io.args[0] !== "exec" || io.env("PTERM_SERVER") === "off") return { kind: "cold" };
  const words = io.args.slice(1);
  let call: ExecCall;
  try {
    const parsed = parseArgs("pterm exec", execSpec, words);
    if (parsed.help) return { kind: "cold" };
    const flags = parsed.args.flags as {
      root?: string;
      session?: string;
      "stdin-file"?: string;
      "timeout-ms"?: number;
      request?: string;
    };
    const line = parsed.args.positionals["command-line"] as string | undefined;
    if (flags.request !== undefined || line === undefined) return { kind: "cold" };
    const workspace = locateWorkspace(io, flags.root, flags.session);
    if (workspace === null) return { kind: "cold" };
    // No server may be up: a --stdin-file is read only once one has taken the connection.
    const stdin = execStdin(io, flags["stdin-file"], { readFileWhenUsed: true });
    call = { ...workspace, line, stdin, timeoutMs: flags["timeout-ms"] };
  } catch {
    // The cold path parses the same words again and reports what is wrong with them.
    return { kind: "cold" };
  }
  const outcome = await handToServer(io, version, call);
  if (outcome.kind === "unavailable") return { kind: "cold", unavailable: outcome.reason };
  const envelope = outcome.kind === "answered"
    ? outcome.envelope as unknown as Envelope
    : failureEnvelope(outcome.error);
  await printEnvelope(io, envelope, words.includes("--text"));
  return { kind: "answered", exitCode: envelope.exit_code };
}
