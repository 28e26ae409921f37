/**
 * The workbook part is found where the package's relationships say: a valid
 * XLSX whose workbook is not at xl/workbook.xml is read, and a spreadsheet package without a
 * workbook is CorruptInput, not UnsupportedFormat. Built from the fixture book.xlsx (LibreOffice
 * Calc), with its workbook part renamed or removed.
 */

import assert from "node:assert/strict";
import { exec, makeRoot } from "../../_support/helpers.ts";
import { FIXTURES } from "./helpers.ts";
import { readZipEntries, writeZip } from "./zip_writer.ts";

const decoder = new TextDecoder();
const encoder = new TextEncoder();

async function book(): Promise<Record<string, Uint8Array>> {
  return await readZipEntries(await Deno.readFile(`${FIXTURES}book.xlsx`));
}

Deno.test("doc extract: an XLSX whose workbook is at another part name is read through _rels", async () => {
  await using root = await makeRoot("pterm-doc-xlsx-parts-");
  const entries = await book();
  const moved: Record<string, Uint8Array> = {};
  for (const [name, bytes] of Object.entries(entries)) {
    if (name === "xl/workbook.xml") moved["xl/book-main.xml"] = bytes;
    else if (name === "xl/_rels/workbook.xml.rels") moved["xl/_rels/book-main.xml.rels"] = bytes;
    else if (name === "_rels/.rels" || name === "[Content_Types].xml") {
      moved[name] = encoder.encode(decoder.decode(bytes).replaceAll("xl/workbook.xml", "xl/book-main.xml"));
    } else moved[name] = bytes;
  }
  await Deno.writeFile(`${root.path}/moved.xlsx`, await writeZip(moved));
  await Deno.writeFile(`${root.path}/book.xlsx`, await Deno.readFile(`${FIXTURES}book.xlsx`));
  const envelope = await exec(root.path, "doc extract --in moved.xlsx --out moved.md");
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  const original = await exec(root.path, "doc extract --in book.xlsx --out book.md");
  assert.equal(original.exit_code, 0, original.stderr);
  assert.equal(
    await Deno.readTextFile(`${root.path}/moved.md`),
    await Deno.readTextFile(`${root.path}/book.md`),
  );
});

Deno.test("doc extract: a spreadsheet package without its workbook part is CorruptInput", async () => {
  await using root = await makeRoot("pterm-doc-xlsx-parts-");
  const entries = await book();
  delete entries["xl/workbook.xml"];
  await Deno.writeFile(`${root.path}/noworkbook.xlsx`, await writeZip(entries));
  const envelope = await exec(root.path, "doc extract --in noworkbook.xlsx");
  assert.equal(envelope.error_code, "CorruptInput", envelope.stderr);
  assert.match(envelope.stderr, /is an Excel workbook package whose main part \(xl\/workbook\.xml\) is missing/);
});

/**
 * An OPC package that declares a Word, PowerPoint or Excel main part but holds none of that
 * document's parts is a damaged document (CorruptInput), not another format: the fixtures written
 * by Word (mammoth's tables.docx) and LibreOffice (deck.pptx, book.xlsx) with their word/, ppt/ or
 * xl/ folders removed.
 */
Deno.test("doc extract: a package that declares a Word/PowerPoint/Excel main part it lacks is CorruptInput", async (t) => {
  await using root = await makeRoot("pterm-doc-xlsx-parts-");
  for (
    const [fixture, folder, label] of [
      ["mammoth/tables.docx", "word/", "Word document"],
      ["deck.pptx", "ppt/", "PowerPoint presentation"],
      ["book.xlsx", "xl/", "Excel workbook"],
    ] as const
  ) {
    await t.step(fixture, async () => {
      const entries = await readZipEntries(await Deno.readFile(`${FIXTURES}${fixture}`));
      for (const name of Object.keys(entries)) if (name.startsWith(folder)) delete entries[name];
      await Deno.writeFile(`${root.path}/damaged`, await writeZip(entries));
      for (const line of ["doc extract --in damaged --out out.md", "doc info --in damaged"]) {
        const envelope = await exec(root.path, line);
        assert.equal(envelope.error_code, "CorruptInput", envelope.stderr);
        assert.match(
          envelope.stderr,
          new RegExp(`is an? ${label} package whose main part \\(${folder}\\S+\\) is missing`),
        );
      }
    });
  }
  // A package that declares nothing of the kind stays UnsupportedFormat.
  await Deno.writeFile(
    `${root.path}/other`,
    await writeZip({
      "[Content_Types].xml": encoder.encode(
        '<?xml version="1.0"?><Types xmlns="x"><Default Extension="xml" ContentType="application/xml"/></Types>',
      ),
      "data.xml": encoder.encode("<a/>"),
    }),
  );
  const other = await exec(root.path, "doc extract --in other");
  assert.equal(other.error_code, "UnsupportedFormat", other.stderr);
});
