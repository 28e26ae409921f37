/**
 * Reading order on real PDFs from PDF.js's test corpus (tests/fixtures/doc/pdfjs), checked line by
 * line against poppler's pdftotext: a page turned by /Rotate 90, and
 * Arabic set right to left.
 */

import assert from "node:assert/strict";
import { extractOk, FIXTURES, rootWith } from "./helpers.ts";

/** pdftotext's lines (reading order, no layout), without its bidi embedding marks and blank lines. */
async function popplerLines(fixture: string): Promise<string[]> {
  const out = await new Deno.Command("pdftotext", { args: [`${FIXTURES}${fixture}`, "-"] }).output();
  assert.equal(out.code, 0);
  return linesOf(new TextDecoder().decode(out.stdout));
}

function linesOf(text: string): string[] {
  return text.replace(/[\u202A-\u202E\u2066-\u2069\f]/g, "").split("\n").map((l) => l.trim()).filter(Boolean);
}

async function ptermLines(fixture: string): Promise<string[]> {
  await using dir = await rootWith({ "in.pdf": fixture });
  return linesOf((await extractOk(dir.path, "doc extract --in in.pdf --mode text --out out.txt")).text);
}

Deno.test("a page turned by /Rotate 90 reads line by line as pdftotext reads it", async () => {
  const expected = await popplerLines("pdfjs/rotation.pdf");
  assert.ok(expected.includes("Second line here."), expected.join("\n"));
  assert.deepEqual(await ptermLines("pdfjs/rotation.pdf"), expected);
});

Deno.test("Arabic lines read from the right, words and ligatures as pdftotext gives them", async () => {
  const expected = await popplerLines("pdfjs/ArabicCIDTrueType.pdf");
  assert.ok(expected.length >= 4 && expected.every((line) => /[\u0600-\u06FF]/.test(line)), expected.join("\n"));
  const lines = await ptermLines("pdfjs/ArabicCIDTrueType.pdf");
  assert.deepEqual(lines, expected);
  assert.ok(lines[0].startsWith("اﻧﻮاع"), "the first word (anwāʿ, 'kinds') comes first");
});

Deno.test("Hebrew lines with numbers and brackets keep pdftotext's word order (PDF.js's issue11656.pdf)", async () => {
  const hebrewWords = (line: string): string[] => line.match(/[\u05D0-\u05EA]+/g) ?? [];
  const expected = (await popplerLines("pdfjs/issue11656.pdf")).map(hebrewWords).filter((words) => words.length > 0);
  assert.ok(expected.some((words) => words.includes("סעיף")), "the line with a section number is there");
  const lines = (await ptermLines("pdfjs/issue11656.pdf")).map(hebrewWords).filter((words) => words.length > 0);
  assert.deepEqual(lines, expected);
});
