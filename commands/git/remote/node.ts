/**
 * The Node modules the transport needs, loaded on first use (any `node:` module boots Deno's Node
 * layer, which a local git command should not pay for): zlib to inflate a pack's objects and
 * learn where each ends, crypto for SHA-1 over a stream of chunks.
 */

export interface Zlib {
  inflateSync(data: Uint8Array, options?: { info?: boolean }): Uint8Array;
  deflateSync(data: Uint8Array, options?: { level?: number }): Uint8Array;
  crc32(data: Uint8Array, value?: number): number;
}

export interface Sha1 {
  update(data: Uint8Array): Sha1;
  digest(): Uint8Array;
  digest(encoding: "hex"): string;
}

export interface Crypto {
  createHash(algorithm: "sha1"): Sha1;
}

let zlib: Promise<Zlib> | null = null;
let crypto: Promise<Crypto> | null = null;

export function nodeZlib(): Promise<Zlib> {
  return zlib ??= import("node:zlib").then((m) => (m.default ?? m) as unknown as Zlib);
}

export function nodeCrypto(): Promise<Crypto> {
  return crypto ??= import("node:crypto").then((m) => (m.default ?? m) as unknown as Crypto);
}
