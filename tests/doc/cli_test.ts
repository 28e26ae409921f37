/** The real `pterm` process, as a user runs it: `pterm exec --root DIR "doc extract ..."`. */

import assert from "node:assert/strict";
import { cli } from "../helpers.ts";
import { rootWith } from "./helpers.ts";

Deno.test("pterm exec runs doc extract and doc info end to end, with an audit record", async () => {
  await using dir = await rootWith({ "docs/report.docx": "report.docx", "slides/deck.pptx": "deck.pptx" });
  const run = await cli(["exec", "--root", dir.path, "doc extract --in docs/report.docx --out notes/report.md"]);
  assert.equal(run.code, 0, run.stderr + run.stdout);
  assert.equal(run.envelope?.result?.command, "doc extract");
  const markdown = await Deno.readTextFile(`${dir.path}/notes/report.md`);
  assert.ok(markdown.startsWith("# Quarterly Field Report\n"));

  const info = await cli(["exec", "--root", dir.path, "--text", "doc info --in slides/deck.pptx"]);
  assert.equal(info.code, 0, info.stderr);
  assert.match(
    info.stdout,
    /slides\/deck\.pptx: pptx, 29\.\d KiB, 3 slides\ntitle: Survey Kick-off\nauthor: Grace Hopper/,
  );

  const runs = await cli(["runs", "list", "--root", dir.path]);
  assert.equal(runs.code, 0, runs.stderr);
  assert.match(runs.stdout, /doc extract --in docs\/report.docx --out notes\/report.md/);
});
