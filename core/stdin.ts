/**
 * The call's stdin: read only when the command asks, bounded in size and in time, and never
 * changed. Its bytes are kept as they came; a command gets them as UTF-8 text, or, if its
 * declaration takes bytes (`stdin.bytes`), as the bytes themselves. Stdin that is not UTF-8 is
 * refused for every other command (`notUtf8Failure`), never decoded with U+FFFD in it.
 */

import { PtermError } from "./errors.ts";
import { concatBytes } from "./bytes.ts";
import type { LeafSpec } from "./declaration.ts";

export type StdinSource =
  /** The call has no stdin (an interactive terminal, or nothing was given). */
  | { readonly kind: "none" }
  /** Stdin given as text: a JSON tool call's `stdin` string (`--request`, MCP), a shell's `<<` lines. */
  | { readonly kind: "text"; readonly text: string }
  /** Stdin given as bytes already in hand (`--stdin-file`, a replay's recorded stdin). */
  | { readonly kind: "bytes"; readonly bytes: Uint8Array }
  /** Piped stdin, read only if the command needs it. */
  | { readonly kind: "stream"; readonly stream: ReadableStream<Uint8Array> };

/** Stdin as read: its bytes, and the same as UTF-8 text when they are UTF-8. */
export interface Stdin {
  readonly bytes: Uint8Array;
  /** null when the bytes are not valid UTF-8 (`invalidAt` says where). */
  readonly text: string | null;
  /** The offset of the first byte that is not UTF-8, when `text` is null. */
  readonly invalidAt: number | null;
}

function tooLarge(maxBytes: number): PtermError {
  return new PtermError(
    "InputTooLarge",
    `stdin is larger than the limit of ${maxBytes} bytes; send less (split the work) or raise limits.stdin_bytes in pterm.json.`,
  );
}

/** A BOM is part of the bytes: kept, as every other byte. */
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The offset of the first byte of `bytes` that does not begin a well-formed UTF-8 sequence. */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    let need = 0;
    let min = 0;
    if (b < 0x80) {
      i++;
      continue;
    } else if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      min = 0x80;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      min = 0x800;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      min = 0x10000;
    } else return i;
    if (i + need >= bytes.length) return i;
    let code = b & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if ((c & 0xc0) !== 0x80) return i;
      code = (code << 6) | (c & 0x3f);
    }
    if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return i;
    i += need + 1;
  }
  return -1;
}

function fromBytes(bytes: Uint8Array): Stdin {
  try {
    return { bytes, text: strictUtf8.decode(bytes), invalidAt: null };
  } catch {
    return { bytes, text: null, invalidAt: Math.max(0, firstInvalidUtf8(bytes)) };
  }
}

/**
 * Stdin given as a string (a JSON tool call's `stdin`). A well-formed string is UTF-8 text. A lone
 * surrogate U+DC80–U+DCFF stands for the byte 0x80–0xFF it escapes (Python's "surrogateescape",
 * what a client sends for bytes that are not UTF-8), so such stdin carries bytes, kept as they are;
 * any other lone surrogate stands for no byte at all and is refused.
 */
function fromText(text: string): Stdin {
  if (text.isWellFormed()) return { bytes: new TextEncoder().encode(text), text, invalidAt: null };
  const encoder = new TextEncoder();
  const parts: Uint8Array[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0xd800 || code > 0xdfff) continue;
    const next = text.charCodeAt(i + 1);
    if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      i++; // a pair: an ordinary character
      continue;
    }
    if (code < 0xdc80 || code > 0xdcff) {
      throw new PtermError(
        "StdinNotUtf8",
        `stdin holds the lone surrogate U+${code.toString(16).toUpperCase()} at character ${i}, which is no text ` +
          "and stands for no byte; send stdin as UTF-8 text, with each byte that is not UTF-8 as U+DC80–U+DCFF " +
          "(surrogateescape), or save it to a file and pass `--stdin-file <path>` to `pterm exec`.",
      );
    }
    parts.push(encoder.encode(text.slice(start, i)), new Uint8Array([code - 0xdc00]));
    start = i + 1;
  }
  parts.push(encoder.encode(text.slice(start)));
  return fromBytes(concatBytes(parts));
}

export async function readStdin(source: StdinSource, maxBytes: number, deadline: number): Promise<Stdin | null> {
  if (source.kind === "none") return null;
  if (source.kind === "text") {
    const stdin = fromText(source.text);
    if (stdin.bytes.length > maxBytes) throw tooLarge(maxBytes);
    return stdin;
  }
  if (source.kind === "bytes") {
    if (source.bytes.length > maxBytes) throw tooLarge(maxBytes);
    return fromBytes(source.bytes);
  }
  const reader = source.stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  // AbortSignal.timeout rather than setTimeout: see the note in sandbox.ts.
  const deadlineSignal = AbortSignal.timeout(Math.max(0, deadline - Date.now()));
  let onDeadline = () => {};
  const expired = new Promise<never>((_, reject) => {
    onDeadline = () =>
      reject(
        new PtermError("Timeout", "stdin was not closed before the call's timeout; close stdin after writing it."),
      );
    deadlineSignal.addEventListener("abort", onDeadline, { once: true });
  });
  try {
    while (true) {
      const { done, value } = await Promise.race([reader.read(), expired]);
      if (done) break;
      total += value.length;
      if (total > maxBytes) throw tooLarge(maxBytes);
      chunks.push(value);
    }
  } finally {
    deadlineSignal.removeEventListener("abort", onDeadline);
    reader.releaseLock();
  }
  return fromBytes(concatBytes(chunks));
}

/**
 * The refusal of stdin that is not UTF-8 by a command that reads stdin as text. It names the
 * command's own file flag when the declaration has one (a path flag named `file`, which the
 * command reads as bytes), so the suggested line is one the command takes.
 */
export function notUtf8Failure(commandPath: string, leaf: LeafSpec, stdin: Stdin): PtermError {
  const at = stdin.invalidAt ?? 0;
  const byte = at < stdin.bytes.length ? ` (byte 0x${stdin.bytes[at].toString(16).padStart(2, "0")})` : "";
  const fileFlag = (leaf.flags ?? []).find((f) => f.name === "file" && f.path === "read");
  const what = `stdin is not valid UTF-8: offset ${at}${byte} is not; ${commandPath} reads stdin as UTF-8 text and ` +
    "pterm never changes stdin's bytes, so nothing was run.";
  return new PtermError(
    "StdinNotUtf8",
    fileFlag
      ? `${what} Save the bytes to a file under the workspace root and pass it: \`${commandPath} --file <path>\`.`
      : `${what} Send the text as UTF-8 (convert it first, e.g. from Latin-1).`,
    { helpFor: commandPath },
  );
}
