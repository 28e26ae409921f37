/**
 * Run as its own process by pdf_font_guard_test.ts: extracts one PDF (through PDF.js alone with
 * `pdfjs`, else pterm's reader first) and prints the extraction and the process's peak resident
 * memory (VmHWM), so that a test can bound what one extraction allocates.
 */

import { extractPdf, pdfReaders } from "../../../commands/doc/pdf/pdf.ts";
import { readerOptions } from "./pdf_helpers.ts";

const [path, readers] = Deno.args;
pdfReaders.ptermFirst = readers !== "pdfjs";
const result = await extractPdf(Deno.readFileSync(path), readerOptions()).catch((error) => ({
  error: (error as { code?: string }).code ?? String(error),
}));
const peakKiB = Number(/VmHWM:\s+(\d+) kB/.exec(Deno.readTextFileSync("/proc/self/status"))?.[1]);
Deno.stdout.writeSync(
  new TextEncoder().encode(
    JSON.stringify(
      { peakBytes: peakKiB * 1024, result },
      (_key, value) => value instanceof Map ? Object.fromEntries(value) : value,
    ) + "\n",
  ),
);
