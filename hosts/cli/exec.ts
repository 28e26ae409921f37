/**
 * `pterm exec`: the hot path. It imports no npm package (each would cost start-up time;
 * see bench/startup.ts), so its options are parsed by the kernel's own parser from the same
 * declaration the commander program uses for `pterm exec --help`.
 */

import { resolve } from "../../core/fs/path.ts";
import type { Envelope } from "../../core/envelope.ts";
import { PtermError } from "../../core/errors.ts";
import { parseArgs } from "../../core/flags.ts";
import { Registry } from "../../core/registry.ts";
import { loadConfig } from "../../core/config.ts";
import { parseRequest } from "../../core/request.ts";
import { execute } from "../../core/runtime.ts";
import type { StdinSource } from "../../core/stdin.ts";
import type { App } from "../../core/host/app.ts";
import type { CliIo } from "../../core/host/io.ts";
import { execSpec } from "../../core/host/options.ts";
import { concatBytes } from "../../core/bytes.ts";
import { hostCwd, resolveWorkspace } from "../../core/host/workspace.ts";
import { lazyImport } from "../../core/lazy.ts";
import { type ExecCall, execStdin, failureEnvelope, handToServer, printEnvelope } from "./warm_exec.ts";

/** Upper bound for reading a `--request` document; the stdin limit inside it is enforced later. */
const MAX_REQUEST_BYTES = 256 * 1024 * 1024;

async function readAll(stream: ReadableStream<Uint8Array>, maxBytes: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of stream) {
    total += chunk.length;
    if (total > maxBytes) throw new PtermError("InputTooLarge", `the request is larger than ${maxBytes} bytes.`);
    chunks.push(chunk);
  }
  return concatBytes(chunks);
}

/** A JSON tool call is UTF-8 text; other bytes are refused, never read with U+FFFD in their place. */
function requestText(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new PtermError(
      "InvalidArgs",
      "the tool call is not UTF-8 JSON; write it as UTF-8. Stdin that is not UTF-8 goes in a file: " +
        '`pterm exec --stdin-file <path> "<command>"`.',
      { helpFor: "pterm exec" },
    );
  }
}

/**
 * Runs `pterm exec <words>`; returns null when the words ask for `--help` (commander renders that).
 * `warmUnavailable`: why no session server took this call, when main.ts's first step asked one
 * (hosts/cli/warm_exec.ts); it is not asked twice.
 */
export async function runExec(
  io: CliIo,
  app: App,
  words: readonly string[],
  warmUnavailable?: string,
): Promise<number | null> {
  const asText = words.includes("--text");
  let envelope: Envelope;
  try {
    const parsed = parseArgs("pterm exec", execSpec, words);
    if (parsed.help) return null;
    const flags = parsed.args.flags as {
      root?: string;
      session?: string;
      "stdin-file"?: string;
      "timeout-ms"?: number;
      text: boolean;
      request?: string;
    };
    const lineArg = parsed.args.positionals["command-line"] as string | undefined;
    let line: string;
    let stdin: StdinSource;
    let timeoutMs = flags["timeout-ms"];
    if (flags.request !== undefined) {
      if (lineArg !== undefined) {
        throw new PtermError("InvalidArgs", "give either a command line or --request, not both.", {
          helpFor: "pterm exec",
        });
      }
      const text = requestText(
        flags.request === "-"
          ? await readAll(io.stdin.stream, MAX_REQUEST_BYTES)
          : await Deno.readFile(resolve(hostCwd(io), flags.request)),
      );
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch (error) {
        throw new PtermError("InvalidArgs", `the tool call is not valid JSON: ${(error as Error).message}`, {
          helpFor: "pterm exec",
        });
      }
      const request = parseRequest(json);
      line = request.command;
      stdin = request.stdin === undefined ? { kind: "none" } : { kind: "text", text: request.stdin };
      timeoutMs = flags["timeout-ms"] ?? request.timeout_ms;
    } else {
      if (lineArg === undefined) {
        throw new PtermError("InvalidArgs", 'missing the command line, e.g. pterm exec "hello".', {
          helpFor: "pterm exec",
        });
      }
      line = lineArg;
      stdin = execStdin(io, flags["stdin-file"]);
    }
    const workspace = resolveWorkspace(io, flags.root, flags.session);
    const warm = await runWarm(io, app, { ...workspace, line, stdin, timeoutMs }, warmUnavailable);
    if (warm !== null) {
      await printEnvelope(io, warm, asText);
      return warm.exit_code;
    }
    envelope = await execute(
      { registry: new Registry(app.commands), codeDirs: app.codeDirs, version: app.version },
      {
        root: workspace.root,
        session: workspace.session,
        line,
        stdin,
        timeoutMs,
        terminal: { color: io.stdoutIsTerminal && !io.env("NO_COLOR") },
      },
    );
  } catch (error) {
    if (error instanceof PtermError) envelope = failureEnvelope(error);
    else if (error instanceof Deno.errors.NotFound) {
      envelope = failureEnvelope(new PtermError("NotFound", `${(error as Error).message}`, { helpFor: "pterm exec" }));
    } else throw error;
  }
  await printEnvelope(io, envelope, asText);
  return envelope.exit_code;
}

/**
 * Whether a call that found no server starts one in the background, for the next calls.
 * $PTERM_SERVER decides for its process — `auto` starts one — and wins over the workspace's pterm.json
 * (`server.autostart`), since whoever runs one process (a script that must stay cold, a test, a person
 * debugging) knows better than the file written for every call of the root. Without either, none is
 * started.
 */
async function startsServer(io: CliIo, app: App, root: string): Promise<boolean> {
  if (io.env("PTERM_SERVER") === "auto") return true;
  // The same configuration the call itself loads (validated, remembered). A file that does not
  // validate starts nothing: the call goes on and reports InvalidConfig, naming the key, in its
  // envelope and audit record, as every call of the root does until the file is fixed.
  try {
    const config = await loadConfig(root, new Registry(app.commands), app.version);
    return config.server?.autostart === true;
  } catch (error) {
    if (error instanceof PtermError && error.code === "InvalidConfig") return false;
    throw error;
  }
}

/**
 * The warm path: the call handed to this root's session server when one of this version is up
 * (hosts/cli/warm_exec.ts); null when none takes it and the call runs here, cold. The configuration
 * is read only when no server is up (whether to start one), so a warm call loads no more of pterm
 * than it needs to hand the call over. `unavailable`: the answer of a server already asked.
 */
async function runWarm(io: CliIo, app: App, call: ExecCall, unavailable?: string): Promise<Envelope | null> {
  const outcome = unavailable === undefined
    ? await handToServer(io, app.version, call)
    : { kind: "unavailable" as const, reason: unavailable };
  if (outcome.kind === "answered") return outcome.envelope as unknown as Envelope;
  if (outcome.kind === "failed") return failureEnvelope(outcome.error);
  if (outcome.reason === "no server" && await startsServer(io, app, call.root)) {
    const { spawnServer } = await lazyImport<typeof import("../server/spawn.ts")>(
      new URL("../server/spawn.ts", import.meta.url),
    );
    spawnServer(call.root);
  }
  return null;
}
