/**
 * One `terminal_exec` call, start to finish: grammar → registry → flags → config → paths →
 * stdin → sandbox → envelope → audit. Every failure on the way becomes an envelope with its
 * code; nothing here prints or exits.
 */

import { artifactRelDir, type ArtifactStore, createArtifactStore } from "./artifacts.ts";
import { type AuditRecord, type CallOrigin, writeAuditRecord } from "./audit.ts";
import { redactCredentials } from "./redact.ts";
import { mapStrings, wellFormed } from "./strings.ts";
import { loadConfig, type PtermConfig } from "./config.ts";
import type { CommandNode, CommandSpec, LeafSpec } from "./declaration.ts";
import type { ArtifactRef, Envelope } from "./envelope.ts";
import { type ErrorCode, EXIT_OK, exitCodeFor, formatFailure, PtermError } from "./errors.ts";
import { parseArgs, type ParsedArgs } from "./flags.ts";
import { lazyImport } from "./lazy.ts";
import { tokenize } from "./grammar.ts";
import { DEFAULT_LIMITS, type KernelLimits } from "./limits.ts";
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
import type { ProgressReport } from "./context.ts";
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

const loadHelp = () => lazyImport<typeof import("./help.ts")>(new URL("./help.ts", import.meta.url));

function usesStdin(leaf: LeafSpec, args: ParsedArgs): boolean {
  const use = leaf.stdin;
  if (!use) return false;
  if (use.mode === "always") return true;
  // A repeatable flag given no time is an empty list: not given.
  const isGiven = (name: string) => {
    const value = args.flags[name];
    return Array.isArray(value) ? value.length > 0 : Boolean(value);
  };
  const given = isGiven(use.flag) || (use.mode === "whenFlag" && (use.alsoFlags ?? []).some(isGiven));
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

/** The call itself, fixed when it starts. */
interface Call {
  readonly kernel: Kernel;
  readonly input: ExecInput;
  readonly started: number;
  readonly runId: string;
  readonly artifacts: ArtifactStore;
}

/**
 * What is known about the call so far: what its audit record says, and what its envelope is
 * bounded by. Never changed: each stage hands back a new one.
 */
interface Known {
  readonly argv: string[] | null;
  readonly parsed: AuditRecord["parsed"];
  /** The command whose `--help` a failure points at. */
  readonly helpFor: string;
  readonly timeoutMs: number;
  readonly stdinRef: ArtifactRef | null;
  readonly limits: KernelLimits;
}

type Failure = {
  readonly code: ErrorCode;
  readonly message: string;
  readonly result?: Record<string, unknown>;
  readonly detail?: string;
  readonly hint?: string;
};

interface HelpAnswer {
  readonly stdout: string;
  readonly result: Record<string, unknown>;
}

/** What a help request asks for: one command's help, the search of every command, or the list of them. */
interface HelpRequest {
  readonly path: readonly string[];
  readonly node: CommandNode | null;
  readonly search?: string;
}

interface Target {
  readonly spec: CommandSpec;
  readonly leaf: LeafSpec;
  readonly path: readonly string[];
  readonly commandPath: string;
}

type Parsed =
  | { readonly kind: "help"; readonly known: Known; readonly request: HelpRequest }
  | { readonly kind: "command"; readonly known: Known; readonly target: Target; readonly args: ParsedArgs };

/** Everything the command needs to run, checked: its config, deadline, stdin and permissions. */
interface Prepared {
  readonly known: Known;
  readonly config: PtermConfig;
  readonly deadline: number;
  readonly stdin: Stdin | null;
}

/** How the call ended, before it becomes an envelope. */
interface Ending {
  readonly known: Known;
  readonly help: HelpAnswer | null;
  readonly outcome: SandboxOutcome | null;
  readonly failure: Failure | null;
}

/** A stage's failure, with what was known when it happened (the audit record keeps it). */
class Stopped {
  constructor(readonly known: Known, readonly error: unknown) {}
}

/** Runs `step`; whatever it throws is stopped with `known`, unless an inner step already stopped it. */
async function knowing<T>(known: Known, step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw error instanceof Stopped ? error : new Stopped(known, error);
  }
}

/**
 * The command's worker, held for the call: started as early as its permissions are known (it loads
 * the command while the checks run), released when the call ends, whatever happens.
 */
class WorkerSlot {
  #sandbox: Sandbox | null = null;
  constructor(readonly call: Call) {}
  /** Starts the worker with the network hosts it may reach, unless it is started already. */
  start(target: Target, hosts: readonly string[]): void {
    const { kernel, input } = this.call;
    this.#sandbox ??= newSandbox(
      kernel,
      target.leaf.handler,
      target.path,
      permissionsFor(target.leaf.capabilities, input.root, [...hosts], codeDirsOf(kernel)),
    );
  }
  get started(): boolean {
    return this.#sandbox !== null;
  }
  get sandbox(): Sandbox {
    if (this.#sandbox === null) throw new Error("the command's worker runs only once the call is prepared");
    return this.#sandbox;
  }
  release(): void {
    this.#sandbox?.release();
  }
}

/**
 * One call: parse · help · prepare · run · finish. The guarantees live here: the start record is
 * written once the command runs, the command is stopped at the deadline `prepare` sets, its worker is
 * released whatever happens, and every call — failed, refused or crashed — ends in an envelope and
 * exactly one finished audit record.
 */
export async function execute(kernel: Kernel, input: ExecInput): Promise<Envelope> {
  const started = Date.now();
  const runId = newRunId(new Date(started));
  const call: Call = { kernel, input, started, runId, artifacts: createArtifactStore(input.root, runId) };
  const worker = new WorkerSlot(call);
  let ending: Ending;
  try {
    const parsed = await parse(call, firstKnown(input));
    if (parsed.kind === "help") {
      ending = await help(call, parsed.known, parsed.request);
    } else {
      const prepared = await prepare(call, parsed, worker);
      ending = await run(call, parsed, prepared, worker, {
        // Written while the command runs; a run killed from now on leaves it behind.
        onStarted: (known) => writeAuditRecord(input.root, auditRecord(call, known)),
      });
    }
  } catch (error) {
    ending = failed(call, error);
  } finally {
    worker.release();
  }
  return finish(call, ending);
}

function firstKnown(input: ExecInput): Known {
  return {
    argv: null,
    parsed: null,
    helpFor: HELP_COMMAND,
    timeoutMs: Math.min(input.timeoutMs ?? DEFAULT_LIMITS.timeout_ms_default, DEFAULT_LIMITS.timeout_ms_max),
    stdinRef: null,
    limits: DEFAULT_LIMITS,
  };
}

/** The line → its words → the command they name and its arguments, or a help request. */
async function parse(call: Call, known: Known): Promise<Parsed> {
  const { kernel, input } = call;
  const words = await knowing(known, async () => {
    checkLineSize(input.line);
    checkStateEntries(input.root, input.session);
    return await tokenizeWithHint(input.line, kernel.registry);
  });
  const named = kernel.registry.has(words[0]) || words[0] === HELP_COMMAND;
  const tokenized: Known = { ...known, argv: words, helpFor: named ? words[0] : known.helpFor };
  const resolution = await knowing(tokenized, () => kernel.registry.resolve(words));
  if (resolution.kind === "help") {
    const { path, node, search } = resolution;
    return { kind: "help", known: tokenized, request: { path, node, search } };
  }
  const { spec, leaf, path } = resolution;
  const commandPath = path.join(" ");
  const resolved: Known = { ...tokenized, helpFor: commandPath };
  const parsedArgs = await knowing(resolved, () => parseArgs(commandPath, leaf, resolution.rest));
  if (parsedArgs.help) return { kind: "help", known: resolved, request: { path, node: leaf } };
  const args = parsedArgs.args;
  return {
    kind: "command",
    known: { ...resolved, parsed: { path: [...path], flags: args.flags, positionals: args.positionals } },
    target: { spec, leaf, path, commandPath },
    args,
  };
}

/** A refused line gets a hint at what the caller meant, when there is one. */
async function tokenizeWithHint(line: string, registry: Registry): Promise<string[]> {
  try {
    return tokenize(line);
  } catch (error) {
    if (error instanceof PtermError && error.code === "InvalidCommandLine") {
      const { hintForRefusedLine } = await lazyImport<typeof import("./line_hints.ts")>(
        new URL("./line_hints.ts", import.meta.url),
      );
      const hint = await hintForRefusedLine(line, registry).catch(() => "");
      if (hint) throw new PtermError("InvalidCommandLine", error.message + hint);
    }
    throw error;
  }
}

async function help(call: Call, known: Known, request: HelpRequest): Promise<Ending> {
  const { registry } = call.kernel;
  return await knowing(known, async () => {
    const { renderCommandList, renderHelp, renderSearch } = await loadHelp();
    const doc = request.node
      ? renderHelp(request.path, request.node)
      : request.search !== undefined
      ? renderSearch(await registry.loadAll(), request.search)
      : renderCommandList(await registry.loadAll());
    const command = request.node ? `${request.path.join(" ")} --help` : HELP_COMMAND;
    return {
      known: {
        ...known,
        parsed: { path: request.node ? [...request.path] : [HELP_COMMAND], flags: { help: true }, positionals: {} },
      },
      help: { stdout: doc.text, result: { ok: true, command, help: { ...doc, text: undefined } } },
      outcome: null,
      failure: null,
    };
  });
}

/** Config → timeout → confined paths → stdin, and the worker started; nothing of the command runs yet. */
async function prepare(
  call: Call,
  { known: parsed, target, args }: Parsed & { kind: "command" },
  worker: WorkerSlot,
): Promise<Prepared> {
  const { kernel, input, started, artifacts } = call;
  const { spec, leaf, commandPath } = target;
  const config = await knowing(parsed, () => {
    // Start the worker first (it loads the command while the checks below run), unless its
    // network hosts come from the config, which is not read yet.
    if (!leaf.capabilities.includes("net")) worker.start(target, []);
    return loadConfig(input.root, kernel.registry, kernel.version);
  });
  const limits = config.limits;
  const timeoutMs = Math.min(
    input.timeoutMs ?? leaf.limits?.timeoutMs ?? limits.timeout_ms_default,
    limits.timeout_ms_max,
  );
  const configured: Known = { ...parsed, timeoutMs, limits };
  const deadline = started + timeoutMs;
  const read = await knowing(configured, async () => {
    confineArguments(input.root, leaf, args);
    if (!(input.stdin.kind === "text" || input.stdin.kind === "bytes" || usesStdin(leaf, args))) return null;
    if (usesStdin(leaf, args) && input.stdin.kind === "none") {
      throw new PtermError(
        "InvalidArgs",
        `${commandPath} reads its input from stdin, but the call has none; put the text in the tool call's \`stdin\` field.`,
        { helpFor: commandPath },
      );
    }
    const stdin = await readStdin(input.stdin, limits.stdin_bytes, deadline);
    // Recorded as its bytes, so that a replay gives the command exactly what this call gave.
    const stdinRef = stdin === null ? null : await artifacts.save("stdin.txt", stdin.bytes, {
      mime: stdin.text === null ? "application/octet-stream" : "text/plain",
      description: "stdin of this call",
    });
    return { stdin: usesStdin(leaf, args) ? stdin : null, stdinRef };
  });
  const known: Known = { ...configured, stdinRef: read?.stdinRef ?? null };
  return await knowing(known, () => {
    const stdin = read?.stdin ?? null;
    if (stdin !== null && stdin.text === null && !leaf.stdin?.bytes) throw notUtf8Failure(commandPath, leaf, stdin);
    if (input.signal?.aborted) throw new PtermError("Cancelled", cancelledFailure(commandPath).message);
    if (!worker.started) worker.start(target, hostsFor(spec, config, spec.name, input, args));
    return { known, config, deadline, stdin };
  });
}

/** Runs the command in its worker until it ends, fails, is cancelled or reaches its deadline. */
async function run(
  call: Call,
  { target, args }: Parsed & { kind: "command" },
  prepared: Prepared,
  worker: WorkerSlot,
  { onStarted }: { readonly onStarted: (known: Known) => void },
): Promise<Ending> {
  const { input, runId } = call;
  const { spec, leaf, path, commandPath } = target;
  const { known, config, stdin } = prepared;
  const outcome = await knowing(known, () => {
    const running = worker.sandbox.run(
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
        limits: config.limits,
        terminal: input.terminal,
      },
      prepared.deadline,
      { signal: input.signal, onProgress: input.onProgress },
    );
    onStarted(known);
    return running;
  });
  const failure: Failure | null = outcome.kind === "cancelled"
    ? cancelledFailure(commandPath)
    : outcome.kind === "failed"
    ? outcome
    : outcome.kind === "timeout"
    ? {
      code: "Timeout",
      message: `${commandPath} did not finish within ${known.timeoutMs} ms and was stopped; ` +
        "retry with a larger timeout_ms, or do less in one call.",
    }
    : null;
  const helpFor = outcome.kind === "failed" && outcome.helpFor ? outcome.helpFor : known.helpFor;
  return { known: { ...known, helpFor }, help: null, outcome, failure };
}

/** A thrown failure as the call's ending: a PtermError keeps its code, anything else is an internal error. */
function failed(call: Call, thrown: unknown): Ending {
  const { known, error } = thrown instanceof Stopped ? thrown : new Stopped(firstKnown(call.input), thrown);
  let failure: Failure;
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
  let helpFor = error instanceof PtermError && error.helpFor ? error.helpFor : known.helpFor;
  if (known.argv === null) {
    // The line did not tokenize; still point the hint at the command it starts with, if any.
    const first = call.input.line.slice(0, 256).trim().split(/[ \t]+/)[0];
    if (call.kernel.registry.has(first)) helpFor = first;
  }
  return { known: { ...known, helpFor }, help: null, outcome: null, failure };
}

function auditRecord(call: Call, known: Known): AuditRecord {
  const { input } = call;
  return {
    run_id: call.runId,
    timestamp: new Date(call.started).toISOString(),
    session: input.session,
    // An over-long line (refused) is kept as its head: the record stays small.
    command: input.line.length > MAX_COMMAND_LINE_BYTES
      ? `${input.line.slice(0, AUDITED_LINE_CHARS)}[...${input.line.length} characters...]`
      : input.line,
    argv: known.argv,
    parsed: known.parsed,
    state: "running",
    exit_code: null,
    error_code: null,
    message: null,
    duration_ms: null,
    timeout_ms: known.timeoutMs,
    artifacts: [],
    stdin: known.stdinRef,
    replay_of: input.replayOf ?? null,
    origin: input.origin ?? "exec",
    envelope: null,
  };
}

/** The ending → the envelope (bounded, redacted, overflow spilled to artifacts) and the finished audit record. */
async function finish(call: Call, ending: Ending): Promise<Envelope> {
  const { input, runId, artifacts, started } = call;
  const { known, help, outcome, failure } = ending;
  const rawStdout = help?.stdout ?? outcome?.stdout ?? "";
  let rawStderr = outcome?.stderr ?? "";
  if (failure) {
    rawStderr = (rawStderr && !rawStderr.endsWith("\n") ? rawStderr + "\n" : rawStderr) +
      formatFailure(failure.message, known.helpFor, failure.hint);
  }
  const stdout = boundText(rawStdout, known.limits.stdout_bytes);
  const stderr = boundText(rawStderr, known.limits.stderr_bytes);
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
  const result = help?.result ??
    (outcome?.kind === "done"
      ? outcome.result
      : failure?.result
      ? { ok: false, command: known.helpFor, ...failure.result }
      : null);
  // The call's errors and result never carry URL credentials from its words (core/redact.ts).
  const words = known.argv ?? [input.line];
  const envelope: Envelope = {
    run_id: runId,
    exit_code: exitCode,
    stdout: wellFormed(stdout.text),
    stderr: wellFormed(redactCredentials(stderr.text, words)),
    result: mapStrings(redactCredentials(result, words), wellFormed),
    artifacts: [...(outcome?.artifacts ?? []), ...artifacts.list()],
    error_code: failure?.code ?? null,
    duration_ms: Date.now() - started,
    truncated: { stdout: stdout.truncated, stderr: stderr.truncated },
  };
  const record: AuditRecord = {
    ...auditRecord(call, known),
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
