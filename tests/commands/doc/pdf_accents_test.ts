/**
 * Accents drawn as separate glyphs (pdfTeX with Computer Modern: `´` is drawn, then pdfTeX moves
 * back and draws `e`) are composed with their letter as pdftotext composes them:
 * `M´etro` → `Métro`, `avia¸c˜ao` → `aviação`. The PDF is pdfTeX's own output for
 * tests/fixtures/doc/tex/accents.tex (Debian's texlive-latex-base, OT1 encoding, the default).
 */

import assert from "node:assert/strict";
import { extractOk, FIXTURES, rootWith } from "./helpers.ts";

/** Words after NFC; pdftotext leaves a dotless ı under a diaeresis (`naı̈ve`), pterm writes `ï`, which reads the same. */
function words(text: string): string[] {
  return text.replace(/\u0131(\p{M})/gu, "i$1").normalize("NFC").split(/\s+/).filter(Boolean);
}

Deno.test("accents of a pdfTeX PDF are composed with their letters, word for word as pdftotext reads them", async () => {
  const poppler = await new Deno.Command("pdftotext", { args: [`${FIXTURES}tex/accents.pdf`, "-"] }).output();
  assert.equal(poppler.code, 0);
  const expected = words(new TextDecoder().decode(poppler.stdout));
  for (const word of ["Métro", "naïve", "aviação", "São", "Île,", "Ångström,", "Český,", "Dvořák", "Niño."]) {
    assert.ok(expected.includes(word), `pdftotext reads ${word}`);
  }
  await using dir = await rootWith({ "in.pdf": "tex/accents.pdf" });
  const { text } = await extractOk(dir.path, "doc extract --in in.pdf --mode text --out out.txt");
  assert.doesNotMatch(text, /[\u00B4\u00A8\u02DC\u00B8\u02C6\u02C7\u02DA`]/, "no accent left on its own");
  assert.deepEqual(words(text), expected);
});
