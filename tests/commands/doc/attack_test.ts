/**
 * `doc` against hostile documents an agent can write itself: each is answered with an envelope
 * and a precise code or a bounded result, never `Internal`, never a process killed by V8 running
 * out of memory. The files are generated here, at sizes that took the process down before the
 * limits held.
 */

import assert from "node:assert/strict";
import { cli, exec, makeRoot } from "../../_support/helpers.ts";
import { concatBytes } from "../../../core/bytes.ts";
import { readZipEntries, writeZip } from "../doc/zip_writer.ts";
import { FIXTURES } from "../doc/helpers.ts";

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

/** zlib (deflate) of `size` zero bytes, streamed: a small file that inflates enormously. */
async function deflatedZeros(size: number): Promise<Uint8Array> {
  const chunk = new Uint8Array(1 << 20);
  const stream = new ReadableStream<Uint8Array<ArrayBuffer>>({
    pull(controller) {
      if (size <= 0) return controller.close();
      controller.enqueue(chunk.subarray(0, Math.min(chunk.length, size)));
      size -= chunk.length;
    },
  }).pipeThrough(new CompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** A one-page PDF whose content stream is `stream` (FlateDecode). */
function pdfWithStream(stream: Uint8Array): Uint8Array {
  const enc = new TextEncoder();
  const objects = [
    enc.encode("<< /Type /Catalog /Pages 2 0 R >>"),
    enc.encode("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
    enc.encode("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>"),
    new Uint8Array([
      ...enc.encode(`<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`),
      ...stream,
      ...enc.encode("\nendstream"),
    ]),
  ];
  const parts: Uint8Array[] = [enc.encode("%PDF-1.4\n")];
  let length = parts[0].length;
  const offsets: number[] = [];
  for (const [i, body] of objects.entries()) {
    offsets.push(length);
    const head = enc.encode(`${i + 1} 0 obj\n`);
    const tail = enc.encode("\nendobj\n");
    parts.push(head, body, tail);
    length += head.length + body.length + tail.length;
  }
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n` +
    offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("") +
    `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`;
  parts.push(enc.encode(xref));
  return concatBytes(parts);
}

Deno.test("memory bombs a whole pterm process survives with an envelope: 6 million DOCX paragraphs, a PDF inflating to 1 GiB", async () => {
  await using root = await makeRoot();
  const docx = await writeZip({
    "[Content_Types].xml":
      `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
      `<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
    "_rels/.rels": `<Relationships xmlns="${NS_PKG_REL}"><Relationship Id="r1" ` +
      `Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
    "word/document.xml": `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` +
      "<w:p/>".repeat(6_000_000) + "</w:body></w:document>",
  });
  assert.ok(docx.length < 1_000_000, `the DOCX is small (${docx.length} bytes)`);
  await Deno.writeFile(`${root.path}/paras.docx`, docx);
  await Deno.writeFile(`${root.path}/bomb.pdf`, pdfWithStream(await deflatedZeros(1 << 30)));
  for (const file of ["paras.docx", "bomb.pdf"]) {
    const run = await cli(["exec", "--root", root.path, `doc extract --in ${file}`]);
    assert.ok(run.envelope, `${file}: the process answered with an envelope (stderr: ${run.stderr.slice(0, 300)})`);
    assert.notEqual(run.envelope.error_code, "Internal", run.envelope.stderr);
    if (run.envelope.exit_code !== 0) assert.equal(run.envelope.error_code, "InputTooLarge", run.envelope.stderr);
  }
});

Deno.test("security/doc: doc --out cannot complete a git directory's shape (HEAD beside objects/ and refs/)", async () => {
  await using root = await makeRoot();
  const marker = `${root.path}/fsmonitor-ran`;
  // Everything but HEAD, as an agent's earlier patch could leave it: ordinary files, no git directory yet.
  const files: Record<string, string> = {
    "cache2/config": `[core]\n\tbare = false\n\tworktree = .\n\tfsmonitor = "touch ${marker}"\n` +
      `\tsshCommand = "touch ${marker}; false"\n[remote "origin"]\n\turl = ssh://example.invalid/x\n`,
    "cache2/objects/info/packs": "\n",
    "cache2/refs/heads/.keep": "\n",
  };
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(`${root.path}/${path}`.replace(/\/[^/]*$/, ""), { recursive: true });
    await Deno.writeTextFile(`${root.path}/${path}`, text);
  }
  // A document whose text is a valid HEAD.
  const entries = await readZipEntries(await Deno.readFile(`${FIXTURES}mammoth/tables.docx`));
  const xml = new TextDecoder().decode(entries["word/document.xml"]);
  const body = "<w:p><w:r><w:t>ref: refs/heads/main</w:t></w:r></w:p>";
  entries["word/document.xml"] = new TextEncoder().encode(
    xml.slice(0, xml.indexOf("<w:body>") + "<w:body>".length) + body + xml.slice(xml.lastIndexOf("<w:sectPr")),
  );
  await Deno.writeFile(`${root.path}/head.docx`, await writeZip(entries));
  const envelope = await exec(root.path, "doc extract head.docx --mode text --out cache2/HEAD");
  assert.equal(envelope.error_code, "GitDirDenied", envelope.stderr);
  assert.match(envelope.stderr, /would make `cache2` a git directory/);
  assert.equal(await Deno.lstat(`${root.path}/cache2/HEAD`).then(() => true, () => false), false);
  // A person's git in that folder finds no repository and runs nothing (git fetch would run core.sshCommand).
  for (const args of [["status"], ["fetch"]]) {
    await new Deno.Command("git", {
      args,
      cwd: `${root.path}/cache2`,
      env: { GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1", GIT_CEILING_DIRECTORIES: root.path },
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
  }
  assert.equal(await Deno.lstat(marker).then(() => true, () => false), false, "nothing the config names ran");
  // The same extraction elsewhere is ordinary work.
  assert.equal((await exec(root.path, "doc extract head.docx --mode text --out cache2/HEAD.txt")).exit_code, 0);
  // ...and shows the refused write would have been a valid HEAD.
  assert.match(await Deno.readTextFile(`${root.path}/cache2/HEAD.txt`), /^ref: refs\/heads\/main\s*$/);
});
