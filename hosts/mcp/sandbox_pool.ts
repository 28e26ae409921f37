/**
 * Warm sandbox workers for the MCP server. Every call still runs in a worker with exactly its
 * command's permissions; the pool saves the ~14 ms of starting one (most of it blocking in the
 * Worker constructor) and the cold code of a new worker:
 *
 * - a worker whose call finished normally goes back to the pool, keyed by its command and its
 *   exact permissions (root, capabilities, hosts), and runs the next call with that key
 *   (`Sandbox.release`); a call that failed, timed out, was cancelled or crashed ends its worker;
 * - the first call of a key starts its own worker only. A later call that finds no idle worker for
 *   its key (the last one's call failed, or calls overlap) starts a spare for the next call too,
 *   while it runs;
 * - a worker left idle for `idleMs` (two minutes unless told) is stopped, and the memory it holds
 *   (its heap, the caches of the command it ran) goes with it: a server between bursts of calls
 *   keeps its loaded kernel, not a worker per command it once ran.
 *
 * What a reused worker keeps between calls is its loaded code and module state. A command may keep
 * state that depends on the workspace only where it proves it current at each call: `git status`
 * keeps its last answer checked by a work-tree watcher (commands/git/worktree/fsmonitor.ts; the job
 * tells the handler it runs in such a worker, `CommandContext.warm`). tests/hosts/mcp/pool_test.ts,
 * fsmonitor_test.ts and warm_status_test.ts check that changes made behind its back are seen.
 */

import type { HandlerRef } from "../../core/declaration.ts";
import type { SandboxSource } from "../../core/runtime.ts";
import { Sandbox, type WorkerPermissions } from "../../core/sandbox/sandbox.ts";

/** Idle workers kept in all; past it the least recently used are stopped. */
const MAX_IDLE = 8;
/** Idle workers kept per key (concurrent calls of one command start more; the rest are stopped). */
const MAX_IDLE_PER_KEY = 2;
/** How long a worker may stay idle before it is stopped. */
const IDLE_WORKER_MS = 120_000;

interface Idle {
  readonly key: string;
  readonly sandbox: Sandbox;
  /** When it went idle (Date.now()). */
  readonly since: number;
}

export interface SandboxPoolOptions {
  /** How long a worker may stay idle before it is stopped (ms). */
  readonly idleMs?: number;
}

export class SandboxPool implements SandboxSource {
  /** Least recently used first. */
  #idle: Idle[] = [];
  #starting = new Set<string>();
  /** Keys a call has taken a worker for. */
  #taken = new Set<string>();
  #closed = false;
  readonly #idleMs: number;
  #sweep: ReturnType<typeof setTimeout> | undefined;

  constructor(options: SandboxPoolOptions = {}) {
    this.#idleMs = options.idleMs ?? IDLE_WORKER_MS;
  }

  /** Workers idle now (for tests). */
  get idleCount(): number {
    return this.#idle.length;
  }

  take(handler: HandlerRef, path: readonly string[], permissions: WorkerPermissions): Sandbox {
    const key = JSON.stringify([handler.module, handler.export, path, permissions]);
    const index = this.#idle.findLastIndex((idle) => idle.key === key);
    if (index >= 0) return this.#idle.splice(index, 1)[0].sandbox;
    // None idle for a key taken before: start this call's worker now and, once its job is on its way,
    // a spare for the next call with this key (a timer, not now: the constructor blocks ~10 ms, better
    // spent while this call's worker runs). A key's first call starts no spare: its worker comes back
    // when the call succeeds.
    if (this.#taken.has(key) && !this.#starting.has(key)) {
      this.#starting.add(key);
      setTimeout(() => {
        this.#starting.delete(key);
        if (this.#closed || this.#idle.some((idle) => idle.key === key)) return;
        this.#give(key, this.#create(key, handler, path, permissions));
      }, 0);
    }
    this.#taken.add(key);
    return this.#create(key, handler, path, permissions);
  }

  #create(key: string, handler: HandlerRef, path: readonly string[], permissions: WorkerPermissions): Sandbox {
    return new Sandbox(handler, path, permissions, { onIdle: (sandbox) => this.#give(key, sandbox) });
  }

  #give(key: string, sandbox: Sandbox): void {
    if (this.#closed || this.#idle.filter((idle) => idle.key === key).length >= MAX_IDLE_PER_KEY) {
      sandbox.dispose();
      return;
    }
    this.#idle.push({ key, sandbox, since: Date.now() });
    while (this.#idle.length > MAX_IDLE) this.#idle.shift()!.sandbox.dispose();
    this.#scheduleSweep();
  }

  /** Stops, when its time comes, the worker idle the longest; then looks at the next. */
  #scheduleSweep(): void {
    if (this.#closed || this.#sweep !== undefined || this.#idle.length === 0) return;
    const oldest = Math.min(...this.#idle.map((idle) => idle.since));
    const sweep = setTimeout(() => {
      this.#sweep = undefined;
      const now = Date.now();
      const expired = this.#idle.filter((idle) => now - idle.since >= this.#idleMs);
      this.#idle = this.#idle.filter((idle) => now - idle.since < this.#idleMs);
      for (const idle of expired) idle.sandbox.dispose();
      this.#scheduleSweep();
    }, Math.max(0, oldest + this.#idleMs - Date.now()));
    // Idle workers never keep the process alive: the host decides when it ends.
    Deno.unrefTimer(sweep);
    this.#sweep = sweep;
  }

  /** Stops every idle worker; workers still running end with their call. */
  close(): void {
    this.#closed = true;
    if (this.#sweep !== undefined) clearTimeout(this.#sweep);
    this.#sweep = undefined;
    for (const idle of this.#idle) idle.sandbox.dispose();
    this.#idle = [];
  }
}
