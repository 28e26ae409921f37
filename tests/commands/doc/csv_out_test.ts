/**
 * `doc extract --format csv` (`--mode csv`): spreadsheets as RFC 4180 CSV, one sheet per file.
 * The oracles: hand-checked CSV files for the real workbook fixture, and Python's csv module
 * reading pterm's CSV back into the cells `--mode json` reports.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { exec } from "../../_support/helpers.ts";
import { toCsv } from "../../../commands/doc/csv_out.ts";
import { extractOk, FIXTURES, listFiles, rootWith } from "./helpers.ts";

const BUDGET_CSV = await Deno.readTextFile(`${FIXTURES}csv/book.Budget.csv`);
const NOTES_CSV = await Deno.readTextFile(`${FIXTURES}csv/book.Notes.csv`);

/** Python's csv module reading each text: the rows it holds. */
async function pythonRows(texts: readonly string[]): Promise<string[][][]> {
  const script = "import csv, io, json, sys\n" +
    "texts = json.load(sys.stdin)\n" +
    "json.dump([list(csv.reader(io.StringIO(t, newline=''))) for t in texts], sys.stdout)\n";
  const child = new Deno.Command("python3", { args: ["-c", script], stdin: "piped", stdout: "piped" }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(JSON.stringify(texts)));
  await writer.close();
  const { success, stdout } = await child.output();
  assert.ok(success, "python3 read the CSV");
  return JSON.parse(new TextDecoder().decode(stdout));
}

Deno.test("--format csv prints the first sheet as CSV and names the line for the next", async () => {
  await using dir = await rootWith({ "data/book.xlsx": "book.xlsx" });
  const envelope = await exec(dir.path, "doc extract data/book.xlsx --format csv");
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  const result = envelope.result as Record<string, unknown>;
  assert.equal(result.mode, "csv");
  assert.deepEqual(result.range, { unit: "sheet", first: 1, last: 1, of: 2 });
  assert.ok(envelope.stdout.endsWith(`\n\n${BUDGET_CSV}`), envelope.stdout);
  assert.match(envelope.stdout, /Only sheet 1 `Budget` is here.*`doc extract data\/book\.xlsx --format csv --pages 2`/);
  assert.equal(await Deno.readTextFile(`${dir.path}/${result.output}`), BUDGET_CSV);

  // The line the summary names, run next: the second sheet, by number and by name.
  for (
    const line of [
      "doc extract data/book.xlsx --format csv --pages 2",
      "doc extract data/book.xlsx --mode csv --pages Notes",
    ]
  ) {
    const next = await extractOk(dir.path, line);
    assert.equal(next.text, NOTES_CSV);
    assert.ok(next.envelope.stdout.endsWith(`\n\n${NOTES_CSV}`));
    assert.doesNotMatch(next.envelope.stdout, /Only sheet/);
  }
});

Deno.test("--format csv --out folder/ writes one file per sheet; --out x.csv one sheet there, several beside it", async () => {
  await using dir = await rootWith({ "data/book.xlsx": "book.xlsx" });
  const envelope = await exec(dir.path, "doc extract data/book.xlsx --format csv --out csv/");
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  assert.deepEqual((envelope.result as { files: string[] }).files, ["csv/book.Budget.csv", "csv/book.Notes.csv"]);
  assert.equal(await Deno.readTextFile(`${dir.path}/csv/book.Budget.csv`), BUDGET_CSV);
  assert.equal(await Deno.readTextFile(`${dir.path}/csv/book.Notes.csv`), NOTES_CSV);
  assert.equal(envelope.stdout.includes("Station"), false, "with --out stdout is only the summary");

  // The same call again replaces the files, and an existing folder without `/` is a folder too.
  const again = await exec(dir.path, "doc extract data/book.xlsx --format csv --out csv");
  assert.equal(again.exit_code, 0, again.stderr);
  assert.deepEqual(await listFiles(`${dir.path}/csv`), ["book.Budget.csv", "book.Notes.csv"]);

  const several = await exec(dir.path, "doc extract data/book.xlsx --mode csv --out out/all.csv");
  assert.deepEqual((several.result as { files: string[] }).files, ["out/all.Budget.csv", "out/all.Notes.csv"]);
  const one = await exec(dir.path, "doc extract data/book.xlsx --mode csv --pages Notes --out out/notes.csv");
  assert.deepEqual((one.result as { files: string[] }).files, ["out/notes.csv"]);
  assert.equal(await Deno.readTextFile(`${dir.path}/out/notes.csv`), NOTES_CSV);
});

Deno.test("--format csv on a CSV/TSV input rewrites it as CSV; the input is never overwritten", async () => {
  await using dir = await rootWith({});
  await Deno.writeTextFile(`${dir.path}/data.tsv`, 'a\tb, c\td "q"\n1\t2\t3\n');
  const tsv = await extractOk(dir.path, "doc extract data.tsv --format csv");
  assert.equal(tsv.text, 'a,"b, c","d ""q"""\n1,2,3\n');
  await Deno.writeTextFile(`${dir.path}/t.csv`, "x,y\n1,2\n");
  const refused = await exec(dir.path, "doc extract t.csv --format csv --out .");
  assert.equal(refused.error_code, "InvalidArgs");
  assert.match(refused.stderr, /over the input document itself.*--out csv\//);
  assert.equal(await Deno.readTextFile(`${dir.path}/t.csv`), "x,y\n1,2\n");
});

Deno.test("--format csv on a document that is not a spreadsheet is refused with the line that runs", async () => {
  await using dir = await rootWith({ "docs/report.docx": "report.docx" });
  const refused = await exec(dir.path, "doc extract docs/report.docx --format csv");
  assert.equal(refused.error_code, "UnsupportedFormat");
  assert.match(refused.stderr, /csv writes the sheets of a spreadsheet/);
  const line = refused.stderr.match(/`(doc extract [^`]+--mode text)`/)?.[1];
  assert.ok(line, refused.stderr);
  assert.deepEqual(await listFiles(dir.path, "docs"), ["docs/report.docx"], "nothing written");
  const next = await exec(dir.path, line);
  assert.equal(next.exit_code, 0, next.stderr);
});

Deno.test("Python's csv module reads pterm's CSV of a workbook back into the cells of --mode json", async () => {
  await using dir = await rootWith({ "book.xlsx": "book.xlsx" });
  const json = JSON.parse((await extractOk(dir.path, "doc extract book.xlsx --mode json")).text);
  await exec(dir.path, "doc extract book.xlsx --format csv --out csv/");
  const texts = await Promise.all(
    ["Budget", "Notes"].map((name) => Deno.readTextFile(`${dir.path}/csv/book.${name}.csv`)),
  );
  assert.deepEqual(await pythonRows(texts), json.blocks.map((sheet: { rows: string[][] }) => sheet.rows));
});

Deno.test("property: Python's csv module reads toCsv's text back into the same cells", async () => {
  const cell = fc.oneof(
    fc.string(),
    fc.constantFrom("", ",", '"', '""', "\n", "\r\n", "\r", " lead", "a,b", 'say "hi"', "é, ü"),
    fc.string({ unit: "grapheme", maxLength: 6 }),
  );
  const table = fc.array(fc.array(cell, { minLength: 1, maxLength: 5 }), { maxLength: 6 });
  const tables = fc.sample(table, { numRuns: 300, seed: 4180 });
  assert.deepEqual(await pythonRows(tables.map(toCsv)), tables);
});
