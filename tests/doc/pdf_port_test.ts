/**
 * pterm's in-thread port between PDF.js's two sides (commands/doc/pdf.ts, `InThreadPort`) copies
 * messages in JavaScript instead of PDF.js's own `structuredClone`. It must change nothing: every
 * real PDF among the fixtures (pdfTeX manuals, PDF.js's and pypdf's test files with annotations,
 * forms, rotation and right-to-left text, camelot's ruled tables, which go through PDF.js's
 * operator lists, whose arrays PDF.js empties in place after sending them) is read both ways in
 * one process and must give the same blocks, warnings and counts, or the same error.
 */

import assert from "node:assert/strict";
import { extractPdf, infoPdf, pdfjsMessaging } from "../../commands/doc/pdf.ts";

const FIXTURES = new URL("../fixtures/doc/", import.meta.url);

async function realPdfs(dir: URL, prefix = ""): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory) found.push(...await realPdfs(new URL(`${entry.name}/`, dir), `${prefix}${entry.name}/`));
    else if (entry.name.endsWith(".pdf")) found.push(`${prefix}${entry.name}`);
  }
  return found.sort();
}

async function readWith(port: "pterm" | "pdfjs", bytes: Uint8Array): Promise<unknown> {
  pdfjsMessaging.port = port;
  try {
    const extraction = await extractPdf(bytes, {
      signal: AbortSignal.timeout(60_000),
      charBudget: 10_000_000,
      memoryBytes: 1 << 30,
    });
    return { extraction, info: await infoPdf(bytes).catch((error) => ({ error: String(error) })) };
  } catch (error) {
    return { error: (error as { code?: string }).code ?? String(error), message: (error as Error).message };
  } finally {
    pdfjsMessaging.port = "pterm";
  }
}

Deno.test("doc: PDF.js through pterm's in-thread port reads every real PDF fixture as through its own", async (t) => {
  const files = await realPdfs(FIXTURES);
  assert.ok(files.length >= 15, `expected the real PDF fixtures, found ${files.length}`);
  let pages = 0;
  for (const file of files) {
    await t.step(file, async () => {
      const bytes = await Deno.readFile(new URL(file, FIXTURES));
      const reference = await readWith("pdfjs", bytes);
      const mine = await readWith("pterm", bytes);
      assert.deepEqual(mine, reference);
      pages += (reference as { extraction?: { counts: { pages?: number } } }).extraction?.counts.pages ?? 0;
    });
  }
  // Not a vacuous comparison: the fixtures hold real text on many pages.
  assert.ok(pages >= 50, `only ${pages} pages were read`);
});
