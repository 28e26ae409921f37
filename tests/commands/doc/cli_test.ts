/** The real `pterm` process, as a user runs it: `pterm exec --root DIR "doc extract ..."`. */

import assert from "node:assert/strict";
import { cli } from "../../_support/helpers.ts";
import { rootWith } from "./helpers.ts";

Deno.test("pterm exec runs doc extract and doc info end to end, with an audit record", async () => {
  await using dir = await rootWith({ "docs/report.docx": "report.docx", "slides/deck.pptx": "deck.pptx" });
  const run = await cli(["exec", "--root", dir.path, "doc extract --in docs/report.docx --out notes/report.md"]);
  assert.equal(run.code, 0, run.stderr + run.stdout);
  assert.equal(run.envelope?.result?.command, "doc extract");
  const markdown = await Deno.readTextFile(`${dir.path}/notes/report.md`);
  assert.ok(markdown.startsWith("# Quarterly Field Report\n"));

  const info = await cli(["exec", "--root", dir.path, "--text", "doc info --in slides/deck.pptx"]);
  assert.equal(info.code, 0, info.stderr);
  assert.match(
    info.stdout,
    /slides\/deck\.pptx: pptx, 29\.\d KiB, 3 slides\ntitle: Survey Kick-off\nauthor: Grace Hopper/,
  );

  const runs = await cli(["runs", "list", "--root", dir.path]);
  assert.equal(runs.code, 0, runs.stderr);
  assert.match(runs.stdout, /doc extract --in docs\/report.docx --out notes\/report.md/);
});

/**
 * Deno fetches an npm package's registry metadata when pterm first imports it lazily (unpdf for a
 * PDF, mammoth for a DOCX) unless `deno install` cached it, and it may exit before saving it, so
 * `Download https://registry.npmjs.org/zod` came back on every run. After the
 * install step the README and .ci/run give, no run fetches anything.
 */
Deno.test("pterm exec reads every format without fetching anything (no Download line on stderr)", async () => {
  await using dir = await rootWith({
    "a.pdf": "report.pdf",
    "b.docx": "report.docx",
    "c.pptx": "deck.pptx",
    "d.xlsx": "book.xlsx",
  });
  for (const file of ["a.pdf", "b.docx", "c.pptx", "d.xlsx"]) {
    for (const line of [`doc extract --in ${file} --out out/${file}.md`, `doc info --in ${file}`]) {
      const run = await cli(["exec", "--root", dir.path, line]);
      assert.equal(run.code, 0, run.stderr + run.stdout);
      assert.doesNotMatch(run.stderr, /Download/, `${line} fetched something`);
      assert.equal(run.stderr, "", line);
    }
  }
});

/**
 * PDF.js's warnings (a standard font it cannot load, a damaged cross-reference it rebuilds) went
 * to the process's stderr, past the envelope: the document side of PDF.js took its verbosity from
 * the in-thread `PDFWorker`, which was made without one. These three real PDFs each printed one.
 */
Deno.test("a PDF read through PDF.js prints nothing of PDF.js's own on the process's stderr", async () => {
  await using dir = await rootWith({
    "health.pdf": "camelot/health.pdf",
    "freetext.pdf": "pdfjs/annotation-freetext.pdf",
    "corrupt.pdf": "corrupt.pdf",
  });
  for (const file of ["health.pdf", "freetext.pdf", "corrupt.pdf"]) {
    const run = await cli(["exec", "--root", dir.path, `doc extract ${file} --mode text`]);
    assert.ok(run.envelope !== null, run.stdout);
    assert.equal(run.stderr, "", `${file}: ${run.stderr}`);
  }
});
