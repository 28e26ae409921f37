/** Messages between the kernel and the sandbox worker that runs a command's code. */

import type { ArtifactRef } from "../envelope.ts";
import type { ProgressReport } from "../context.ts";
import type { ErrorCode } from "../errors.ts";
import type { ParsedArgs } from "../flags.ts";
import type { KernelLimits } from "../limits.ts";

export interface SandboxJob {
  readonly commandName: string;
  readonly path: readonly string[];
  readonly args: ParsedArgs;
  readonly stdin: string | null;
  /** Stdin's bytes, for a command whose declaration takes bytes (absent or null otherwise). */
  readonly stdinBytes?: Uint8Array | null;
  readonly root: string;
  readonly runId: string;
  readonly session: string;
  /** `<root>/sessions/<session>`, computed by the kernel. */
  readonly sessionDir: string;
  readonly config: unknown;
  readonly limits: KernelLimits;
  readonly terminal: { readonly color: boolean };
  /** The worker may run later jobs with the same permissions (a warm `pterm mcp` worker); see `CommandContext.warm`. */
  readonly warm?: boolean;
  /**
   * Someone listens to this job's progress reports (an MCP call with a progress token). When not,
   * `ctx.progress` sends nothing: a command reporting each of thousands of items would otherwise
   * pay a message to the kernel for each, to be dropped there.
   */
  readonly progress?: boolean;
}

export type ToWorker =
  /** `seq` numbers the jobs of a worker that runs several (see `Sandbox`); its messages carry it back. */
  | { readonly type: "run"; readonly job: SandboxJob; readonly seq: number }
  /** Stop: the call timed out, or its caller cancelled it (an MCP cancellation, Ctrl-C in the shell). */
  | { readonly type: "abort"; readonly reason: "timeout" | "cancelled" }
  /** Sent as soon as the worker exists; see `Sandbox` for why. The worker ignores it. */
  | { readonly type: "warm-up" };

/** What the worker sends; `seq` is the job it belongs to (messages of an earlier job are ignored). */
export type FromWorker = FromJob & { readonly seq?: number };

export type FromJob =
  | { readonly type: "stdout"; readonly text: string }
  | { readonly type: "stderr"; readonly text: string }
  | { readonly type: "artifact"; readonly ref: ArtifactRef }
  | ({ readonly type: "progress" } & ProgressReport)
  | { readonly type: "done"; readonly result: Record<string, unknown> }
  | {
    readonly type: "failed";
    readonly code: ErrorCode;
    readonly message: string;
    readonly result?: Record<string, unknown>;
    readonly helpFor?: string;
    readonly hint?: string;
    /** For `Internal`: where it happened, for the audit log. */
    readonly detail?: string;
  };
