/**
 * Every Office package's main part is found through its root relationship (`_rels/.rels`,
 * officeDocument), wherever it lives, for DOCX, PPTX and XLSX alike: SheetJS's wtf_path.xlsx
 * (workbook at wtf/workbook.xml) and the fixtures made by LibreOffice with their whole
 * word/, ppt/ or xl/ folder moved elsewhere read the same as the originals.
 */

import assert from "node:assert/strict";
import { exec, makeRoot } from "../../_support/helpers.ts";
import { FIXTURES } from "./helpers.ts";
import { readZipEntries, writeZip } from "./zip_writer.ts";

const decoder = new TextDecoder();
const encoder = new TextEncoder();

Deno.test("doc extract: SheetJS's wtf_path.xlsx (workbook at wtf/workbook.xml) is read, not refused as damaged", async () => {
  await using root = await makeRoot("pterm-doc-main-part-");
  await Deno.writeFile(`${root.path}/wtf_path.xlsx`, await Deno.readFile(`${FIXTURES}sheetjs/wtf_path.xlsx`));
  const envelope = await exec(root.path, "doc extract wtf_path.xlsx --out wtf.md");
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  const text = await Deno.readTextFile(`${root.path}/wtf.md`);
  assert.match(text, /^## SheetJS\n/);
  assert.match(text, /\| TRUE \| FALSE \| {2}\| sheetjs \|/);
  assert.match(text, /\| foo {4}bar \| baz \| 2014-02-19 \| 0\.3 \|/);
  assert.match(text, /## Hidden\n\n\| H \| i \| d \| d \| e \| n \|/);
  const info = await exec(root.path, "doc info wtf_path.xlsx");
  assert.equal(info.exit_code, 0, info.stderr);
  assert.deepEqual((info.result as { sheet_names: string[] }).sheet_names, ["SheetJS", "Hidden"]);
  // The next step an agent takes: the same call again gives the same text.
  const again = await exec(root.path, "doc extract wtf_path.xlsx --out wtf2.md");
  assert.equal(again.exit_code, 0, again.stderr);
  assert.equal(await Deno.readTextFile(`${root.path}/wtf2.md`), text);
});

/** The package with its `folder` renamed to `moved`, and the two parts that name it rewritten. */
async function movedPackage(fixture: string, folder: string, moved: string): Promise<Uint8Array> {
  const entries = await readZipEntries(await Deno.readFile(`${FIXTURES}${fixture}`));
  const out: Record<string, Uint8Array> = {};
  for (const [name, bytes] of Object.entries(entries)) {
    const renamed = name.startsWith(folder) ? moved + name.slice(folder.length) : name;
    out[renamed] = name === "_rels/.rels" || name === "[Content_Types].xml"
      ? encoder.encode(decoder.decode(bytes).replaceAll(folder, moved))
      : bytes;
  }
  return await writeZip(out);
}

Deno.test("doc extract: DOCX, PPTX and XLSX whose main part lives in another folder read as the originals", async (t) => {
  await using root = await makeRoot("pterm-doc-main-part-");
  for (
    const [fixture, folder] of [["report.docx", "word/"], ["deck.pptx", "ppt/"], ["book.xlsx", "xl/"]] as const
  ) {
    await t.step(fixture, async () => {
      await Deno.writeFile(`${root.path}/original`, await Deno.readFile(`${FIXTURES}${fixture}`));
      await Deno.writeFile(`${root.path}/moved`, await movedPackage(fixture, folder, "content/main/"));
      const original = await exec(root.path, "doc extract original --out original.md");
      assert.equal(original.exit_code, 0, original.stderr);
      const moved = await exec(root.path, "doc extract moved --out moved.md");
      assert.equal(moved.exit_code, 0, moved.stderr);
      assert.equal(
        await Deno.readTextFile(`${root.path}/moved.md`),
        await Deno.readTextFile(`${root.path}/original.md`),
      );
      const info = await exec(root.path, "doc info moved");
      assert.equal(info.exit_code, 0, info.stderr);
    });
  }
});

Deno.test("doc extract: a root relationship naming a part the zip lacks is CorruptInput with that part's name", async () => {
  await using root = await makeRoot("pterm-doc-main-part-");
  const entries = await readZipEntries(await movedPackage("sheetjs/wtf_path.xlsx", "wtf/", "wtf/"));
  delete entries["wtf/workbook.xml"];
  await Deno.writeFile(`${root.path}/damaged.xlsx`, await writeZip(entries));
  const envelope = await exec(root.path, "doc extract damaged.xlsx");
  assert.equal(envelope.error_code, "CorruptInput", envelope.stderr);
  assert.match(envelope.stderr, /is an Excel workbook package whose main part \(wtf\/workbook\.xml\) is missing/);
});
