/**
 * The ways agents type `doc extract`: the document as an argument, `-i/--input`,
 * `-o/--output`, `--format md|markdown|text|json` as the output mode, and the text printed on
 * stdout when there is no --out (head and tail of a long text, the whole of it in an artifact).
 * Real documents: the fixtures and Debian's shared-mime-info specification.
 */

import assert from "node:assert/strict";
import { exec } from "../../_support/helpers.ts";
import { TRUNCATION_MARKER } from "../../../core/truncate.ts";
import { listFiles, rootWith } from "./helpers.ts";

type Extracted = { output: string; mode: string; stdout_shows: string; status: string; input: string };

Deno.test("doc extract <file> prints the text after the summary and saves it whole as an artifact", async () => {
  await using dir = await rootWith({ "docs/report.docx": "report.docx" });
  const envelope = await exec(dir.path, "doc extract docs/report.docx");
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  const result = envelope.result as Extracted;
  const saved = await Deno.readTextFile(`${dir.path}/${result.output}`);
  assert.ok(saved.startsWith("# Quarterly Field Report\n"));
  assert.equal(result.stdout_shows, "full");
  assert.equal(result.input, "docs/report.docx");
  assert.ok(envelope.stdout.startsWith("docs/report.docx: docx"), envelope.stdout);
  assert.ok(envelope.stdout.endsWith(saved.endsWith("\n") ? saved : saved + "\n"), "stdout ends with the whole text");
  assert.equal(envelope.truncated.stdout, false);
});

Deno.test("a text longer than stdout is printed as head + marker + tail, whole in the artifact, no second copy", async () => {
  await using dir = await rootWith({ "spec.pdf": "debian/shared-mime-info-spec.pdf" });
  const envelope = await exec(dir.path, "doc extract spec.pdf --format text");
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  const result = envelope.result as Extracted;
  assert.equal(result.mode, "text");
  assert.equal(result.stdout_shows, "head_and_tail");
  const saved = await Deno.readTextFile(`${dir.path}/${result.output}`);
  assert.ok(saved.length > 20_000, "a long document");
  assert.equal(envelope.truncated.stdout, false, "the command bounded its own stdout; the kernel did not cut it");
  assert.ok(new TextEncoder().encode(envelope.stdout).length <= 16 * 1024);
  const [before, after] = envelope.stdout.split(`\n${TRUNCATION_MARKER}\n`);
  assert.ok(after !== undefined, "the marker is on a line of its own");
  const head = before.slice(before.indexOf("\n\n") + 2);
  assert.ok(head.length > 1000 && saved.startsWith(head), "the head is the start of the text");
  assert.ok(saved.trimEnd().endsWith(after.trimEnd()), "the tail is the end of the text");
  assert.match(envelope.stdout, new RegExp(`the whole text is in ${result.output.replaceAll(".", "\\.")}`));
  assert.deepEqual(envelope.artifacts.map((a) => a.path), [result.output], "no stdout.txt spill besides it");
});

Deno.test("-o/--output write the file and keep stdout a summary; -i/--input name the document", async () => {
  await using dir = await rootWith({ "docs/report.docx": "report.docx", "slides/deck.pptx": "deck.pptx" });
  for (
    const [line, out] of [
      ["doc extract docs/report.docx -o notes/a.md", "notes/a.md"],
      ["doc extract --input docs/report.docx --output notes/b.md", "notes/b.md"],
      ["doc extract -i docs/report.docx --out=notes/c.md", "notes/c.md"],
    ]
  ) {
    const envelope = await exec(dir.path, line);
    assert.equal(envelope.exit_code, 0, `${line}: ${envelope.stderr}`);
    const result = envelope.result as Extracted;
    assert.equal(result.output, out);
    assert.equal(result.stdout_shows, "none");
    assert.equal(envelope.stdout.split("\n").filter(Boolean).length, 2, envelope.stdout);
    assert.ok((await Deno.readTextFile(`${dir.path}/${out}`)).startsWith("# Quarterly Field Report\n"));
  }
  const dash = await exec(dir.path, "doc extract docs/report.docx -o -");
  assert.equal(dash.exit_code, 0, dash.stderr);
  assert.equal((dash.result as Extracted).stdout_shows, "full", "-o - is stdout");
  assert.match(dash.stdout, /^# Quarterly Field Report$/m);
  assert.ok(!(await Deno.stat(`${dir.path}/-`).then(() => true, () => false)), "no file named -");
  const info = await exec(dir.path, "doc info slides/deck.pptx");
  assert.equal(info.exit_code, 0, info.stderr);
  assert.equal((info.result as { slides: number }).slides, 3);
});

Deno.test("--format md|markdown|text|json is the output mode; a document format still checks the content", async () => {
  await using dir = await rootWith({ "docs/report.docx": "report.docx" });
  for (const [format, mode] of [["md", "md"], ["markdown", "md"], ["text", "text"], ["json", "json"]]) {
    const envelope = await exec(dir.path, `doc extract docs/report.docx --format ${format}`);
    assert.equal(envelope.exit_code, 0, envelope.stderr);
    assert.equal((envelope.result as Extracted).mode, mode);
  }
  const json = await exec(dir.path, "doc extract docs/report.docx --format json -o r.json");
  assert.equal(json.exit_code, 0, json.stderr);
  assert.equal(typeof JSON.parse(await Deno.readTextFile(`${dir.path}/r.json`)), "object");
  const markdown = await exec(dir.path, "doc extract docs/report.docx --mode markdown --format docx");
  assert.equal(markdown.exit_code, 0, markdown.stderr);
  assert.equal((markdown.result as Extracted).mode, "md");

  const wrong = await exec(dir.path, "doc extract docs/report.docx --format pdf");
  assert.equal(wrong.error_code, "UnsupportedFormat");
  const clash = await exec(dir.path, "doc extract docs/report.docx --format text --mode json");
  assert.equal(clash.error_code, "InvalidArgs");
  assert.match(clash.stderr, /--format text .* --mode json/);
  const same = await exec(dir.path, "doc extract docs/report.docx --format text --mode text");
  assert.equal(same.exit_code, 0, same.stderr);
});

Deno.test("the document named twice, or not at all, is a usage error that shows the line to run; nothing written", async () => {
  await using dir = await rootWith({ "docs/report.docx": "report.docx", "slides/deck.pptx": "deck.pptx" });
  const before = await listFiles(dir.path);
  const two = await exec(dir.path, "doc extract docs/report.docx --in slides/deck.pptx -o out.md");
  assert.equal(two.error_code, "InvalidArgs");
  assert.match(two.stderr, /doc extract docs\/report\.docx/);
  const none = await exec(dir.path, "doc extract -o out.md");
  assert.equal(none.error_code, "InvalidArgs");
  assert.match(none.stderr, /doc extract <file>/);
  assert.match(none.stderr, /doc extract --help/);
  const both = await exec(dir.path, "doc extract docs/report.docx --in docs/report.docx -o same.md");
  assert.equal(both.exit_code, 0, "the same document twice is one document");
  const twiceOut = await exec(dir.path, "doc extract docs/report.docx -o a.md --output b.md");
  assert.equal(twiceOut.error_code, "InvalidArgs");
  const after = (await listFiles(dir.path)).filter((f) => !f.startsWith("audit/") && !f.startsWith("artifacts/"));
  assert.deepEqual(after, [...before, "same.md"].sort());
});

Deno.test("the <file> argument is confined like --in, and its errors name it", async () => {
  await using dir = await rootWith({ "docs/report.docx": "report.docx" });
  const escape = await exec(dir.path, "doc extract ../etc/passwd");
  assert.equal(escape.error_code, "PathEscape");
  const secret = await exec(dir.path, "doc extract secrets/key.pdf");
  assert.equal(secret.error_code, "SecretPathDenied");
  const missing = await exec(dir.path, "doc extract docs/missing.pdf");
  assert.equal(missing.error_code, "NotFound");
  assert.match(missing.stderr, /<file> `docs\/missing\.pdf` does not exist/);
  const info = await exec(dir.path, "doc info ../x.pdf");
  assert.equal(info.error_code, "PathEscape");
});
