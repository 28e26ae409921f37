/**
 * PDF tables drawn with rules become Markdown tables, checked against the
 * tables' known contents: camelot's test PDFs and the cells camelot's own tests expect of them
 * (tests/data.py: `data_lattice`, `data_lattice_two_tables_1/2`; tests/fixtures/doc/camelot/).
 * A table is made only when its grid is certain; otherwise the page reads as text.
 */

import assert from "node:assert/strict";
import { extractOk, rootWith } from "./helpers.ts";
import { buildPdf, stream } from "./pdf_builder.ts";

interface JsonPage {
  type: string;
  blocks: { type: string; rows?: string[][]; text?: string }[];
}

async function tablesOf(fixture: string): Promise<string[][][]> {
  await using dir = await rootWith({ "t.pdf": fixture });
  const json = JSON.parse((await extractOk(dir.path, "doc extract --in t.pdf --mode json")).text);
  return (json.blocks as JsonPage[]).flatMap((page) =>
    page.blocks.filter((b) => b.type === "table").map((b) => b.rows!)
  );
}

/** camelot keeps the space before a line break inside a cell ("Cycle \nName"); pterm trims each line. */
const trimmed = (rows: string[][]) => rows.map((row) => row.map((cell) => cell.replace(/ \n/g, "\n")));

Deno.test("camelot's foo.pdf: the ruled table is read cell by cell, merged header cells included (camelot's data_lattice)", async () => {
  const expected = trimmed([
    ["Cycle \nName", "KI \n(1/km)", "Distance \n(mi)", "Percent Fuel Savings", "", "", ""],
    ["", "", "", "Improved \nSpeed", "Decreased \nAccel", "Eliminate \nStops", "Decreased \nIdle"],
    ["2012_2", "3.30", "1.3", "5.9%", "9.5%", "29.2%", "17.4%"],
    ["2145_1", "0.68", "11.2", "2.4%", "0.1%", "9.5%", "2.7%"],
    ["4234_1", "0.59", "58.7", "8.5%", "1.3%", "8.5%", "3.3%"],
    ["2032_2", "0.17", "57.8", "21.7%", "0.3%", "2.7%", "1.2%"],
    ["4171_1", "0.07", "173.9", "58.1%", "1.6%", "2.1%", "0.5%"],
  ]);
  assert.deepEqual(await tablesOf("camelot/foo.pdf"), [expected]);
  await using dir = await rootWith({ "foo.pdf": "camelot/foo.pdf" });
  const { text } = await extractOk(dir.path, "doc extract --in foo.pdf");
  // In its place: after the table's caption, before the paragraph that follows it on the page.
  const caption = text.indexOf("Table 2-1. Simulated fuel savings");
  const table = text.indexOf("| Cycle<br>Name | KI<br>(1/km) | Distance<br>(mi) | Percent Fuel Savings |  |  |  |\n");
  const after = text.indexOf("Figure 2-1 extends the analysis");
  assert.ok(caption >= 0 && caption < table && table < after, text);
  assert.ok(text.includes("| 4171_1 | 0.07 | 173.9 | 58.1% | 1.6% | 2.1% | 0.5% |\n"));
  assert.doesNotMatch(text, /^2012_2 3\.30/m, "the cells are not also left as text");
  const plain = (await extractOk(dir.path, "doc extract --in foo.pdf --mode text")).text;
  assert.ok(plain.includes("2145_1\t0.68\t11.2\t2.4%\t0.1%\t9.5%\t2.7%\n"), "tab-separated in text mode");
});

Deno.test("camelot's twotables_2.pdf: two ruled tables on one page, both read (camelot's data_lattice_two_tables)", async () => {
  const header = [
    ["State", "n", "Literacy Status", "", "", "", "", ""],
    ["", "", "Illiterate", "Read &\nWrite", "1-4 std.", "5-8 std.", "9-12 std.", "College"],
  ];
  const first = [
    ...header,
    ["Kerala", "2400", "7.2", "0.5", "25.3", "20.1", "41.5", "5.5"],
    ["Tamil Nadu", "2400", "21.4", "2.3", "8.8", "35.5", "25.8", "6.2"],
    ["Karnataka", "2399", "37.4", "2.8", "12.5", "18.3", "23.1", "5.8"],
    ["Andhra Pradesh", "2400", "54.0", "1.7", "8.4", "13.2", "18.8", "3.9"],
    ["Maharashtra", "2400", "22.0", "0.9", "17.3", "20.3", "32.6", "7.0"],
    ["Gujarat", "2390", "28.6", "0.1", "14.4", "23.1", "26.9", "6.8"],
    ["Madhya Pradesh", "2402", "29.1", "3.4", "8.5", "35.1", "13.3", "10.6"],
    ["Orissa", "2405", "33.2", "1.0", "10.4", "25.7", "21.2", "8.5"],
    ["West Bengal", "2293", "41.7", "4.4", "13.2", "17.1", "21.2", "2.4"],
    ["Uttar Pradesh", "2400", "35.3", "2.1", "4.5", "23.3", "27.1", "7.6"],
    ["Pooled", "23889", "30.9", "1.9", "12.3", "23.2", "25.2", "6.4"],
  ];
  const second = [
    ...header,
    ["Kerala", "2400", "8.8", "0.3", "20.1", "17.0", "45.6", "8.2"],
    ["Tamil Nadu", "2400", "29.9", "1.5", "8.5", "33.1", "22.3", "4.8"],
    ["Karnataka", "2399", "47.9", "2.5", "10.2", "18.8", "18.4", "2.3"],
    ["Andhra Pradesh", "2400", "66.4", "0.7", "6.8", "12.9", "11.4", "1.8"],
    ["Maharashtra", "2400", "41.3", "0.6", "14.1", "20.1", "21.6", "2.2"],
    ["Gujarat", "2390", "57.6", "0.1", "10.3", "16.5", "12.9", "2.7"],
    ["Madhya Pradesh", "2402", "58.7", "2.2", "6.6", "24.1", "5.3", "3.0"],
    ["Orissa", "2405", "50.0", "0.9", "8.1", "21.9", "15.1", "4.0"],
    ["West Bengal", "2293", "49.1", "4.8", "11.2", "16.8", "17.1", "1.1"],
    ["Uttar Pradesh", "2400", "67.3", "2.0", "3.1", "17.2", "7.7", "2.7"],
    ["Pooled", "23889", "47.7", "1.5", "9.9", "19.9", "17.8", "3.3"],
  ];
  const tables = await tablesOf("camelot/twotables_2.pdf");
  assert.equal(tables.length, 2);
  // Top to bottom, as the page has them.
  assert.deepEqual(tables, [first, second]);
});

/** A 3×3 grid ruled with stroked lines, and text drawn at the given places (Helvetica 10). */
function gridPdf(texts: [number, number, string][], frame = true): Uint8Array {
  const xs = [100, 200, 300, 400];
  const ys = [700, 680, 660, 640];
  let content = "0.5 w\n";
  for (const [k, y] of ys.entries()) {
    if (frame || (k > 0 && k < ys.length - 1)) content += `100 ${y} m 400 ${y} l S\n`;
  }
  for (const [k, x] of xs.entries()) {
    if (frame || (k > 0 && k < xs.length - 1)) content += `${x} 640 m ${x} 700 l S\n`;
  }
  for (const [x, y, text] of texts) content += `BT /F1 10 Tf ${x} ${y} Td (${text}) Tj ET\n`;
  return buildPdf([
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 500 800] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
    stream(content),
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ]);
}

const CELLS: [number, number, string][] = [
  [105, 686, "Name"],
  [205, 686, "Count"],
  [305, 686, "Share"],
  [105, 666, "Alder"],
  [205, 666, "3"],
  [305, 666, "48%"],
  [105, 646, "Birch"],
  [205, 646, "5"],
  [305, 646, "52%"],
];

Deno.test("a grid of stroked lines is a table; a grid crossed by text is not, and its text stays", async () => {
  await using dir = await rootWith({});
  const tablesIn = async (name: string, pdf: Uint8Array) => {
    await Deno.writeFile(`${dir.path}/${name}`, pdf);
    const json = JSON.parse((await extractOk(dir.path, `doc extract --in ${name} --mode json`)).text);
    const blocks = (json.blocks as JsonPage[])[0].blocks;
    return { tables: blocks.filter((b) => b.type === "table").map((b) => b.rows), blocks };
  };
  const ruled = await tablesIn("ruled.pdf", gridPdf(CELLS));
  assert.deepEqual(ruled.tables, [[["Name", "Count", "Share"], ["Alder", "3", "48%"], ["Birch", "5", "52%"]]]);
  // A piece of text that runs across a rule: which cell it belongs to is not certain.
  const crossed = [
    ...CELLS.slice(0, 3),
    [105, 666, "Alder Creek runs past the rule"],
    ...CELLS.slice(4),
  ] as typeof CELLS;
  const across = await tablesIn("crossed.pdf", gridPdf(crossed));
  assert.deepEqual(across.tables, []);
  assert.ok(JSON.stringify(across.blocks).includes("Alder Creek runs past the rule"));
  // Inner rules only, no frame: not a closed grid — but its cells stand clearly apart in columns, so the
  // alignment alone makes them a table (alignedTables), with the same cells.
  const open = await tablesIn("open.pdf", gridPdf(CELLS, false));
  assert.deepEqual(open.tables, ruled.tables);
  for (const [, , word] of CELLS) assert.ok(JSON.stringify(open.blocks).includes(word), word);
});

Deno.test("camelot's health.pdf: a table without rules is read from its columns; its 23 rows are camelot's", async () => {
  const expected = JSON.parse(
    await Deno.readTextFile(new URL("../../fixtures/doc/camelot/health.rows.json", import.meta.url)),
  ) as string[][];
  const tables = await tablesOf("camelot/health.pdf");
  assert.equal(tables.length, 1);
  // The rows of figures; the header, set over several lines with cells spanning columns, stays text above it.
  assert.deepEqual(tables[0], expected);
  await using dir = await rootWith({ "h.pdf": "camelot/health.pdf" });
  const { text } = await extractOk(dir.path, "doc extract --in h.pdf");
  assert.ok(text.indexOf("Public Health Outlay 2012-13") < text.indexOf("| Andhra Pradesh | 47,824,589 |"));
  assert.ok(text.includes("Medical &"), "the header's words are kept");
});

/** One page of text only (Helvetica 10): each [x, y, text] drawn where it says, no rule anywhere. */
function textPdf(texts: [number, number, string][]): Uint8Array {
  let content = "";
  for (const [x, y, text] of texts) content += `BT /F1 10 Tf ${x} ${y} Td (${text}) Tj ET\n`;
  return buildPdf([
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
    stream(content),
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ]);
}

Deno.test("a table without rules keeps its rows with empty cells, each cell in the column whose band holds it", async () => {
  const columns = [60, 220, 380, 500];
  const rows = [
    ["NAME", "TITLE", "REGION", "SALARY"],
    ["BAIN, J MATTHEW", "DISTRICT DIRECTOR", "", "37,499.96"],
    ["CARTER, ANN", "CLERK", "NORTH", "21,000.00"],
    ["DIAZ, LUIS", "ANALYST", "SOUTH", "45,120.50"],
    ["EVANS, KIM", "", "EAST", "30,010.00"],
    ["FOX, RAY", "MANAGER", "WEST", "52,300.00"],
    ["GRANT, LEE", "ENGINEER", "NORTH", "61,250.00"],
    ["HILL, MAY", "ANALYST", "EAST", "44,900.00"],
  ];
  const texts: [number, number, string][] = [[60, 720, "Salaries paid in 2024, by employee."]];
  rows.forEach((row, r) =>
    row.forEach((cell, c) => {
      if (cell) texts.push([columns[c], 690 - r * 14, cell]);
    })
  );
  await using dir = await rootWith({});
  await Deno.writeFile(`${dir.path}/payroll.pdf`, textPdf(texts));
  const json = JSON.parse((await extractOk(dir.path, "doc extract payroll.pdf --mode json")).text);
  const blocks = (json.blocks as JsonPage[])[0].blocks;
  assert.deepEqual(blocks.filter((b) => b.type === "table").map((b) => b.rows), [rows]);
  assert.ok(JSON.stringify(blocks).includes("Salaries paid in 2024"), "the line above stays text");
  const { text } = await extractOk(dir.path, "doc extract payroll.pdf");
  assert.ok(text.includes("| BAIN, J MATTHEW | DISTRICT DIRECTOR |  | 37,499.96 |"));
  const plain = await extractOk(dir.path, "doc extract payroll.pdf --mode text");
  assert.ok(plain.text.includes("BAIN, J MATTHEW\tDISTRICT DIRECTOR\t\t37,499.96\n"));
});
