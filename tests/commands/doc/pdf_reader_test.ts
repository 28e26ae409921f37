/**
 * pterm's own PDF reader (commands/doc/pdf/reader/) against PDF.js, on real PDFs: every real PDF
 * fixture (pdfTeX manuals, PDF.js's, pypdf's, camelot's and other projects' test files) is
 * extracted both ways, and wherever pterm's reader accepts a document the extraction must be the
 * very same as PDF.js's — blocks, warnings, counts, status. The kind of document `bench doc`
 * times (pages of Debian's libtasn1 manual, pdfTeX, cut with qpdf as the benchmark cuts them) must
 * be accepted, so the fast path cannot silently stop being used. Then its parts on their own:
 * the lexer, cross-reference streams and object streams, PNG predictors, ToUnicode CMaps, fonts'
 * encodings, and what it refuses.
 */

import assert from "node:assert/strict";
import { deflateSync } from "node:zlib";
import fc from "fast-check";
import { extractPdf, extractWithPtermReader, infoPdf, pdfReaders } from "../../../commands/doc/pdf/pdf.ts";
import { readPdfInfo, readPdfText } from "../../../commands/doc/pdf/reader/reader.ts";
import {
  adler32,
  Budget,
  type Cmd,
  decodeAscii85,
  decodeStream,
  Dict,
  type Name,
  Parser,
  Ref,
  Stream,
  unpredictPng,
  Unsupported,
  XRef,
} from "../../../commands/doc/pdf/reader/objects.ts";
import { glyphCodePoint, readToUnicode } from "../../../commands/doc/pdf/reader/fonts.ts";
import { readCffProgram } from "../../../commands/doc/pdf/reader/cff.ts";
import { buildPdf, stream } from "./pdf_builder.ts";
import { readerOptions, realPdfs, withPdfjs } from "./pdf_helpers.ts";

const FIXTURES = new URL("../../fixtures/doc/", import.meta.url);
const LIBTASN1 = new URL("debian/libtasn1.pdf", FIXTURES).pathname;

/** Adler-32 by its definition (RFC 1950), one byte at a time. */
function adler32Reference(data: Uint8Array): number {
  let a = 1, b = 0;
  for (const byte of data) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return (b * 65536 + a) >>> 0;
}

/** Pages of the libtasn1 manual cut with qpdf as `bench doc` cuts them (classic cross-reference tables). */
function qpdfCut(pages: string, ...more: string[]): Uint8Array {
  const out = Deno.makeTempFileSync({ suffix: ".pdf" });
  try {
    const args = [...more, "--empty", "--pages", LIBTASN1, pages, "--", out];
    const run = new Deno.Command("qpdf", { args }).outputSync();
    assert.equal(run.code, 0, new TextDecoder().decode(run.stderr));
    return Deno.readFileSync(out);
  } finally {
    Deno.removeSync(out);
  }
}

Deno.test("pdf reader: on every real PDF fixture it accepts, the extraction is PDF.js's, and libtasn1's pages are accepted", async (t) => {
  const files = await realPdfs(FIXTURES);
  assert.ok(files.length >= 15, `expected the real PDF fixtures, found ${files.length}`);
  const documents: [string, Uint8Array][] = files.map((f) => [f, Deno.readFileSync(new URL(f, FIXTURES))]);
  documents.push(["libtasn1 page 1 (qpdf)", qpdfCut("1")], ["libtasn1 pages 1-15 (qpdf)", qpdfCut("1-15")]);
  const accepted: string[] = [];
  const refused: string[] = [];
  for (const [name, bytes] of documents) {
    await t.step(name, async () => {
      const fast = await extractWithPtermReader(bytes, readerOptions());
      if ("unsupported" in fast) {
        refused.push(`${name}: ${fast.unsupported}`);
        return;
      }
      accepted.push(name);
      assert.deepEqual(fast, await withPdfjs(bytes), `${name}: pterm's reader and PDF.js differ`);
    });
  }
  // libtasn1's pages (embedded Type 1 fonts, some without ToUnicode), two CID TrueType fonts (Type 0,
  // Identity-H), and LibreOffice's TrueType fonts with ToUnicode (a Debian bug report's attachment).
  const musts = ["debian/libtasn1.pdf", "libtasn1 page 1 (qpdf)", "libtasn1 pages 1-15 (qpdf)", "pdfjs/issue5202.pdf"];
  // CFF font programs (/FontFile3): Type1C from xdvipdfmx (XeTeX), from dvipdfmx (its text from the
  // program's own encoding: no /Encoding, no ToUnicode) and InDesign, one whose /FontMatrix is not
  // 0.001; CIDFontType0C from LuaLaTeX (luahbtex), Ghostscript and Esri ArcMap (no ToUnicode: each
  // code its own character, and an FDSelect PDF.js repairs); OpenType (`OTTO`) programs whose CFF table PDF.js converts (a simple font's,
  // a CID-keyed one).
  const cff = [
    "pypdf/crazyones.pdf",
    "pdfjs/issue11279.pdf",
    "pdfjs/issue1002.pdf",
    "pdfjs/issue4801.pdf",
    "pdfjs/bug1937438_af_from_latex.pdf",
    "pdfjs/issue3061.pdf",
    "pdfjs/bug1146106.pdf",
    "pdfjs/issue7598.pdf",
    "pdfjs/Embedded_font.pdf",
  ];
  // TrueType fonts without a ToUnicode CMap, whose text comes from their encoding alone: Microsoft
  // Word (Calibri, WinAnsiEncoding), OpenOffice (MacRomanEncoding), WinDev (an accented letter);
  // and a CID TrueType font (a subset of Open Sans) without one: each code its own character; and
  // pdfeTeX's TraceMonkey paper (pdf-parse's test file), whose figures set symbolic TrueType Calibri
  // without an /Encoding and with an empty ToUnicode CMap: MacRoman text, which PDF.js may amend to
  // WinAnsi only where the two differ (codes its figures do not draw); a barcode font of that kind.
  const trueType = [
    "pdfparse/default-test.pdf",
    "pdfjs/issue8187.pdf",
    "pdfjs/issue15367.pdf",
    "pdfjs/openoffice.pdf",
    "pdfjs/issue12120_reduced.pdf",
    "pdfjs/PDFJS-7562-reduced.pdf",
  ];
  // Fonts without an embedded program: the standard 14 without a descriptor or /Widths (reportlab's,
  // ASCII85 and Flate; FPDF's invoice; Helvetica in PDF.js's files, one with codes its encoding leaves empty, which
  // PDF.js reads as spaces; Symbol with a ToUnicode CMap), and with a descriptor and /Widths (a man
  // page by groff in Times; TrueType ArialMT and ArialNarrow; Type 1 NuptialScript, a name PDF.js
  // maps to no standard font).
  const withoutProgram = [
    "reportlab/std14.pdf",
    "fpdf/invoice.pdf",
    "groff/gzip.1.pdf",
    "pdfjs/text_rise_eol_bug.pdf",
    "pdfjs/issue18059.pdf",
    "pdfjs/issue5238.pdf",
    "pdfjs/issue7580.pdf",
    "pypdf/AutoCad_Simple.pdf",
    "pdfjs/bug1671312_ArialNarrow.pdf",
    "pdfjs/non-embedded-NuptialScript.pdf",
    // A /FontName that is not the /BaseFont, or none: PDF.js's choice of name.
    "pdfjs/bug847420.pdf",
    "pdfjs/issue2099-1.pdf",
    // Type 0 fonts whose CID TrueType descendant has no program (Word's Arial, Calibri, Verdana).
    "pdfjs/issue15441.pdf",
    "pdfjs/issue15594_reduced.pdf",
    "pdfjs/issue2840.pdf",
    "pdfjs/issue11242_reduced.pdf",
    // Type 3 fonts: matplotlib's (DejaVu Sans glyphs, its default), PDF.js's (one at size 0.24).
    "matplotlib/chart.pdf",
    "pdfjs/simpletype3font.pdf",
    "pdfjs/bug1513120_reduced.pdf",
  ];
  for (
    const must of [...musts, "pdfjs/find_all.pdf", "debian/xpdfimport_err.pdf", ...cff, ...trueType, ...withoutProgram]
  ) {
    assert.ok(accepted.includes(must), `${must} must take pterm's reader; refused: ${refused.join("; ")}`);
  }
  assert.ok(refused.length > 0, "some fixtures (forms, tables, TrueType fonts) go to PDF.js");
});

Deno.test("pdf reader: doc info through pterm's reader gives what PDF.js gives, on every real PDF fixture it accepts", async () => {
  const files = await realPdfs(FIXTURES);
  const documents: [string, Uint8Array][] = files.map((f) => [f, Deno.readFileSync(new URL(f, FIXTURES))]);
  documents.push(["libtasn1 page 1 (qpdf)", qpdfCut("1")]);
  const accepted: string[] = [];
  for (const [name, bytes] of documents) {
    const fast = readPdfInfo(bytes, 1 << 30);
    if ("unsupported" in fast) continue;
    accepted.push(name);
    const mine = await infoPdf(bytes);
    pdfReaders.ptermFirst = false;
    try {
      assert.deepEqual(mine, await infoPdf(bytes), `${name}: doc info differs`);
    } finally {
      pdfReaders.ptermFirst = true;
    }
  }
  for (const must of ["debian/libtasn1.pdf", "libtasn1 page 1 (qpdf)"]) {
    assert.ok(accepted.includes(must), `${must}'s doc info must come from pterm's reader`);
  }
});

Deno.test("pdf reader: extractPdf takes pterm's reader first and gives what PDF.js gives", async () => {
  const bytes = qpdfCut("1");
  const extraction = await extractPdf(bytes, readerOptions());
  assert.deepEqual(extraction, await withPdfjs(bytes));
  const text = JSON.stringify(extraction);
  assert.match(text, /Libtasn1/);
});

Deno.test("pdf reader: it reads page by page and stops where PDF.js's path stops, and tells progress once", async () => {
  const bytes = Deno.readFileSync(LIBTASN1);
  const small = { ...readerOptions(), charBudget: 3000 };
  const reports: number[] = [];
  const fast = await extractWithPtermReader(bytes, { ...small, progress: (r) => reports.push(r.progress) });
  assert.ok(!("unsupported" in fast));
  assert.equal(fast.stoppedEarly, true);
  pdfReaders.ptermFirst = false;
  try {
    assert.deepEqual(fast, await extractPdf(bytes, small));
  } finally {
    pdfReaders.ptermFirst = true;
  }
  const pages = fast.blocks.length;
  assert.ok(pages < 36, `stopped after ${pages} of 36 pages`);
  assert.deepEqual(reports, Array.from({ length: pages }, (_, i) => i + 1));
});

Deno.test("pdf reader: a damaged copy of a page it reads is either read exactly as PDF.js reads it or left to PDF.js", async () => {
  // Uncompressed, so that the damage reaches the text, the fonts and the structure (in Flate data
  // it is caught by the checksum and the document goes to PDF.js).
  const original = qpdfCut("1", "--stream-data=uncompress", "--object-streams=disable");
  let accepted = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.tuple(fc.nat(original.length - 1), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 3 }),
      async (edits) => {
        const bytes = original.slice();
        for (const [at, value] of edits) bytes[at] = value;
        const fast = await extractWithPtermReader(bytes, readerOptions()).catch((error) => ({ error: String(error) }));
        if ("unsupported" in fast) return;
        accepted++;
        const theirs = await withPdfjs(bytes);
        assert.deepEqual(fast, theirs, `edits ${JSON.stringify(edits)}`);
      },
    ),
    { numRuns: 60 },
  );
  assert.ok(accepted > 10, "some damaged copies (damage in text, numbers, padding) are still read by pterm's reader");
});

/**
 * The data of every CFF program (/FontFile3 /Type1C or /CIDFontType0C), OpenType or TrueType program
 * (by its first bytes) in a PDF as qpdf writes it uncompressed, as [start, end).
 */
function fontPrograms(bytes: Uint8Array, kind: "cff" | "opentype" | "truetype"): [number, number][] {
  const text = new TextDecoder("latin1").decode(bytes);
  const spans: [number, number][] = [];
  for (const match of text.matchAll(/stream\n/g)) {
    const start = match.index + "stream\n".length;
    const dict = text.slice(text.lastIndexOf("<<", match.index), match.index);
    const tag = text.slice(start, start + 4);
    const found = kind === "cff"
      ? /\/Subtype\s*\/(Type1C|CIDFontType0C)\b/.test(dict) && bytes[start] === 1
      : kind === "opentype"
      ? tag === "OTTO"
      : tag === "\x00\x01\x00\x00" || tag === "true";
    const length = /\/Length (\d+)/.exec(dict);
    if (found && length) spans.push([start, start + Number(length[1])]);
  }
  return spans;
}

Deno.test("pdf reader: a damaged CFF or TrueType program is either read exactly as PDF.js reads it or left to PDF.js", async (t) => {
  // dvipdfmx's Type1C font whose built-in encoding gives the text, InDesign's Type1C fonts (no
  // ToUnicode), LuaLaTeX's CIDFontType0C ones and an OpenType one: 1–3 bytes of one program changed
  // (in its header, INDEXes, DICTs, charset, encoding or charstrings). PDF.js's CFF parser repairs
  // some damage, throws on some (and then reads the text with a substitute font), and reads the
  // rest with other glyph names. And TrueType fonts without ToUnicode (Word's, OpenOffice's, a CID
  // one), whose text must not depend on their program (PDF.js's TrueType parser may fail on it).
  const documents = [
    ["pdfjs/issue11279.pdf", "cff"],
    ["pdfjs/issue1002.pdf", "cff"],
    ["pdfjs/bug1937438_af_from_latex.pdf", "cff"],
    ["pdfjs/Embedded_font.pdf", "opentype"],
    ["pdfjs/issue15367.pdf", "truetype"],
    ["pdfjs/openoffice.pdf", "truetype"],
    ["pdfjs/PDFJS-7562-reduced.pdf", "truetype"],
  ] as const;
  for (const [name, kind] of documents) {
    await t.step(name, async () => {
      const file = new URL(name, FIXTURES).pathname;
      const out = Deno.makeTempFileSync({ suffix: ".pdf" });
      let original: Uint8Array;
      try {
        const args = ["--stream-data=uncompress", "--object-streams=disable", file, out];
        const run = new Deno.Command("qpdf", { args }).outputSync();
        // 3: written with warnings (PDF.js's reduced test files have stale trailers).
        assert.ok(run.code === 0 || run.code === 3, new TextDecoder().decode(run.stderr));
        original = Deno.readFileSync(out);
      } finally {
        Deno.removeSync(out);
      }
      const programs = fontPrograms(original, kind);
      assert.ok(programs.length >= 1, `${name}: its font programs`);
      assert.ok(
        !("unsupported" in await extractWithPtermReader(original, readerOptions())),
        `${name} uncompressed is read`,
      );
      let accepted = 0, refused = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.nat(programs.length - 1),
          fc.array(fc.tuple(fc.nat(1_000_000_000), fc.nat(255)), {
            minLength: 1,
            maxLength: 3,
          }),
          // Most of a program is charstrings: damage its first 600 bytes (header, INDEXes, DICTs,
          // charset, encoding) as often as anywhere.
          fc.boolean(),
          async (which, edits, head) => {
            const [start, end] = programs[which];
            const bytes = original.slice();
            for (const [where, value] of edits) {
              bytes[start + where % (head ? Math.min(600, end - start) : end - start)] = value;
            }
            const fast = await extractWithPtermReader(bytes, readerOptions()).catch((error) => ({
              error: String(error),
            }));
            if ("unsupported" in fast) {
              refused++;
              return;
            }
            accepted++;
            assert.deepEqual(fast, await withPdfjs(bytes), `${name}: program ${which}, edits ${JSON.stringify(edits)}`);
          },
        ),
        // Random seeds: a damaged table length no longer drives PDF.js past the program's end
        // (pdf_reader/font_guard.ts; pdf_font_guard_test.ts bounds the case found so).
        { numRuns: 60 },
      );
      assert.ok(
        accepted > 10 && (kind === "truetype" || refused > 0),
        `${name}: accepted ${accepted}, refused ${refused}`,
      );
    });
  }
});

Deno.test("pdf reader: a symbolic TrueType font without an /Encoding or a ToUnicode map is read where MacRoman and WinAnsi agree, else left to PDF.js", async () => {
  // The TraceMonkey paper's figure InternalOpCosts.pdf sets symbolic Calibri without an /Encoding and
  // with an empty ToUnicode CMap: PDF.js reads its codes as MacRoman, then may amend them to WinAnsi
  // (its adjustTrueTypeToUnicode, by the program's name table). One more code drawn in that font:
  // `A` (the same in both) keeps the document with pterm's reader; 0x80 (MacRoman's Ä, WinAnsi's €)
  // sends it to PDF.js. Either way the extraction is PDF.js's.
  const qdf = Deno.makeTempFileSync({ suffix: ".pdf" });
  let original: string;
  try {
    const file = new URL("pdfparse/default-test.pdf", FIXTURES).pathname;
    const run = new Deno.Command("qpdf", { args: ["--qdf", "--object-streams=disable", file, qdf] }).outputSync();
    assert.equal(run.code, 0, new TextDecoder().decode(run.stderr));
    original = new TextDecoder("latin1").decode(Deno.readFileSync(qdf));
  } finally {
    Deno.removeSync(qdf);
  }
  const figure = original.indexOf("/PTEX.FileName (./InternalOpCosts.pdf)");
  const show = original.indexOf("/F1.1 1 Tf (", figure) + "/F1.1 1 Tf (".length;
  assert.ok(figure > 0 && show > figure, "the figure's text in the font");
  for (const [code, expected] of [["A", null], ["\\200", "code 128"]] as const) {
    const edited = original.slice(0, show) + code + original.slice(show);
    // fix-qdf (qpdf's) sets the stream's /Length and the cross-reference table after the edit.
    const fixed = new Deno.Command("fix-qdf", { stdin: "piped", stdout: "piped" }).spawn();
    const writer = fixed.stdin.getWriter();
    await writer.write(Uint8Array.from(edited, (char) => char.charCodeAt(0)));
    await writer.close();
    const output = await fixed.output();
    assert.ok(output.success);
    const fast = await extractWithPtermReader(output.stdout, readerOptions());
    if (expected === null) {
      assert.ok(!("unsupported" in fast), `pterm's reader reads it: ${JSON.stringify(fast).slice(0, 200)}`);
      assert.deepEqual(fast, await withPdfjs(output.stdout));
    } else {
      assert.ok("unsupported" in fast && fast.unsupported.includes(expected), JSON.stringify(fast).slice(0, 200));
      pdfReaders.ptermFirst = true;
      const result = await extractPdf(output.stdout, readerOptions());
      assert.deepEqual(result, await withPdfjs(output.stdout));
    }
  }
});

Deno.test("pdf reader: CFF programs it refuses rather than guess", () => {
  const program = (bytes: number[]) => new Uint8Array(bytes);
  // Not a CFF header (OpenType, shifted data), an INDEX past the end, no Top DICT.
  assert.throws(() => readCffProgram(program([0x4f, 0x54, 0x54, 0x4f]), false), Unsupported);
  assert.throws(() => readCffProgram(program([0, 1, 0, 4, 1]), false), Unsupported);
  assert.throws(() => readCffProgram(program([1, 0, 4, 1, 0, 9, 1, 1]), false), Unsupported);
  assert.throws(() => readCffProgram(program([1, 0, 4, 1, 0, 0, 0, 0, 0, 0, 0, 0]), false), /without a Top DICT/);
  // A Top DICT without /CharStrings.
  assert.throws(
    () => readCffProgram(program([1, 0, 4, 1, 0, 0, 0, 1, 1, 1, 3, 139, 139, 0, 0, 0, 0, 0]), false),
    /without \/CharStrings/,
  );
});

Deno.test("pdf reader: the lexer reads PDF's objects", () => {
  const parse = (text: string) => new Parser(new TextEncoder().encode(text), 0, null).object(true);
  assert.equal(parse("  % comment\n -12.5 "), -12.5);
  assert.equal(parse(".5"), 0.5);
  assert.equal(parse("(a\\(b\\)c\\\\\\n\\101\\7)"), "a(b)c\\\nA\x07");
  assert.equal(parse("(a(b)c)"), "a(b)c");
  assert.equal(parse("(line\\\ncontinued)"), "linecontinued");
  assert.equal(parse("<48 65 6c6C 6>"), "Hell\x60");
  assert.equal((parse("/A#42C") as Name).name, "ABC");
  const ref = parse("12 0 R") as Ref;
  assert.ok(ref instanceof Ref && ref.num === 12 && ref.gen === 0);
  const dict = parse("<< /Type /Page /Kids [1 0 R 2 0 R] /N null /B true >>") as Dict;
  assert.equal((dict.get("Type") as Name).name, "Page");
  assert.equal((dict.get("Kids") as unknown[]).length, 2);
  assert.equal(dict.get("N"), null);
  assert.equal(dict.get("B"), true);
  assert.equal((parse("T*") as Cmd).cmd, "T*");
  assert.throws(() => parse("1.2.3"), /number/);
  assert.throws(() => parse("(unterminated"), /unterminated/);
});

Deno.test("pdf reader: PNG predictors undo every row filter (against a straightforward encoder)", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 4 }),
      fc.integer({ min: 1, max: 9 }),
      fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 8 }),
      fc.infiniteStream(fc.integer({ min: 0, max: 255 })),
      (bpp, columns, filters, bytes) => {
        const rowLength = bpp * columns;
        const it = bytes[Symbol.iterator]();
        const rows = filters.map(() => Array.from({ length: rowLength }, () => it.next().value as number));
        const encoded: number[] = [];
        rows.forEach((row, r) => {
          encoded.push(filters[r]);
          row.forEach((x, i) => {
            const left = i >= bpp ? row[i - bpp] : 0;
            const up = r > 0 ? rows[r - 1][i] : 0;
            const upLeft = r > 0 && i >= bpp ? rows[r - 1][i - bpp] : 0;
            const p = left + up - upLeft;
            const paeth = Math.abs(p - left) <= Math.abs(p - up) && Math.abs(p - left) <= Math.abs(p - upLeft)
              ? left
              : Math.abs(p - up) <= Math.abs(p - upLeft)
              ? up
              : upLeft;
            const predicted = [0, left, up, (left + up) >> 1, paeth][filters[r]];
            encoded.push((x - predicted) & 0xff);
          });
        });
        assert.deepEqual([...unpredictPng(new Uint8Array(encoded), bpp, columns)], rows.flat());
      },
    ),
  );
});

Deno.test("pdf reader: Flate streams inflate under the byte limit, and past it the document goes to PDF.js", () => {
  const data = new TextEncoder().encode("BT /F1 12 Tf (hello) Tj ET ".repeat(1000));
  const compressed = new Uint8Array(deflateSync(data));
  const dict = new Parser(new TextEncoder().encode("<< /Filter /FlateDecode >>"), 0, null).object(true) as Dict;
  assert.deepEqual(decodeStream(dict, compressed, new Budget(1 << 20)), data);
  assert.throws(() => decodeStream(dict, compressed, new Budget(1000)), /inflate|max_inflated/);
  // The checksum is checked: a flipped bit that still inflates is damage, and PDF.js may read it otherwise.
  assert.equal(adler32(new TextEncoder().encode("Wikipedia")), 0x11e60398);
  assert.equal(adler32(new Uint8Array(100_000).fill(255)), adler32Reference(new Uint8Array(100_000).fill(255)));
  const flipped = compressed.slice();
  flipped[flipped.length - 1] ^= 1;
  assert.throws(() => decodeStream(dict, flipped, null), /checksum/);
  const unknown = new Parser(new TextEncoder().encode("<< /Filter /LZWDecode >>"), 0, null).object(true) as Dict;
  assert.throws(() => decodeStream(unknown, compressed, null), /LZWDecode/);
});

/** A page showing `content` in the font `font` (object 5; `extra` are objects 6, 7, …). */
function pageWithFont(font: string, extra: string[], content: string): Uint8Array {
  return buildPdf([
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
    stream(content),
    font,
    ...extra,
  ]);
}

/** Reads `bytes` both ways: pterm's reader must accept it and give PDF.js's extraction. */
async function sameAsPdfjs(bytes: Uint8Array, what: string): Promise<void> {
  const fast = await extractWithPtermReader(bytes, readerOptions());
  assert.ok(!("unsupported" in fast), `${what}: refused (${"unsupported" in fast ? fast.unsupported : ""})`);
  assert.deepEqual(fast, await withPdfjs(bytes), `${what}: pterm's reader and PDF.js differ`);
}

// Every byte in words of four, sixteen to a line, then plain words.
const EVERY_BYTE = Array.from({ length: 16 }, (_, row) => {
  let words = "";
  for (let col = 0; col < 16; col++) {
    words += `\\${(row * 16 + col).toString(8).padStart(3, "0")}${col % 4 === 3 ? " " : ""}`;
  }
  return `(${words}) Tj 0 -14 Td`;
}).join("\n");
const SIMPLE_CONTENT =
  `BT /F1 11 Tf 40 780 Td ${EVERY_BYTE} ET\nBT /F1 9 Tf 40 500 Td (Plain words, then more: the fox.) Tj ET`;

Deno.test("pdf reader: fonts without a program in every shape read as PDF.js reads them (names, encodings, widths, descriptors)", async () => {
  const names = [
    "Helvetica",
    "Times-BoldItalic",
    "Courier",
    "Courier-BoldOblique",
    "Symbol",
    "ZapfDingbats",
    "Arial,Bold",
    "ArialMT",
    "TimesNewRoman,Italic",
    "CourierNew",
    "Calibri",
    "Verdana",
    "Garamond",
    "Wingdings",
    "Dingbats",
    "ABCDEF+Helvetica",
    "LucidaConsole",
    "Times#20New#20Roman",
    "Symbol-Bold",
    "Georgia-Serif",
    "Foo_Bar",
  ];
  const encodings = [
    "",
    "/Encoding /WinAnsiEncoding",
    "/Encoding /MacRomanEncoding",
    "/Encoding /StandardEncoding",
    "/Encoding << /Differences [32 /space /bullet 65 /alpha /.notdef /Euro /fi 128 /a1 /ff /Aacute] >>",
    "/Encoding << /BaseEncoding /WinAnsiEncoding /Differences [40 /quotedblleft /endash] >>",
  ];
  const widths = (width: (i: number) => number) =>
    `/FirstChar 32 /LastChar 126 /Widths [${Array.from({ length: 95 }, (_, i) => width(i)).join(" ")}]`;
  const varied = widths((i) => 400 + (i * 37) % 400), fixed = widths(() => 600);
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...names),
      fc.constantFrom("Type1", "TrueType"),
      fc.constantFrom(...encodings),
      fc.constantFrom("bare", "widths", "descriptor", "descriptor+widths", "descriptor+fixed", "symbolic"),
      async (name, type, encoding, shape) => {
        const extra: string[] = [];
        let font = `<< /Type /Font /Subtype /${type} /BaseFont /${name} ${encoding}`;
        if (shape === "bare") font += " >>";
        else if (shape === "widths") font += ` ${varied} >>`;
        else {
          extra.push(
            `<< /Type /FontDescriptor /FontName /${name} /Flags ${
              shape === "symbolic" ? 4 : 32
            } /FontBBox [0 0 1000 1000] ` +
              `/ItalicAngle 0 /Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 ` +
              `${shape === "descriptor+widths" ? "/MissingWidth 333" : ""} >>`,
          );
          font += ` ${
            shape === "descriptor+widths" ? varied : shape === "descriptor+fixed" ? fixed : ""
          } /FontDescriptor 6 0 R >>`;
        }
        await sameAsPdfjs(pageWithFont(font, extra, SIMPLE_CONTENT), `${type} ${name} ${encoding} ${shape}`);
      },
    ),
    { numRuns: 150 },
  );

  // Type 0 fonts whose CID TrueType descendant has no program: two-byte codes across PDF.js's glyph
  // map for standard fonts, with or without a ToUnicode CMap (one entry outside the BMP, one empty;
  // or named Identity-H),
  // a /FontName that is the /BaseFont, a prefix of it, another known name, or missing, and a
  // /CIDToGIDMap stream or none.
  const hex = (code: number) => code.toString(16).padStart(4, "0");
  const codes = [...Array.from({ length: 187 }, (_, i) => i * 3), 7, 14, 28, 35, 1011, 1012, 3416, 0xffff];
  let content = "BT /F1 10 Tf 30 780 Td ";
  for (let i = 0; i < codes.length; i += 12) content += `<${codes.slice(i, i + 12).map(hex).join("")}> Tj 0 -12 Td\n`;
  content += "ET";
  const toUnicode = (entries: [number, string][]) =>
    stream(
      "/CIDInit /ProcSet findresource begin 12 dict begin begincmap 1 begincodespacerange <0000> <FFFF> " +
        `endcodespacerange ${entries.length} beginbfchar ${entries.map(([c, u]) => `<${hex(c)}> <${u}>`).join(" ")} ` +
        "endbfchar endcmap end end",
    );
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(
        "Arial",
        "Arial,Bold",
        "Arial-Black",
        "Calibri-Bold",
        "Verdana",
        "TimesNewRomanPSMT",
        "ComicSansMS",
        "Foo",
      ),
      fc.constantFrom("none", "some", "astral", "identity"),
      fc.constantFrom("", "/W [0 [500 600] 10 100 250 3393 [700]] /DW 800"),
      fc.constantFrom("same", "prefix", "other", "none"),
      fc.constantFrom("", "/CIDToGIDMap /Identity", "/CIDToGIDMap 9 0 R"),
      async (name, toUnicodeKind, widthsEntry, fontNameKind, cidToGid) => {
        const fontName = { same: name, prefix: name.slice(0, 3), other: "Helvetica", none: null }[fontNameKind];
        const extra = [
          `<< /Type /Font /Subtype /CIDFontType2 /BaseFont /${name} /CIDSystemInfo << /Registry (Adobe) ` +
          `/Ordering (Identity) /Supplement 0 >> /FontDescriptor 7 0 R ${widthsEntry} ${cidToGid} >>`,
          `<< /Type /FontDescriptor ${fontName ? `/FontName /${fontName}` : ""} /Flags 32 /FontBBox [0 0 1000 1000] ` +
          "/ItalicAngle 0 /Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 >>",
        ];
        extra.push(toUnicode([])); // object 8 when there is no ToUnicode CMap (not referred to)
        if (toUnicodeKind === "some" || toUnicodeKind === "astral") {
          extra[2] = toUnicode(
            toUnicodeKind === "some"
              ? [[7, "0041"], [14, "00660069"], [0x41, "0042"], [1011, "0043"], [21, ""]]
              : [[28, "D835DC00"], [35, "0063"]],
          );
        }
        // Object 9: a CIDToGIDMap stream over the glyph map's values, some glyph IDs 0 (bytes below 0x80).
        extra.push(stream(
          Array.from({ length: 1400 }, (_, cid) => {
            const gid = cid % 9 === 0 ? 0 : (cid * 37) % 0x22e + 0x21; // Latin letters as text
            return String.fromCharCode(gid >> 7, gid & 0x7f);
          }).join(""),
        ));
        const font = `<< /Type /Font /Subtype /Type0 /BaseFont /${name} /Encoding /Identity-H ` +
          `/DescendantFonts [6 0 R] ${
            { none: "", some: "/ToUnicode 8 0 R", astral: "/ToUnicode 8 0 R", identity: "/ToUnicode /Identity-H" }[
              toUnicodeKind
            ]
          } >>`;
        await sameAsPdfjs(
          pageWithFont(font, extra, content),
          `Type0 ${name} ${toUnicodeKind} ${widthsEntry} ${fontNameKind}`,
        );
      },
    ),
    { numRuns: 80 },
  );
});

/** A copy of a fixture with its streams uncompressed by qpdf, so that damage reaches the fonts' dictionaries. */
function uncompressed(fixture: string): Uint8Array {
  const out = Deno.makeTempFileSync({ suffix: ".pdf" });
  try {
    const args = ["--stream-data=uncompress", "--object-streams=disable", new URL(fixture, FIXTURES).pathname, out];
    const run = new Deno.Command("qpdf", { args }).outputSync();
    assert.ok(run.code === 0 || run.code === 3, new TextDecoder().decode(run.stderr)); // 3: warnings
    return Deno.readFileSync(out);
  } finally {
    Deno.removeSync(out);
  }
}

Deno.test("pdf reader: fonts without a program, damaged in their dictionaries, are read as PDF.js reads them or left to it", async () => {
  // A /CIDSystemInfo without /Registry or /Ordering fails the font in PDF.js (it decodes both as strings).
  const cid = uncompressed("pdfjs/issue15441.pdf");
  const text = new TextDecoder("latin1").decode(cid);
  for (const key of ["/Ordering", "/Registry"]) {
    const at = text.indexOf(key);
    assert.ok(at > 0, key);
    const damaged = cid.slice();
    damaged[at + key.length - 1] = "x".charCodeAt(0);
    const fast = await extractWithPtermReader(damaged, readerOptions());
    if (!("unsupported" in fast)) assert.deepEqual(fast, await withPdfjs(damaged), `${key} damaged`);
  }
  // Random characters written over the fonts' entries (names, numbers, arrays, the glyph procedures' d1).
  const keys = [
    "/BaseFont",
    "/FontName",
    "/Encoding",
    "/Differences",
    "/Widths",
    "/FirstChar",
    "/Flags",
    "/FontMatrix",
  ];
  const documents = ["reportlab/std14.pdf", "pdfjs/issue15441.pdf", "matplotlib/chart.pdf", "groff/gzip.1.pdf"].map(
    (fixture) => {
      const bytes = uncompressed(fixture);
      const source = new TextDecoder("latin1").decode(bytes);
      const spots: number[] = [];
      for (const key of [...keys, "/FontBBox", "/CIDSystemInfo", "/W ", "/DW", " d1"]) {
        for (let at = source.indexOf(key); at >= 0; at = source.indexOf(key, at + 1)) spots.push(at);
      }
      return { fixture, bytes, spots };
    },
  );
  let accepted = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.nat(documents.length - 1),
      fc.array(fc.tuple(fc.nat(), fc.nat(40), fc.constantFrom(..."0123456789abcXYZ -/[]().")), {
        minLength: 1,
        maxLength: 3,
      }),
      async (which, edits) => {
        const { fixture, bytes: original, spots } = documents[which];
        const bytes = original.slice();
        for (const [spot, offset, char] of edits) bytes[spots[spot % spots.length] + offset] = char.charCodeAt(0);
        const fast = await extractWithPtermReader(bytes, readerOptions()).catch((error) => ({ error: String(error) }));
        if ("unsupported" in fast) return;
        accepted++;
        assert.deepEqual(fast, await withPdfjs(bytes), `${fixture} with ${JSON.stringify(edits)}`);
      },
    ),
    { numRuns: 120 },
  );
  assert.ok(accepted > 20, `some damaged copies are still read by pterm's reader (${accepted})`);
});

Deno.test("pdf reader: Type 3 fonts read as PDF.js reads them (their matrix, widths, encoding, and height at size 1)", async () => {
  // Glyph procedures for a, b, c and space (d1 with a box within the font's), the rest of the
  // codes drawn as .notdef-less gaps; /Widths in glyph space.
  const glyph = (w: number) => stream(`${w} 0 0 0 ${w} 700 d1 0 0 ${w} 700 re f`);
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(
        "[0.001 0 0 0.001 0 0]",
        "[0.01 0 0 0.01 0 0]",
        "[0.01 0 0 -0.01 0 0]",
        "[1 0 0 1 0 0]",
        "[0.002 0 0.0005 0.002 0 0]",
      ),
      fc.constantFrom("[0 0 750 750]", "[0 -200 1000 800]", "[750 750 0 0]"),
      fc.constantFrom(1, 0.5, 10),
      fc.constantFrom("", "/FontDescriptor 10 0 R", "/ToUnicode 11 0 R"),
      fc.constantFrom("/Differences [32 /space 97 /a /b /c]", "/Differences [32 /space 97 /c /b /a]"),
      async (matrix, bbox, size, extraEntry, differences) => {
        // A text matrix that puts glyphs about 10 units wide, on the page whatever the font matrix.
        const scale = 10 / (500 * Number(matrix.slice(1).split(" ")[0]) * size);
        const content = `BT /F1 ${size} Tf ${scale} 0 0 ${scale} 40 700 Tm (abc cab bca) Tj 0 -1.5 Td (a b  c) Tj ` +
          `[(ab) -300 (c) 2000 (a)] TJ 0 -1.5 Td 0.1 Tc (cc aa) Tj ET`;
        const extra = [
          `<< /a 7 0 R /b 8 0 R /c 9 0 R /space 12 0 R >>`,
          glyph(500),
          glyph(600),
          glyph(450),
          `<< /Type /FontDescriptor /FontName /MyType3 /Flags 32 /FontBBox ${bbox} /ItalicAngle 0 >>`,
          stream(
            "/CIDInit /ProcSet findresource begin 12 dict begin begincmap 1 begincodespacerange <00> <FF> " +
              "endcodespacerange 2 beginbfchar <61> <0041> <62> <00660069> endbfchar endcmap end end",
          ),
          stream("250 0 d0"),
        ];
        const font = `<< /Type /Font /Subtype /Type3 /FontMatrix ${matrix} /FontBBox ${bbox} /CharProcs 6 0 R ` +
          `/Encoding << /Type /Encoding ${differences} >> /FirstChar 32 /LastChar 99 ` +
          `/Widths [250 ${Array(64).fill(0).join(" ")} 500 600 450] /Resources << >> ${extraEntry} >>`;
        await sameAsPdfjs(
          pageWithFont(font, extra, content),
          `Type3 ${matrix} ${bbox} ${size} ${extraEntry} ${differences}`,
        );
      },
    ),
    { numRuns: 60 },
  );
});

/** ASCII85 as PDF producers write it (no `<~`): groups of five digits, `z` for four zero bytes, `~>` at the end. */
function ascii85Reference(data: Uint8Array, lineLength: number): string {
  let out = "";
  for (let i = 0; i < data.length; i += 4) {
    const group = [...data.subarray(i, i + 4)];
    const bytes = group.length;
    while (group.length < 4) group.push(0);
    let value = ((group[0] << 24) | (group[1] << 16) | (group[2] << 8) | group[3]) >>> 0;
    if (bytes === 4 && value === 0) {
      out += "z";
      continue;
    }
    const digits: string[] = [];
    for (let k = 0; k < 5; k++) {
      digits.unshift(String.fromCharCode(0x21 + (value % 85)));
      value = Math.floor(value / 85);
    }
    out += digits.slice(0, bytes + 1).join("");
  }
  return out.replace(new RegExp(`(.{${lineLength}})`, "g"), "$1\n") + "~>";
}

Deno.test("pdf reader: ASCII85 streams decode as encoded (against a straightforward encoder), alone or before Flate", () => {
  fc.assert(
    fc.property(
      // Zero bytes often, so that runs of four (written `z`) occur.
      fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 255 })), { maxLength: 200 }).map((a) =>
        new Uint8Array(a)
      ),
      fc.integer({ min: 1, max: 80 }),
      (data, lineLength) => {
        const encoded = new TextEncoder().encode(ascii85Reference(data, lineLength));
        assert.deepEqual(decodeAscii85(encoded), data);
      },
    ),
  );
  const zeros = new Uint8Array(12);
  assert.equal(ascii85Reference(zeros, 80), "zzz~>");
  assert.deepEqual(decodeAscii85(new TextEncoder().encode("zzz~>")), zeros);
  // Python's base64.a85encode(b"Hello, world") (a real encoder).
  assert.equal(new TextDecoder().decode(decodeAscii85(new TextEncoder().encode("87cURD_*#TDfTZ)~>"))), "Hello, world");
  // What PDF.js would decode to bytes nobody wrote: left to it.
  assert.throws(() => decodeAscii85(new TextEncoder().encode("87c\x00URD~>")), /stray byte/);
  assert.throws(() => decodeAscii85(new TextEncoder().encode("87czURD~>")), /stray byte/);
  assert.throws(() => decodeAscii85(new TextEncoder().encode("uuuuu~>")), /2\^32/);

  const text = new TextEncoder().encode("BT /F1 12 Tf (hello) Tj ET ".repeat(50));
  const chained = new TextEncoder().encode(ascii85Reference(new Uint8Array(deflateSync(text)), 72));
  const dict = (source: string) => new Parser(new TextEncoder().encode(source), 0, null).object(true) as Dict;
  assert.deepEqual(decodeStream(dict("<< /Filter [/ASCII85Decode /FlateDecode] >>"), chained, null), text);
  assert.deepEqual(
    decodeStream(dict("<< /Filter [/A85 /FlateDecode] /DecodeParms [null null] >>"), chained, null),
    text,
  );
  const plain = new TextEncoder().encode(ascii85Reference(text, 72));
  assert.deepEqual(decodeStream(dict("<< /Filter /ASCII85Decode >>"), plain, null), text);
  assert.throws(() => decodeStream(dict("<< /Filter [/FlateDecode /ASCII85Decode] >>"), chained, null), /several/);
});

Deno.test("pdf reader: cross-reference streams and object streams (the libtasn1 manual's) resolve every object", () => {
  const bytes = Deno.readFileSync(LIBTASN1);
  const xref = XRef.open(bytes, new Budget(1 << 30));
  assert.ok(xref.trailer.has("Root"));
  let compressed = 0, direct = 0;
  for (const [num, entry] of xref.entries) {
    if (entry === null || num === 0) continue;
    const value = xref.fetch(new Ref(num, "offset" in entry ? entry.gen : 0));
    assert.notEqual(value, undefined);
    if ("stream" in entry) compressed++;
    else direct++;
  }
  assert.ok(compressed > 100 && direct > 10, `${compressed} compressed, ${direct} direct objects`);
});

Deno.test("pdf reader: ToUnicode CMaps as PDF.js reads them (bfchar, bfrange with strings and arrays, surrogates)", () => {
  const cmap = `/CIDInit /ProcSet findresource begin 12 dict begin begincmap
/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def
/CMapName /Adobe-Identity-UCS def /CMapType 2 def
1 begincodespacerange <00> <FF> endcodespacerange
2 beginbfchar <01> <0041> <02> <D835DC00> endbfchar
2 beginbfrange <10> <12> <0061> <20> <21> [<0066006C> <00DF>] endbfrange
1 beginbfrange <FE> <FF> <00FF> endbfrange
endcmap CMapName currentdict /CMap defineresource pop end end`;
  const stream = new Stream(new Dict(null), new TextEncoder().encode(cmap), null);
  const map = readToUnicode(stream)!;
  assert.equal(map[1], "A");
  assert.equal(map[2], "\u{1D400}");
  assert.deepEqual([map[0x10], map[0x11], map[0x12]], ["a", "b", "c"]);
  assert.deepEqual([map[0x20], map[0x21]], ["fl", "ß"]);
  // PDF.js carries a last byte past 0xFF into the byte before it.
  assert.deepEqual([map[0xfe], map[0xff]], ["ÿ", "Ā"]);
  assert.equal(map[3], undefined);
});

Deno.test("pdf reader: glyph names to Unicode as PDF.js's list has them (the AGL and its TeX additions)", () => {
  assert.equal(glyphCodePoint("A"), 0x41);
  assert.equal(glyphCodePoint("dotlessi"), 0x131);
  assert.equal(glyphCodePoint("ff"), 0xfb00);
  assert.equal(glyphCodePoint("quotedblright"), 0x201d);
  // TeX's math names, which the AGL lacks and PDF.js maps (pdfTeX's CMSY10 without ToUnicode draws © with it).
  assert.equal(glyphCodePoint("circlecopyrt"), 0xa9);
  assert.equal(glyphCodePoint("angbracketleft"), 0x3008);
  // AGL names of several code points are not in PDF.js's list.
  assert.equal(glyphCodePoint("dalethatafpatah"), undefined);
  assert.equal(glyphCodePoint("notaglyph"), undefined);
  assert.equal(glyphCodePoint("zuhiragana"), 0x305a);
});

Deno.test("pdf reader: what it leaves to PDF.js, the whole document, with the reason", () => {
  const refuse = (bytes: Uint8Array) => {
    const result = readPdfText(bytes, 1 << 30);
    assert.ok("unsupported" in result, "expected a refusal");
    return result.unsupported;
  };
  const read = (name: string) => Deno.readFileSync(new URL(name, FIXTURES));
  assert.match(refuse(read("encrypted.pdf")), /encrypt/i);
  assert.match(refuse(read("corrupt.pdf")), /./);
  assert.match(refuse(new TextEncoder().encode("not a pdf")), /%PDF/);
  // A symbolic TrueType font with neither /Encoding nor ToUnicode (a barcode font): PDF.js may read
  // its codes as WinAnsi instead of MacRoman, depending on its program's name table and on its
  // TrueType parser — only where the two differ, which the barcode's codes do not (a code where they
  // do: "a symbolic TrueType font without an /Encoding or a ToUnicode map is read where…" above).
  assert.ok(!("unsupported" in readPdfText(read("pdfjs/issue8187.pdf"), 1 << 30)));
  // A cut file: no startxref at the end.
  const manual = Deno.readFileSync(LIBTASN1);
  assert.match(refuse(manual.subarray(0, manual.length - 2000)), /startxref|cross-reference|offset/);
});
