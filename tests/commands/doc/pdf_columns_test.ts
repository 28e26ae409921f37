/**
 * PDF lines that stand in columns without the certainty of a table keep their cell boundaries as
 * tabs in text mode (commands/doc/pdf/columns.ts). The real document: page 23 of Mozilla's
 * TAMReview.pdf (PDF.js's test corpus, tests/fixtures/doc/pdfjs/), its boards of editors set in two
 * columns whose lines do not all agree (a left cell missing here, a line of the right column on a
 * baseline of its own there) — no Markdown table, and before this every line read
 * `Dan Robey, Georgia State University Alan Dennis, Indiana University`, the boundary gone.
 * pdftotext's layout mode is the oracle of where the columns are.
 */

import assert from "node:assert/strict";
import { extractOk, rootWith } from "./helpers.ts";
import fc from "fast-check";
import { buildPdf, stream } from "./pdf_builder.ts";
import { Baselines } from "../../../commands/doc/pdf/tables.ts";

/** pdftotext -layout of one page: the text as placed on a character grid. */
async function layout(path: string, page: number): Promise<string> {
  const output = await new Deno.Command("pdftotext", {
    args: ["-layout", "-enc", "UTF-8", "-f", `${page}`, "-l", `${page}`, path, "-"],
    stdout: "piped",
  }).output();
  assert.ok(output.success, "pdftotext -layout failed");
  return new TextDecoder().decode(output.stdout);
}

/** What `cut -f<field>` prints for `text`: the real tool a user pipes the text mode into. */
async function cut(text: string, field: number): Promise<string[]> {
  const child = new Deno.Command("cut", { args: [`-f${field}`], stdin: "piped", stdout: "piped" }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const output = await child.output();
  assert.ok(output.success);
  return new TextDecoder().decode(output.stdout).split("\n");
}

Deno.test("TAMReview.pdf page 23: the two columns of names are tab-separated in text mode, as pdftotext -layout places them", async () => {
  await using dir = await rootWith({ "tam.pdf": "pdfjs/TAMReview.pdf" });
  const { text } = await extractOk(dir.path, "doc extract tam.pdf --pages 23 --mode text");
  const grid = (await layout(`${dir.path}/tam.pdf`, 23)).split("\n");
  // The oracle's columns: the right one starts where "Editorial Board:" does, on every line of the region.
  const first = grid.findIndex((line) => line.startsWith("Advisory Board:"));
  const last = grid.findIndex((line) => line.includes("Email: admin@sprouts.aisnet.org"));
  assert.ok(first >= 0 && last > first, "pdftotext -layout has the region");
  const boundary = grid[first].indexOf("Editorial Board:");
  assert.ok(boundary > 20);
  const region = grid.slice(first, last + 1);
  const left = region.map((line) => line.slice(0, boundary).trim()).filter(Boolean);
  const right = region.map((line) => line.slice(boundary).trim()).filter(Boolean);
  assert.ok(left.length >= 25 && right.length >= 25, `${left.length} / ${right.length} cells`);
  for (const line of region) {
    assert.ok(line.slice(boundary - 2, boundary).trim() === "", `nothing of the left column crosses: ${line}`);
  }

  // pterm's lines of the region, which a user cuts the columns out of with cut(1).
  const lines = text.split("\n");
  const from = lines.findIndex((line) => line.startsWith("Advisory Board:\t"));
  const to = lines.findIndex((line) => line.endsWith("\tEmail: admin@sprouts.aisnet.org"));
  assert.ok(from >= 0 && to > from, text);
  const tabbed = lines.slice(from, to + 1).join("\n") + "\n";
  assert.deepEqual((await cut(tabbed, 1)).filter(Boolean), left, "cut -f1: the left column, in order");
  assert.deepEqual((await cut(tabbed, 2)).filter(Boolean), right, "cut -f2: the right column, in order");
  // A line whose left cell is empty keeps its tab, so its name stays in the right column.
  assert.ok(text.includes("\nLucas Introna, Lancaster University\n") === false);
  assert.ok(text.includes("\n\tLucas Introna, Lancaster University\n"), "the empty left cell keeps its tab");
  assert.ok(text.includes("Dan Robey, Georgia State University\tAlan Dennis, Indiana University\n"));
  // Python's csv module, read with the tab as delimiter, gives the same rows.
  const python = await new Deno.Command("python3", {
    args: [
      "-c",
      "import csv,sys\nfor row in csv.reader(sys.stdin, delimiter='\\t'):\n  print(repr(row))",
    ],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const writer = python.stdin.getWriter();
  await writer.write(new TextEncoder().encode(tabbed));
  await writer.close();
  const rows = new TextDecoder().decode((await python.output()).stdout).split("\n");
  assert.ok(rows.includes("['', 'Lucas Introna, Lancaster University']"), rows.join("\n"));
  assert.ok(rows.includes("['Ron Weber, Monash University', 'Sid Huff, Victoria University of Wellington']"));
});

Deno.test("TAMReview.pdf page 23 in Markdown: no table is made of the uncertain columns, and no tab reaches the text", async () => {
  await using dir = await rootWith({ "tam.pdf": "pdfjs/TAMReview.pdf" });
  const { text } = await extractOk(dir.path, "doc extract tam.pdf --pages 23");
  assert.ok(text.includes("Dan Robey, Georgia State University Alan Dennis, Indiana University\n"));
  assert.ok(!text.includes("\t"));
  assert.doesNotMatch(text, /\| --- \|/);
  const json = JSON.parse((await extractOk(dir.path, "doc extract tam.pdf --pages 23 --mode json")).text);
  assert.ok(JSON.stringify(json).includes("Dan Robey, Georgia State University\\tAlan Dennis, Indiana University"));
});

/** One page of text only (Helvetica 9): each [x, y, text] drawn where it says. */
function textPdf(texts: [number, number, string][]): Uint8Array {
  let content = "";
  for (const [x, y, text] of texts) content += `BT /F1 9 Tf ${x} ${y} Td (${text}) Tj ET\n`;
  return buildPdf([
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
    stream(content),
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ]);
}

Deno.test("prose set in two columns is not read as columns: its lines keep their spaces", async () => {
  const words = "the survey was repeated at every station in the spring and again in the autumn so that".split(" ");
  const texts: [number, number, string][] = [];
  for (let line = 0; line < 8; line++) {
    const y = 700 - line * 12;
    texts.push([72, y, words.slice(line % 4, line % 4 + 11).join(" ")]);
    texts.push([320, y, words.slice((line + 2) % 4, (line + 2) % 4 + 11).join(" ")]);
  }
  await using dir = await rootWith({});
  await Deno.writeFile(`${dir.path}/prose.pdf`, textPdf(texts));
  const { text } = await extractOk(dir.path, "doc extract prose.pdf --mode text");
  assert.ok(!text.includes("\t"), JSON.stringify(text));
});

Deno.test("Baselines gathers pieces into the lines a first-fit scan of every line makes", () => {
  // Baselines near each other (a few lines, pieces a little above or below them), and odd numbers.
  const value = fc.oneof(
    fc.tuple(fc.constantFrom(0, 12, 100, 700), fc.integer({ min: -600, max: 600 })).map(([base, off]) =>
      base + off / 100
    ),
    fc.constantFrom(0, -0, 700.0000001, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
  );
  const size = fc.oneof(
    fc.integer({ min: 5, max: 200 }).map((tenths) => tenths / 10),
    fc.constantFrom(1, 10, 0, -3, Number.NaN, Number.POSITIVE_INFINITY),
  );
  fc.assert(
    fc.property(fc.array(fc.tuple(value, size), { maxLength: 80 }), (pieces) => {
      const baselines = new Baselines();
      const scanned: { y: number; size: number; pieces: number[] }[] = [];
      pieces.forEach(([y, s], i) => {
        baselines.add(y, s, { i, x0: 0, x1: 1, str: "x" });
        let line = scanned.find((l) => Math.abs(l.y - y) <= Math.min(l.size, s) * 0.3);
        if (!line) scanned.push(line = { y, size: s, pieces: [] });
        line.pieces.push(i);
      });
      assert.deepEqual(
        baselines.lines.map((line) => ({ y: line.y, size: line.size, pieces: line.pieces.map((p) => p.i) })),
        scanned,
      );
    }),
    { numRuns: 500 },
  );
});
