/**
 * `doc` against hostile documents an agent can write itself (issue 11 items 6 and 9, the doc
 * cases): each is answered with an envelope and a precise code or a bounded result, never
 * `Internal`, never a process killed by V8 running out of memory. The files are generated here,
 * at the sizes the issue reports.
 */

import assert from "node:assert/strict";
import { exec, makeRoot } from "../helpers.ts";
import { writeZip } from "../doc/zip_writer.ts";

const NS_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const NS_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const NS_PKG_REL = "http://schemas.openxmlformats.org/package/2006/relationships";
const NS_P = "http://schemas.openxmlformats.org/presentationml/2006/main";
const NS_A = "http://schemas.openxmlformats.org/drawingml/2006/main";

/** A one-sheet workbook whose sheet XML is `sheetData`. */
function xlsx(sheetData: string): Promise<Uint8Array> {
  return writeZip({
    "[Content_Types].xml":
      `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
      `<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>` +
      `</Types>`,
    "_rels/.rels": `<Relationships xmlns="${NS_PKG_REL}"><Relationship Id="r1" ` +
      `Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    "xl/workbook.xml": `<workbook xmlns="${NS_MAIN}" xmlns:r="${NS_REL}"><sheets>` +
      `<sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    "xl/_rels/workbook.xml.rels": `<Relationships xmlns="${NS_PKG_REL}"><Relationship Id="rId1" ` +
      `Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
    "xl/worksheets/sheet1.xml": `<worksheet xmlns="${NS_MAIN}"><sheetData>${sheetData}</sheetData></worksheet>`,
  });
}

/** A one-slide presentation whose shape tree is `spTree`. */
function pptx(spTree: string): Promise<Uint8Array> {
  return writeZip({
    "[Content_Types].xml":
      `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
    "ppt/presentation.xml": `<p:presentation xmlns:p="${NS_P}" xmlns:r="${NS_REL}"><p:sldIdLst>` +
      `<p:sldId id="256" r:id="rId1"/></p:sldIdLst></p:presentation>`,
    "ppt/_rels/presentation.xml.rels": `<Relationships xmlns="${NS_PKG_REL}"><Relationship Id="rId1" ` +
      `Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide1.xml"/></Relationships>`,
    "ppt/slides/slide1.xml":
      `<p:sld xmlns:p="${NS_P}" xmlns:a="${NS_A}"><p:cSld><p:spTree>${spTree}</p:spTree></p:cSld></p:sld>`,
  });
}

Deno.test("security/doc: a sparse XLSX (A1 and XFD1 over 50,000 rows) is not a dense grid", async () => {
  await using root = await makeRoot("pterm-sec-doc-");
  const rows: string[] = [];
  rows.push(`<row r="1"><c r="A1"><v>1</v></c><c r="XFD1"><v>1</v></c></row>`);
  for (let r = 2; r <= 50_000; r++) rows.push(`<row r="${r}"><c r="A${r}"><v>${r}</v></c></row>`);
  const bytes = await xlsx(rows.join(""));
  assert.ok(bytes.length < 300_000, `${bytes.length} bytes`);
  await Deno.writeFile(`${root.path}/sparse.xlsx`, bytes);
  const envelope = await exec(root.path, "doc extract --in sparse.xlsx --mode text");
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  const result = envelope.result as { status: string; truncated: boolean };
  // The grid is 16,384 columns wide: only the rows that fit the character budget are written,
  // and the result says it stopped.
  assert.equal(result.status, "truncated");
  assert.equal(result.truncated, true);
});

Deno.test("security/doc: an XLSX cell reference outside Excel's grid is CorruptInput", async (t) => {
  await using root = await makeRoot("pterm-sec-doc-");
  for (
    const [name, sheet] of Object.entries({
      column: `<row r="1"><c r="ZZZZZZZZ1"><v>1</v></c></row>`,
      row: `<row r="99999999999"><c><v>1</v></c></row>`,
    })
  ) {
    await t.step(name, async () => {
      await Deno.writeFile(`${root.path}/${name}.xlsx`, await xlsx(sheet));
      const envelope = await exec(root.path, `doc extract --in ${name}.xlsx`);
      assert.equal(envelope.error_code, "CorruptInput", envelope.stderr);
      assert.match(envelope.stderr, /outside Excel's grid/);
    });
  }
});

Deno.test("security/doc: PPTX groups nested 100,000 deep are refused with InputTooLarge", async () => {
  await using root = await makeRoot("pterm-sec-doc-");
  const depth = 100_000;
  const shape = `<p:sp><p:txBody><a:p><a:r><a:t>deep</a:t></a:r></a:p></p:txBody></p:sp>`;
  const tree = "<p:grpSp>".repeat(depth) + shape + "</p:grpSp>".repeat(depth);
  await Deno.writeFile(`${root.path}/deep.pptx`, await pptx(tree));
  const envelope = await exec(root.path, "doc extract --in deep.pptx");
  assert.equal(envelope.error_code, "InputTooLarge", envelope.stderr);
  assert.match(envelope.stderr, /nests elements more than 1000 deep/);
});

Deno.test("security/doc: PPTX groups nested as Office writes them (a few levels) still read", async () => {
  await using root = await makeRoot("pterm-sec-doc-");
  const shape = `<p:sp><p:txBody><a:p><a:r><a:t>inside five groups</a:t></a:r></a:p></p:txBody></p:sp>`;
  await Deno.writeFile(`${root.path}/groups.pptx`, await pptx("<p:grpSp>".repeat(5) + shape + "</p:grpSp>".repeat(5)));
  const envelope = await exec(root.path, "doc extract --in groups.pptx --out groups.md");
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  assert.match(await Deno.readTextFile(`${root.path}/groups.md`), /inside five groups/);
});
