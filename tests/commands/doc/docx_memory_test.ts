/**
 * DOCX memory is bounded: the reader streams word/document.xml one body element
 * at a time, so a 5 MiB part converts in a process held under 384 MiB (mammoth needed ~100 bytes
 * per byte of document.xml: 0.5 GB for this one, and a budget that refused it under 384 MiB). A
 * part too large even for the streaming reader is refused up front with InputTooLarge and an
 * envelope. The documents are mammoth's tables.docx (written by Word) with its body repeated.
 */

import assert from "node:assert/strict";
import { cli } from "../../_support/helpers.ts";
import { FIXTURES, rootWith } from "./helpers.ts";
import { readZipEntries, writeZip } from "./zip_writer.ts";

/** tables.docx with its body repeated until document.xml holds about `mib` MiB; and how many copies. */
async function grownDocx(mib: number): Promise<{ bytes: Uint8Array; copies: number; xmlBytes: number }> {
  const entries = await readZipEntries(await Deno.readFile(`${FIXTURES}mammoth/tables.docx`));
  const xml = new TextDecoder().decode(entries["word/document.xml"]);
  const start = xml.indexOf("<w:body>") + "<w:body>".length;
  const end = xml.lastIndexOf("<w:sectPr");
  const body = xml.slice(start, end);
  const copies = Math.ceil(mib * 1024 * 1024 / body.length);
  const grown = new TextEncoder().encode(xml.slice(0, start) + body.repeat(copies) + xml.slice(end));
  entries["word/document.xml"] = grown;
  return { bytes: await writeZip(entries), copies, xmlBytes: grown.length };
}

const MIB = 1024 * 1024;

Deno.test("a DOCX with a 5 MiB document.xml converts whole in a pterm process held to 384 MiB of growth", async () => {
  const { bytes, copies, xmlBytes } = await grownDocx(5);
  assert.ok(xmlBytes >= 5 * MIB);
  await using dir = await rootWith({}, { limits: { memory_bytes: 384 * MIB } });
  await Deno.writeFile(`${dir.path}/big.docx`, bytes);
  // A process of its own: the kernel's watchdog stops a command whose process grows by more than
  // limits.memory_bytes while it runs (InputTooLarge), so success means the conversion stayed within 384 MiB.
  const run = await cli([
    "exec",
    "--root",
    dir.path,
    "doc extract --in big.docx --out big.txt --mode text --max-chars 10000000",
  ]);
  const envelope = run.envelope!;
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  assert.equal((envelope.result as { status: string }).status, "complete");
  const text = await Deno.readTextFile(`${dir.path}/big.txt`);
  // Every copy of the body is there, in order: its paragraphs and its table's two rows.
  assert.equal(text.match(/^Top left\tTop right$/gm)?.length, copies);
  assert.equal(text.match(/^Bottom left\tBottom right$/gm)?.length, copies);
  assert.equal(text.match(/^Above$/gm)?.length, copies);
  assert.ok(text.trimEnd().endsWith("Below"));
});

Deno.test("a DOCX too large for the memory ceiling is InputTooLarge, refused before it is read", async () => {
  const { bytes } = await grownDocx(5);
  await using dir = await rootWith({}, { limits: { memory_bytes: 300 * MIB } });
  await Deno.writeFile(`${dir.path}/big.docx`, bytes);
  const run = await cli(["exec", "--root", dir.path, "doc extract --in big.docx --out out.md"]);
  const refused = run.envelope!;
  assert.equal(refused.error_code, "InputTooLarge", refused.stderr);
  assert.match(
    refused.stderr,
    /word\/document\.xml\) is 5\.\d MiB; .*300\.0 MiB memory ceiling \(limits\.memory_bytes in pterm\.json\) allows 3\.7 MiB/,
  );
  await assert.rejects(Deno.stat(`${dir.path}/out.md`));
});
