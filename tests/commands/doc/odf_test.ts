/**
 * OpenDocument text, spreadsheets and presentations read with the same conventions as their
 * Office counterparts: LibreOffice's report.odt (and the flat sources report.fodt, book.fods,
 * deck.fodp that scripts/doc_fixtures.ts makes the fixtures from) read exactly as the DOCX, XLSX
 * and PPTX LibreOffice wrote from the same sources. Repeated empty cells cost nothing; a
 * password-protected package is EncryptedDocument.
 */

import assert from "node:assert/strict";
import { exec } from "../../_support/helpers.ts";
import { extractOk, rootWith } from "./helpers.ts";
import { writeZip } from "./zip_writer.ts";

const encoder = new TextEncoder();

Deno.test("doc extract: ODT, flat ODT, ODS and ODP read as the DOCX, XLSX and PPTX of the same sources", async (t) => {
  await using dir = await rootWith({
    "report.odt": "report.odt",
    "report.fodt": "src/report.fodt",
    "report.docx": "report.docx",
    "book.fods": "src/book.fods",
    "book.xlsx": "book.xlsx",
    "deck.fodp": "src/deck.fodp",
    "deck.pptx": "deck.pptx",
  });
  for (
    const [odf, office, format] of [
      ["report.odt", "report.docx", "odt"],
      ["report.fodt", "report.docx", "odt"],
      ["book.fods", "book.xlsx", "ods"],
      ["deck.fodp", "deck.pptx", "odp"],
    ] as const
  ) {
    await t.step(odf, async () => {
      for (const mode of ["md", "text"]) {
        const read = await extractOk(dir.path, `doc extract ${odf} --mode ${mode}`);
        assert.equal((read.envelope.result as { format: string }).format, format);
        const reference = await extractOk(dir.path, `doc extract ${office} --mode ${mode}`);
        assert.equal(read.text, reference.text);
      }
    });
  }
  const sheet = await extractOk(dir.path, "doc extract book.fods --pages 2");
  assert.deepEqual([...sheet.text.matchAll(/^## (.+)$/gm)].map((m) => m[1]).length, 1);
  const slide = await extractOk(dir.path, "doc extract deck.fodp --pages 2-3");
  assert.deepEqual([...slide.text.matchAll(/<!-- Slide number: (\d+) -->/g)].map((m) => m[1]), ["2", "3"]);
  const info = await exec(dir.path, "doc info book.fods");
  assert.equal((info.result as { sheets: number }).sheets, 2);
});

Deno.test("doc extract: an ODS repeating an empty cell a billion times reads at once, only its real cells", async () => {
  await using dir = await rootWith({});
  const ns = 'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ' +
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ' +
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"';
  const flat = `<?xml version="1.0"?><office:document ${ns} office:version="1.3" ` +
    'office:mimetype="application/vnd.oasis.opendocument.spreadsheet"><office:body><office:spreadsheet>' +
    '<table:table table:name="Data"><table:table-row><table:table-cell><text:p>a</text:p></table:table-cell>' +
    '<table:table-cell table:number-columns-repeated="1073741824"/></table:table-row>' +
    '<table:table-row table:number-rows-repeated="1048000"><table:table-cell table:number-columns-repeated="16384"/>' +
    "</table:table-row><table:table-row><table:table-cell><text:p>b</text:p></table:table-cell></table:table-row>" +
    "</table:table></office:spreadsheet></office:body></office:document>";
  await Deno.writeTextFile(`${dir.path}/sparse.fods`, flat);
  const started = performance.now();
  const { text } = await extractOk(dir.path, "doc extract sparse.fods --mode text");
  assert.ok(performance.now() - started < 10_000);
  assert.ok(text.startsWith("[Sheet: Data]\n\na\n"));
  assert.ok(text.endsWith("\nb\n"));
  assert.equal(text.split("\n").length, 1048000 + 5, "the empty rows between a and b are kept, and nothing else");
});

Deno.test("doc extract: a password-protected ODT is EncryptedDocument, and nothing is written", async () => {
  await using dir = await rootWith({});
  const manifest = '<?xml version="1.0"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:' +
    'manifest:1.0"><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml">' +
    '<manifest:encryption-data manifest:checksum-type="SHA1/1K" manifest:checksum="x"/></manifest:file-entry>' +
    "</manifest:manifest>";
  await Deno.writeFile(
    `${dir.path}/locked.odt`,
    await writeZip({
      "mimetype": encoder.encode("application/vnd.oasis.opendocument.text"),
      "META-INF/manifest.xml": encoder.encode(manifest),
      "content.xml": new Uint8Array([0x8f, 0x13, 0x00, 0xfe, 0x22]),
    }),
  );
  const envelope = await exec(dir.path, "doc extract locked.odt");
  assert.equal(envelope.error_code, "EncryptedDocument", envelope.stderr);
  assert.deepEqual(envelope.artifacts, []);
});
