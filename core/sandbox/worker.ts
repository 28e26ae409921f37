/**
 * The inside of the sandbox: runs one job in a worker whose Deno permissions the kernel has
 * narrowed.
 */

import { createArtifactStore } from "../artifacts.ts";
import { createWorkspace } from "../context.ts";
import type { CommandContext } from "../context.ts";
import type { HandlerRef } from "../declaration.ts";
import type { AnyHandler } from "../context.ts";
import { isErrorCode, PtermError } from "../errors.ts";
import { withinCall } from "../call_scope.ts";
import type { FromJob, FromWorker, SandboxJob, ToWorker } from "./protocol.ts";

// Value imports are kept to a minimum here: each module costs ~0.3 ms of a fresh worker's start.

/** Maps anything a handler throws to the failure message the kernel reports. */
export function classifyFailure(error: unknown): Extract<FromJob, { type: "failed" }> {
  if (error instanceof PtermError || (error instanceof Error && isErrorCode((error as { code?: unknown }).code))) {
    const e = error as PtermError;
    return { type: "failed", code: e.code, message: e.message, result: e.result, helpFor: e.helpFor, hint: e.hint };
  }
  if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
    const message = (error as Error).message;
    const isNet = /\bnet\b|network/i.test(message);
    return {
      type: "failed",
      code: isNet ? "NetworkDenied" : "SandboxDenied",
      message: `the sandbox refused this command an operation it did not declare: ${message}`,
    };
  }
  const err = error instanceof Error ? error : new Error(String(error));
  return {
    type: "failed",
    code: "Internal",
    message: `internal error in pterm (a bug; please report it): ${err.message}`,
    detail: err.stack?.split("\n").slice(0, 8).join("\n"),
  };
}

/** Runs `job` with the handler its declaration names, reporting through `post`. */
export async function runJob(
  handlerPromise: Promise<AnyHandler>,
  job: SandboxJob,
  post: (message: FromJob) => void,
  signal: AbortSignal,
): Promise<void> {
  try {
    const handler = await handlerPromise;
    const command = job.path.join(" ");
    const ctx: CommandContext = {
      command,
      flags: job.args.flags,
      positionals: job.args.positionals,
      stdin: job.stdin,
      stdinBytes: job.stdinBytes ?? null,
      workspace: createWorkspace(job.root),
      stdout: { write: (text) => post({ type: "stdout", text }) },
      stderr: { write: (text) => post({ type: "stderr", text }) },
      artifacts: createArtifactStore(job.root, job.runId, (ref) => post({ type: "artifact", ref })),
      signal,
      progress: job.progress === true ? (report) => post({ type: "progress", ...report }) : () => {},
      config: job.config,
      session: { id: job.session, dir: job.sessionDir },
      runId: job.runId,
      limits: job.limits,
      terminal: job.terminal,
      warm: job.warm === true,
    };
    const fields = await withinCall(() => handler(ctx));
    post({ type: "done", result: { ok: true, command, ...fields } });
  } catch (error) {
    post(classifyFailure(error));
  }
}

/**
 * The body of a sandbox worker: serves jobs with `handler`, one at a time (the kernel sends the next
 * only after the previous one finished; see `Sandbox`). The kernel generates the worker's
 * entry module (core/sandbox/sandbox.ts), which imports this module and the command's handler module
 * together and passes the handler's export here — or `undefined` if the module lacks it.
 */
export function serveHandler(handler: unknown, ref: HandlerRef): void {
  const scope = globalThis as unknown as {
    onmessage: ((event: MessageEvent<ToWorker>) => void) | null;
    postMessage(message: FromWorker): void;
    addEventListener(type: "unhandledrejection", listener: (event: PromiseRejectionEvent) => void): void;
  };
  /** The job running now (or last): its number and the signal its handler sees. */
  let current = { seq: 0, controller: new AbortController() };
  const post = (seq: number, message: FromJob) => {
    try {
      scope.postMessage({ ...message, seq });
    } catch (error) {
      scope.postMessage({ ...classifyFailure(error), seq });
    }
  };
  // Nothing a command or a library it loads prints may pass the envelope: the worker's stdout and
  // stderr are the process's, and under `pterm mcp` the process's stdout is the protocol. What
  // goes to the console goes to the running job's stderr instead, where the envelope holds it.
  const toJobStderr = (...args: unknown[]) => {
    const text = args.map((arg) => typeof arg === "string" ? arg : Deno.inspect(arg)).join(" ");
    post(current.seq, { type: "stderr", text: `${text}\n` });
  };
  for (const method of ["log", "info", "debug", "warn", "error", "trace", "dir"] as const) {
    (console as unknown as Record<string, unknown>)[method] = toJobStderr;
  }
  scope.addEventListener("unhandledrejection", (event) => {
    event.preventDefault();
    post(current.seq, classifyFailure(event.reason));
  });
  const ready: Promise<AnyHandler> = typeof handler === "function"
    ? Promise.resolve(handler as AnyHandler)
    : Promise.reject(new PtermError("Internal", `${ref.module} exports no handler named ${ref.export}`));
  ready.catch(() => {}); // reported when the job arrives
  scope.onmessage = (event) => {
    const message = event.data;
    if (message.type === "abort") {
      current.controller.abort(
        message.reason === "cancelled"
          ? new PtermError("Cancelled", "the call was cancelled by its caller")
          : new PtermError("Timeout", "the call timed out"),
      );
    } else if (message.type === "run") {
      const job = { seq: message.seq, controller: new AbortController() };
      current = job;
      void runJob(ready, message.job, (m) => post(job.seq, m), job.controller.signal);
    }
  };
}
