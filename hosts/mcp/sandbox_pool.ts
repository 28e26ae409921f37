/**
 * Warm sandbox workers for the MCP server. Every call still runs in a worker with exactly its
 * command's permissions; the pool saves the ~14 ms of starting one (most of it blocking in the
 * Worker constructor) and the cold code of a new worker:
 *
 * - a worker whose call finished normally goes back to the pool, keyed by its command and its
 *   exact permissions (root, capabilities, hosts), and runs the next call with that key
 *   (`Sandbox.release`); a call that failed, timed out, was cancelled or crashed ends its worker;
 * - when a key has no idle worker, the next one is started while the current call runs.
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

interface Idle {
  readonly key: string;
  readonly sandbox: Sandbox;
}

export class SandboxPool implements SandboxSource {
  /** Least recently used first. */
  #idle: Idle[] = [];
  #starting = new Set<string>();
  #closed = false;

  /** Workers idle now (for tests). */
  get idleCount(): number {
    return this.#idle.length;
  }

  take(handler: HandlerRef, path: readonly string[], permissions: WorkerPermissions): Sandbox {
    const key = JSON.stringify([handler.module, handler.export, path, permissions]);
    const index = this.#idle.findLastIndex((idle) => idle.key === key);
    if (index >= 0) return this.#idle.splice(index, 1)[0].sandbox;
    // None idle: start this call's worker now and, once its job is on its way, a spare for the next
    // call with this key (a timer, not now: the constructor blocks ~10 ms, better spent while this
    // call's worker runs).
    if (!this.#starting.has(key)) {
      this.#starting.add(key);
      setTimeout(() => {
        this.#starting.delete(key);
        if (this.#closed || this.#idle.some((idle) => idle.key === key)) return;
        this.#give(key, this.#create(key, handler, path, permissions));
      }, 0);
    }
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
    this.#idle.push({ key, sandbox });
    while (this.#idle.length > MAX_IDLE) this.#idle.shift()!.sandbox.dispose();
  }

  /** Stops every idle worker; workers still running end with their call. */
  close(): void {
    this.#closed = true;
    for (const idle of this.#idle) idle.sandbox.dispose();
    this.#idle = [];
  }
}
