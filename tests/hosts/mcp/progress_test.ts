/**
 * The long commands report progress (what `pterm mcp` turns into `notifications/progress`):
 * doc extract per PDF page of a real document (Debian's shared-mime-info spec), patch apply
 * per edit block. Through the real kernel and sandbox worker.
 */

import assert from "node:assert/strict";
import { exec, makeRoot } from "../../_support/helpers.ts";

type Report = { progress: number; total?: number; message?: string };

function assertIncreasing(reports: Report[], total: number): void {
  assert.ok(reports.length > 0);
  for (let i = 1; i < reports.length; i++) assert.ok(reports[i].progress > reports[i - 1].progress);
  assert.ok(reports.every((r) => r.total === total), JSON.stringify(reports));
  assert.equal(reports.at(-1)!.progress, total);
}

Deno.test("doc extract reports each page of a PDF it reads", async () => {
  await using dir = await makeRoot();
  await Deno.copyFile(
    new URL("../../fixtures/doc/debian/shared-mime-info-spec.pdf", import.meta.url),
    `${dir.path}/spec.pdf`,
  );
  const info = await exec(dir.path, "doc info --in spec.pdf");
  const pages = (info.result as { pages: number }).pages;
  assert.ok(pages > 1, `a multi-page document (${pages})`);
  const reports: Report[] = [];
  const envelope = await exec(dir.path, "doc extract --in spec.pdf --mode text", {
    onProgress: (r) => reports.push(r),
  });
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  assertIncreasing(reports, pages);
  assert.equal(reports[0].message, "pages read");
});

Deno.test("patch apply reports each edit block", async () => {
  await using dir = await makeRoot();
  const blocks = Array.from({ length: 5 }, (_, i) => `=== file.write: "notes/n${i}.txt" ===\nnote ${i}\n=== end ===\n`);
  const reports: Report[] = [];
  const envelope = await exec(dir.path, "patch apply", {
    stdin: blocks.join("") + "=== PATCH EOF ===\n",
    onProgress: (r) => reports.push(r),
  });
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  assertIncreasing(reports, 5);
  assert.equal(await Deno.readTextFile(`${dir.path}/notes/n4.txt`), "note 4\n");
});
