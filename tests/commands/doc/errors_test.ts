/**
 * Bad input gets a precise error code and nothing is written: each case with a real file of
 * that kind (tests/fixtures/doc/README.md says how each was made).
 */

import assert from "node:assert/strict";
import { exec } from "../../_support/helpers.ts";
import { listFiles, rootWith } from "./helpers.ts";

/** Runs `line`, expects `code`, and checks that nothing but pterm's bookkeeping (audit record, config cache) appeared. */
const isNotBookkeeping = (file: string) => !file.startsWith("audit/") && !file.startsWith("cache/");

async function refused(root: string, line: string, code: string, message: RegExp): Promise<string> {
  const before = (await listFiles(root)).filter(isNotBookkeeping);
  const envelope = await exec(root, line);
  assert.equal(envelope.error_code, code, `${line}\n${envelope.stderr}`);
  assert.equal(envelope.exit_code, code === "InvalidArgs" ? 2 : 1);
  assert.match(envelope.stderr, message);
  assert.match(envelope.stderr, /Hint: Run `doc extract --help`|Hint: Run `doc info --help`/);
  assert.deepEqual(envelope.artifacts, []);
  const after = (await listFiles(root)).filter(isNotBookkeeping);
  assert.deepEqual(after, before, `${line} wrote nothing`);
  return envelope.stderr;
}

Deno.test("unsupported formats are named from their bytes, whatever the file is called", async () => {
  await using dir = await rootWith({
    "legacy.doc": "legacy.doc",
    "picture.pdf": "debian/picture.pdf",
    "source.docx": "src/report.fodt",
  });
  await refused(
    dir.path,
    "doc extract --in legacy.doc --out out.md",
    "UnsupportedFormat",
    /legacy Word 97-2003 document/,
  );
  await refused(dir.path, "doc extract --in picture.pdf --out out.md", "UnsupportedFormat", /is a PNG image/);
  // A flat ODF file named .docx is read for what it is, not refused as a damaged Word document.
  await refused(
    dir.path,
    "doc extract --in source.docx --format docx --out out.md",
    "UnsupportedFormat",
    /is an ODT file/,
  );
  await refused(dir.path, "doc info --in picture.pdf", "UnsupportedFormat", /is a PNG image/);
});

Deno.test("--format that disagrees with the content is refused, naming what was detected", async () => {
  await using dir = await rootWith({ "deck.pptx": "deck.pptx" });
  await refused(
    dir.path,
    "doc extract --in deck.pptx --format pdf --out out.md",
    "UnsupportedFormat",
    /--format pdf was given, but --in `deck.pptx` is a PPTX file \(detected from its content\); pass --format pptx/,
  );
  const ok = await exec(dir.path, "doc extract --in deck.pptx --format pptx");
  assert.equal(ok.exit_code, 0, ok.stderr);
});

Deno.test("damaged files are CorruptInput", async () => {
  await using dir = await rootWith({ "corrupt.docx": "corrupt.docx", "corrupt.pdf": "corrupt.pdf" });
  await refused(dir.path, "doc extract --in corrupt.docx --out out.md", "CorruptInput", /not a readable ZIP container/);
  await refused(dir.path, "doc extract --in corrupt.pdf --out out.md", "CorruptInput", /the PDF cannot be read/);
  await refused(dir.path, "doc info --in corrupt.pdf", "CorruptInput", /the PDF cannot be read/);
});

Deno.test("password-protected documents are EncryptedDocument (and no password is ever asked for)", async () => {
  await using dir = await rootWith({ "locked.docx": "encrypted.docx", "locked.pdf": "encrypted.pdf" });
  await refused(
    dir.path,
    "doc extract --in locked.docx --out out.md",
    "EncryptedDocument",
    /password-protected Office document; pterm takes no passwords/,
  );
  await refused(dir.path, "doc extract --in locked.pdf --out out.md", "EncryptedDocument", /PDF is password-protected/);
});

Deno.test("a zip bomb is stopped by counting inflated bytes, not by the sizes its directory claims", async () => {
  // bomb.docx inflates to 64 MiB while its directory says 1 KiB; the limit here is 16 MiB.
  await using dir = await rootWith({ "bomb.docx": "bomb.docx" }, { doc: { max_inflated_bytes: 16 * 1024 * 1024 } });
  await Deno.writeTextFile(`${dir.path}/notes.md`, "keep me");
  await refused(
    dir.path,
    "doc extract --in bomb.docx --out notes.md",
    "InputTooLarge",
    /expands to more than 16777216 bytes when unpacked \(stopped while inflating word\/document.xml\); it is either a zip bomb/,
  );
  assert.equal(await Deno.readTextFile(`${dir.path}/notes.md`), "keep me", "the existing --out file is untouched");
});

Deno.test("a file over max_input_bytes is InputTooLarge before it is read", async () => {
  await using dir = await rootWith({ "report.pdf": "report.pdf" }, { doc: { max_input_bytes: 10_000 } });
  await refused(dir.path, "doc extract --in report.pdf", "InputTooLarge", /more than the 9.8 KiB doc reads/);
  await refused(dir.path, "doc info --in report.pdf", "InputTooLarge", /doc.max_input_bytes in pterm.json/);
});

Deno.test("--out outside the root, on a secret, on pterm's state or on the input is refused", async () => {
  await using dir = await rootWith({ "report.pdf": "report.pdf" });
  await refused(dir.path, "doc extract --in report.pdf --out ../escape.md", "PathEscape", /contains a .. segment/);
  await refused(dir.path, "doc extract --in report.pdf --out /tmp/escape.md", "PathEscape", /is absolute/);
  await refused(dir.path, "doc extract --in report.pdf --out secrets/out.md", "SecretPathDenied", /secret path/);
  await refused(dir.path, "doc extract --in report.pdf --out .env.md", "SecretPathDenied", /secret path/);
  await refused(dir.path, "doc extract --in report.pdf --out audit/out.md", "ReadOnlyPath", /pterm's own state/);
  await refused(dir.path, "doc extract --in report.pdf --out report.pdf", "InvalidArgs", /names the input document/);
  await Deno.mkdir(`${dir.path}/folder`);
  await refused(dir.path, "doc extract --in report.pdf --out folder", "InvalidArgs", /is a folder/);
});

Deno.test("a symlink that leads out of the root is refused for --in and --out", async () => {
  await using dir = await rootWith({});
  const outside = await Deno.makeTempDir({ prefix: "pterm-doc-outside-" });
  try {
    await Deno.copyFile(new URL("../../fixtures/doc/report.pdf", import.meta.url), `${outside}/report.pdf`);
    await Deno.symlink(`${outside}/report.pdf`, `${dir.path}/linked.pdf`);
    await Deno.symlink(outside, `${dir.path}/away`);
    await refused(dir.path, "doc extract --in linked.pdf", "PathEscape", /leads outside the workspace root/);
    await Deno.copyFile(new URL("../../fixtures/doc/report.pdf", import.meta.url), `${dir.path}/report.pdf`);
    await refused(dir.path, "doc extract --in report.pdf --out away/out.md", "PathEscape", /leads outside/);
    assert.deepEqual([...Deno.readDirSync(outside)].map((e) => e.name), ["report.pdf"]);
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("a missing --in, a folder as --in, and reading secrets are refused", async () => {
  await using dir = await rootWith({ "secrets/report.pdf": "report.pdf" });
  await refused(dir.path, "doc extract --in nothing.pdf", "NotFound", /does not exist/);
  await refused(dir.path, "doc extract --in secrets", "SecretPathDenied", /secret path/);
  await refused(dir.path, "doc info --in secrets/report.pdf", "SecretPathDenied", /secret path/);
  await Deno.mkdir(`${dir.path}/docs`);
  await refused(dir.path, "doc extract --in docs", "InvalidArgs", /is not a file/);
  await refused(dir.path, "doc extract --in report.pdf --mode html", "InvalidArgs", /html/);
});
