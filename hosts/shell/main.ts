/**
 * `pterm shell`: an interactive terminal for people, in the pterm grammar. Each line runs exactly
 * as a `terminal_exec` call (the kernel's `execute`, origin "shell": same grammar, confinement,
 * sandbox and audit) and is rendered for people. Loaded only when `pterm shell` runs (host.ts).
 */

import * as readline from "node:readline";
import process from "node:process";
import { listAuditRecords, readAuditRecord, resolveRunId } from "../../core/audit.ts";
import type { App } from "../../core/host/app.ts";
import type { CliIo } from "../../core/host/io.ts";
import { resolveWorkspace } from "../../core/host/workspace.ts";
import { isValidSessionId } from "../../core/host/options.ts";
import { listRuns, renderRunsTable, renderSessionsTable, summarizeSessions } from "../../core/host/runs.ts";
import type { Envelope } from "../../core/envelope.ts";
import { PtermError } from "../../core/errors.ts";
import { confinePathSync } from "../../core/fs/paths.ts";
import { Registry } from "../../core/registry.ts";
import { execute, type Kernel } from "../../core/runtime.ts";
import type { ProgressReport } from "../../core/context.ts";
import { writeFileAtomicSync } from "../../core/fs/atomic.ts";
import { TerminalOutput } from "./terminal.ts";
import { complete, splitWords } from "./complete.ts";
import { appendHistory, HISTORY_SIZE, loadHistory, workspaceSecrets } from "./history.ts";
import { ServiceLight } from "./service_light.ts";
import { Keyboard } from "./keyboard.ts";
import {
  escapeControls,
  outputText,
  paint,
  renderEnvelope,
  renderPrompt,
  renderRecord,
  renderRunStart,
} from "./render.ts";
import { watchSession } from "./watch.ts";
import { editText } from "./editor.ts";

export interface ShellOptions {
  readonly root?: string;
  readonly session?: string;
  /** --timeout-ms as given. */
  readonly timeoutMs?: string;
}

/** A line ending in `<<` takes the lines after it, up to one holding only `.`, as its stdin. */
const HEREDOC = /\s*<<\s*$/;
const HEREDOC_END = ".";
const CONTINUATION_PROMPT = "… ";
/** OSC 52 payloads past this are refused by common terminals; `:save` is the way for more. */
const MAX_CLIPBOARD_BYTES = 74_000;

/** How many of the newest audit records `:sessions` reads. */
const SESSIONS_SCAN_LIMIT = 10_000;

const HELP =
  `Type a pterm command line (e.g. \`hello\`, \`git status --repo proj\`, \`help\`); it runs as terminal_exec does.
  <line> <<        the lines after it, up to a line holding only ".", are the command's stdin (".." stands for "."),
                   or $EDITOR opens for them when it is set and pterm may start programs
  :copy            copy the last output to the clipboard (OSC 52: works over SSH and in tmux)
  :save PATH       write the last output into the workspace (--force replaces a file)
  :runs [N]        the session's recent runs
  :show ID         one run (an id, or the unique end of one)
  :watch [SESSION] follow a session's runs as they land (this one's by default; an agent's through
                   \`pterm mcp\` prints its session id when it starts); --all follows every session; Ctrl-C stops
  :sessions        the sessions in this workspace's audit log, most recent first
  :help, :quit     this text; leave (so does Ctrl-D)
Keys: Tab completes commands, flags and workspace paths; Up/Down walk the history; Ctrl-C stops the running
command, or clears the line.
`;

type Next = { kind: "line"; line: string } | { kind: "interrupt" } | { kind: "end" };

class LineQueue {
  #items: Next[] = [];
  #waiter: ((next: Next) => void) | null = null;

  push(next: Next): void {
    if (this.#waiter) {
      const wake = this.#waiter;
      this.#waiter = null;
      wake(next);
    } else this.#items.push(next);
  }

  next(): Promise<Next> {
    const item = this.#items.shift();
    if (item) return Promise.resolve(item);
    return new Promise((resolve) => this.#waiter = resolve);
  }

  /** Drops lines typed ahead (after Ctrl-C). */
  clear(): void {
    this.#items = this.#items.filter((item) => item.kind === "end");
  }
}

class Shell {
  readonly #kernel: Kernel;
  readonly #registry: Registry;
  readonly #root: string;
  readonly #session: string;
  readonly #timeoutMs?: number;
  readonly #interactive: boolean;
  readonly #color: boolean;
  readonly #env: (name: string) => string | undefined;
  readonly #keyboard = new Keyboard();
  readonly #terminal = new TerminalOutput();
  readonly #queue = new LineQueue();
  /** One light per session service the commands declare; set once the declarations are loaded. */
  #lights: ServiceLight[] = [];
  /** The red lights' reasons last printed, by label. */
  readonly #lightsExplained = new Map<string, string | null>();
  #rl: readline.Interface | null = null;
  #atPrompt = false;
  #inHeredoc = false;
  #last: Envelope | null = null;
  #interrupt: ((why?: string) => void) | null = null;
  #endedBy: "SIGTERM" | "SIGHUP" | null = null;
  /** The line editor has closed (Ctrl-D, end of input, a signal): no more prompts. */
  #closed = false;
  /** A progress line is on the screen (to be cleared before anything else is written). */
  #progressShown = false;

  constructor(app: App, io: CliIo, root: string, session: string, timeoutMs: number | undefined) {
    this.#registry = new Registry(app.commands);
    this.#kernel = { registry: this.#registry, codeDirs: app.codeDirs, version: app.version };
    this.#root = root;
    this.#session = session;
    this.#timeoutMs = timeoutMs;
    this.#interactive = io.stdin.isTerminal && io.stdoutIsTerminal;
    this.#color = io.stdoutIsTerminal && !io.env("NO_COLOR");
    this.#env = io.env;
  }

  /** Everything the shell writes to the terminal goes through its one escaping boundary (terminal.ts). */
  #write(text: string): void {
    this.#terminal.text(text);
  }

  #prompt(): string {
    return renderPrompt(this.#session, this.#lights, this.#color);
  }

  #refreshPrompt(): void {
    const rl = this.#rl;
    if (!rl || !this.#interactive || !this.#atPrompt || this.#inHeredoc || this.#closed) return;
    rl.setPrompt(this.#prompt());
    rl.prompt(true);
  }

  /** A red light's reason, once above the prompt each time it changes. */
  #explainLights(): void {
    for (const light of this.#lights) {
      const reason = this.#interactive ? light.reason : null;
      if (reason !== null && reason !== this.#lightsExplained.get(light.label)) {
        this.#write(paint(`${light.label}:red: ${escapeControls(reason)}`, "red", this.#color) + "\n");
      }
      this.#lightsExplained.set(light.label, reason);
    }
  }

  #showPrompt(prompt: string): void {
    this.#atPrompt = true;
    if (!this.#interactive || this.#closed) return;
    this.#rl!.setPrompt(prompt);
    // preserveCursor: text typed ahead of the prompt stays, with the cursor after it.
    this.#rl!.prompt(true);
  }

  /** Removes the newest in-memory history entry if it is `line` (secrets, heredoc bodies). */
  #forget(line: string): void {
    const history = (this.#rl as unknown as { history?: string[] }).history;
    if (history && history[0] === line) history.shift();
  }

  async run(): Promise<number> {
    let history: string[] = [];
    let historyProblem: string | null = null;
    if (this.#interactive) {
      try {
        history = await loadHistory(this.#root);
      } catch (error) {
        historyProblem = (error as Error).message;
      }
    }
    const rl = readline.createInterface({
      input: this.#keyboard.editorInput,
      output: this.#terminal.editorStream(),
      terminal: this.#interactive,
      history: history.reverse(),
      historySize: HISTORY_SIZE,
      removeHistoryDuplicates: true,
      completer: (line: string, callback: (error: Error | null, result: [string[], string]) => void) => {
        // Typing stdin, Tab is a character of the text: "complete" it to itself.
        if (this.#inHeredoc) return callback(null, [["\t"], ""]);
        complete(this.#registry, this.#root, line).then(
          (result) => callback(null, result),
          () => callback(null, [[], line]),
        );
      },
    });
    this.#rl = rl;
    rl.on("line", (line) => this.#queue.push({ kind: "line", line }));
    rl.on("close", () => {
      this.#closed = true;
      this.#queue.push({ kind: "end" });
    });
    rl.on("SIGINT", () => {
      if (this.#inHeredoc) {
        this.#queue.push({ kind: "interrupt" });
        return;
      }
      // Ctrl-C at the prompt: the line is dropped, a fresh prompt follows.
      this.#write("^C\n");
      const state = rl as unknown as { line: string; cursor: number; historyIndex: number };
      state.line = "";
      state.cursor = 0;
      state.historyIndex = -1;
      this.#queue.clear();
      rl.prompt();
    });
    // Ctrl-Z would stop the process with the terminal in raw mode; ignore it.
    rl.on("SIGTSTP", () => {});
    const onSignal = () => {
      if (this.#interrupt) this.#interrupt();
      else if (!this.#interactive) rl.close();
    };
    Deno.addSignalListener("SIGINT", onSignal);
    // Terminated, or the terminal hung up: the running command is cancelled (its record says so),
    // the terminal is given back in the mode it came in, and the shell leaves.
    const onEnd = (signal: "SIGTERM" | "SIGHUP") => () => {
      this.#endedBy ??= signal;
      this.#interrupt?.(signal);
      this.#queue.clear();
      rl.close();
    };
    const onTerm = onEnd("SIGTERM");
    const onHup = onEnd("SIGHUP");
    // Windows has neither signal (Deno listens there only for SIGINT and SIGBREAK).
    const posix = Deno.build.os !== "windows";
    if (posix) {
      Deno.addSignalListener("SIGTERM", onTerm);
      Deno.addSignalListener("SIGHUP", onHup);
    }
    if (this.#interactive) Deno.stdin.setRaw(true);
    const pumping = this.#keyboard.pump();
    try {
      // Every declaration now: completion then never waits for a module, and Deno never redraws
      // the line for a module load while a person types.
      const specs = await this.#registry.loadAll();
      if (this.#interactive) {
        // Only a prompt shows the lights: batch use never asks a service (irc's first status connects).
        const services = await Promise.all(specs.flatMap((spec) => spec.sessionService ? [spec.sessionService()] : []));
        this.#lights = services.map((service) =>
          new ServiceLight(service, this.#root, this.#session, () => this.#refreshPrompt())
        );
        await Promise.all(this.#lights.map((light) => light.first()));
        for (const light of this.#lights) light.start();
        this.#write(
          paint(`pterm shell · session ${this.#session} · :help for help, Ctrl-D to leave`, "grey", this.#color) + "\n",
        );
        if (historyProblem) {
          this.#write(paint(`(history not read: ${historyProblem})`, "grey", this.#color) + "\n");
        }
      }
      await this.#loop();
    } finally {
      for (const light of this.#lights) light.stop();
      Deno.removeSignalListener("SIGINT", onSignal);
      if (posix) {
        Deno.removeSignalListener("SIGTERM", onTerm);
        Deno.removeSignalListener("SIGHUP", onHup);
      }
      rl.close();
      if (this.#interactive) {
        try {
          Deno.stdin.setRaw(false);
          this.#write("\n");
        } catch { /* the terminal is gone */ }
      }
    }
    void pumping;
    if (this.#endedBy) return 128 + (this.#endedBy === "SIGTERM" ? 15 : 1);
    // As sh does: the status of the last command (0 when none ran).
    return this.#last?.exit_code ?? 0;
  }

  async #loop(): Promise<void> {
    while (true) {
      this.#explainLights();
      this.#showPrompt(this.#prompt());
      const next = await this.#queue.next();
      this.#atPrompt = false;
      if (next.kind === "end") return;
      if (next.kind === "interrupt") continue;
      const line = next.line;
      if (line.trim() === "") continue;
      try {
        if (line.trim().startsWith(":")) {
          if (!(await this.#meta(line.trim()))) return;
          await this.#remember(line);
          continue;
        }
        if (HEREDOC.test(line)) {
          const command = line.replace(HEREDOC, "");
          const stdin = await this.#readStdin();
          await this.#remember(line);
          if (stdin === null) {
            this.#write(paint("(stdin abandoned; nothing ran)", "grey", this.#color) + "\n");
            continue;
          }
          await this.#execute(command, stdin);
        } else {
          await this.#remember(line);
          await this.#execute(line, null);
        }
      } catch (error) {
        const message = error instanceof PtermError
          ? `[${error.code}] ${error.message}`
          : `shell error: ${(error as Error).message}`;
        this.#write(paint(escapeControls(message), "red", this.#color) + "\n");
      }
    }
  }

  /** History: persisted per root, never a line with a secret in it (kept out of up/down too). */
  async #remember(line: string): Promise<void> {
    if (!this.#interactive) return;
    if (line.startsWith(" ")) {
      this.#forget(line);
      return;
    }
    let stored = false;
    try {
      stored = await appendHistory(this.#root, line, await workspaceSecrets(this.#root));
    } catch (error) {
      // The line still runs; only its place in the history is lost.
      this.#write(paint(`(history not saved: ${(error as Error).message})`, "grey", this.#color) + "\n");
    }
    if (!stored) this.#forget(line);
  }

  /** The stdin of a `<<` line: from $EDITOR, or typed up to a lone `.`; null when abandoned. */
  async #readStdin(): Promise<string | null> {
    const editor = this.#interactive ? this.#env("EDITOR") : undefined;
    const mayStart = Deno.permissions.querySync({ name: "run", command: "sh" }).state === "granted";
    if (editor && !mayStart) {
      this.#write(
        paint(
          "($EDITOR is set, but this pterm may not start programs (it needs --allow-run=sh); type the text)",
          "grey",
          this.#color,
        ) + "\n",
      );
    }
    if (editor && mayStart) {
      this.#keyboard.hold();
      Deno.stdin.setRaw(false);
      try {
        return await editText(editor);
      } finally {
        Deno.stdin.setRaw(true);
        this.#keyboard.release();
      }
    }
    const lines: string[] = [];
    this.#inHeredoc = true;
    try {
      while (true) {
        this.#showPrompt(CONTINUATION_PROMPT);
        const next = await this.#queue.next();
        if (next.kind === "interrupt") {
          this.#write("^C\n");
          return null;
        }
        if (next.kind === "end") return null;
        this.#forget(next.line);
        if (next.line === HEREDOC_END) break;
        lines.push(next.line === ".." ? "." : next.line);
      }
    } finally {
      this.#inHeredoc = false;
    }
    return lines.length ? lines.join("\n") + "\n" : "";
  }

  /** Runs with the keyboard watching for Ctrl-C, which aborts `controller`. */
  async #busy<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const interrupt = (why = "^C") => {
      // Lines typed or pasted behind the stopped one do not run either.
      this.#queue.clear();
      if (!controller.signal.aborted) {
        this.#clearProgress();
        this.#write(paint(`${why} stopping…`, "yellow", this.#color) + "\n");
        controller.abort(new DOMException(`stopped (${why})`, "AbortError"));
      }
    };
    this.#interrupt = interrupt;
    this.#keyboard.mode = { kind: "busy", interrupt };
    try {
      return await work(controller.signal);
    } finally {
      this.#interrupt = null;
      this.#keyboard.mode = { kind: "line" };
    }
  }

  async #execute(line: string, stdin: string | null): Promise<void> {
    const envelope = await this.#busy((signal) =>
      execute(this.#kernel, {
        root: this.#root,
        session: this.#session,
        line,
        stdin: stdin === null ? { kind: "none" } : { kind: "text", text: stdin },
        timeoutMs: this.#timeoutMs,
        // Commands write plain text (as for an agent); the shell colours its own parts.
        terminal: { color: false },
        origin: "shell",
        signal,
        onProgress: (report) => this.#showProgress(report),
      })
    );
    this.#clearProgress();
    this.#last = envelope;
    this.#write(renderEnvelope(envelope, this.#color));
  }

  /** A command's progress, on one line that each report redraws (only in a terminal). */
  #showProgress(report: ProgressReport): void {
    if (!this.#interactive) return;
    const amount = report.total === undefined ? `${report.progress}` : `${report.progress}/${report.total}`;
    const text = `… ${report.message ? `${report.message} ` : ""}(${amount})`;
    const width = Math.max(10, (process.stdout.columns ?? 80) - 1);
    this.#terminal.control("\r\x1b[2K");
    this.#write(paint(escapeControls(text).slice(0, width), "grey", this.#color));
    this.#progressShown = true;
  }

  #clearProgress(): void {
    if (!this.#progressShown) return;
    this.#terminal.control("\r\x1b[2K");
    this.#progressShown = false;
  }

  /** A `:` command; false to leave the shell. */
  async #meta(line: string): Promise<boolean> {
    // Quotes group words as in a command line: :save "notes/my output.txt"
    const [name, ...args] = splitWords(line).filter((word) => word !== "");
    switch (name) {
      case ":quit":
      case ":exit":
      case ":q":
        return false;
      case ":help":
        this.#write(HELP);
        return true;
      case ":copy":
        this.#copy();
        return true;
      case ":save":
        this.#save(args);
        return true;
      case ":runs": {
        const limit = args[0] ?? "20";
        if (!/^[1-9]\d{0,5}$/.test(limit)) {
          throw new PtermError("InvalidArgs", `:runs takes how many runs to list (e.g. :runs 50), not \`${limit}\`.`);
        }
        const runs = await listRuns(this.#root, { session: this.#session, limit });
        this.#write(escapeControls(renderRunsTable(runs), this.#color));
        return true;
      }
      case ":show":
        await this.#show(args[0]);
        return true;
      case ":watch":
        await this.#watch(args);
        return true;
      case ":sessions":
        await this.#sessions();
        return true;
      default:
        throw new PtermError("UnknownCommand", `\`${name}\` is not a shell command; :help lists them.`);
    }
  }

  #lastOutput(): string {
    if (!this.#last) throw new PtermError("InvalidArgs", "nothing has run yet; run a command first.");
    return outputText(this.#last);
  }

  #copy(): void {
    const text = this.#lastOutput();
    const bytes = new TextEncoder().encode(text);
    if (!this.#interactive) {
      throw new PtermError("InvalidArgs", ":copy reaches the clipboard through the terminal, and this is none.");
    }
    if (bytes.length > MAX_CLIPBOARD_BYTES) {
      throw new PtermError(
        "InputTooLarge",
        `the last output is ${bytes.length} bytes; terminals take at most ${MAX_CLIPBOARD_BYTES} through OSC 52. ` +
          "Write it into the workspace with :save PATH instead.",
      );
    }
    let binary = "";
    for (const byte of bytes) binary += String.fromCharCode(byte);
    this.#terminal.control(`\x1b]52;c;${btoa(binary)}\x07`);
    this.#write(paint(`copied ${bytes.length} bytes to the clipboard (OSC 52)`, "grey", this.#color) + "\n");
  }

  #save(args: string[]): void {
    const force = args.includes("--force");
    const paths = args.filter((a) => a !== "--force");
    if (paths.length !== 1) throw new PtermError("InvalidArgs", "give one path: :save notes/output.txt [--force]");
    const text = this.#lastOutput();
    const target = confinePathSync(this.#root, paths[0], "write", { label: ":save" });
    if (target.exists && !force) {
      throw new PtermError("AlreadyExists", `${target.rel} exists; :save ${paths[0]} --force replaces it.`);
    }
    writeFileAtomicSync(target.abs, text, { mkdirs: true });
    this.#write(
      paint(`saved ${new TextEncoder().encode(text).length} bytes to ${target.rel}`, "grey", this.#color) + "\n",
    );
  }

  async #show(id: string | undefined): Promise<void> {
    if (!id) throw new PtermError("InvalidArgs", "give a run id: :show 20261122T035255063Z-c0baba14 (see :runs).");
    const runId = await resolveRunId(this.#root, id);
    this.#write(renderRecord(await readAuditRecord(this.#root, runId), this.#color));
  }

  /** `:watch`, `:watch SESSION` or `:watch --all`. */
  async #watch(args: string[]): Promise<void> {
    if (args.length > 1) {
      throw new PtermError("InvalidArgs", "give one session to watch (:watch agent-7) or --all (:watch --all).");
    }
    const session = args[0] === "--all" ? null : args[0] ?? this.#session;
    if (session !== null && !isValidSessionId(session)) {
      throw new PtermError(
        "InvalidArgs",
        `\`${session}\` is not a session id (letters, digits, ".", "_", "-"); :sessions lists them, :watch --all follows every one.`,
      );
    }
    const what = session === null ? "every session" : `session ${session}`;
    this.#write(paint(`watching ${what}; Ctrl-C stops`, "grey", this.#color) + "\n");
    await this.#busy((signal) =>
      watchSession(this.#root, session, {
        started: (record) => {
          const who = session === null || record.session !== this.#session
            ? paint(`[${escapeControls(record.session)}] `, "grey", this.#color)
            : "";
          this.#write(who + renderRunStart(record, this.#color));
        },
        finished: (record) => {
          if (record.envelope) this.#write(renderEnvelope(record.envelope, this.#color));
        },
      }, signal)
    );
  }

  /** `:sessions`: each session of the audit log with its run count and latest run. */
  async #sessions(): Promise<void> {
    const sessions = summarizeSessions(await listAuditRecords(this.#root, { limit: SESSIONS_SCAN_LIMIT }));
    this.#write(escapeControls(renderSessionsTable(sessions, this.#session), this.#color));
  }
}

export async function runShell(io: CliIo, app: App, options: ShellOptions): Promise<number> {
  const { root, session } = resolveWorkspace(io, options.root, options.session);
  const timeoutMs = options.timeoutMs === undefined ? undefined : Number(options.timeoutMs);
  if (timeoutMs !== undefined && (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1)) {
    throw new PtermError("InvalidArgs", `--timeout-ms must be a positive whole number, not \`${options.timeoutMs}\`.`, {
      helpFor: "pterm shell",
    });
  }
  return await new Shell(app, io, root, session, timeoutMs).run();
}
