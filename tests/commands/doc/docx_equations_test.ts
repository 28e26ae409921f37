/**
 * Word equations (OMML) become LaTeX, `$…$` inside a line and `$$…$$` for display equations
 * on markitdown's own equations.docx (tests/fixtures/doc/markitdown). The
 * checks are markitdown's for that file (test_docx_equations), plus: every number and letter of
 * each equation survives in order, and the LaTeX's braces balance.
 */

import assert from "node:assert/strict";
import { extractOk, FIXTURES, rootWith } from "./helpers.ts";
import { readZipEntries, writeZip } from "./zip_writer.ts";

/** The text of each equation's m:t elements, in document order, from document.xml itself. */
async function equationTexts(): Promise<{ display: boolean; text: string }[]> {
  const entries = await readZipEntries(await Deno.readFile(`${FIXTURES}markitdown/equations.docx`));
  const xml = new TextDecoder().decode(entries["word/document.xml"]);
  const found: { display: boolean; text: string }[] = [];
  for (const match of xml.matchAll(/<m:oMathPara>[\s\S]*?<\/m:oMathPara>|<m:oMath>[\s\S]*?<\/m:oMath>/g)) {
    const text = [...match[0].matchAll(/<m:t(?: [^>]*)?>([^<]*)<\/m:t>/g)].map((m) => m[1]).join("");
    found.push({ display: match[0].startsWith("<m:oMathPara"), text });
  }
  return found;
}

function balanced(latex: string): boolean {
  let depth = 0;
  for (const char of latex.replace(/\\[{}]/g, "")) {
    if (char === "{") depth++;
    if (char === "}" && --depth < 0) return false;
  }
  return depth === 0;
}

Deno.test("DOCX equations come out as LaTeX: $…$ inline, $$…$$ for display equations (markitdown's equations.docx)", async () => {
  await using dir = await rootWith({ "eq.docx": "markitdown/equations.docx" });
  const { text } = await extractOk(dir.path, "doc extract --in eq.docx");
  // markitdown's own assertions for this file.
  assert.ok(text.includes("$m=1$"), text);
  const display = [...text.matchAll(/\$\$(.+?)\$\$/g)].map((m) => m[1]);
  assert.ok(display.length > 0, "display equations");

  const inline = [...text.replace(/\$\$.+?\$\$/g, "").matchAll(/\$(.+?)\$/g)].map((m) => m[1]);
  const sources = await equationTexts();
  assert.equal(display.length, sources.filter((s) => s.display).length);
  assert.equal(inline.length, sources.filter((s) => !s.display).length);
  const latex = [...text.matchAll(/\$\$(.+?)\$\$|\$(.+?)\$/g)].map((m) => m[1] ?? m[2]);
  sources.forEach((source, i) => {
    assert.ok(balanced(latex[i]), latex[i]);
    // Every number of the equation, in order, and no equation left empty ("an inline equation: .").
    const numbers = source.text.match(/\d+(?:\.\d+)?/g) ?? [];
    let from = 0;
    for (const number of numbers) {
      const at = latex[i].indexOf(number, from);
      assert.ok(at >= 0, `${number} of "${source.text}" in ${latex[i]}`);
      from = at + number.length;
    }
    assert.ok(latex[i].trim().length >= source.text.replace(/\s/g, "").length / 2, latex[i]);
  });
  assert.match(text, /^For \$m=1\$,$/m, "the inline equation stays inside its sentence");
});

Deno.test("equation tags inside an XML comment are not equations, and the real equations around them are converted", async () => {
  const entries = await readZipEntries(await Deno.readFile(`${FIXTURES}markitdown/equations.docx`));
  const math = "<m:oMath><m:r><m:t>x</m:t></m:r><m:r><m:t>=1</m:t></m:r></m:oMath>";
  const body = `<w:p><w:r><w:t xml:space="preserve">a </w:t></w:r>${math}</w:p><!-- <m:oMath> </m:oMath> -->` +
    `<w:p><!-- </m:oMath> -->${math}<w:r><w:t xml:space="preserve"> b</w:t></w:r></w:p>`;
  const xml = new TextDecoder().decode(entries["word/document.xml"]);
  const start = xml.indexOf("<w:body>") + "<w:body>".length;
  entries["word/document.xml"] = new TextEncoder().encode(
    xml.slice(0, start) + body + xml.slice(xml.indexOf("<w:sectPr")),
  );
  await using dir = await rootWith({});
  await Deno.writeFile(`${dir.path}/commented.docx`, await writeZip(entries));
  const { text } = await extractOk(dir.path, "doc extract --in commented.docx --mode text");
  assert.equal(text, "a $x=1$\n\n$x=1$ b\n");
});
