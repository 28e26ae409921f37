/**
 * One output filter after every reader: no control character but tab and line feed (and the form
 * feed between pages of the text mode) reaches the output. Mozilla's TAMReview.pdf (PDF.js's test
 * corpus) draws its tables in fonts without a Unicode map: their codes reached the table cells past
 * the PDF reader's own filter (81 of them) before this one ran after every reader.
 */

import assert from "node:assert/strict";
import { exec, makeRoot } from "../../_support/helpers.ts";
import { FIXTURES } from "./helpers.ts";
import { dropControlCharacters } from "../../../commands/doc/controls.ts";

// deno-lint-ignore no-control-regex -- finding control characters is the point
const FORBIDDEN = /[\u0000-\u0008\u000B\u000D-\u001F\u007F-\u009F]/;
// deno-lint-ignore no-control-regex -- the form feed is allowed only between pages, in text mode
const FORM_FEED = /\u000C/g;

Deno.test("doc extract: TAMReview.pdf's table cells keep no control character, in md, text and json", async (t) => {
  await using root = await makeRoot("pterm-doc-controls-");
  await Deno.writeFile(`${root.path}/TAMReview.pdf`, await Deno.readFile(`${FIXTURES}pdfjs/TAMReview.pdf`));
  for (const mode of ["md", "text", "json"] as const) {
    await t.step(mode, async () => {
      const envelope = await exec(root.path, `doc extract TAMReview.pdf --mode ${mode} --out out.${mode}`);
      assert.equal(envelope.exit_code, 0, envelope.stderr);
      const text = await Deno.readTextFile(`${root.path}/out.${mode}`);
      const allowedFeeds = mode === "text" ? 22 : 0;
      assert.equal((text.match(FORM_FEED) ?? []).length, allowedFeeds, "form feeds only between the 23 pages");
      assert.equal(FORBIDDEN.exec(text.replace(FORM_FEED, "")), null);
      const warnings = (envelope.result as { warnings: string[] }).warnings;
      // Each dropped character counted once, whether its piece was read as text or into a table's
      // or columns' cells (the same count with the detection of columns turned off: 38426).
      assert.deepEqual(
        warnings.filter((w) => /control character/.test(w)),
        [
          "38426 control character(s) on page(s) 2-22 were dropped (fonts without a Unicode map); " +
          "the text there may be incomplete",
        ],
      );
      // The table region itself is still there, its readable cells intact.
      if (mode === "md") assert.match(text, /\| --- \| --- \| --- \|/);
    });
  }
});

Deno.test("the output filter drops controls in every kind of block and says on which slides and sheets", () => {
  const slides = dropControlCharacters({
    format: "pptx",
    blocks: [
      { type: "slide", number: 1, title: "clean", blocks: [], notes: [] },
      {
        type: "slide",
        number: 3,
        title: "ti\u0007tle",
        blocks: [
          { type: "paragraph", spans: [{ text: "a\r\nb\u001bc", href: "https://x.org/\u0000" }] },
          { type: "list", items: [{ spans: [{ text: "it\u0085em" }], depth: 0, ordered: false }] },
          { type: "table", rows: [["ce\u0001ll", "tab\tkept"]] },
          { type: "image", alt: "al\u007ft" },
        ],
        notes: [{ type: "paragraph", spans: [{ text: "no\u000ctes" }] }],
      },
    ],
    counts: { slides: 3 },
    warnings: [],
    stoppedEarly: false,
  });
  assert.equal(JSON.stringify(slides.blocks).match(/\\u00[01]|\\u007f|\\u008|\\u009|\\r/), null);
  assert.match(JSON.stringify(slides.blocks), /a\\nbc/);
  assert.match(JSON.stringify(slides.blocks), /tab\\tkept/);
  assert.deepEqual(slides.warnings, [
    "7 control character(s) on slide(s) 3 were dropped; the text there may be incomplete",
  ]);
  const sheets = dropControlCharacters({
    format: "xlsx",
    blocks: [{ type: "sheet", name: "Da\u0002ta", rows: [["x\u0003"]] }],
    counts: { sheets: 1 },
    warnings: [],
    stoppedEarly: false,
  });
  assert.deepEqual(sheets.blocks, [{ type: "sheet", name: "Data", rows: [["x"]] }]);
  assert.deepEqual(sheets.warnings, [
    '2 control character(s) in sheet(s) "Data" were dropped; the text there may be incomplete',
  ]);
});
