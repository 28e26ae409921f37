/** Byte helpers the kernel and the commands share. */

/** The parts, one after another, in a new array (never one of the parts itself). */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/**
 * Hands the memory behind each array back at once (its buffer transferred to an empty one), not
 * when the garbage collector next runs — which a one-shot process may not do before its peak: for
 * a large working buffer whose work is done. Every view of it reads as empty afterwards, never as
 * other bytes. Only for buffers their caller owns whole.
 */
export function releaseBytes(...arrays: readonly (ArrayBufferView | null | undefined)[]): void {
  for (const array of arrays) {
    const buffer = array?.buffer;
    if (buffer instanceof ArrayBuffer && !buffer.detached && buffer.byteLength > 0) buffer.transfer(0);
  }
}
