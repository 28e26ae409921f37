/**
 * PDF text that depends on font data: predefined CMaps and broken Unicode maps.
 *
 * CJK PDFs whose fonts are not embedded and carry no ToUnicode map (iText's and Acrobat's Asian
 * font packs): their text exists only through PDF.js's predefined CMaps, which pterm ships in
 * commands/doc/pdf/cmaps/. Run through the real kernel and sandbox worker, which may read
 * nothing outside the root and pterm's code, and may fetch nothing.
 */

import assert from "node:assert/strict";
import { exec, makeRoot } from "../../_support/helpers.ts";
import { cjkPdf, controlCharacterPdf } from "./pdf_builder.ts";

const CASES = [
  // Simplified Chinese, UCS-2 codes: 中文汉字.
  {
    name: "gb",
    font: "STSong-Light",
    cmap: "UniGB-UCS2-H",
    ordering: "GB1",
    hex: "4E2D65876C495B57",
    text: "中文汉字",
  },
  // Japanese in Shift-JIS through 90ms-RKSJ-H: 日本語.
  { name: "jp", font: "HeiseiMin-W3", cmap: "90ms-RKSJ-H", ordering: "Japan1", hex: "93FA967B8CEA", text: "日本語" },
  // Korean, UCS-2 codes: 한국어.
  {
    name: "kr",
    font: "HYSMyeongJo-Medium",
    cmap: "UniKS-UCS2-H",
    ordering: "Korea1",
    hex: "D55CAD6DC5B4",
    text: "한국어",
  },
];

Deno.test("doc extract: CJK text through predefined CMaps is extracted, nothing fetched", async (t) => {
  await using root = await makeRoot("pterm-doc-cjk-");
  for (const c of CASES) {
    await t.step(`${c.cmap}`, async () => {
      await Deno.writeFile(`${root.path}/${c.name}.pdf`, cjkPdf(c.font, c.cmap, "Adobe", c.ordering, c.hex));
      const envelope = await exec(root.path, `doc extract --in ${c.name}.pdf --mode text`);
      assert.equal(envelope.exit_code, 0, envelope.stderr);
      const result = envelope.result as { status: string; output: string };
      assert.equal(result.status, "complete");
      const text = await Deno.readTextFile(`${root.path}/${result.output}`);
      assert.equal(text.trim(), c.text);
      assert.doesNotMatch(envelope.stderr, /Download/);
    });
  }
});

Deno.test("doc extract: control characters from a font's Unicode map are dropped with a warning", async () => {
  await using root = await makeRoot("pterm-doc-controls-");
  await Deno.writeFile(`${root.path}/controls.pdf`, controlCharacterPdf());
  const envelope = await exec(root.path, "doc extract --in controls.pdf --mode text");
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  const result = envelope.result as { output: string; warnings: string[] };
  assert.equal((await Deno.readTextFile(`${root.path}/${result.output}`)).trim(), "AB");
  assert.ok(result.warnings.some((w) => /^2 control character\(s\) on page\(s\) 1 were dropped/.test(w)));
});
