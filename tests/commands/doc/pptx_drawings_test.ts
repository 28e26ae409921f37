/**
 * PPTX charts and SmartArt, on Apache POI's test slides
 * (tests/fixtures/doc/poi): a chart becomes `### Chart: <title>` and a table of its cached data
 * (categories × series, as markitdown writes it), checked against the chart part's own caches;
 * a SmartArt diagram's text comes from its data part (POI's TestXSLFDiagram reads abc, def, ghi).
 */

import assert from "node:assert/strict";
import { extractOk, FIXTURES, rootWith } from "./helpers.ts";
import { readZipEntries } from "./zip_writer.ts";

/** `<c:pt idx="i"><c:v>v</c:v></c:pt>` of one element of the chart part, by a plain search. */
function points(xml: string): string[] {
  return [...xml.matchAll(/<c:pt idx="(\d+)"><c:v>([^<]*)<\/c:v><\/c:pt>/g)].map((m) => m[2]);
}

Deno.test("a PPTX chart is written as a table of categories × series from its cached data", async () => {
  const entries = await readZipEntries(await Deno.readFile(`${FIXTURES}poi/line-chart.pptx`));
  const chartPart = Object.keys(entries).find((name) => /^ppt\/charts\/chart\d+\.xml$/.test(name))!;
  const xml = new TextDecoder().decode(entries[chartPart]);
  const series = [...xml.matchAll(/<c:ser>([\s\S]*?)<\/c:ser>/g)].map((m) => m[1]);
  assert.ok(series.length >= 1);
  const names = series.map((s) => points(/<c:tx>([\s\S]*?)<\/c:tx>/.exec(s)![1])[0]);
  const categories = points(/<c:cat>([\s\S]*?)<\/c:cat>/.exec(series[0])![1]);
  const values = series.map((s) => points(/<c:val>([\s\S]*?)<\/c:val>/.exec(s)![1]));

  await using dir = await rootWith({ "deck.pptx": "poi/line-chart.pptx" });
  const { text } = await extractOk(dir.path, "doc extract --in deck.pptx");
  const header = `| Category | ${names.join(" | ")} |`;
  assert.ok(text.includes(`### Chart`), text);
  assert.ok(text.includes(header), `${header}\n${text}`);
  categories.forEach((category, i) => {
    const cells = values.map((v) => String(Number(Number(v[i]).toPrecision(15))));
    assert.ok(text.includes(`| ${category} | ${cells.join(" | ")} |`), `row ${category}\n${text}`);
  });
  assert.doesNotMatch(text, /chart data is not extracted/);
});

Deno.test("SmartArt text comes from the diagram's data part (POI's smartart-simple.pptx: abc, def, ghi)", async () => {
  await using dir = await rootWith({ "deck.pptx": "poi/smartart-simple.pptx" });
  const { text, envelope } = await extractOk(dir.path, "doc extract --in deck.pptx");
  assert.match(text, /^- abc\n- def\n- ghi$/m, text);
  assert.equal((envelope.result as { status: string }).status, "complete");
});
