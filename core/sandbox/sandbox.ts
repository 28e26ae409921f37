/**
 * The second wall, behind the kernel's own checks: every command's code
 * runs in a Worker whose Deno permissions are narrowed to what the command declared —
 * read/write only under the root, no env/run/ffi/sys, network only to declared hosts.
 * A timeout first aborts the command's signal, then terminates the worker, so even a busy
 * loop stops.
 *
 * Starting a worker costs ~14 ms, most of it blocking, so the kernel starts it as soon as it
 * knows the command and finishes its own checks while the worker loads the command's code.
 */

import type { Capability, HandlerRef } from "../declaration.ts";
import { dirname, fromFileUrl } from "../fs/path.ts";
import type { ArtifactRef } from "../envelope.ts";
import type { ErrorCode } from "../errors.ts";
import { ABORT_GRACE_MS, MEMORY_WATCH_AFTER_MS, MEMORY_WATCH_EVERY_MS } from "../limits.ts";
import type { FromWorker, SandboxJob, ToWorker } from "./protocol.ts";
import type { ProgressReport } from "../context.ts";
import { BUNDLE_DIR, bundleOf } from "../bundles.ts";

/** Captured output past this is dropped (the envelope keeps far less; the artifact says so). */
const MAX_CAPTURE_CHARS = 32 * 1024 * 1024;

export type SandboxOutcome =
  & {
    stdout: string;
    stderr: string;
    artifacts: ArtifactRef[];
    /** Output was dropped past MAX_CAPTURE_CHARS. */
    overflowed: boolean;
  }
  & (
    | { kind: "done"; result: Record<string, unknown> }
    | {
      kind: "failed";
      code: ErrorCode;
      message: string;
      result?: Record<string, unknown>;
      helpFor?: string;
      hint?: string;
      detail?: string;
    }
    | { kind: "timeout" }
    | { kind: "cancelled" }
  );

/** What a caller may add to a run besides its deadline. */
export interface RunOptions {
  /** Aborting it cancels the run: the command's signal aborts, then its worker is terminated. */
  readonly signal?: AbortSignal;
  /** Called with each progress report the command makes. */
  readonly onProgress?: (report: ProgressReport) => void;
}

export interface WorkerPermissions {
  read: string[];
  write: string[] | false;
  net: string[] | false;
  env: false;
  run: false;
  ffi: false;
  sys: false;
  import: false;
}

/** pterm's own code folders: the kernel (this folder's parent), the commands and lib/ beside it; see `permissionsFor`. */
export const CORE_DIR = dirname(dirname(fromFileUrl(import.meta.url)));
/** Shared code no layer owns (lib/): the commands' workers import it. */
export const LIB_DIR = fromFileUrl(new URL("../../lib", import.meta.url));
export const COMMANDS_DIR = fromFileUrl(new URL("../../commands", import.meta.url));

const WORKER_BODY_URL = new URL("./worker.ts", import.meta.url).href;

/**
 * The entry module of a command's worker: the kernel's worker body and the handler's module,
 * imported together so they load as one graph — or, given the handler's worker bundle
 * (core/bundles.ts), that one module, which holds both. A `data:` URL, so no file is
 * generated; the specifiers are JSON strings, so nothing in them can escape into code.
 */
export function workerEntryUrl(handler: HandlerRef, bundle: string | null = null): string {
  const imports = bundle === null
    ? `import { serveHandler } from ${JSON.stringify(WORKER_BODY_URL)};\n` +
      `import * as handlerModule from ${JSON.stringify(handler.module)};\n`
    : `import { handlerModule, serveHandler } from ${JSON.stringify(bundle)};\n`;
  const source = imports +
    `serveHandler(handlerModule[${JSON.stringify(handler.export)}], ${JSON.stringify(handler)});\n`;
  return `data:application/javascript,${encodeURIComponent(source)}`;
}

/**
 * The module a worker for `handler` starts from: the handler's bundle when the kernel runs bundled,
 * has one, and the worker may read the bundles' folder; else null (the source).
 */
export function workerBundleFor(handler: HandlerRef, permissions: WorkerPermissions): string | null {
  const bundle = bundleOf(handler.module);
  return bundle !== null && permissions.read.includes(BUNDLE_DIR) ? bundle : null;
}

/**
 * The permissions of a command's worker. Besides what the command declares, every worker may
 * read pterm's own code folders (`codeDirs`: core/, commands/ and bundles/): commands load their
 * implementation lazily (core/lazy.ts) and Deno checks read access for such imports. Those
 * folders hold only pterm's code — never workspace data or secrets.
 */
export function permissionsFor(
  capabilities: readonly Capability[],
  root: string,
  hosts: readonly string[],
  codeDirs: readonly string[],
): WorkerPermissions {
  const readsRoot = capabilities.includes("fs.read") || capabilities.includes("fs.write");
  return {
    read: readsRoot ? [root, ...codeDirs] : [...codeDirs],
    write: capabilities.includes("fs.write") ? [root] : false,
    net: capabilities.includes("net") && hosts.length > 0 ? [...hosts] : false,
    env: false,
    run: false,
    ffi: false,
    sys: false,
    import: false,
  };
}

/**
 * One sandbox worker, started for one command path with fixed permissions. It runs one job, unless
 * its creator passes `onIdle`: then a worker whose job finished normally (`done`) is handed back
 * by `release` to run the next job of the same command with the same permissions (the MCP server
 * keeps such workers warm). A job that failed, timed out, was cancelled or crashed always ends
 * its worker.
 */
export class Sandbox {
  readonly #worker: Worker;
  readonly #onIdle: ((sandbox: Sandbox) => void) | null;
  #running = false;
  /** The number of the job running now or last; a message of another job is ignored. */
  #seq = 0;
  #reusable = false;
  #disposed = false;
  /** An error the worker raised before `run` (its modules failed to load): reported by `run`. */
  #earlyError: string | null = null;

  constructor(
    handler: HandlerRef,
    path: readonly string[],
    permissions: WorkerPermissions,
    options: { onIdle?: (sandbox: Sandbox) => void } = {},
  ) {
    this.#onIdle = options.onIdle ?? null;
    // `deno.permissions` is the unstable worker option that narrows what the worker may do.
    this.#worker = new Worker(workerEntryUrl(handler, workerBundleFor(handler, permissions)), {
      type: "module",
      // The command path names the worker in Deno's own error messages.
      name: path.join(" "),
      deno: { permissions },
    } as WorkerOptions);
    // The handler's module loads with the worker, so a broken one fails before the job is sent;
    // unhandled, that error would take the whole process down.
    this.#worker.onerror = (event) => {
      event.preventDefault();
      this.#earlyError ??= event.message;
    };
    // A worker's first incoming message costs it ~1 ms more than later ones (measured: 1.1–1.3 ms
    // against 0.4 ms). Paying that now, while the kernel finishes its checks, takes it off the
    // path of the job.
    this.#worker.postMessage({ type: "warm-up" } satisfies ToWorker);
  }

  /** Done with it: hands a worker whose job finished normally to `onIdle`, else stops it. */
  release(): void {
    if (this.#disposed || this.#running) return;
    if (this.#reusable && this.#onIdle) {
      this.#reusable = false;
      this.#onIdle(this);
    } else this.dispose();
  }

  /** Stops the worker (if no job ran, or after it). */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#worker.terminate();
  }

  /**
   * Runs the job; resolves when it finishes, fails, passes `deadlineAt` (epoch ms) or is
   * cancelled through `options.signal`.
   */
  run(job: SandboxJob, deadlineAt: number, options: RunOptions = {}): Promise<SandboxOutcome> {
    if (this.#running || this.#disposed) throw new Error("a sandbox runs one job at a time, and none once disposed");
    this.#running = true;
    const seq = ++this.#seq;
    const worker = this.#worker;
    return new Promise((resolve) => {
      let stdout = "";
      let stderr = "";
      let overflowed = false;
      const artifacts: ArtifactRef[] = [];
      let settled = false;
      /** Why the run is being stopped, once it is: the outcome it ends with, whatever the worker still sends. */
      let stopping: "timeout" | "cancelled" | null = null;
      let graceTimer: ReturnType<typeof setTimeout> | undefined;
      /** The memory watch's next tick, once it runs (see below). */
      let memoryTick: AbortSignal | undefined;

      const finish = (outcome: SandboxOutcome) => {
        if (settled) return;
        settled = true;
        deadline.removeEventListener("abort", onDeadline);
        options.signal?.removeEventListener("abort", onCancel);
        watchFrom.removeEventListener("abort", onWatch);
        if (graceTimer !== undefined) clearTimeout(graceTimer);
        memoryTick?.removeEventListener("abort", onWatch);
        this.#running = false;
        if (outcome.kind === "done" && this.#onIdle) this.#reusable = true;
        else this.dispose();
        resolve(outcome);
      };
      const captured = () => ({ stdout, stderr, artifacts, overflowed });
      const stopped = () => finish({ ...captured(), kind: stopping ?? "timeout" });
      const append = (current: string, text: string): string => {
        if (current.length + text.length <= MAX_CAPTURE_CHARS) return current + text;
        overflowed = true;
        return current + text.slice(0, Math.max(0, MAX_CAPTURE_CHARS - current.length));
      };

      worker.onmessage = (event: MessageEvent<FromWorker>) => {
        const message = event.data;
        if (message.seq !== undefined && message.seq !== seq) return; // left over from an earlier job
        switch (message.type) {
          case "stdout":
            stdout = append(stdout, message.text);
            break;
          case "stderr":
            stderr = append(stderr, message.text);
            break;
          case "artifact":
            artifacts.push(message.ref);
            break;
          case "progress":
            if (options.onProgress && !stopping) {
              const { type: _type, seq: _seq, ...report } = message;
              options.onProgress(report);
            }
            break;
          case "done":
            // Finished before it could be stopped: the work happened, so the call says so (a command
            // that ignores its signal must not be reported as cancelled after it wrote).
            finish({ ...captured(), kind: "done", result: message.result });
            break;
          case "failed": {
            if (stopping) stopped();
            const { type: _type, seq: _seq, ...failure } = message;
            finish({ ...captured(), kind: "failed", ...failure });
            break;
          }
        }
      };
      const failInternally = (message: string) =>
        finish({
          ...captured(),
          kind: "failed",
          code: "Internal",
          message: `internal error in pterm (a bug; please report it): ${message}`,
        });
      worker.onerror = (event) => {
        event.preventDefault();
        failInternally(event.message);
      };
      worker.onmessageerror = () => {
        finish({
          ...captured(),
          kind: "failed",
          code: "Internal",
          message: "the command's result could not be transferred",
        });
      };

      const sent = { ...job, ...(this.#onIdle ? { warm: true } : {}), progress: options.onProgress !== undefined };
      // The process's resident memory as the command starts: its ceiling is on what the process gains from here.
      const residentAtStart = Deno.memoryUsage().rss;
      worker.postMessage({ type: "run", job: sent, seq } satisfies ToWorker);

      // Armed after the job is on its way: the first timer of a process costs ~0.5 ms, better
      // spent while the worker runs. AbortSignal.timeout, not setTimeout: the first setTimeout
      // costs ~5 ms (bench/startup.ts); the grace timer below runs only once a call timed out.
      const deadline = AbortSignal.timeout(Math.max(0, deadlineAt - Date.now()));
      const stop = (reason: "timeout" | "cancelled") => {
        if (settled || stopping) return;
        stopping = reason;
        worker.postMessage({ type: "abort", reason } satisfies ToWorker);
        graceTimer = setTimeout(stopped, ABORT_GRACE_MS);
      };
      const onDeadline = () => stop("timeout");
      const onCancel = () => stop("cancelled");
      deadline.addEventListener("abort", onDeadline, { once: true });
      if (options.signal?.aborted) onCancel();
      else options.signal?.addEventListener("abort", onCancel, { once: true });

      // The memory ceiling: V8 aborts the whole process when one isolate runs out of heap, and a
      // Deno Worker takes no resourceLimits (measured on 2.9.6: the option is ignored). So the
      // kernel watches how much the process's resident memory grows while the command runs and stops
      // the command with an envelope well before that point. Growth, not the whole: a long-lived
      // process (`pterm mcp`, `pterm server`) keeps memory earlier calls freed (the allocator does not
      // always give it back), which is no call's own and must not stop the next one. Watched only
      // from MEMORY_WATCH_AFTER_MS on: a short call never pays for a timer. Each tick arms the next with AbortSignal.timeout, not
      // setInterval: the first setInterval or setTimeout of a process loads Deno's Node timers
      // (measured: 5–20 ms of the kernel's thread), which every call longer than 100 ms paid.
      const ceiling = job.limits.memory_bytes;
      const overCeiling = () => {
        if (Deno.memoryUsage().rss - residentAtStart <= ceiling) return;
        finish({
          ...captured(),
          kind: "failed",
          code: "InputTooLarge",
          message: `${job.path.join(" ")} used more than ${Math.round(ceiling / 2 ** 20)} MiB of memory and was ` +
            "stopped; give it a smaller input, or raise limits.memory_bytes in pterm.json.",
        });
      };
      const watchFrom = AbortSignal.timeout(MEMORY_WATCH_AFTER_MS);
      const onWatch = () => {
        if (settled) return;
        overCeiling();
        if (settled) return;
        memoryTick = AbortSignal.timeout(MEMORY_WATCH_EVERY_MS);
        memoryTick.addEventListener("abort", onWatch, { once: true });
      };
      watchFrom.addEventListener("abort", onWatch, { once: true });
      if (this.#earlyError !== null) failInternally(this.#earlyError);
    });
  }
}
