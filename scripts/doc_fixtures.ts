// deno-lint-ignore-file no-console -- a script: printing is its output
/**
 * Regenerates the committed fixtures of `doc` in tests/fixtures/doc/ (CI has no LibreOffice,
 * so the outputs are committed; run this only when a source changes):
 *
 *   deno run -A scripts/doc_fixtures.ts
 *
 * Needs Debian's libreoffice-writer, libreoffice-calc, libreoffice-impress, python3-uno,
 * qpdf, and the packages whose files are copied (shared-mime-info, libtasn1-doc,
 * libreoffice-common, gitweb's git). Sources are the flat ODF files in tests/fixtures/doc/src/.
 */

import { writeZip } from "../tests/commands/doc/zip_writer.ts";

const ROOT = new URL("../tests/fixtures/doc/", import.meta.url).pathname;
const SRC = `${ROOT}src/`;

/** PDFs that Debian packages ship (written by no one here), copied as they are. */
const DEBIAN_PDFS = [
  { from: "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf", to: "debian/shared-mime-info-spec.pdf" },
  { from: "/usr/lib/libreoffice/share/xpdfimport/xpdfimport_err.pdf", to: "debian/xpdfimport_err.pdf" },
  { from: "/usr/share/doc/libtasn1-doc/libtasn1.pdf", to: "debian/libtasn1.pdf" },
  // A PNG named .pdf: the format must come from the bytes, not the name.
  { from: "/usr/share/gitweb/static/git-logo.png", to: "debian/picture.pdf" },
];

async function run(command: string, args: string[]): Promise<void> {
  const output = await new Deno.Command(command, { args, stdout: "piped", stderr: "piped" }).output();
  if (!output.success) {
    throw new Error(`${command} ${args.join(" ")} failed:\n${new TextDecoder().decode(output.stderr)}`);
  }
}

/** `soffice --convert-to` into a scratch folder, then moved to `target` (LibreOffice names outputs itself). */
async function convert(source: string, filter: string, extension: string, target: string): Promise<void> {
  const scratch = await Deno.makeTempDir({ prefix: "pterm-fixtures-" });
  try {
    const profile = `file://${scratch}/profile`;
    await run("soffice", [
      `-env:UserInstallation=${profile}`,
      "--headless",
      "--convert-to",
      `${extension}:${filter}`,
      "--outdir",
      scratch,
      source,
    ]);
    const produced = `${scratch}/${source.split("/").pop()!.replace(/\.[^.]+$/, "")}.${extension}`;
    await Deno.copyFile(produced, `${ROOT}${target}`);
  } finally {
    await Deno.remove(scratch, { recursive: true });
  }
}

const text = (s: string) => new TextEncoder().encode(s);

const DOCX_CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`;
const DOCX_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`;

/** The ZIP of `inputs` in order, through the tests' one ZIP writer (with a bomb's size lie where asked). */
function zipOf(inputs: { name: string; data: Uint8Array; claimedSize?: number }[]): Promise<Uint8Array> {
  const claimedSizes: Record<string, number> = {};
  for (const input of inputs) if (input.claimedSize !== undefined) claimedSizes[input.name] = input.claimedSize;
  return writeZip(Object.fromEntries(inputs.map((input) => [input.name, input.data])), { claimedSizes });
}

/**
 * A zip bomb shaped as a Word document: word/document.xml is a valid document whose one
 * paragraph holds 64 MiB of the letter A (64 KiB compressed), and the directory claims it
 * is 1 KiB. Tests lower doc.max_inflated_bytes below 64 MiB to see it stopped.
 */
async function zipBomb(): Promise<Uint8Array> {
  const head = text(
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>`,
  );
  const tail = text(`</w:t></w:r></w:p></w:body></w:document>`);
  const body = new Uint8Array(64 * 1024 * 1024).fill(0x41);
  const document = new Uint8Array(head.length + body.length + tail.length);
  document.set(head, 0);
  document.set(body, head.length);
  document.set(tail, head.length + body.length);
  return await zipOf([
    { name: "[Content_Types].xml", data: text(DOCX_CONTENT_TYPES) },
    { name: "_rels/.rels", data: text(DOCX_RELS) },
    { name: "word/document.xml", data: document, claimedSize: 1024 },
  ]);
}

/**
 * An XLSX as streaming writers produce it: inline strings instead of a shared-string table,
 * a `x:` namespace prefix, cells without `r` references, no styles part.
 */
async function inlineStringsWorkbook(): Promise<Uint8Array> {
  const ns = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
  const rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
  return await zipOf([
    {
      name: "[Content_Types].xml",
      data: text(
        `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>`,
      ),
    },
    {
      name: "_rels/.rels",
      data: text(
        `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${rel}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
      ),
    },
    {
      name: "xl/workbook.xml",
      data: text(
        `<?xml version="1.0" encoding="UTF-8"?><x:workbook xmlns:x="${ns}" xmlns:r="${rel}"><x:sheets><x:sheet name="Export" sheetId="1" r:id="rId1"/></x:sheets></x:workbook>`,
      ),
    },
    {
      name: "xl/_rels/workbook.xml.rels",
      data: text(
        `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${rel}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
      ),
    },
    {
      name: "xl/worksheets/sheet1.xml",
      data: text(
        `<?xml version="1.0" encoding="UTF-8"?><x:worksheet xmlns:x="${ns}"><x:sheetData>` +
          `<x:row><x:c t="inlineStr"><x:is><x:t>Item</x:t></x:is></x:c><x:c t="inlineStr"><x:is><x:t>Count</x:t></x:is></x:c></x:row>` +
          `<x:row><x:c t="inlineStr"><x:is><x:r><x:t>Rain </x:t></x:r><x:r><x:t>gauge</x:t></x:r></x:is></x:c><x:c><x:v>3</x:v></x:c></x:row>` +
          `<x:row><x:c t="inlineStr"><x:is><x:t>Wind vane</x:t></x:is></x:c><x:c><x:v>0.5</x:v></x:c></x:row>` +
          `</x:sheetData></x:worksheet>`,
      ),
    },
  ]);
}

/** Deterministic bytes (so a regenerated fixture does not change). */
function pseudoRandomBytes(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let state = seed;
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) >>> 0;
    out[i] = state >>> 24;
  }
  return out;
}

async function main() {
  await Deno.mkdir(`${ROOT}debian`, { recursive: true });
  console.log("converting the sources with LibreOffice ...");
  await convert(`${SRC}report.fodt`, "MS Word 2007 XML", "docx", "report.docx");
  await convert(`${SRC}report.fodt`, "writer_pdf_Export", "pdf", "report.pdf");
  await convert(`${SRC}report.fodt`, "MS Word 97", "doc", "legacy.doc");
  await convert(`${SRC}report.fodt`, "writer8", "odt", "report.odt");
  await convert(`${SRC}deck.fodp`, "Impress MS PowerPoint 2007 XML", "pptx", "deck.pptx");
  await convert(`${SRC}deck.fodp`, "impress_pdf_Export", "pdf", "deck.pdf");
  await convert(`${SRC}book.fods`, "Calc MS Excel 2007 XML", "xlsx", "book.xlsx");
  // A page that is only a picture, as a scanner makes it: no text layer at all.
  await convert("/usr/share/gitweb/static/git-logo.png", "draw_pdf_Export", "pdf", "scanned.pdf");

  console.log("password-protected copies ...");
  await run("/usr/bin/python3", [
    new URL("./doc_fixtures_uno.py", import.meta.url).pathname,
    `${SRC}report.fodt`,
    `${ROOT}encrypted.docx`,
    "MS Word 2007 XML",
    "fixture-password",
  ]);
  await run("qpdf", [
    "--encrypt",
    "fixture-password",
    "owner-password",
    "256",
    "--",
    `${ROOT}report.pdf`,
    `${ROOT}encrypted.pdf`,
  ]);
  // Encrypted, but with an empty user password: it opens without one (only printing/editing is restricted).
  await run("qpdf", [
    "--encrypt",
    "",
    "owner-password",
    "256",
    "--print=none",
    "--modify=none",
    "--",
    `${ROOT}report.pdf`,
    `${ROOT}owner-locked.pdf`,
  ]);

  console.log("damaged files, a zip bomb and a streaming-style workbook ...");
  const docx = await Deno.readFile(`${ROOT}report.docx`);
  // Cut before the central directory: the package has lost its index.
  await Deno.writeFile(`${ROOT}corrupt.docx`, docx.subarray(0, Math.floor(docx.length * 0.6)));
  const pdf = await Deno.readFile(`${ROOT}report.pdf`);
  // A PDF header followed by noise: what a broken download or disk leaves.
  const damaged = new Uint8Array(4096);
  damaged.set(pdf.subarray(0, 16));
  damaged.set(pseudoRandomBytes(4096 - 16, 7), 16);
  await Deno.writeFile(`${ROOT}corrupt.pdf`, damaged);
  await Deno.writeFile(`${ROOT}bomb.docx`, await zipBomb());
  await Deno.writeFile(`${ROOT}inline.xlsx`, await inlineStringsWorkbook());

  console.log("files from Debian packages ...");
  for (const { from, to } of DEBIAN_PDFS) await Deno.copyFile(from, `${ROOT}${to}`);
  console.log(`done: ${ROOT}`);
}

if (import.meta.main) await main();
