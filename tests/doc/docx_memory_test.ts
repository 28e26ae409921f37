/**
 * DOCX memory is budgeted (issue 19 item 5): mammoth needs about 100 bytes per byte of
 * document.xml, so a Word document that would pass the memory ceiling is refused up front with
 * InputTooLarge and an envelope, not stopped half-way or aborted by V8 ("Fatal JavaScript out of
 * memory"). The documents are mammoth's tables.docx (written by Word) with its body repeated.
 */

import assert from "node:assert/strict";
import { cli, exec } from "../helpers.ts";
import { FIXTURES, rootWith } from "./helpers.ts";
import { readZipEntries, writeZip } from "./zip_writer.ts";

/** tables.docx with its body repeated until document.xml holds about `mib` MiB. */
async function grownDocx(mib: number): Promise<Uint8Array> {
  const entries = await readZipEntries(await Deno.readFile(`${FIXTURES}mammoth/tables.docx`));
  const xml = new TextDecoder().decode(entries["word/document.xml"]);
  const start = xml.indexOf("<w:body>") + "<w:body>".length;
  const end = xml.lastIndexOf("<w:sectPr");
  const body = xml.slice(start, end);
  const copies = Math.ceil(mib * 1024 * 1024 / body.length);
  entries["word/document.xml"] = new TextEncoder().encode(xml.slice(0, start) + body.repeat(copies) + xml.slice(end));
  return await writeZip(entries);
}

Deno.test("a DOCX too large for the memory ceiling is InputTooLarge, refused before it is read", async () => {
  await using dir = await rootWith({});
  await Deno.writeFile(`${dir.path}/huge.docx`, await grownDocx(24));
  const started = performance.now();
  const envelope = await exec(dir.path, "doc extract --in huge.docx --out out.md");
  assert.equal(envelope.error_code, "InputTooLarge", envelope.stdout + envelope.stderr);
  assert.match(envelope.stderr, /word\/document\.xml\) is 24\.\d MiB; .*2048\.0 MiB memory ceiling/);
  assert.ok(performance.now() - started < 20_000, "refused up front, not after reading");
  await assert.rejects(Deno.stat(`${dir.path}/out.md`));
});

Deno.test("the DOCX budget follows limits.memory_bytes: 3 MiB of document.xml is read under 2 GiB, refused under 512 MiB", async () => {
  await using dir = await rootWith({});
  await Deno.writeFile(`${dir.path}/big.docx`, await grownDocx(3));
  const ok = await exec(dir.path, "doc extract --in big.docx --out out.md");
  assert.equal(ok.exit_code, 0, ok.stderr);
  assert.equal((ok.result as { status: string }).status, "complete");
  await Deno.writeTextFile(`${dir.path}/pterm.json`, JSON.stringify({ limits: { memory_bytes: 512 * 1024 * 1024 } }));
  // A pterm process of its own: the kernel's memory watchdog measures the whole process, and this
  // test process may hold more than 512 MiB from earlier tests; doc's own budget must refuse first.
  const run = await cli(["exec", "--root", dir.path, "doc extract --in big.docx --out out2.md"]);
  const refused = run.envelope!;
  assert.equal(refused.error_code, "InputTooLarge", refused.stderr);
  assert.match(refused.stderr, /512\.0 MiB memory ceiling \(limits\.memory_bytes in pterm\.json\) allows 2\.6 MiB/);
});
