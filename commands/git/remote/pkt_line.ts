/**
 * pkt-line framing (gitprotocol-common): four hex digits of length (including themselves), then
 * the payload; `0000` flush, `0001` delim, `0002` response-end. Side-band-64k multiplexes the
 * pack (band 1), progress (band 2) and a fatal error (band 3) inside pkt-lines.
 */

import { PtermError } from "../../../core/errors.ts";
import type { ByteSource } from "./http1.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Payloads are at most 65520 bytes (LARGE_PACKET_MAX minus the 4-byte length). */
const MAX_PKT = 65520;

export const FLUSH = encoder.encode("0000");
export const DELIM = encoder.encode("0001");

export function pktLine(text: string | Uint8Array): Uint8Array {
  const payload = typeof text === "string" ? encoder.encode(text) : text;
  if (payload.length > MAX_PKT - 4) throw new Error("pkt-line too long");
  const out = new Uint8Array(payload.length + 4);
  out.set(encoder.encode((payload.length + 4).toString(16).padStart(4, "0")));
  out.set(payload, 4);
  return out;
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

export type Packet =
  | { kind: "data"; data: Uint8Array }
  | { kind: "flush" }
  | { kind: "delim" }
  | { kind: "end" };

function protocolError(message: string): PtermError {
  return new PtermError(
    "CorruptInput",
    `the remote's answer is not valid git protocol (${message}); nothing was changed. Check the URL points at a git ` +
      "repository served over smart HTTP.",
  );
}

/** Reads pkt-lines from an HTTP body, holding at most one piece of it (and one packet) in memory. */
export class PktReader {
  readonly #source: ByteSource;
  #buffer: Uint8Array = new Uint8Array(0);
  /** Where an unread rest is joined with the next piece (see #fill). */
  #carry: Uint8Array = new Uint8Array(0);
  #at = 0;
  #done = false;

  readonly #signal: AbortSignal | undefined;

  /** `signal`: aborting it fails a pending read at once (a hung server does not hold the call past its deadline). */
  constructor(source: ByteSource, signal?: AbortSignal) {
    this.#source = source;
    this.#signal = signal;
  }

  /** The next non-empty piece of the body (valid until the next read), or null at its end. */
  async #read(): Promise<Uint8Array | null> {
    for (;;) {
      const piece = await this.#readPiece();
      if (piece === null || piece.length > 0) return piece;
    }
  }

  #readPiece(): Promise<Uint8Array | null> {
    const signal = this.#signal;
    if (!signal) return this.#source.read();
    signal.throwIfAborted();
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.#source.cancel().catch(() => {});
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.#source.read().then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
    });
  }

  async #fill(need: number): Promise<boolean> {
    while (this.#buffer.length - this.#at < need) {
      if (this.#done) return false;
      // What is left of the last piece moves to the start of the carry buffer first: the next read
      // reuses the body's buffer (so a packet stays valid only until the next call, as documented). One carry buffer, grown only for a larger chunk: a buffer per chunk was
      // garbage the size of the pack, resident until V8 collected it.
      const left = this.#buffer.length - this.#at;
      if (left > 0) {
        if (this.#carry.length < left) this.#carry = new Uint8Array(Math.max(left, 2 * this.#carry.length));
        this.#carry.set(this.#buffer.subarray(this.#at));
      }
      const value = await this.#read();
      if (value === null) {
        this.#buffer = this.#carry.subarray(0, left);
        this.#at = 0;
        this.#done = true;
        return false;
      }
      if (left === 0) this.#buffer = value;
      else {
        if (this.#carry.length < left + value.length) {
          const grown = new Uint8Array(Math.max(left + value.length, 2 * this.#carry.length));
          grown.set(this.#carry.subarray(0, left));
          this.#carry = grown;
        }
        this.#carry.set(value, left);
        this.#buffer = this.#carry.subarray(0, left + value.length);
      }
      this.#at = 0;
    }
    return true;
  }

  /** The next packet, or null at a clean end of the stream; its data is valid until the next call. */
  async next(): Promise<Packet | null> {
    if (!await this.#fill(4)) {
      if (this.#buffer.length - this.#at === 0) return null;
      throw protocolError("the answer ended inside a packet");
    }
    const hex = decoder.decode(this.#buffer.subarray(this.#at, this.#at + 4));
    if (!/^[0-9a-f]{4}$/.test(hex)) throw protocolError(`a packet length ${JSON.stringify(hex)}`);
    const length = parseInt(hex, 16);
    this.#at += 4;
    if (length === 0) return { kind: "flush" };
    if (length === 1) return { kind: "delim" };
    if (length === 2) return { kind: "end" };
    if (length < 4 || length > MAX_PKT + 4) throw protocolError(`a packet length ${length}`);
    if (!await this.#fill(length - 4)) throw protocolError("the answer ended inside a packet");
    const data = this.#buffer.subarray(this.#at, this.#at + length - 4);
    this.#at += length - 4;
    return { kind: "data", data };
  }

  /** The next packet as text without its trailing newline; null for a flush (or the end). */
  async line(): Promise<string | null> {
    const packet = await this.next();
    if (!packet || packet.kind !== "data") return null;
    const text = decoder.decode(packet.data);
    return text.endsWith("\n") ? text.slice(0, -1) : text;
  }

  async cancel(): Promise<void> {
    await this.#source.cancel().catch(() => {});
  }
}

export function packetText(packet: Packet): string {
  if (packet.kind !== "data") return "";
  const text = decoder.decode(packet.data);
  return text.endsWith("\n") ? text.slice(0, -1) : text;
}

/**
 * The pack bytes of a side-band-64k stream (band 1) as they arrive, until a flush. Progress
 * (band 2) goes to `onProgress`; band 3 is the remote's fatal error.
 */
export async function* sideBand(
  reader: PktReader,
  onProgress: (text: string) => void,
): AsyncGenerator<Uint8Array> {
  for (;;) {
    const packet = await reader.next();
    if (packet === null) throw protocolError("the connection closed before the pack ended");
    if (packet.kind === "flush" || packet.kind === "end") return;
    if (packet.kind !== "data" || packet.data.length === 0) throw protocolError("an empty side-band packet");
    const band = packet.data[0];
    const payload = packet.data.subarray(1);
    if (band === 1) yield payload;
    else if (band === 2) onProgress(decoder.decode(payload));
    else if (band === 3) {
      throw new PtermError(
        "CorruptInput",
        `the remote stopped with an error: ${decoder.decode(payload).trim()}; nothing was changed.`,
      );
    } else throw protocolError(`side band ${band}`);
  }
}
