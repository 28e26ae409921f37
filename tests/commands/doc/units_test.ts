/** The parts of `doc` on their own: number formats, the bounded ZIP reader, detection, rendering. */

import assert from "node:assert/strict";
import { type Block, boundPieces, renderPieces, spansToMarkdown } from "../../../commands/doc/blocks.ts";
import { detect, oleStreamNames } from "../../../commands/doc/detect.ts";
import { builtinFormat, formatGeneral, formatNumber } from "../../../commands/doc/ooxml/numfmt.ts";
import { pdfDate } from "../../../commands/doc/pdf/info.ts";
import { extractXlsx } from "../../../commands/doc/ooxml/xlsx.ts";
import { InflateBudget, ZipArchive } from "../../../commands/doc/zip.ts";
import type { PtermError } from "../../../core/errors.ts";
import { FIXTURES } from "./helpers.ts";

Deno.test("number formats show values as a spreadsheet displays them", () => {
  const cases: [number, string, string][] = [
    [4200.5, "#,##0.00", "4,200.50"],
    [1234567.891, "#,##0", "1,234,568"],
    [0.48, "0.0%", "48.0%"],
    [0.0525, "0.00%", "5.25%"],
    [-1500, "#,##0.00;(#,##0.00)", "(1,500.00)"],
    [-3.5, "0.0", "-3.5"],
    [0, '#,##0.00;-#,##0.00;"-"', "-"],
    [12345.678, "0.00E+00", "1.23E+04"],
    [1999.99, '"$"#,##0.00', "$1,999.99"],
    [1999.99, "[$€-407] #,##0.00", "€ 1,999.99"],
    [7, '0" items"', "7 items"],
    [0.5, "#.00", ".50"],
    [1234567, "#,##0,", "1,235"],
    [3.14159, "0.0#", "3.14"],
    [3.1, "0.0#", "3.1"],
    [45365, "yyyy\\-mm\\-dd", "2024-03-14"],
    [45365, builtinFormat(14), "2024-03-14"],
    [45351, "d-mmm-yy", "29-Feb-24"],
    [45365, "dddd, mmmm d, yyyy", "Thursday, March 14, 2024"],
    [45365.75, "yyyy-mm-dd hh:mm", "2024-03-14 18:00"],
    [0.5625, "h:mm AM/PM", "1:30 PM"],
    [0.0104166667, "mm:ss", "15:00"],
    [1.5, "[h]:mm:ss", "36:00:00"],
    [60, "yyyy-mm-dd", "1900-02-29"],
    [1, "yyyy-mm-dd", "1900-01-01"],
    [0, "yyyy-mm-dd", "1899-12-31"],
    [25, "General", "25"],
    [1 / 3, "General", "0.3333333333"],
    [42, "@", "42"],
  ];
  for (const [value, format, expected] of cases) {
    assert.equal(formatNumber(value, format), expected, `${value} as ${format}`);
  }
  // The 1904 date system counts from 1 January 1904.
  assert.equal(formatNumber(0, "yyyy-mm-dd", true), "1904-01-01");
  assert.equal(formatGeneral(123456789012345), "123456789012345");
  assert.equal(formatGeneral(1.5e-12), "1.5E-12");
});

Deno.test("the ZIP reader counts inflated bytes against one budget for the whole document", async () => {
  const bomb = await Deno.readFile(`${FIXTURES}bomb.docx`);
  const budget = new InflateBudget(8 * 1024 * 1024);
  const zip = ZipArchive.open(bomb, budget);
  assert.deepEqual(zip.names, ["[Content_Types].xml", "_rels/.rels", "word/document.xml"]);
  await assert.rejects(zip.read("word/document.xml"), (error: PtermError) => {
    assert.equal(error.code, "InputTooLarge");
    return true;
  });
  // It stopped soon after the budget: one 16 KiB slice inflates to at most ~16 MiB.
  assert.ok(budget.spent > 8 * 1024 * 1024 && budget.spent < 26 * 1024 * 1024, `${budget.spent}`);

  const generous = ZipArchive.open(bomb, new InflateBudget(100 * 1024 * 1024));
  const document = await generous.read("word/document.xml");
  assert.ok(document !== null && document.length > 64 * 1024 * 1024, "the directory's 1 KiB claim is not trusted");

  const reportBytes = await Deno.readFile(`${FIXTURES}report.docx`);
  const documentSize = (await ZipArchive.open(reportBytes, new InflateBudget(1e9)).read("word/document.xml"))!.length;
  const shared = new InflateBudget(documentSize + 100);
  const report = ZipArchive.open(reportBytes, shared);
  await report.read("word/document.xml");
  await assert.rejects(report.read("word/styles.xml"), /expands to more than \d+ bytes .*word\/styles.xml/);
});

Deno.test("the ZIP reader finds parts case-insensitively and refuses damaged directories", async () => {
  const zip = ZipArchive.open(await Deno.readFile(`${FIXTURES}deck.pptx`), new InflateBudget(1e9));
  assert.ok(zip.has("PPT/Presentation.xml"));
  assert.equal(await zip.read("ppt/nothing.xml"), null);
  const docx = await Deno.readFile(`${FIXTURES}report.docx`);
  assert.throws(() => ZipArchive.open(docx.subarray(0, 2000), new InflateBudget(1e9)), /end-of-central-directory/);
  const shifted = docx.slice();
  // Point the first entry's local header offset past the end of the file.
  const view = new DataView(shifted.buffer);
  const eocd = shifted.length - 22;
  const centralStart = view.getUint32(eocd + 16, true);
  view.setUint32(centralStart + 42, shifted.length + 100, true);
  const broken = ZipArchive.open(shifted, new InflateBudget(1e9));
  await assert.rejects(broken.read(broken.names[0]), /local header .* is missing/);
});

Deno.test("detection reads the bytes: magic numbers, package contents, OLE streams", async () => {
  const open = (bytes: Uint8Array) => ZipArchive.open(bytes, new InflateBudget(1e9));
  const file = (name: string) => Deno.readFileSync(`${FIXTURES}${name}`);
  const kind = async (bytes: Uint8Array) => {
    const d = await detect(bytes, open);
    return d.kind === "supported" ? d.format : `${d.kind}: ${d.description}`;
  };
  assert.equal(await kind(file("report.pdf")), "pdf");
  assert.equal(await kind(file("report.docx")), "docx");
  assert.equal(await kind(file("deck.pptx")), "pptx");
  assert.equal(await kind(file("book.xlsx")), "xlsx");
  assert.equal(
    await kind(file("encrypted.docx")),
    "encrypted-office: a password-protected Office document (encrypted OOXML package)",
  );
  assert.equal(await kind(file("legacy.doc")), "unsupported: a legacy Word 97-2003 document (.doc)");
  assert.ok(oleStreamNames(file("encrypted.docx")).has("EncryptedPackage"));
  assert.equal(await kind(file("debian/picture.pdf")), "unsupported: a PNG image");
  assert.equal(await kind(new TextEncoder().encode("just some notes\n")), "unsupported: plain text");
  assert.equal(await kind(new Uint8Array()), "unsupported: an empty file");
  assert.equal(await kind(new Uint8Array([0x1f, 0x8b, 8, 0])), "unsupported: a gzip archive");
});

Deno.test("Markdown: emphasis stays inside the words, table cells escape pipes, lists number per level, nested items indented to their parent's text (CommonMark)", () => {
  assert.equal(spansToMarkdown([{ text: "a " }, { text: "bold ", bold: true }, { text: "word" }]), "a **bold** word");
  assert.equal(spansToMarkdown([{ text: "both", bold: true, italic: true }]), "***both***");
  assert.equal(spansToMarkdown([{ text: "site", href: "https://x.org/a b" }]), "[site](https://x.org/a%20b)");
  const blocks: Block[] = [
    { type: "table", rows: [["a|b", "c"], ["line\nbreak"]] },
    {
      type: "list",
      items: [
        { spans: [{ text: "one" }], depth: 0, ordered: true },
        { spans: [{ text: "sub" }], depth: 1, ordered: true },
        { spans: [{ text: "sub2" }], depth: 1, ordered: true },
        { spans: [{ text: "two" }], depth: 0, ordered: true },
      ],
    },
  ];
  assert.equal(
    renderPieces(blocks, "md").join(""),
    "| a\\|b | c |\n| --- | --- |\n| line<br>break |  |\n\n1. one\n   1. sub\n   2. sub2\n2. two\n",
  );
});

Deno.test("bounding never cuts inside a word, and a text that fits is left alone", () => {
  const pieces = ["# Title\n", "\n", "word ".repeat(200) + "\n"];
  const total = pieces.join("").length;
  assert.deepEqual(boundPieces(pieces, 10_000), { text: pieces.join(""), totalChars: total, truncated: false });
  const cut = boundPieces(pieces, 600);
  assert.ok(cut.truncated && cut.text.length <= 600);
  const body = cut.text.split("\n\n[...TRUNCATED...]")[0];
  assert.match(body, /^# Title\n\n(word )*word$/);
  assert.match(cut.text, new RegExp(`after ${body.length} of ${total} characters`));
});

Deno.test("readers stop early once the output budget is used up, and say so", async () => {
  const zip = ZipArchive.open(await Deno.readFile(`${FIXTURES}book.xlsx`), new InflateBudget(1e9));
  const extraction = await extractXlsx({ zip, mainPart: "xl/workbook.xml" }, {
    signal: new AbortController().signal,
    charBudget: 100,
    memoryBytes: 2 ** 31,
  });
  assert.equal(extraction.stoppedEarly, true);
  assert.deepEqual(extraction.blocks.map((b) => b.type === "sheet" && b.name), ["Budget"]);
  const sheet = extraction.blocks[0] as Extract<Block, { type: "sheet" }>;
  assert.ok(sheet.rows.length < 7, "the first sheet itself stopped at a row boundary");
});

Deno.test("PDF dates become ISO 8601", () => {
  assert.equal(pdfDate("D:20220429171908Z"), "2022-04-29T17:19:08Z");
  assert.equal(pdfDate("D:20080522102541+02'00'"), "2008-05-22T10:25:41+02:00");
  assert.equal(pdfDate("D:2024"), "2024-01-01T00:00:00");
  assert.equal(pdfDate("yesterday"), "yesterday");
  assert.equal(pdfDate(null), null);
});

Deno.test("the XML tokenizer: references, CDATA, line ends; what is not well-formed is CorruptInput; no DTD entity is expanded", async () => {
  const { parseXml, textContent } = await import("../../../commands/doc/ooxml/xml.ts");
  const root = parseXml(
    '\uFEFF<?xml version="1.0"?>\r\n<!-- c --><a:r x="1 &amp;&#x9;2" b:y=\'q"\'><a:t>&lt;&#233;&#x1F600;\r\nz</a:t>' +
      "<![CDATA[<raw>&amp;]]><e/></a:r>",
    "t.xml",
  );
  assert.equal(root.name, "r");
  assert.deepEqual(root.attrs, { x: "1 &\t2", "b:y": 'q"', y: 'q"' });
  assert.equal(textContent(root), "<é😀\nz<raw>&amp;");
  const refused = [
    "<a><b></a></b>", // crossed
    "<a>", // never closed
    "<a>&nbsp;</a>", // undefined entity
    "<a>& b</a>", // bare ampersand
    "<a>&#0;</a>", // no such character
    "<a x=1/>", // unquoted attribute
    '<a x="1" x="2"/>', // repeated attribute
    "<a/><b/>", // two roots
    "text<a/>", // text outside the root
    "", // nothing
    // The billion laughs: the DOCTYPE is skipped, so its entities stay undefined and are refused.
    '<!DOCTYPE l [<!ENTITY l0 "ha"><!ENTITY l1 "&l0;&l0;&l0;&l0;&l0;&l0;&l0;&l0;&l0;&l0;">]><a>&l1;</a>',
  ];
  for (const xml of refused) {
    assert.throws(() => parseXml(xml, "t.xml"), (e: Error & { code?: string }) => e.code === "CorruptInput", xml);
  }
});
