/**
 * Bounding text the same way everywhere (envelope, irc pull, doc output): keep the
 * head and the tail, and put a fixed marker where the middle was.
 */

export const TRUNCATION_MARKER = "[...TRUNCATED...]";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export interface Bounded {
  readonly text: string;
  readonly truncated: boolean;
}

function isContinuation(byte: number): boolean {
  return (byte & 0b1100_0000) === 0b1000_0000;
}

/**
 * Keeps `text` whole if it fits in `maxBytes` of UTF-8; otherwise head + marker + tail in at
 * most `maxBytes`, cut on character boundaries (never inside a UTF-8 sequence).
 */
export function boundText(text: string, maxBytes: number): Bounded {
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return { text, truncated: false };
  const marker = `\n${TRUNCATION_MARKER}\n`;
  const room = maxBytes - encoder.encode(marker).length;
  if (room <= 0) return { text: TRUNCATION_MARKER.slice(0, Math.max(0, maxBytes)), truncated: true };
  let headEnd = Math.ceil(room * 0.6);
  while (headEnd > 0 && isContinuation(bytes[headEnd])) headEnd--;
  let tailStart = bytes.length - (room - headEnd);
  while (tailStart < bytes.length && isContinuation(bytes[tailStart])) tailStart++;
  return {
    text: decoder.decode(bytes.subarray(0, headEnd)) + marker + decoder.decode(bytes.subarray(tailStart)),
    truncated: true,
  };
}

/** The byte length of `text` in UTF-8. */
export function utf8Length(text: string): number {
  return encoder.encode(text).length;
}
