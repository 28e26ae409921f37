/**
 * pterm's shortcuts through PDF.js (commands/doc/pdf/pdfjs_open.ts, `pdfjsShortcuts`) must change nothing:
 * its in-thread port between PDF.js's two sides copies messages in JavaScript instead of PDF.js's
 * own `structuredClone`, and one `getAnnotationsByType` call for the document replaces each page's
 * `getAnnotations` (which extracts the text of every page with links a second time). Every real
 * PDF among the fixtures (pdfTeX manuals with links, PDF.js's and pypdf's test files with
 * free-text notes, filled forms, rotation and right-to-left text, camelot's ruled tables, which go
 * through PDF.js's operator lists, whose arrays PDF.js empties in place after sending them) is
 * read with PDF.js's plain paths and with each shortcut in one process, and must give the same
 * blocks, warnings and counts, or the same error.
 */

import assert from "node:assert/strict";
import { extractPdf, infoPdf, pdfReaders } from "../../../commands/doc/pdf/pdf.ts";
import { pdfjsShortcuts } from "../../../commands/doc/pdf/pdfjs_open.ts";
import { realPdfs } from "./pdf_helpers.ts";

const FIXTURES = new URL("../../fixtures/doc/", import.meta.url);

type Shortcuts = typeof pdfjsShortcuts;
const PLAIN: Shortcuts = { inThreadPort: false, annotationsByType: false };
const WAYS: [string, Shortcuts][] = [
  ["in-thread port", { inThreadPort: true, annotationsByType: false }],
  ["annotations by type", { inThreadPort: false, annotationsByType: true }],
  ["both (pterm's default)", { inThreadPort: true, annotationsByType: true }],
];

async function readWith(shortcuts: Shortcuts, bytes: Uint8Array): Promise<unknown> {
  const defaults = { ...pdfjsShortcuts };
  Object.assign(pdfjsShortcuts, shortcuts);
  // PDF.js's paths are what is compared here, not pterm's own reader (tests/commands/doc/pdf_reader_test.ts).
  pdfReaders.ptermFirst = false;
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
    Object.assign(pdfjsShortcuts, defaults);
    pdfReaders.ptermFirst = true;
  }
}

Deno.test("doc: pterm's shortcuts through PDF.js read every real PDF fixture as PDF.js's plain paths do", async (t) => {
  assert.deepEqual(
    pdfjsShortcuts,
    { inThreadPort: true, annotationsByType: true },
    "the shortcuts are pterm's default",
  );
  const files = await realPdfs(FIXTURES);
  assert.ok(files.length >= 15, `expected the real PDF fixtures, found ${files.length}`);
  let pages = 0;
  for (const file of files) {
    await t.step(file, async () => {
      const bytes = await Deno.readFile(new URL(file, FIXTURES));
      const reference = await readWith(PLAIN, bytes);
      for (const [way, shortcuts] of WAYS) assert.deepEqual(await readWith(shortcuts, bytes), reference, way);
      pages += (reference as { extraction?: { counts: { pages?: number } } }).extraction?.counts.pages ?? 0;
    });
  }
  // Not a vacuous comparison: the fixtures hold real text on many pages.
  assert.ok(pages >= 50, `only ${pages} pages were read`);
});
