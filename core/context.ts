/**
 * What a handler receives. Handlers are functions of this context (as in dax's builtins):
 * they never print, exit or look at the process; they return a result or throw PtermError.
 */

import type { ArtifactStore } from "./artifacts.ts";
import type { FlagsOf, FlagSpec, PositionalsOf, PositionalSpec } from "./declaration.ts";
import type { KernelLimits } from "./limits.ts";
import { lazyImport } from "./lazy.ts";
import type { Access, ConfinedPath, ConfinementMemo, ConfineOptions } from "./fs/paths.ts";

/** How far a long command has come, for callers that show progress (MCP `notifications/progress`). */
export interface ProgressReport {
  /** Work done so far, in the command's own unit (files, blocks, bytes); increases with each report. */
  readonly progress: number;
  /** The whole amount, when known. */
  readonly total?: number;
  readonly message?: string;
}

export interface TextSink {
  write(text: string): void;
}

/** The workspace root and the one way to turn a path argument into a location under it. */
export interface Workspace {
  /** Canonical absolute root. */
  readonly root: string;
  resolve(input: string, access: Access, options?: ConfineOptions): Promise<ConfinedPath>;
}

/** The confinement code loads on first use: a sandbox worker that never resolves a path starts without it. */
const loadPaths = () => lazyImport<typeof import("./fs/paths.ts")>(new URL("./fs/paths.ts", import.meta.url));

/**
 * A workspace for one call: its resolves share what they learn about folders (`ConfinementMemo`),
 * never across calls; the confinement code, once loaded, is called directly.
 */
export function createWorkspace(root: string): Workspace {
  let loaded: { paths: Awaited<ReturnType<typeof loadPaths>>; memo: ConfinementMemo } | null = null;
  return {
    root,
    resolve: async (input, access, options) => {
      if (loaded === null) {
        const paths = await loadPaths();
        loaded ??= { paths, memo: new paths.ConfinementMemo() };
      }
      return loaded.paths.confinePath(root, input, access, options, loaded.memo);
    },
  };
}

export interface SessionInfo {
  readonly id: string;
  /** `<root>/sessions/<id>`: where session-bound state (daemon sockets, cursors) lives. */
  readonly dir: string;
}

export interface CommandContext<F = Record<string, unknown>, P = Record<string, unknown>> {
  /** The command path as run, e.g. `git status`. */
  readonly command: string;
  readonly flags: F;
  readonly positionals: P;
  /**
   * The call's stdin as UTF-8 text, only for commands that declare they read it; otherwise null
   * (also null for a command that takes bytes when the bytes are not UTF-8: see `stdinBytes`).
   */
  readonly stdin: string | null;
  /** The call's stdin as its bytes, for commands whose declaration takes bytes (`stdin.bytes`); otherwise null. */
  readonly stdinBytes: Uint8Array | null;
  readonly workspace: Workspace;
  /** The short human-readable summary of the envelope (bounded by the kernel). */
  readonly stdout: TextSink;
  /** Warnings for people; failures are thrown, not written here. */
  readonly stderr: TextSink;
  readonly artifacts: ArtifactStore;
  /**
   * Aborted when the call times out or its caller cancels it (the reason is a PtermError with
   * code `Timeout` or `Cancelled`); the command then has a short grace period to stop.
   */
  readonly signal: AbortSignal;
  /**
   * Reports how far a long command has come (files added, blocks applied, bytes read), for
   * callers that show progress; cheap enough to call per item, and ignored when nobody listens.
   */
  progress(report: ProgressReport): void;
  /** This command's section of pterm.json (validated), or undefined when absent. */
  readonly config: unknown;
  readonly session: SessionInfo;
  readonly runId: string;
  readonly limits: KernelLimits;
  /** Whether stdout may carry ANSI colour (a terminal, and NO_COLOR unset). */
  readonly terminal: { readonly color: boolean };
  /**
   * The worker runs later calls of this command with the same permissions (`pterm mcp` keeps it
   * warm). Only then may a command keep a cache across calls, and only one whose correctness it
   * proves against changes made behind its back (commands/git/worktree/fsmonitor.ts).
   */
  readonly warm?: boolean;
}

/** The result fields a handler returns; the kernel adds `ok` and `command` when they are missing. */
export type ResultFields = Record<string, unknown>;

/** A handler for a leaf declared with flags `Fs` and positionals `Ps`. */
export type Handler<
  Fs extends readonly FlagSpec[] = readonly FlagSpec[],
  Ps extends readonly PositionalSpec[] = readonly [],
> = (ctx: CommandContext<FlagsOf<Fs>, PositionalsOf<Ps>>) => Promise<ResultFields>;

/** A handler of any leaf, as the sandbox worker holds it before it knows the leaf's flags. */
// deno-lint-ignore no-explicit-any
export type AnyHandler = (ctx: CommandContext<any, any>) => Promise<ResultFields>;
