/**
 * `doc extract` on real documents (made by LibreOffice from tests/fixtures/doc/src/, plus PDFs
 * Debian ships), through the real kernel and sandbox worker. The expected text is what the
 * fixture sources say: content, order, tables, slide/sheet structure and headings.
 */

import assert from "node:assert/strict";
import { exec } from "../../_support/helpers.ts";
import { extractOk, rootWith } from "./helpers.ts";

const REPORT_MD = `# Quarterly Field Report

This report summarises the **northern survey** and the *coastal sampling* carried out between January and March.

## Key findings

- Water quality improved at seven of nine stations.
- Two stations need new sensors:
  - Station Alder Creek
  - Station Birch Point
- Sampling costs stayed within budget.

## Measurements

The table below lists the mean readings per station.

| Station | pH | Nitrate (mg/L) |
| --- | --- | --- |
| Alder Creek | 7.2 | 1.8 |
| Birch Point | 6.9 | 2.4 |
| Cedar Bay | 7.5 | 0.9 |

# Next steps

1. Order replacement sensors.
2. Repeat the coastal sampling in June.
3. Publish the data set.

Contact the field team at [the project page](https://example.org/field-team). Café naïve façade — résumé of the season.
`;

const DECK_MD = `<!-- Slide number: 1 -->
# Survey Kick-off

Spring season planning

### Notes:

Welcome everyone and introduce the field team.

<!-- Slide number: 2 -->
# Goals for the season

- Sample all nine stations
- Replace two failing sensors
- Publish the data by July

Left footnote box

Right footnote box

### Notes:

Stress the July deadline.

Ask who owns the sensors.

<!-- Slide number: 3 -->
# Budget by station

| Station | Budget (EUR) |
| --- | --- |
| Alder Creek | 4,200 |
| Birch Point | 3,750 |
`;

const BOOK_MD = `## Budget

| Station | Visits | Cost | Last visit | Active |
| --- | --- | --- | --- | --- |
| Alder Creek | 12 | 4,200.50 | 2024-03-14 | TRUE |
| Birch Point | 8 | 3,750.00 | 2024-02-29 | FALSE |
| Cedar Bay \\| East | 5 | 1,999.99 |  | TRUE |
| Total | 25 | 9,950.49 |  |  |
| Share of visits at Alder Creek | 48.0% |  |  |  |
| Season status | busy | #DIV/0! |  |  |

## Notes

| Topic | Note |
| --- | --- |
| Sensors | Replace before the June sampling. |
| Alder Creek | Access road closed in winter. |
`;

/** Asserts that `needles` occur in `text` in this order. */
function assertInOrder(text: string, needles: readonly string[]): void {
  let from = 0;
  for (const needle of needles) {
    const at = text.indexOf(needle, from);
    assert.ok(at >= 0, `expected ${JSON.stringify(needle)} after offset ${from} in:\n${text}`);
    from = at + needle.length;
  }
}

Deno.test("docx → Markdown: headings, emphasis, nested and numbered lists, table, link, in order", async () => {
  await using dir = await rootWith({ "docs/report.docx": "report.docx" });
  const { envelope, text } = await extractOk(dir.path, "doc extract --in docs/report.docx");
  assert.equal(text, REPORT_MD);
  const result = envelope.result as Record<string, unknown>;
  assert.equal(result.format, "docx");
  assert.equal(result.status, "complete");
  assert.equal(result.truncated, false);
  assert.equal(result.extracted_chars, REPORT_MD.length);
  assert.equal(result.tables, 1);
  assert.match(result.output as string, /^artifacts\/[^/]+\/report\.md$/);
  assert.deepEqual(envelope.artifacts.map((a) => [a.path, a.mime]), [[result.output, "text/markdown"]]);
  assert.match(envelope.stdout, /docs\/report\.docx: docx, 7 paragraphs → \d+ characters of md in artifacts\//);
});

Deno.test("docx → text has the same content without markup; json has typed blocks", async () => {
  await using dir = await rootWith({ "report.docx": "report.docx" });
  const { text } = await extractOk(dir.path, "doc extract --in report.docx --mode text");
  assert.doesNotMatch(text, /\*\*|^#|\| --- \|/m);
  assertInOrder(text, [
    "Quarterly Field Report\n",
    "the northern survey and the coastal sampling",
    "- Two stations need new sensors:\n  - Station Alder Creek\n  - Station Birch Point\n",
    "Station\tpH\tNitrate (mg/L)\nAlder Creek\t7.2\t1.8\n",
    "1. Order replacement sensors.\n2. Repeat",
    "Contact the field team at the project page.",
  ]);

  const json = JSON.parse((await extractOk(dir.path, "doc extract --in report.docx --mode json")).text);
  assert.equal(json.format, "docx");
  assert.equal(json.truncated, false);
  assert.deepEqual(
    json.blocks.map((b: { type: string; level?: number }) => b.level ? `${b.type}${b.level}` : b.type),
    ["heading1", "paragraph", "heading2", "list", "heading2", "paragraph", "table", "heading1", "list", "paragraph"],
  );
  assert.deepEqual(json.blocks[6].rows[2], ["Birch Point", "6.9", "2.4"]);
  assert.deepEqual(json.blocks[3].items[3], { text: "Station Birch Point", depth: 1, ordered: false });
  assert.equal(json.blocks[8].items[0].ordered, true);
});

Deno.test("pptx → Markdown as markitdown: slide markers, titles, bullets, reading order, table, notes", async () => {
  await using dir = await rootWith({ "slides/deck.pptx": "deck.pptx" });
  const { envelope, text } = await extractOk(dir.path, "doc extract --in slides/deck.pptx --out notes/deck.md");
  // The file lists the right text box before the left one; reading order puts the left one first.
  assert.equal(text, DECK_MD);
  const result = envelope.result as Record<string, unknown>;
  assert.equal(result.slides, 3);
  assert.equal(result.output, "notes/deck.md");
  assert.deepEqual(envelope.artifacts, [{
    path: "notes/deck.md",
    mime: "text/markdown",
    description: "doc extract of slides/deck.pptx (md)",
  }]);

  const json = JSON.parse((await extractOk(dir.path, "doc extract --in slides/deck.pptx --mode json")).text);
  assert.deepEqual(json.blocks.map((s: { title: string }) => s.title), [
    "Survey Kick-off",
    "Goals for the season",
    "Budget by station",
  ]);
  assert.deepEqual(json.blocks[1].notes.map((n: { text: string }) => n.text), [
    "Stress the July deadline.",
    "Ask who owns the sensors.",
  ]);
  assert.deepEqual(json.blocks[2].blocks[0].rows, [["Station", "Budget (EUR)"], ["Alder Creek", "4,200"], [
    "Birch Point",
    "3,750",
  ]]);

  const plain = (await extractOk(dir.path, "doc extract --in slides/deck.pptx --mode text")).text;
  assertInOrder(plain, ["[Slide 1]\nSurvey Kick-off\n", "Notes:\n", "[Slide 2]\nGoals for the season\n", "[Slide 3]"]);
  assert.doesNotMatch(plain, /<!--|###/);
});

Deno.test("xlsx → one Markdown table per sheet, values as displayed", async () => {
  await using dir = await rootWith({ "data/book.xlsx": "book.xlsx" });
  const { envelope, text } = await extractOk(dir.path, "doc extract --in data/book.xlsx");
  assert.equal(text, BOOK_MD);
  assert.equal((envelope.result as Record<string, unknown>).sheets, 2);

  const plain = (await extractOk(dir.path, "doc extract --in data/book.xlsx --mode text")).text;
  assertInOrder(plain, [
    "[Sheet: Budget]\n",
    "Station\tVisits\tCost\tLast visit\tActive\n",
    "Alder Creek\t12\t4,200.50\t2024-03-14\tTRUE\n",
    "Cedar Bay | East\t5\t1,999.99\t\tTRUE\n",
    "[Sheet: Notes]\n",
  ]);
  const json = JSON.parse((await extractOk(dir.path, "doc extract --in data/book.xlsx --mode json")).text);
  assert.deepEqual(json.blocks.map((s: { name: string }) => s.name), ["Budget", "Notes"]);
  assert.deepEqual(json.blocks[0].rows[5], ["Share of visits at Alder Creek", "48.0%", "", "", ""]);
});

Deno.test("xlsx as streaming writers make it: inline strings, prefixed XML, implicit cell positions", async () => {
  await using dir = await rootWith({ "inline.xlsx": "inline.xlsx" });
  const { text } = await extractOk(dir.path, "doc extract --in inline.xlsx");
  assert.equal(text, "## Export\n\n| Item | Count |\n| --- | --- |\n| Rain gauge | 3 |\n| Wind vane | 0.5 |\n");
});

Deno.test("pdf → a page marker per page and the text in reading order", async () => {
  await using dir = await rootWith({ "docs/report.pdf": "report.pdf" });
  const { envelope, text } = await extractOk(dir.path, "doc extract --in docs/report.pdf");
  assertInOrder(text, [
    "<!-- Page number: 1 -->\n",
    "Quarterly Field Report",
    "This report summarises the northern survey and the coastal sampling",
    "Key findings",
    "Water quality improved at seven of nine stations.",
    "Station Birch Point",
    "Measurements",
    // LibreOffice draws the table's grid: it is read as a table (pdf_tables.ts).
    "| Station | pH | Nitrate (mg/L) |\n| --- | --- | --- |\n",
    "| Alder Creek | 7.2 | 1.8 |\n",
    "| Cedar Bay | 7.5 | 0.9 |\n",
    "<!-- Page number: 2 -->\n",
    "Next steps",
    "1. Order replacement sensors.",
    "Café naïve façade — résumé of the\nseason.",
  ]);
  const result = envelope.result as Record<string, unknown>;
  assert.equal(result.pages, 2);
  assert.deepEqual(result.warnings, []);

  const plain = (await extractOk(dir.path, "doc extract --in docs/report.pdf --mode text")).text;
  assert.equal(plain.split("\f").length, 2, "a form feed between the two pages");
  assert.ok(plain.split("\f")[1].includes("Next steps"));
  assert.doesNotMatch(plain, /<!--/);

  const json = JSON.parse((await extractOk(dir.path, "doc extract --in docs/report.pdf --mode json")).text);
  assert.deepEqual(json.blocks.map((p: { type: string; number: number }) => [p.type, p.number]), [["page", 1], [
    "page",
    2,
  ]]);
  assert.equal(json.pages, 2);
});

Deno.test("pdf slides: text boxes side by side are read left to right", async () => {
  await using dir = await rootWith({ "deck.pdf": "deck.pdf" });
  const { text } = await extractOk(dir.path, "doc extract --in deck.pdf --mode text");
  assertInOrder(text, ["Survey Kick-off", "Goals for the season", "Left footnote box Right footnote box", "3,750"]);
});

Deno.test("pdfs Debian ships: every page, in order, words hyphenated across lines joined", async () => {
  await using dir = await rootWith({
    "spec.pdf": "debian/shared-mime-info-spec.pdf",
    "manual.pdf": "debian/libtasn1.pdf",
  });
  const spec = await extractOk(dir.path, "doc extract --in spec.pdf");
  assert.equal((spec.envelope.result as Record<string, unknown>).pages, 17);
  assert.equal((spec.text.match(/<!-- Page number: \d+ -->/g) ?? []).length, 17);
  assertInOrder(spec.text, ["Shared MIME-info Database", "1. Introduction", "1.1. Version", "2. Unified system"]);

  const manual = await extractOk(dir.path, "doc extract --in manual.pdf --mode text");
  assert.equal(manual.text.split("\f").length, 36);
  assertInOrder(manual.text, [
    "Libtasn1",
    "Distinguished Encoding Rules (DER) manipulation.",
    "Table of Contents",
    "1 Introduction",
  ]);
});

Deno.test("--max-chars bounds what stdout shows, at a clean boundary; the saved file holds the whole text, in every mode", async () => {
  await using dir = await rootWith({ "manual.pdf": "debian/libtasn1.pdf" });
  for (const mode of ["md", "text", "json"]) {
    const whole = await extractOk(dir.path, `doc extract --in manual.pdf --mode ${mode}`);
    const { envelope, text } = await extractOk(dir.path, `doc extract --in manual.pdf --mode ${mode} --max-chars 3000`);
    const result = envelope.result as Record<string, unknown>;
    assert.equal(text, whole.text, `${mode}: the artifact is the whole text, whatever --max-chars says`);
    assert.equal(result.truncated, false);
    assert.equal(result.status, "complete");
    assert.equal(result.stdout_shows, "head");
    assert.equal(result.extracted_chars, text.length);
    assert.equal(result.total_chars, text.length);
    assert.match(envelope.stdout, /Complete: \S+ holds the whole document\./);
    assert.match(envelope.stdout, new RegExp(`follows up to --max-chars 3000 \\(\\d+ of ${text.length} characters\\)`));
    const shown = envelope.stdout.slice(envelope.stdout.indexOf("\n\n") + 2);
    assert.ok(shown.length <= 3001, `${mode}: stdout showed ${shown.length} characters`);
    if (mode === "json") {
      const json = JSON.parse(shown);
      assert.equal(json.truncated, true);
      assert.match(json.note, /TRUNCATED.*the saved file holds the whole text/);
      assert.equal(json.blocks[0].number, 1);
    } else {
      const [kept, note] = shown.split("[...TRUNCATED...]");
      assert.match(note, /Shown up to a block boundary after \d+ of \d+ characters \(--max-chars\); the saved file/);
      const body = kept.trimEnd();
      assert.ok(text.startsWith(body), "stdout shows the start of the whole text");
      assert.ok(/\s/.test(text[body.length]), "the cut falls between words, never inside one");
    }
  }
});

Deno.test("config max_chars is the default bound of stdout; the flag overrides it", async () => {
  await using dir = await rootWith({ "book.xlsx": "book.xlsx" }, { doc: { max_chars: 300 } });
  const bounded = await extractOk(dir.path, "doc extract --in book.xlsx");
  const result = bounded.envelope.result as Record<string, unknown>;
  assert.equal(result.truncated, false);
  assert.equal(result.stdout_shows, "head");
  assert.equal(bounded.text, BOOK_MD, "the saved file holds the whole workbook");
  const shown = bounded.envelope.stdout.slice(bounded.envelope.stdout.indexOf("\n\n") + 2);
  assert.ok(shown.length <= 301);
  assert.ok(shown.startsWith("## Budget\n\n| Station | Visits |"));
  // Whole table rows only: the last shown line is a complete row of the full rendering.
  const kept = shown.split("\n\n[...TRUNCATED...]")[0];
  assert.ok(BOOK_MD.startsWith(kept + "\n"), kept);
  assert.match(shown, new RegExp(`after ${kept.length} of ${BOOK_MD.length} characters`));
  const whole = await extractOk(dir.path, "doc extract --in book.xlsx --max-chars 100000");
  assert.equal((whole.envelope.result as Record<string, unknown>).stdout_shows, "full");
  assert.equal(whole.text, BOOK_MD);
});

Deno.test("doc info: counts, title, author and encryption without extracting", async () => {
  await using dir = await rootWith({
    "report.pdf": "report.pdf",
    "report.docx": "report.docx",
    "deck.pptx": "deck.pptx",
    "book.xlsx": "book.xlsx",
    "owner-locked.pdf": "owner-locked.pdf",
    "locked.pdf": "encrypted.pdf",
    "locked.docx": "encrypted.docx",
  });
  const info = async (file: string) => {
    const envelope = await exec(dir.path, `doc info --in ${file}`);
    assert.equal(envelope.exit_code, 0, envelope.stderr);
    assert.deepEqual(envelope.artifacts, [], "info writes nothing");
    return envelope.result as Record<string, unknown>;
  };
  const pdf = await info("report.pdf");
  assert.equal(pdf.format, "pdf");
  assert.equal(pdf.pages, 2);
  assert.equal(pdf.title, "Quarterly Field Report");
  assert.equal(pdf.author, "Ada Lovelace");
  assert.equal(pdf.encrypted, false);
  assert.equal(pdf.bytes, (await Deno.stat(`${dir.path}/report.pdf`)).size);

  const docx = await info("report.docx");
  assert.deepEqual([docx.format, docx.title, docx.author], ["docx", "Quarterly Field Report", "Ada Lovelace"]);
  const pptx = await info("deck.pptx");
  assert.deepEqual([pptx.format, pptx.slides, pptx.title, pptx.author], ["pptx", 3, "Survey Kick-off", "Grace Hopper"]);
  const xlsx = await info("book.xlsx");
  assert.deepEqual([xlsx.format, xlsx.sheets, xlsx.sheet_names, xlsx.title], [
    "xlsx",
    2,
    ["Budget", "Notes"],
    "Station Budget 2024",
  ]);

  const ownerLocked = await info("owner-locked.pdf");
  assert.deepEqual([ownerLocked.encrypted, ownerLocked.password_required, ownerLocked.pages], [true, false, 2]);
  const lockedPdf = await info("locked.pdf");
  assert.deepEqual([lockedPdf.format, lockedPdf.encrypted, lockedPdf.password_required], ["pdf", true, true]);
  const lockedDocx = await info("locked.docx");
  assert.deepEqual([lockedDocx.format, lockedDocx.encrypted, lockedDocx.password_required], [
    "encrypted-office",
    true,
    true,
  ]);
});

Deno.test("a PDF page without a text layer: status empty, and a warning that names it", async () => {
  await using dir = await rootWith({ "scanned.pdf": "scanned.pdf" });
  const { envelope, text } = await extractOk(dir.path, "doc extract --in scanned.pdf");
  assert.equal(text, "<!-- Page number: 1 -->\n");
  const result = envelope.result as Record<string, unknown>;
  assert.equal(result.status, "empty");
  assert.deepEqual(result.warnings, ["page 1 has no text layer (scanned images?); pterm does not OCR them"]);
  assert.match(
    envelope.stdout,
    /No text found \(a scanned document\? pterm does not OCR\)\.\nwarning: page 1 has no text layer/,
  );
});

Deno.test("an owner-password PDF (opens without a password) is extracted, with a warning", async () => {
  await using dir = await rootWith({ "owner-locked.pdf": "owner-locked.pdf" });
  const { envelope, text } = await extractOk(dir.path, "doc extract --in owner-locked.pdf");
  assert.ok(text.includes("Quarterly Field Report"));
  const warnings = (envelope.result as { warnings: string[] }).warnings;
  assert.ok(warnings.some((w) => /encrypted without a password to open it/.test(w)), warnings.join("\n"));
});

Deno.test("--out replaces an existing file atomically and lists it as an artifact", async () => {
  await using dir = await rootWith({ "book.xlsx": "book.xlsx" });
  await Deno.mkdir(`${dir.path}/out`);
  await Deno.writeTextFile(`${dir.path}/out/book.txt`, "old content");
  const { envelope, text } = await extractOk(dir.path, "doc extract --in book.xlsx --mode text --out out/book.txt");
  assert.ok(text.startsWith("[Sheet: Budget]\n"));
  assert.deepEqual(envelope.artifacts.map((a) => [a.path, a.mime]), [["out/book.txt", "text/plain"]]);
  const leftovers = [...Deno.readDirSync(`${dir.path}/out`)].map((e) => e.name);
  assert.deepEqual(leftovers, ["book.txt"], "no temporary file left beside it");
});
