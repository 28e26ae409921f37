/**
 * git's binary patches (`git diff --binary`): after `GIT binary patch`, a `literal <size>` or
 * `delta <size>` hunk of base85 lines holding a zlib stream — the whole new content, or git's
 * delta against the old — then the reverse hunk, which applying forward does not need.
 * The result is checked against the blob ids of the `index` line, as `git apply` does, so a
 * binary patch never lands on a file other than the one it was made from, and never lands wrong.
 */

import { sha1, sha1Sync } from "../git/odb/codec.ts";
import { concatBytes } from "../../core/bytes.ts";
import { inflateZlibSync } from "../../lib/inflate.ts";
import { applyDelta } from "../git/odb/pack.ts";

export interface BinaryHunk {
  readonly kind: "literal" | "delta";
  /** Size of the inflated data (the content for literal, the delta for delta). */
  readonly size: number;
  /** The zlib stream, base85-decoded. */
  readonly data: Uint8Array;
}

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";
const DIGIT = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGIT[ALPHABET.charCodeAt(i)] = i;

/** One base85 line: a length letter (A–Z 1–26, a–z 27–52), then 5 characters per 4 bytes. */
export function decodeBase85Line(line: string): Uint8Array | null {
  const c = line.charCodeAt(0);
  const length = c >= 65 && c <= 90 ? c - 64 : c >= 97 && c <= 122 ? c - 96 + 26 : 0;
  const body = line.slice(1);
  if (length === 0 || body.length !== Math.ceil(length / 4) * 5) return null;
  const out = new Uint8Array(Math.ceil(length / 4) * 4);
  for (let g = 0; g < body.length / 5; g++) {
    let acc = 0;
    for (let k = 0; k < 5; k++) {
      const code = body.charCodeAt(g * 5 + k);
      const d = code < 128 ? DIGIT[code] : -1;
      if (d < 0) return null;
      acc = acc * 85 + d;
    }
    if (acc > 0xffffffff) return null;
    out[g * 4] = acc >>> 24;
    out[g * 4 + 1] = (acc >>> 16) & 0xff;
    out[g * 4 + 2] = (acc >>> 8) & 0xff;
    out[g * 4 + 3] = acc & 0xff;
  }
  return out.subarray(0, length);
}

/**
 * Reads the hunks after `GIT binary patch` starting at `at`; returns the forward hunk and the
 * reverse one (what `git apply -R` applies; git writes both) and the index of the first line after the binary patch. Null when a line is not what git writes.
 */
export function parseBinaryPatch(
  text: readonly string[],
  at: number,
): { hunk: BinaryHunk; reverse: BinaryHunk | null; next: number } | { error: number } {
  const hunks: BinaryHunk[] = [];
  let i = at;
  while (hunks.length < 2 && i < text.length) {
    const header = /^(literal|delta) (\d+)$/.exec(text[i]);
    if (!header) break;
    i++;
    const chunks: Uint8Array[] = [];
    for (; i < text.length && text[i] !== ""; i++) {
      const bytes = decodeBase85Line(text[i]);
      if (!bytes) return { error: i };
      chunks.push(bytes);
    }
    i++; // the blank line that ends a hunk
    const data = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
    let o = 0;
    for (const c of chunks) {
      data.set(c, o);
      o += c.length;
    }
    hunks.push({ kind: header[1] as "literal" | "delta", size: Number(header[2]), data });
  }
  if (hunks.length === 0) return { error: at };
  return { hunk: hunks[0], reverse: hunks[1] ?? null, next: i };
}

/** git's blob id of `bytes`. */
export async function blobId(bytes: Uint8Array): Promise<string> {
  return await sha1(new TextEncoder().encode(`blob ${bytes.length}\0`), bytes);
}

/** git's blob id of `bytes`, computed synchronously (for a check made inside synchronous code). */
export function blobIdSync(bytes: Uint8Array): string {
  return sha1Sync(concatBytes([new TextEncoder().encode(`blob ${bytes.length}\0`), bytes]));
}

export class BinaryPatchError extends Error {}

/** The new content: the literal, or the delta applied to `base`. Throws BinaryPatchError. */
export function applyBinaryHunk(hunk: BinaryHunk, base: Uint8Array): Uint8Array {
  let inflated: Uint8Array;
  try {
    inflated = inflateZlibSync(hunk.data, hunk.size);
  } catch {
    throw new BinaryPatchError("its data is not a valid zlib stream (the patch was damaged)");
  }
  if (inflated.length !== hunk.size) {
    throw new BinaryPatchError(`its data inflates to ${inflated.length} bytes, not the ${hunk.size} it states`);
  }
  if (hunk.kind === "literal") return inflated;
  try {
    return applyDelta(base, inflated);
  } catch {
    throw new BinaryPatchError("its delta does not fit the file's current content");
  }
}
