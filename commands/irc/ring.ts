/**
 * The in-memory buffer of one conversation: the last `capacity` messages, whose ids are
 * consecutive (the oldest is evicted when a new one arrives). Reading "everything after id N"
 * is index arithmetic, and the number of messages lost to eviction follows from the ids.
 */

export interface Numbered {
  /** Consecutive within a conversation, from 1. */
  readonly seq: number;
}

export class Ring<T extends Numbered> {
  /** Grows up to the capacity (a quiet conversation costs little), then wraps around. */
  readonly #items: T[] = [];
  readonly #capacity: number;
  #start = 0;
  #size = 0;
  /** The seq of the newest message ever added (0: none). */
  #lastSeq = 0;

  constructor(capacity: number, lastSeq = 0) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error("a ring needs a capacity of at least 1");
    this.#capacity = capacity;
    this.#lastSeq = lastSeq;
  }

  get capacity(): number {
    return this.#capacity;
  }

  get size(): number {
    return this.#size;
  }

  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** The seq of the oldest message still held (lastSeq + 1 when empty). */
  get firstSeq(): number {
    return this.#lastSeq - this.#size + 1;
  }

  /** Adds the next message; its seq must be lastSeq + 1. */
  push(item: T): void {
    if (item.seq !== this.#lastSeq + 1) throw new Error(`expected seq ${this.#lastSeq + 1}, got ${item.seq}`);
    if (this.#size < this.#capacity) {
      this.#items.push(item); // #start stays 0 until the ring is full
      this.#size++;
    } else {
      this.#items[this.#start] = item;
      this.#start = (this.#start + 1) % this.#capacity;
    }
    this.#lastSeq = item.seq;
  }

  /**
   * Up to `limit` messages with seq > `after`, oldest first; `dropped` counts those that were
   * evicted before they could be read, `remaining` those left beyond the limit.
   */
  after(after: number, limit: number): { items: T[]; dropped: number; remaining: number } {
    const from = Math.max(after + 1, this.firstSeq);
    const dropped = Math.max(0, this.firstSeq - (after + 1));
    const available = Math.max(0, this.#lastSeq - from + 1);
    const count = Math.min(limit, available);
    const items: T[] = [];
    const offset = from - this.firstSeq;
    for (let i = 0; i < count; i++) {
      items.push(this.#items[(this.#start + offset + i) % this.#items.length]);
    }
    return { items, dropped, remaining: available - count };
  }
}
