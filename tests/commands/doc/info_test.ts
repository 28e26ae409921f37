/**
 * `doc info` names the program that wrote an Office file: docProps/app.xml's
 * Application, from a Word-written file in mammoth's test data and LibreOffice-written fixtures.
 */

import assert from "node:assert/strict";
import { exec } from "../../_support/helpers.ts";
import { FIXTURES, rootWith } from "./helpers.ts";
import { readZipEntries } from "./zip_writer.ts";

/** The Application element of the package's docProps/app.xml, found by a plain search of its text. */
async function applicationOf(fixture: string): Promise<string> {
  const entries = await readZipEntries(await Deno.readFile(`${FIXTURES}${fixture}`));
  const match = /<Application>([^<]*)<\/Application>/.exec(new TextDecoder().decode(entries["docProps/app.xml"]));
  assert.ok(match, `${fixture} has an Application`);
  return match[1];
}

Deno.test("doc info: the producer of DOCX, PPTX and XLSX files is docProps/app.xml's Application", async () => {
  const fixtures = {
    "word.docx": "mammoth/tables.docx",
    "report.docx": "report.docx",
    "deck.pptx": "deck.pptx",
    "book.xlsx": "book.xlsx",
  };
  await using dir = await rootWith(fixtures);
  for (const [file, fixture] of Object.entries(fixtures)) {
    const envelope = await exec(dir.path, `doc info --in ${file}`);
    assert.equal(envelope.exit_code, 0, envelope.stderr);
    const expected = await applicationOf(fixture);
    assert.equal((envelope.result as { producer: string | null }).producer, expected, file);
    assert.ok(envelope.stdout.includes(`producer: ${expected}\n`), envelope.stdout);
  }
  const word = await exec(dir.path, "doc info --in word.docx");
  assert.equal((word.result as { producer: string }).producer, "Microsoft Office Word");
});

Deno.test("doc info: an Office file without docProps/app.xml has no producer (html-docx-js writes none)", async () => {
  await using dir = await rootWith({ "note.docx": "npm/html-docx-js-altchunk.docx" });
  const envelope = await exec(dir.path, "doc info --in note.docx");
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  assert.equal((envelope.result as { producer: string | null }).producer, null);
  assert.match(envelope.stdout, /producer: -\n/);
});
