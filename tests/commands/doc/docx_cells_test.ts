/**
 * DOCX table cells keep their paragraphs, line breaks and nested tables apart:
 * glued together, `17,542` and `32,000` read as the wrong number `17,54232,000`. The document is
 * mammoth's own test file `tables.docx` (tests/fixtures/doc/mammoth/) with its top-left cell
 * given what Word writes for such content.
 */

import assert from "node:assert/strict";
import { exec, makeRoot } from "../../_support/helpers.ts";
import { FIXTURES } from "./helpers.ts";
import { readZipEntries, writeZip } from "./zip_writer.ts";

const run = (text: string) => `<w:r><w:t>${text}</w:t></w:r>`;
const para = (...content: string[]) => `<w:p>${content.join("")}</w:p>`;
const cell = (...content: string[]) =>
  `<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/></w:tcPr>${content.join("")}</w:tc>`;

const TOP_LEFT = cell(
  para(run("17,542")),
  para(run("32,000")),
  para(run("Alder"), "<w:r><w:br/></w:r>", run("Birch")),
  `<w:tbl><w:tblGrid><w:gridCol w:w="1000"/><w:gridCol w:w="1000"/></w:tblGrid>` +
    `<w:tr>${cell(para(run("4.5")))}${cell(para(run("6.25")))}</w:tr>` +
    `<w:tr>${cell(para(run("7")))}${cell(para(run("8")))}</w:tr></w:tbl>`,
  para(),
);

async function cellsDocx(): Promise<Uint8Array> {
  const entries = await readZipEntries(await Deno.readFile(`${FIXTURES}mammoth/tables.docx`));
  const xml = new TextDecoder().decode(entries["word/document.xml"]);
  const replaced = xml.replace(/<w:tc>(?:(?!<\/w:tc>).)*Top left(?:(?!<\/w:tc>).)*<\/w:tc>/s, TOP_LEFT);
  assert.notEqual(replaced, xml);
  entries["word/document.xml"] = new TextEncoder().encode(replaced);
  return await writeZip(entries);
}

Deno.test("doc extract: a DOCX table cell keeps paragraphs, line breaks and nested tables apart", async (t) => {
  await using root = await makeRoot("pterm-doc-cells-");
  await Deno.writeFile(`${root.path}/cells.docx`, await cellsDocx());
  await t.step("markdown: <br> between the cell's lines", async () => {
    const envelope = await exec(root.path, "doc extract --in cells.docx --out cells.md");
    assert.equal(envelope.exit_code, 0, envelope.stderr);
    const md = await Deno.readTextFile(`${root.path}/cells.md`);
    assert.match(md, /^\| 17,542<br>32,000<br>Alder<br>Birch<br>4\.5 6\.25<br>7 8 \| Top right \|$/m);
    assert.match(md, /^\| Bottom left \| Bottom right \|$/m);
  });
  await t.step("text: a space between them", async () => {
    const envelope = await exec(root.path, "doc extract --in cells.docx --out cells.txt --mode text");
    assert.equal(envelope.exit_code, 0, envelope.stderr);
    const text = await Deno.readTextFile(`${root.path}/cells.txt`);
    assert.match(text, /^17,542 32,000 Alder Birch 4\.5 6\.25 7 8\tTop right$/m);
  });
});
