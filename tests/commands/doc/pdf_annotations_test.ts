/**
 * PDF form-field values and free-text annotations are extracted where they sit, as pdftotext
 * shows them: pypdf's form_evince.pdf (a text field filled in Evince), PDF.js's
 * annotation-tx.pdf (a text field whose appearance PDF.js reads no text from) and
 * annotation-freetext.pdf (a FreeText note). Each is compared line by line with pdftotext.
 */

import assert from "node:assert/strict";
import { extractOk, FIXTURES, rootWith } from "./helpers.ts";

function linesOf(text: string): string[] {
  return text.replace(/\f/g, "").split("\n").map((l) => l.trim()).filter(Boolean);
}

async function popplerLines(fixture: string): Promise<string[]> {
  const out = await new Deno.Command("pdftotext", { args: [`${FIXTURES}${fixture}`, "-"] }).output();
  assert.equal(out.code, 0);
  return linesOf(new TextDecoder().decode(out.stdout));
}

for (
  const [fixture, shown] of [
    ["pypdf/form_evince.pdf", "foo bar"],
    ["pdfjs/annotation-tx.pdf", "tx annotation"],
    ["pdfjs/annotation-freetext.pdf", "FreeText content"],
  ] as const
) {
  Deno.test(`${fixture}: the annotation's text ("${shown}") is extracted where pdftotext shows it`, async () => {
    const expected = await popplerLines(fixture);
    assert.ok(expected.includes(shown), expected.join("\n"));
    await using dir = await rootWith({ "in.pdf": fixture });
    const { text } = await extractOk(dir.path, "doc extract --in in.pdf --mode text --out out.txt");
    assert.deepEqual(linesOf(text), expected);
  });
}
