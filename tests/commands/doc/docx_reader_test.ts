/**
 * The streaming DOCX reader on pandoc's own test documents (tests/fixtures/doc/pandoc/), checked
 * against pandoc's reference ASTs for them (`test/docx/*.native`): where mammoth, which pterm used
 * before, lost or misplaced content.
 */

import assert from "node:assert/strict";
import { extractOk, rootWith } from "./helpers.ts";

Deno.test("merged cells keep their columns: E spans three columns and G, H, I sit under it (pandoc's AST)", async () => {
  await using dir = await rootWith({ "t.docx": "pandoc/table_header_rowspan.docx" });
  const { text } = await extractOk(dir.path, "doc extract --in t.docx --mode text");
  const rows = text.split("\n").filter((line) => line.includes("\t")).map((line) => line.split("\t"));
  // A–D and F span two rows (RowSpan 2), E three columns (ColSpan 3): 8 columns.
  assert.deepEqual(rows[0], ["A", "B", "C", "D", "E", "", "", "F"]);
  assert.deepEqual(rows[1], ["", "", "", "", "G", "H", "I"]);
  assert.equal(rows.length, 11, "two header rows and nine body rows, as in pandoc's AST");
  for (const row of rows.slice(2)) assert.deepEqual(row, ["1", "2", "3", "4", "5", "6", "7", "8"]);
  const { text: md } = await extractOk(dir.path, "doc extract --in t.docx --out t.md");
  assert.ok(md.includes("| A | B | C | D | E |  |  | F |\n"), md);
});

Deno.test("moved text (w:moveTo) is read at its new place, once (pandoc's track_changes_move_accept)", async () => {
  await using dir = await rootWith({ "m.docx": "pandoc/track_changes_move.docx" });
  const { text } = await extractOk(dir.path, "doc extract --in m.docx --mode text");
  assert.equal(text, "Here is some text.\n\nHere is the text to be moved.\n\nHere is some more text.\n");
});

Deno.test("a HYPERLINK field with a \\l place links to url#place (pandoc's instrText_hyperlink)", async () => {
  await using dir = await rootWith({ "h.docx": "pandoc/instrText_hyperlink.docx" });
  const { text } = await extractOk(dir.path, "doc extract --in h.docx");
  assert.ok(
    text.includes(
      "[Foundations of Analysis, 2nd Edition](https://books.google.com/books?id=sp_Zcb9ot90C&lpg=PR4&hl=zh-CN&pg=PA19#v=onepage&q&f=true)",
    ),
    text,
  );
  assert.ok(
    text.includes(
      "[Classic Set Theory: For Guided Independent Study](https://books.google.ae/books?id=dlc0DwAAQBAJ&lpg=PT29&hl=zh-CN&pg=PT26#v=onepage&q&f=true)",
    ),
    text,
  );
});

/** What mammoth's own tests (test/mammoth.tests.js) expect of its test documents, as pterm writes it. */
Deno.test("notes and text boxes as mammoth gave them: mammoth's footnotes, endnotes, footnote-hyperlink and text-box documents", async () => {
  await using dir = await rootWith({
    "f.docx": "mammoth/footnotes.docx",
    "e.docx": "mammoth/endnotes.docx",
    "h.docx": "mammoth/footnote-hyperlink.docx",
    "t.docx": "mammoth/text-box.docx",
  });
  const md = async (file: string) => (await extractOk(dir.path, `doc extract --in ${file} --out ${file}.md`)).text;
  // mammoth: <p>Ouch<sup>[1]</sup>.<sup>[2]</sup></p><ol><li> A tachyon walks into a bar. ↑</li><li> Fin. ↑</li></ol>
  assert.equal(await md("f.docx"), "Ouch[1].[2]\n\n1. A tachyon walks into a bar.\n2. Fin.\n");
  assert.equal(await md("e.docx"), "Ouch[1].[2]\n\n1. A tachyon walks into a bar.\n2. Fin.\n");
  // mammoth: <p><sup>[1]</sup></p><ol><li> <a href="http://www.example.com">Example</a> ↑</li></ol>
  assert.equal(await md("h.docx"), "[1]\n\n1. [Example](http://www.example.com)\n");
  // mammoth: <p>Datum plane</p>
  assert.equal(await md("t.docx"), "Datum plane\n");
});
