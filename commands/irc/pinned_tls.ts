/**
 * TLS pinned to one certificate by its SHA-256 fingerprint (IRC_TLS_FINGERPRINT), for servers
 * with a self-signed certificate that no CA vouches for — including a bare `openssl req -x509`
 * certificate (CA:TRUE), which rustls (Deno.connectTls) refuses as a server's own certificate
 * whatever trust anchors it is given.
 *
 * Deno.connectTls cannot hand a certificate to our own check, so this uses node:tls with the
 * library's chain check off and checks the fingerprint itself, in the `secureConnect` callback,
 * before anything is written: the pinned certificate is the whole trust decision. The socket
 * is wrapped in the small read/write/close surface the connection uses.
 */

import tls from "node:tls";
import { normalizeFingerprint } from "./protocol.ts";

/** What the IRC connection needs of a socket (a subset of Deno.Conn). */
export interface ByteConn {
  read(buffer: Uint8Array): Promise<number | null>;
  write(bytes: Uint8Array): Promise<number>;
  close(): void;
}

export class FingerprintMismatch extends Error {
  constructor(readonly actual: string) {
    super(`the server's certificate has SHA-256 fingerprint ${actual}`);
  }
}

class NodeSocketConn implements ByteConn {
  readonly #socket: tls.TLSSocket;
  readonly #chunks: Uint8Array[] = [];
  #ended = false;
  #error: Error | null = null;
  #wake: (() => void) | null = null;

  constructor(socket: tls.TLSSocket) {
    this.#socket = socket;
    socket.on("data", (chunk: Uint8Array) => {
      this.#chunks.push(new Uint8Array(chunk));
      this.#notify();
    });
    socket.on("end", () => {
      this.#ended = true;
      this.#notify();
    });
    socket.on("close", () => {
      this.#ended = true;
      this.#notify();
    });
    socket.on("error", (error: Error) => {
      this.#error = error;
      this.#notify();
    });
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }

  async read(buffer: Uint8Array): Promise<number | null> {
    while (this.#chunks.length === 0) {
      if (this.#error) throw this.#error;
      if (this.#ended) return null;
      await new Promise<void>((resolve) => this.#wake = resolve);
    }
    const chunk = this.#chunks[0];
    const n = Math.min(buffer.length, chunk.length);
    buffer.set(chunk.subarray(0, n));
    if (n === chunk.length) this.#chunks.shift();
    else this.#chunks[0] = chunk.subarray(n);
    return n;
  }

  write(bytes: Uint8Array): Promise<number> {
    return new Promise((resolve, reject) => {
      if (this.#error || this.#ended) {
        reject(this.#error ?? new Error("the connection is closed"));
        return;
      }
      this.#socket.write(bytes, (error?: Error | null) => error ? reject(error) : resolve(bytes.length));
    });
  }

  close(): void {
    this.#socket.destroy();
  }
}

/** Connects with TLS and accepts the server only if its certificate's SHA-256 fingerprint is `fingerprint`. */
export function connectPinned(hostname: string, port: number, fingerprint: string): Promise<ByteConn> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({
      host: hostname,
      port,
      servername: /^[\d.:]+$/.test(hostname) ? undefined : hostname,
      rejectUnauthorized: false,
    }, () => {
      const actual = normalizeFingerprint(socket.getPeerCertificate()?.fingerprint256 ?? "") ?? "(none)";
      if (actual !== fingerprint) {
        socket.destroy();
        reject(new FingerprintMismatch(actual));
        return;
      }
      socket.removeListener("error", reject);
      resolve(new NodeSocketConn(socket));
    });
    socket.once("error", reject);
  });
}
