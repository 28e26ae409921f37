/**
 * The IRC connection's link to the server as its parts (registration, channels, sends, NickServ)
 * use it: lines written one after another, bytes read back as lines, the server's silence
 * watched, and the one way to end the connection.
 */

import type { ConnectionOptions, FromConnection } from "./connection_protocol.ts";
import type { LastError } from "./daemon_protocol.ts";
import { formatLine } from "./protocol.ts";
import type { ByteConn } from "./pinned_tls.ts";
import { concatBytes } from "../../core/bytes.ts";

/** Longest inbound line kept (IRCv3 allows 8191 bytes of tags plus 512 of message). */
const MAX_INBOUND_LINE_BYTES = 16 * 1024;

/** What each part of the connection uses of the whole. */
export interface ConnectionLink {
  readonly options: ConnectionOptions;
  /** Writes one line; see LineWriter.write. */
  write(line: string): Promise<boolean>;
  /** Tells the daemon. */
  post(message: FromConnection): void;
  /** Ends the connection because of `error` (a QUIT naming it, then "closed"). */
  fail(error: LastError): void;
  /** The connection has ended: nothing more is written and no timer acts. */
  isClosed(): boolean;
}

const encoder = new TextEncoder();

/** The socket's writing side: lines queued so that they never interleave. */
export class LineWriter {
  readonly #isClosed: () => boolean;
  #conn: ByteConn | null = null;
  #chain: Promise<void> = Promise.resolve();

  constructor(isClosed: () => boolean) {
    this.#isClosed = isClosed;
  }

  /** The socket, once it is connected: lines written before it are not written. */
  attach(conn: ByteConn): void {
    this.#conn = conn;
  }

  /**
   * Writes one line; writes are queued so lines never interleave. Resolves true once the whole
   * line is in the socket, false when it was not written (closed, or the write failed).
   */
  write(line: string): Promise<boolean> {
    const conn = this.#conn;
    const bytes = encoder.encode(`${line}\r\n`);
    const done = this.#chain.then(async () => {
      if (!conn || this.#isClosed()) return false;
      let written = 0;
      while (written < bytes.length) written += await conn.write(bytes.subarray(written));
      return true;
    }).catch(() => false /* the read loop reports the broken connection */);
    this.#chain = done.then(() => {});
    return done;
  }

  /** Closes the socket once the lines queued before (a QUIT) are out. */
  closeWhenWritten(): void {
    const conn = this.#conn;
    this.#chain.finally(() => {
      try {
        conn?.close();
      } catch { /* already closed */ }
    });
  }
}

/** The socket's reading side: bytes into lines (without CR LF), a line too long to be IRC dropped whole. */
export class LineFramer {
  readonly #decoder = new TextDecoder();
  #pending = new Uint8Array(0);
  #discarding = false;

  /** The lines `chunk` completes, in order. */
  lines(chunk: Uint8Array): string[] {
    const lines: string[] = [];
    let data = concatBytes([this.#pending, chunk]);
    let start = 0;
    for (let i = 0; i < data.length; i++) {
      if (data[i] !== 0x0a) continue;
      const end = i > start && data[i - 1] === 0x0d ? i - 1 : i;
      if (!this.#discarding) lines.push(this.#decoder.decode(data.subarray(start, end)));
      this.#discarding = false;
      start = i + 1;
    }
    data = data.subarray(start);
    if (data.length > MAX_INBOUND_LINE_BYTES) {
      // A line this long is not IRC; drop it up to its end instead of buffering without bound.
      this.#discarding = true;
      data = new Uint8Array(0);
    }
    this.#pending = data.slice();
    return lines;
  }
}

/**
 * The server's silence watched (IRC_KEEPALIVE_MS): a PING after one period without data, the
 * connection failed after two.
 */
export class Keepalive {
  readonly #link: ConnectionLink;
  #lastReceived = Date.now();
  #pingSent = false;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(link: ConnectionLink) {
    this.#link = link;
  }

  start(): void {
    this.#timer = setInterval(() => this.#check(), this.#link.options.keepaliveMs / 6);
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** Data arrived from the server. */
  heard(): void {
    this.#lastReceived = Date.now();
    this.#pingSent = false;
  }

  #check(): void {
    const keepaliveMs = this.#link.options.keepaliveMs;
    const silent = Date.now() - this.#lastReceived;
    if (silent > keepaliveMs * 2) {
      this.#link.fail({
        error_code: "PingTimeout",
        message: `no data from the IRC server for ${Math.round(silent / 1000)} s (keepalive PING unanswered)`,
      });
    } else if (silent > keepaliveMs && !this.#pingSent) {
      this.#pingSent = true;
      this.#link.write(formatLine("PING", ["keepalive"]));
    }
  }
}
