/** The doc skill's examples read the fixture documents from docs/, slides/ and data/. */

import { FIXTURES } from "./helpers.ts";

export async function docSkillSetup(root: string): Promise<() => Promise<void>> {
  const files: Record<string, string> = {
    "docs/report.pdf": "report.pdf",
    "docs/manual.pdf": "debian/libtasn1.pdf",
    "docs/report.docx": "report.docx",
    "slides/deck.pptx": "deck.pptx",
    "data/book.xlsx": "book.xlsx",
  };
  for (const [destination, fixture] of Object.entries(files)) {
    await Deno.mkdir(`${root}/${destination.split("/")[0]}`, { recursive: true });
    await Deno.copyFile(`${FIXTURES}${fixture}`, `${root}/${destination}`);
  }
  return async () => {};
}
