/** Shared by the PDF reader tests: the real PDF fixtures, the reader's options, and PDF.js's reading. */

import { extractPdf, pdfReaders } from "../../../commands/doc/pdf/pdf.ts";

/** Every `.pdf` below `dir`, as paths relative to it, sorted. */
export async function realPdfs(dir: URL, prefix = ""): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory) found.push(...await realPdfs(new URL(`${entry.name}/`, dir), `${prefix}${entry.name}/`));
    else if (entry.name.endsWith(".pdf")) found.push(`${prefix}${entry.name}`);
  }
  return found.sort();
}

/** Extraction options roomy enough for any fixture. */
export const readerOptions = () => ({
  signal: AbortSignal.timeout(120_000),
  charBudget: 10_000_000,
  memoryBytes: 1 << 30,
  maxInflatedBytes: 500 * 1024 * 1024,
});

/** The extraction through PDF.js alone (pterm's reader turned off), a failure as its code. */
export async function withPdfjs(bytes: Uint8Array): Promise<unknown> {
  pdfReaders.ptermFirst = false;
  try {
    return await extractPdf(bytes, readerOptions());
  } catch (error) {
    return { error: (error as { code?: string }).code ?? String(error) };
  } finally {
    pdfReaders.ptermFirst = true;
  }
}
