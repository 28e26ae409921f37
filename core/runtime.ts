/**
 * One `terminal_exec` call, start to finish: grammar → registry → flags → config → paths →
 * stdin → sandbox → envelope → audit. Every failure on the way becomes an envelope with its
 * code; nothing here prints or exits.
 */

import { artifactRelDir, createArtifactStore } from "./artifacts.ts";
import { type AuditRecord, type CallOrigin, writeAuditRecord } from "./audit.ts";
import { redactCredentials } from "./redact.ts";
import { loadConfig, type PtermConfig } from "./config.ts";
import type { CommandSpec, LeafSpec } from "./declaration.ts";
import type { ArtifactRef, Envelope } from "./envelope.ts";
import { type ErrorCode, EXIT_OK, exitCodeFor, formatFailure, PtermError } from "./errors.ts";
import { parseArgs, type ParsedArgs } from "./flags.ts";
import { lazyImport } from "./lazy.ts";
import { tokenize } from "./grammar.ts";
import { DEFAULT_LIMITS } from "./limits.ts";
import { confinePathSync, STATE_ENTRIES } from "./fs/paths.ts";
import { assertNoSymlinkSync } from "./fs/safe_fs.ts";
import { HELP_COMMAND, type Registry } from "./registry.ts";
import { newRunId } from "./run_id.ts";
import {
  COMMANDS_DIR,
  CORE_DIR,
  LIB_DIR,
  permissionsFor,
  Sandbox,
  type SandboxOutcome,
  type WorkerPermissions,
} from "./sandbox/sandbox.ts";
import { join } from "./fs/path.ts";
import { BUNDLE_DIR } from "./bundles.ts";
import { notUtf8Failure, readStdin, type Stdin, type StdinSource } from "./stdin.ts";
import type { ProgressReport } from "./sandbox/protocol.ts";
import { boundText } from "./truncate.ts";

export interface Kernel {
  readonly registry: Registry;
  /**
   * Folders of pterm code a worker may read, to load its command's modules (see
   * `permissionsFor`); default: core/, commands/ and the bundles' folder (core/bundles.ts).
   */
  readonly codeDirs?: readonly string[];
  /** pterm's version: a validated pterm.json is remembered per version (see core/config.ts). */
  readonly version?: string;
  /**
   * Where a call's sandbox comes from; default: a new one per call. A long-lived host (the MCP
   * server) passes a source that hands out workers it started ahead of time, each still fresh and
   * used for one call only.
   */
  readonly sandboxes?: SandboxSource;
}

export interface SandboxSource {
  take(handler: LeafSpec["handler"], path: readonly string[], permissions: WorkerPermissions): Sandbox;
}

function newSandbox(
  kernel: Kernel,
  handler: LeafSpec["handler"],
  path: readonly string[],
  permissions: WorkerPermissions,
) {
  return kernel.sandboxes ? kernel.sandboxes.take(handler, path, permissions) : new Sandbox(handler, path, permissions);
}

function codeDirsOf(kernel: Kernel): readonly string[] {
  return kernel.codeDirs ?? [CORE_DIR, COMMANDS_DIR, LIB_DIR, BUNDLE_DIR];
}

export interface ExecInput {
  /** Canonical workspace root. */
  readonly root: string;
  readonly session: string;
  readonly line: string;
  readonly stdin: StdinSource;
  /** Requested timeout; clipped to the configured maximum. */
  readonly timeoutMs?: number;
  readonly replayOf?: string;
  readonly terminal: { readonly color: boolean };
  /** Who made the call, for the audit record: a `pterm exec` process (the default), the MCP server, the shell. */
  readonly origin?: CallOrigin;
  /**
   * Cancels the call (an MCP cancellation, Ctrl-C in the shell): the command's signal aborts, its
   * worker is terminated after a short grace, and the envelope and record say `Cancelled`.
   */
  readonly signal?: AbortSignal;
  /** Receives the command's progress reports while it runs. */
  readonly onProgress?: (report: ProgressReport) => void;
}

interface Draft {
  argv: string[] | null;
  parsed: AuditRecord["parsed"];
  helpFor: string;
  timeoutMs: number;
  stdinRef: ArtifactRef | null;
}

const loadHelp = () => lazyImport<typeof import("./help.ts")>(new URL("./help.ts", import.meta.url));

function usesStdin(leaf: LeafSpec, args: ParsedArgs): boolean {
  const use = leaf.stdin;
  if (!use) return false;
  if (use.mode === "always") return true;
  const given = Boolean(args.flags[use.flag]);
  return use.mode === "whenFlag" ? given : !given;
}

/** Checks every path-typed flag and positional before any command code runs. */
function confineArguments(root: string, leaf: LeafSpec, args: ParsedArgs): void {
  for (const flag of leaf.flags ?? []) {
    if (!flag.path) continue;
    const value = args.flags[flag.name];
    const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
    for (const v of values) {
      confinePathSync(root, String(v), flag.path, { label: `--${flag.name}`, refuseFileAsFolder: true });
    }
  }
  for (const positional of leaf.positionals ?? []) {
    if (!positional.path) continue;
    const value = args.positionals[positional.name];
    const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
    for (const v of values) {
      confinePathSync(root, v, positional.path, { label: `<${positional.name}>`, refuseFileAsFolder: true });
    }
  }
}

function sessionDir(input: ExecInput): string {
  return join(input.root, "sessions", input.session);
}

function hostsFor(
  spec: Pick<CommandSpec, "netHosts">,
  config: PtermConfig,
  name: string,
  input: ExecInput,
  args: ParsedArgs,
): string[] {
  if (!spec.netHosts) return [];
  return spec.netHosts(config.sections[name], {
    root: input.root,
    session: { id: input.session, dir: sessionDir(input) },
    args: { flags: args.flags, positionals: args.positionals },
  });
}

function cancelledFailure(commandPath: string): { code: ErrorCode; message: string } {
  return {
    code: "Cancelled",
    message: `${commandPath} was cancelled by its caller and stopped; what it had not finished was not done ` +
      "(a command that writes keeps its all-or-nothing guarantee: see its --help).",
  };
}

/** The longest command line pterm parses (longer is refused, not cut): longer text belongs in stdin. */
export const MAX_COMMAND_LINE_BYTES = 64 * 1024;

/** How much of an over-long command line the audit record keeps. */
const AUDITED_LINE_CHARS = 1024;

function checkLineSize(line: string): void {
  // A UTF-16 length over the cap is over it in UTF-8 too; encode only when it might be.
  if (line.length * 3 <= MAX_COMMAND_LINE_BYTES) return;
  const bytes = new TextEncoder().encode(line).length;
  if (bytes <= MAX_COMMAND_LINE_BYTES) return;
  throw new PtermError(
    "InputTooLarge",
    `the command line is ${bytes} bytes, more than ${MAX_COMMAND_LINE_BYTES}; ` +
      "put long text in the tool call's `stdin` field instead (commands read it with their --*-stdin flags).",
  );
}

/**
 * pterm's state folders must be real folders: the kernel writes into them with its full
 * permissions, and Deno's permission check would not see where a symlink leads. Checked before
 * any command code runs, so a call is refused whole rather than run unaudited.
 */
function checkStateEntries(root: string, session: string): void {
  for (const entry of STATE_ENTRIES) assertNoSymlinkSync(root, entry);
  // The session's own folder (daemon sockets, cursors) too.
  assertNoSymlinkSync(root, `sessions/${session}`);
}

export async function execute(kernel: Kernel, input: ExecInput): Promise<Envelope> {
  const started = Date.now();
  const runId = newRunId(new Date(started));
  const artifacts = createArtifactStore(input.root, runId);
  const draft: Draft = {
    argv: null,
    parsed: null,
    helpFor: HELP_COMMAND,
    timeoutMs: Math.min(input.timeoutMs ?? DEFAULT_LIMITS.timeout_ms_default, DEFAULT_LIMITS.timeout_ms_max),
    stdinRef: null,
  };
  let config: PtermConfig | null = null;
  let outcome: SandboxOutcome | null = null;
  let sandbox: Sandbox | null = null;
  let failure:
    | { code: ErrorCode; message: string; result?: Record<string, unknown>; detail?: string; hint?: string }
    | null = null;
  let helpResult: { stdout: string; result: Record<string, unknown> } | null = null;

  const baseRecord = (): AuditRecord => ({
    run_id: runId,
    timestamp: new Date(started).toISOString(),
    session: input.session,
    // An over-long line (refused) is kept as its head: the record stays small.
    command: input.line.length > MAX_COMMAND_LINE_BYTES
      ? `${input.line.slice(0, AUDITED_LINE_CHARS)}[...${input.line.length} characters...]`
      : input.line,
    argv: draft.argv,
    parsed: draft.parsed,
    state: "running",
    exit_code: null,
    error_code: null,
    message: null,
    duration_ms: null,
    timeout_ms: draft.timeoutMs,
    artifacts: [],
    stdin: draft.stdinRef,
    replay_of: input.replayOf ?? null,
    origin: input.origin ?? "exec",
    envelope: null,
  });

  try {
    checkLineSize(input.line);
    checkStateEntries(input.root, input.session);
    let words: string[];
    try {
      words = tokenize(input.line);
    } catch (error) {
      if (error instanceof PtermError && error.code === "InvalidCommandLine") {
        const { hintForRefusedLine } = await lazyImport<typeof import("./line_hints.ts")>(
          new URL("./line_hints.ts", import.meta.url),
        );
        const hint = await hintForRefusedLine(input.line, kernel.registry).catch(() => "");
        if (hint) throw new PtermError("InvalidCommandLine", error.message + hint);
      }
      throw error;
    }
    draft.argv = words;
    if (kernel.registry.has(words[0]) || words[0] === HELP_COMMAND) draft.helpFor = words[0];
    const resolution = await kernel.registry.resolve(words);
    if (resolution.kind === "help") {
      const { renderCommandList, renderHelp, renderSearch } = await loadHelp();
      const doc = resolution.node
        ? renderHelp(resolution.path, resolution.node)
        : resolution.search !== undefined
        ? renderSearch(await kernel.registry.loadAll(), resolution.search)
        : renderCommandList(await kernel.registry.loadAll());
      const command = resolution.node ? `${resolution.path.join(" ")} --help` : HELP_COMMAND;
      draft.parsed = {
        path: resolution.node ? [...resolution.path] : [HELP_COMMAND],
        flags: { help: true },
        positionals: {},
      };
      helpResult = { stdout: doc.text, result: { ok: true, command, help: { ...doc, text: undefined } } };
    } else {
      const { spec, leaf, path } = resolution;
      const commandPath = path.join(" ");
      draft.helpFor = commandPath;
      const parsed = parseArgs(commandPath, leaf, resolution.rest);
      if (parsed.help) {
        const { renderHelp } = await loadHelp();
        const doc = renderHelp(path, leaf);
        draft.parsed = { path: [...path], flags: { help: true }, positionals: {} };
        helpResult = {
          stdout: doc.text,
          result: { ok: true, command: `${commandPath} --help`, help: { ...doc, text: undefined } },
        };
      } else {
        const args = parsed.args;
        draft.parsed = { path: [...path], flags: args.flags, positionals: args.positionals };
        const needsNet = leaf.capabilities.includes("net");
        // Start the worker first (it loads the command while the checks below run), unless its
        // network hosts come from the config, which is not read yet.
        if (!needsNet) {
          sandbox = newSandbox(
            kernel,
            leaf.handler,
            path,
            permissionsFor(leaf.capabilities, input.root, [], codeDirsOf(kernel)),
          );
        }
        config = await loadConfig(input.root, kernel.registry, kernel.version);
        const limits = config.limits;
        draft.timeoutMs = Math.min(
          input.timeoutMs ?? leaf.limits?.timeoutMs ?? limits.timeout_ms_default,
          limits.timeout_ms_max,
        );
        const deadline = started + draft.timeoutMs;
        confineArguments(input.root, leaf, args);

        let stdin: Stdin | null = null;
        if (input.stdin.kind === "text" || input.stdin.kind === "bytes" || usesStdin(leaf, args)) {
          if (usesStdin(leaf, args) && input.stdin.kind === "none") {
            throw new PtermError(
              "InvalidArgs",
              `${commandPath} reads its input from stdin, but the call has none; put the text in the tool call's \`stdin\` field.`,
              { helpFor: commandPath },
            );
          }
          stdin = await readStdin(input.stdin, limits.stdin_bytes, deadline);
          if (stdin !== null) {
            // Recorded as its bytes, so that a replay gives the command exactly what this call gave.
            draft.stdinRef = await artifacts.save("stdin.txt", stdin.bytes, {
              mime: stdin.text === null ? "application/octet-stream" : "text/plain",
              description: "stdin of this call",
            });
          }
          if (!usesStdin(leaf, args)) stdin = null;
          if (stdin !== null && stdin.text === null && !leaf.stdin?.bytes) {
            throw notUtf8Failure(commandPath, leaf, stdin);
          }
        }
        if (input.signal?.aborted) throw new PtermError("Cancelled", cancelledFailure(commandPath).message);
        sandbox ??= newSandbox(
          kernel,
          leaf.handler,
          path,
          permissionsFor(
            leaf.capabilities,
            input.root,
            hostsFor(spec, config, spec.name, input, args),
            codeDirsOf(kernel),
          ),
        );
        const running = sandbox.run(
          {
            commandName: spec.name,
            path,
            args,
            stdin: stdin?.text ?? null,
            ...(leaf.stdin?.bytes ? { stdinBytes: stdin?.bytes ?? null } : {}),
            root: input.root,
            runId,
            session: input.session,
            sessionDir: sessionDir(input),
            config: config.sections[spec.name],
            limits,
            terminal: input.terminal,
          },
          deadline,
          { signal: input.signal, onProgress: input.onProgress },
        );
        // The start record is written while the command runs; a run killed from now on leaves it behind.
        writeAuditRecord(input.root, baseRecord());
        outcome = await running;
        if (outcome.kind === "cancelled") failure = cancelledFailure(commandPath);
        if (outcome.kind === "failed") failure = outcome;
        if (outcome.kind === "timeout") {
          failure = {
            code: "Timeout",
            message: `${commandPath} did not finish within ${draft.timeoutMs} ms and was stopped; ` +
              "retry with a larger timeout_ms, or do less in one call.",
          };
        }
      }
    }
  } catch (error) {
    if (error instanceof PtermError) {
      failure = { code: error.code, message: error.message, result: error.result, hint: error.hint };
    } else {
      const err = error instanceof Error ? error : new Error(String(error));
      failure = {
        code: "Internal",
        message: `internal error in pterm (a bug; please report it): ${err.message}`,
        detail: err.stack,
      };
    }
    if (error instanceof PtermError && error.helpFor) draft.helpFor = error.helpFor;
    if (draft.argv === null) {
      // The line did not tokenize; still point the hint at the command it starts with, if any.
      const first = input.line.slice(0, 256).trim().split(/[ \t]+/)[0];
      if (kernel.registry.has(first)) draft.helpFor = first;
    }
  } finally {
    sandbox?.release();
  }
  if (outcome?.kind === "failed" && outcome.helpFor) draft.helpFor = outcome.helpFor;

  const limits = config?.limits ?? DEFAULT_LIMITS;
  const rawStdout = helpResult?.stdout ?? outcome?.stdout ?? "";
  let rawStderr = outcome?.stderr ?? "";
  if (failure) {
    rawStderr = (rawStderr && !rawStderr.endsWith("\n") ? rawStderr + "\n" : rawStderr) +
      formatFailure(failure.message, draft.helpFor, failure.hint);
  }
  const stdout = boundText(rawStdout, limits.stdout_bytes);
  const stderr = boundText(rawStderr, limits.stderr_bytes);
  const spill = async (name: string, text: string, what: string) => {
    try {
      await artifacts.save(name, text, {
        mime: "text/plain",
        // The full text is a file under the root: the line that reads it is part of the description.
        description: `full ${what} of this call (the envelope keeps head and tail); read it with ` +
          `\`read ${artifactRelDir(runId)}/${name} --lines 1:200\``,
      });
    } catch { /* the envelope still has head and tail */ }
  };
  if (stdout.truncated || outcome?.overflowed) await spill("stdout.txt", rawStdout, "stdout");
  if (stderr.truncated) await spill("stderr.txt", rawStderr, "stderr");

  const exitCode = failure ? exitCodeFor(failure.code) : EXIT_OK;
  const result = helpResult?.result ??
    (outcome?.kind === "done"
      ? outcome.result
      : failure?.result
      ? { ok: false, command: draft.helpFor, ...failure.result }
      : null);
  // The call's errors and result never carry URL credentials from its words (core/redact.ts).
  const words = draft.argv ?? [input.line];
  const envelope: Envelope = {
    run_id: runId,
    exit_code: exitCode,
    stdout: stdout.text,
    stderr: redactCredentials(stderr.text, words),
    result: redactCredentials(result, words),
    artifacts: [...(outcome?.artifacts ?? []), ...artifacts.list()],
    error_code: failure?.code ?? null,
    duration_ms: Date.now() - started,
    truncated: { stdout: stdout.truncated, stderr: stderr.truncated },
  };
  const record: AuditRecord = {
    ...baseRecord(),
    state: "finished",
    exit_code: envelope.exit_code,
    error_code: envelope.error_code,
    message: failure?.message ?? null,
    duration_ms: envelope.duration_ms,
    artifacts: envelope.artifacts,
    envelope,
  };
  if (failure?.detail) record.detail = failure.detail;
  try {
    writeAuditRecord(input.root, record);
  } catch (error) {
    // The call itself happened; failing to audit it must still be visible to the caller.
    envelope.stderr += `${envelope.stderr ? "\n" : ""}[Warning] the audit record could not be written: ${
      (error as Error).message
    }`;
  }
  return envelope;
}
