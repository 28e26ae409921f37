/** The call's stdin: read only when the command asks, bounded in size and in time. */

import { PtermError } from "./errors.ts";
import { concatBytes } from "./bytes.ts";

export type StdinSource =
  /** The call has no stdin (an interactive terminal, or nothing was given). */
  | { readonly kind: "none" }
  /** Stdin already in hand (`--request`, `--stdin-file`, a replay). */
  | { readonly kind: "text"; readonly text: string }
  /** Piped stdin, read only if the command needs it. */
  | { readonly kind: "stream"; readonly stream: ReadableStream<Uint8Array> };

function tooLarge(maxBytes: number): PtermError {
  return new PtermError(
    "InputTooLarge",
    `stdin is larger than the limit of ${maxBytes} bytes; send less (split the work) or raise limits.stdin_bytes in pterm.json.`,
  );
}

export async function readStdin(source: StdinSource, maxBytes: number, deadline: number): Promise<string | null> {
  if (source.kind === "none") return null;
  if (source.kind === "text") {
    if (new TextEncoder().encode(source.text).length > maxBytes) throw tooLarge(maxBytes);
    return source.text;
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
  const bytes = concatBytes(chunks);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new PtermError(
      "InvalidArgs",
      "stdin is not valid UTF-8 text; send text (binary content must be encoded, e.g. base64).",
    );
  }
}
