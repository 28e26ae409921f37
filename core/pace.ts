/**
 * Letting a long synchronous loop breathe. A handler that works through thousands of items in one
 * go must now and then give its worker's event loop a turn, or a message for it (a cancellation)
 * is read only when the loop ends. A `setTimeout(…, 0)` is the wrong turn: Deno's timers cost
 * 1–4 ms each (their resolution and the nested-timer clamp), which taken every few dozen items was
 * most of a large `git add`. A message posted on a fresh MessageChannel is a task of its own with
 * no clamp (tens of microseconds), and a `Pacer` takes one only when its interval has passed.
 */

/** Resolves on a later task of the event loop, after the messages already queued. */
export function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      channel.port2.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

/** Asks of the clock (a call into the runtime) once per this many `due()` calls. */
const CLOCK_EVERY = 16;

/** Gives the event loop a turn at most once per `intervalMs` of the caller's work. */
export class Pacer {
  #last = performance.now();
  #asked = 0;
  constructor(private readonly intervalMs = 25) {}

  /** Whether a turn is due; `turn()` after a true answer. Cheap enough to ask per item. */
  due(): boolean {
    if (++this.#asked % CLOCK_EVERY !== 0) return false;
    return performance.now() - this.#last >= this.intervalMs;
  }

  /** Takes the event loop's turn now. */
  async turn(): Promise<void> {
    await nextTask();
    this.#last = performance.now();
  }
}
