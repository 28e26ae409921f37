/**
 * The right status and code on damaged or unusual real documents: a PDF whose page tree leads to no
 * page is CorruptInput, not `empty`; an AES-256 (revision 6) PDF with an empty user password
 * opens as it does in poppler; a DOCX whose body is an altChunk says so instead of a silent
 * `empty`. Sources: Debian's xpdfimport_err.pdf (LibreOffice) and libtasn1.pdf, qpdf, and the
 * html-docx-js npm package (tests/fixtures/doc/README.md).
 */

import assert from "node:assert/strict";
import { exec } from "../../_support/helpers.ts";
import { extractOk, FIXTURES, rootWith } from "./helpers.ts";

const latin1 = new TextDecoder("latin1");

/** The Debian PDF with one same-length edit, so its cross-reference offsets stay valid. */
async function editedPdf(from: string, to: string): Promise<Uint8Array> {
  assert.equal(from.length, to.length);
  const bytes = await Deno.readFile(`${FIXTURES}debian/xpdfimport_err.pdf`);
  const text = latin1.decode(bytes);
  const at = text.indexOf(from);
  assert.ok(at >= 0, `${from} is in the file`);
  const edited = bytes.slice();
  for (let i = 0; i < to.length; i++) edited[at + i] = to.charCodeAt(i);
  return edited;
}

/** pdftotext's verdict on the same bytes: its exit status and whether it reported a syntax error. */
async function poppler(path: string): Promise<{ code: number; complained: boolean }> {
  const out = await new Deno.Command("pdftotext", { args: [path, "-"], stdout: "null", stderr: "piped" }).output();
  return { code: out.code, complained: /Syntax Error|Error/.test(new TextDecoder().decode(out.stderr)) };
}

Deno.test("doc extract: a PDF whose page tree leads to no page is CorruptInput, as poppler complains", async (t) => {
  await using dir = await rootWith({ "intact.pdf": "debian/xpdfimport_err.pdf" });
  const intact = await extractOk(dir.path, "doc extract --in intact.pdf --mode text");
  assert.match(intact.text, /encrypted and can't be opened/, "the intact file has text");
  const cases: Record<string, [string, string]> = {
    "Kids renamed (the Pages node has no kids)": ["/Kids[ 1 0 R ]", "/Kidz[ 1 0 R ]"],
    "the catalog's /Pages points to a missing object": ["/Pages 4 0 R", "/Pages 9 0 R"],
    "the only kid is the content stream": ["/Kids[ 1 0 R ]", "/Kids[ 2 0 R ]"],
  };
  for (const [name, [from, to]] of Object.entries(cases)) {
    await t.step(name, async () => {
      await Deno.writeFile(`${dir.path}/broken.pdf`, await editedPdf(from, to));
      const verdict = await poppler(`${dir.path}/broken.pdf`);
      assert.ok(verdict.code !== 0 || verdict.complained, "poppler finds the page tree broken too");
      const envelope = await exec(dir.path, "doc extract --in broken.pdf --out out.md");
      assert.equal(envelope.error_code, "CorruptInput", envelope.stdout + envelope.stderr);
      assert.match(envelope.stderr, /page tree is damaged/);
      await assert.rejects(Deno.stat(`${dir.path}/out.md`), "nothing written");
    });
  }
});

Deno.test("doc extract: an AES-256 (revision 6) PDF with an empty user password opens, as in poppler", async () => {
  await using dir = await rootWith({ "plain.pdf": "debian/libtasn1.pdf" });
  // qpdf (Debian's) writes the encryption: revision 6, AESv3, no user password, an owner password.
  const qpdf = await new Deno.Command("qpdf", {
    args: ["--encrypt", "", "owner-secret", "256", "--", `${dir.path}/plain.pdf`, `${dir.path}/r6.pdf`],
    stdout: "null",
  }).output();
  assert.equal(qpdf.code, 0, new TextDecoder().decode(qpdf.stderr));
  const shown = await new Deno.Command("qpdf", { args: ["--show-encryption", `${dir.path}/r6.pdf`] }).output();
  assert.match(new TextDecoder().decode(shown.stdout), /R = 6[\s\S]*AESv3/);
  assert.equal((await poppler(`${dir.path}/r6.pdf`)).code, 0, "poppler opens it");
  const plain = await extractOk(dir.path, "doc extract --in plain.pdf --mode text");
  const encrypted = await extractOk(dir.path, "doc extract --in r6.pdf --mode text");
  assert.equal(encrypted.text, plain.text);
  assert.ok(encrypted.text.length > 10_000);
  const info = await exec(dir.path, "doc info --in r6.pdf");
  const result = info.result as { encrypted: boolean; password_required: boolean; pages: number };
  assert.deepEqual([result.encrypted, result.password_required, result.pages], [true, false, 36]);
});

Deno.test("doc extract: a DOCX whose body is an altChunk (html-docx-js) gives the chunk's text, with a warning", async () => {
  await using dir = await rootWith({ "note.docx": "npm/html-docx-js-altchunk.docx" });
  const { envelope, text } = await extractOk(dir.path, "doc extract --in note.docx");
  const result = envelope.result as { status: string; warnings: string[] };
  assert.equal(result.status, "complete");
  // The HTML html-docx-js was given (tests/fixtures/doc/README.md), block by block; the <title> is not body text.
  assert.equal(
    text,
    "Quarterly note\n\nRevenue grew 17,542 units in the third quarter.\n\nNorth: 32,000\n\nSouth: 12,410\n",
  );
  assert.ok(
    result.warnings.some((w) => /1 embedded HTML chunk\(s\) \(w:altChunk\) were read as plain paragraphs/.test(w)),
  );
});

Deno.test("altChunk HTML: blocks become paragraphs, cells stay apart, scripts and entities are handled, in one pass", async () => {
  const { htmlParagraphs } = await import("../../../commands/doc/ooxml/altchunk.ts");
  assert.deepEqual(
    htmlParagraphs(
      "<!DOCTYPE html><html><head><title>T</title><style>p{}</style></head><body><h1>A &amp; B</h1>" +
        "<p>x&nbsp;&lt;y&gt; &#233;&#x20AC;</p><table><tr><td>1</td><td>2</td></tr></table><script>no()</script>z</body>",
    ),
    ["A & B", "x <y> é€", "1 2", "z"],
  );
  assert.deepEqual(htmlParagraphs("<p>a\u0001b &amp; &lt;c&gt;</p>"), ["a\u0001b & <c>"]);
  // An unterminated <script> hides the rest instead of costing quadratic time.
  const hostile = "<p>kept</p>" + "<script>".repeat(50_000);
  const started = performance.now();
  assert.deepEqual(htmlParagraphs(hostile), ["kept"]);
  assert.ok(performance.now() - started < 2_000);
});
