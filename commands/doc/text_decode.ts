/**
 * Bytes of a text format (HTML, CSV, JSON, XML) to a string: a byte-order mark wins, then the
 * charset the file declares, else UTF-8. Bytes that are not valid in that encoding, or a charset
 * no decoder knows, are refused (CorruptInput, UnsupportedFormat) — never guessed at.
 */

import { PtermError } from "../../core/errors.ts";

export function decodeDocumentText(bytes: Uint8Array, what: string, declared?: string | null): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return strictDecode("utf-8", bytes.subarray(3), what);
  }
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return strictDecode("utf-16le", bytes.subarray(2), what);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return strictDecode("utf-16be", bytes.subarray(2), what);
  const label = declared?.trim().toLowerCase() || "utf-8";
  return strictDecode(label, bytes, what);
}

function strictDecode(label: string, bytes: Uint8Array, what: string): string {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label, { fatal: true });
  } catch {
    throw new PtermError(
      "UnsupportedFormat",
      `${what} declares the character encoding \`${label}\`, which pterm does not know; ` +
        "convert the file to UTF-8 first (for example with iconv) and extract the copy.",
    );
  }
  try {
    return decoder.decode(bytes);
  } catch {
    throw new PtermError(
      "CorruptInput",
      `${what} is not valid ${decoder.encoding} text (the encoding it ${
        label === "utf-8" ? "is read in when it declares none" : "declares"
      }); convert it to UTF-8 first (for example with iconv) and extract the copy.`,
    );
  }
}

/** The charset an HTML file declares in its first KiB (`<meta charset>` or `http-equiv` Content-Type). */
export function declaredHtmlCharset(bytes: Uint8Array): string | null {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 1024));
  return /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head)?.[1] ?? null;
}

/** The encoding an XML declaration names (`<?xml version="1.0" encoding="…"?>`). */
export function declaredXmlEncoding(bytes: Uint8Array): string | null {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 200));
  return /^<\?xml[^>]*\bencoding\s*=\s*["']([\w.:-]+)["']/.exec(head)?.[1] ?? null;
}
