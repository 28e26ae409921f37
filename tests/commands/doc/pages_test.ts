/**
 * `--pages A-B` reads a range of PDF pages, PPTX slides or XLSX sheets (by number, or a sheet by
 * name); the saved file always holds the whole range, and the summary says exactly what it holds.
 * A reader that stops at the output limit (doc.max_output_chars) never does so silently: the
 * summary and the file name the line that reads the rest, and running it does.
 */

import assert from "node:assert/strict";
import { exec } from "../../_support/helpers.ts";
import { extractOk, FIXTURES, rootWith } from "./helpers.ts";

type Result = {
  status: string;
  truncated: boolean;
  total_chars: number | null;
  range?: { unit: string; first: number; last: number; of: number };
};

const pageMarkers = (text: string) => [...text.matchAll(/<!-- Page number: (\d+) -->/g)].map((m) => Number(m[1]));

Deno.test("doc extract --pages: a PDF's page range, whole in the file, and the summary says which pages", async () => {
  await using dir = await rootWith({ "manual.pdf": "debian/libtasn1.pdf" });
  const whole = await extractOk(dir.path, "doc extract manual.pdf");
  const tail = await extractOk(dir.path, "doc extract manual.pdf --pages 30-36");
  assert.deepEqual(pageMarkers(tail.text), [30, 31, 32, 33, 34, 35, 36]);
  const result = tail.envelope.result as Result;
  assert.deepEqual(result.range, { unit: "page", first: 30, last: 36, of: 36 });
  assert.equal(result.status, "complete");
  assert.match(tail.envelope.stdout, /Complete: \S+ holds pages 30-36 of 36\./);
  // The next step: the rest of the manual, and both parts together are the whole text.
  const head = await extractOk(dir.path, "doc extract manual.pdf --pages 1-29");
  assert.deepEqual(pageMarkers(head.text), Array.from({ length: 29 }, (_, i) => i + 1));
  assert.equal(`${head.text.trimEnd()}\n\n${tail.text}`, whole.text);
  // One page, and a range past the end, which stops at the last page.
  assert.deepEqual(pageMarkers((await extractOk(dir.path, "doc extract manual.pdf --pages 7")).text), [7]);
  const open = await extractOk(dir.path, "doc extract manual.pdf --pages 35-");
  assert.deepEqual(pageMarkers(open.text), [35, 36]);
  assert.deepEqual(pageMarkers((await extractOk(dir.path, "doc extract manual.pdf --pages 36-90")).text), [36]);
});

Deno.test("doc extract --pages: PPTX slides and XLSX sheets by number or by name", async () => {
  await using dir = await rootWith({ "deck.pptx": "deck.pptx", "book.xlsx": "book.xlsx" });
  const slide = await extractOk(dir.path, "doc extract deck.pptx --pages 2");
  assert.deepEqual([...slide.text.matchAll(/<!-- Slide number: (\d+) -->/g)].map((m) => m[1]), ["2"]);
  assert.deepEqual((slide.envelope.result as Result).range, { unit: "slide", first: 2, last: 2, of: 3 });
  const all = await extractOk(dir.path, "doc extract book.xlsx");
  const sheets = [...all.text.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
  assert.equal(sheets.length, 2);
  const second = await extractOk(dir.path, "doc extract book.xlsx --pages 2");
  assert.deepEqual([...second.text.matchAll(/^## (.+)$/gm)].map((m) => m[1]), [sheets[1]]);
  const byName = await extractOk(dir.path, `doc extract book.xlsx --pages ${sheets[0]}`);
  assert.deepEqual([...byName.text.matchAll(/^## (.+)$/gm)].map((m) => m[1]), [sheets[0]]);
  assert.match(byName.envelope.stdout, /holds sheet 1 of 2\./);
});

Deno.test("doc extract --pages: a range the document lacks, a DOCX, a malformed range: InvalidArgs whose line runs", async () => {
  await using dir = await rootWith({
    "manual.pdf": "debian/libtasn1.pdf",
    "report.docx": "report.docx",
    "book.xlsx": "book.xlsx",
  });
  for (
    const [line, message] of [
      ["doc extract manual.pdf --pages 50-60", /the document has 36 page\(s\)/],
      ["doc extract report.docx --pages 1-2", /a Word document, which has no fixed pages/],
      ["doc extract manual.pdf --pages 5-3", /give pages as A-B/],
      ["doc extract manual.pdf --pages first", /give pages as A-B/],
      ["doc extract book.xlsx --pages Nowhere", /no sheet of that name; its sheets are/],
    ] as const
  ) {
    const envelope = await exec(dir.path, line);
    assert.equal(envelope.error_code, "InvalidArgs", `${line}: ${envelope.stderr}`);
    assert.match(envelope.stderr, message);
    assert.deepEqual(envelope.artifacts, [], "nothing is written");
    const suggested = /`(doc extract [^`]+)`/.exec(envelope.stderr)?.[1];
    assert.ok(suggested, envelope.stderr);
    const retry = await exec(dir.path, suggested);
    assert.equal(retry.exit_code, 0, `${suggested}: ${retry.stderr}`);
  }
});

Deno.test("doc extract: a reader stopped at the output limit says where, and the line it names reads the rest", async () => {
  await using dir = await rootWith({ "manual.pdf": "debian/libtasn1.pdf" }, { doc: { max_output_chars: 20000 } });
  const pages: number[] = [];
  let line = "doc extract manual.pdf";
  for (let call = 0; call < 20; call++) {
    const { envelope, text } = await extractOk(dir.path, line);
    const result = envelope.result as Result;
    pages.push(...pageMarkers(text));
    if (result.status === "complete") break;
    assert.equal(result.status, "truncated");
    assert.equal(result.truncated, true);
    assert.equal(result.total_chars, null);
    assert.ok(result.range && result.range.last < 36);
    // Never silently: the summary and the file itself say where reading stopped and what reads the rest.
    const next = new RegExp(
      `after pages? [\\d-]+ of 36; the rest: \`(doc extract manual\\.pdf --pages ${result.range.last + 1}-36)\``,
    );
    assert.match(envelope.stdout, /Incomplete: pterm stopped reading at its output limit of 20000 characters/);
    assert.match(text.slice(-300), next);
    line = next.exec(envelope.stdout)![1];
  }
  assert.deepEqual(pages, Array.from({ length: 36 }, (_, i) => i + 1), "every page once, in order");
});

Deno.test("doc extract: a PDF's progress is told page by page while it is read, not once it is done", async () => {
  const { extractPdf } = await import("../../../commands/doc/pdf/pdf.ts");
  const bytes = await Deno.readFile(`${FIXTURES}debian/libtasn1.pdf`);
  const controller = new AbortController();
  const reports: number[] = [];
  // A caller that stops the read at the first report: only a live report can stop it midway.
  const reading = extractPdf(bytes, {
    signal: controller.signal,
    charBudget: 10_000_000,
    memoryBytes: 2 ** 31,
    progress: (report) => {
      reports.push(report.progress);
      controller.abort();
    },
  });
  await assert.rejects(reading);
  assert.deepEqual(reports, [1], "the first page's report came while the other 35 were still unread");
});
