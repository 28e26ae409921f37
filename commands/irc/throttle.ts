/**
 * Outbound flood control: a token bucket of lines. Servers disconnect clients that send
 * faster than they are willing to process ("Excess Flood"); a burst of a few lines followed by
 * a steady rate keeps a client under every common server's limit.
 */

export interface ThrottleOptions {
  /** Lines that may go out back to back after a quiet period. */
  readonly burst: number;
  /** Milliseconds that earn one more line. */
  readonly intervalMs: number;
}

export class LineThrottle {
  readonly #burst: number;
  readonly #intervalMs: number;
  readonly #now: () => number;
  #tokens: number;
  #updated: number;

  constructor(options: ThrottleOptions, now: () => number = () => performance.now()) {
    if (options.burst < 1 || options.intervalMs < 0) throw new Error("a throttle needs burst ≥ 1 and interval ≥ 0");
    this.#burst = options.burst;
    this.#intervalMs = options.intervalMs;
    this.#now = now;
    this.#tokens = options.burst;
    this.#updated = now();
  }

  #refill(): void {
    const now = this.#now();
    if (this.#intervalMs === 0) this.#tokens = this.#burst;
    else this.#tokens = Math.min(this.#burst, this.#tokens + (now - this.#updated) / this.#intervalMs);
    this.#updated = now;
  }

  /** Milliseconds to wait before the next line may go (0: now). */
  delayMs(): number {
    this.#refill();
    return this.#tokens >= 1 ? 0 : Math.ceil((1 - this.#tokens) * this.#intervalMs);
  }

  /** Records that a line went out. */
  take(): void {
    this.#refill();
    this.#tokens -= 1;
  }
}
