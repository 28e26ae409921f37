/**
 * Workers started ahead of time for the MCP server. A call still gets a fresh worker with
 * exactly its command's permissions, used for that call only and terminated after it (the
 * kernel's rule); the pool only moves the ~14 ms of starting it (most of it blocking in the
 * Worker constructor) off the call's path, by starting the next call's worker for the same
 * command and permissions while the current one runs.
 */

import type { HandlerRef } from "../core/declaration.ts";
import type { SandboxSource } from "../core/runtime.ts";
import { Sandbox, type WorkerPermissions } from "../core/sandbox.ts";

/** Distinct (command, permissions) keys kept warm; the least recently used one beyond it is stopped. */
const MAX_KEYS = 8;

export class SandboxPool implements SandboxSource {
  /** One spare per key, in least-recently-used order (a Map keeps insertion order). */
  readonly #spares = new Map<string, Sandbox>();
  #closed = false;

  take(handler: HandlerRef, path: readonly string[], permissions: WorkerPermissions): Sandbox {
    const key = JSON.stringify([handler.module, handler.export, path, permissions]);
    const spare = this.#spares.get(key);
    this.#spares.delete(key);
    // The next call's worker starts once this call's job is on its way (a timer, not now: its
    // constructor blocks ~10 ms, better spent while this call's worker runs).
    setTimeout(() => this.#refill(key, handler, path, permissions), 0);
    return spare ?? new Sandbox(handler, path, permissions);
  }

  #refill(key: string, handler: HandlerRef, path: readonly string[], permissions: WorkerPermissions): void {
    if (this.#closed || this.#spares.has(key)) return;
    this.#spares.set(key, new Sandbox(handler, path, permissions));
    while (this.#spares.size > MAX_KEYS) {
      const [oldest, sandbox] = this.#spares.entries().next().value!;
      this.#spares.delete(oldest);
      sandbox.dispose();
    }
  }

  /** Stops every spare; later `take`s still work but start their worker on the call's path. */
  close(): void {
    this.#closed = true;
    for (const sandbox of this.#spares.values()) sandbox.dispose();
    this.#spares.clear();
  }
}
