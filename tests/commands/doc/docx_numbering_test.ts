/**
 * DOCX list and heading numbers as Word shows them, on pandoc's own test
 * documents (tests/fixtures/doc/pandoc, from pandoc's test/docx). The expected numbers are those of
 * pandoc's reference ASTs in the same folder of pandoc (`*.native`, quoted per case) or, where
 * pandoc drops a number, what the document's numbering.xml says Word draws (quoted too).
 */

import assert from "node:assert/strict";
import { extractOk, rootWith } from "./helpers.ts";

async function markdownOf(fixture: string): Promise<string> {
  await using dir = await rootWith({ "in.docx": `pandoc/${fixture}` });
  return (await extractOk(dir.path, "doc extract --in in.docx")).text;
}

Deno.test("DOCX lists keep Word's numbers: letters, a list that starts at 2, a list continued after an interruption", async (t) => {
  await t.step("lists.docx: OrderedList (1,LowerAlpha,Period) nested under item two", async () => {
    assert.match(await markdownOf("lists.docx"), /^1\. one\n2\. two\n {3}a\. a\n {3}b\. b\n/m);
  });
  await t.step("lists_restarting.docx: OrderedList (2,…) Foo Bar Baz, a quote, OrderedList (1,…) Bop.", async () => {
    assert.match(
      await markdownOf("lists_restarting.docx"),
      /^2\. Foo\n3\. Bar\n4\. Baz\n\nInterruption\n\n1\. Bop\.$/m,
    );
  });
  await t.step("lists_continuing.docx: OrderedList (1,…) Foo Bar Baz, a paragraph, OrderedList (4,…) Bop", async () => {
    assert.match(
      await markdownOf("lists_continuing.docx"),
      /^1\. Foo\n2\. Bar\n3\. Baz\n\nInterruption\.\n\n4\. Bop$/m,
    );
  });
  await t.step(
    "lists_level_override.docx: OrderedList (1,…) … (6,…), one-item lists continued between paragraphs",
    async () => {
      const numbers = [...(await markdownOf("lists_level_override.docx")).matchAll(/^(\d+)\. /gm)].map((m) => m[1]);
      assert.deepEqual(numbers, ["1", "2", "3", "4", "5", "6"]);
    },
  );
  await t.step("lists_sublist_reset.docx: level 2's lvlText is the literal `1.%2`, as Word draws it", async () => {
    assert.match(
      await markdownOf("lists_sublist_reset.docx"),
      /^1\. Head 1\n {3}1\.1 Head 1\.1\n {3}1\.2 Head 1\.2\n2\. Head 2\n {3}1\.1 Head 2\.1$/m,
    );
  });
});

Deno.test("DOCX headings numbered through their styles keep 1 / 1.1 / 1.1.1 (lvlText %1, %1.%2, %1.%2.%3)", async () => {
  assert.match(
    await markdownOf("enumerated_headings.docx"),
    /^# 1 H1\n\n## 1\.1 H2\n\n### 1\.1\.1 H3\n\nAnd some text/m,
  );
});

Deno.test("DOCX numbers also reach text and JSON output", async () => {
  await using dir = await rootWith({ "in.docx": "pandoc/lists_continuing.docx" });
  const text = (await extractOk(dir.path, "doc extract --in in.docx --mode text --out out.txt")).text;
  assert.match(text, /^4\. Bop$/m);
  const json = JSON.parse((await extractOk(dir.path, "doc extract --in in.docx --mode json --out out.json")).text);
  const items = json.blocks.filter((b: { type: string }) => b.type === "list").flatMap((b: { items: unknown[] }) =>
    b.items
  );
  assert.deepEqual(items.map((i: { label?: string }) => i.label), ["1.", "2.", "3.", "4."]);
  assert.doesNotMatch(JSON.stringify(json), /\uE000|pterm-num/);
});
