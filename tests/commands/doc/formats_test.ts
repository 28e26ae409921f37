/**
 * The formats an agent meets besides PDF and Office, each detected from its bytes: HTML (as
 * Markdown, as markitdown presents it), CSV/TSV (a table), JSON and XML (as text), EPUB (chapters
 * in spine order); RTF refused with why. Real documents from markitdown's test data and Debian
 * packages (tests/fixtures/doc/README.md), and the hostile cases built in the tests: scripts and
 * remote resources never fetched, an XML entity bomb never expanded, a zip bomb and oversized
 * inputs refused, text in an undeclared encoding refused rather than guessed.
 */

import assert from "node:assert/strict";
import { exec } from "../../_support/helpers.ts";
import { extractOk, FIXTURES, rootWith } from "./helpers.ts";
import { writeZip } from "./zip_writer.ts";

const encoder = new TextEncoder();

function assertInOrder(text: string, parts: readonly string[]): void {
  let from = 0;
  for (const part of parts) {
    const at = text.indexOf(part, from);
    assert.ok(at >= 0, `missing (in order): ${part}`);
    from = at + part.length;
  }
}

Deno.test("doc extract: an HTML manual (Debian's base-passwd) as Markdown: headings, emphasis, lists", async () => {
  await using dir = await rootWith({ "manual.html": "debian/users-and-groups.html" });
  const { envelope, text } = await extractOk(dir.path, "doc extract manual.html");
  assert.equal((envelope.result as { format: string }).format, "html");
  assertInOrder(text, [
    "# Users and Groups in the Debian System\n",
    "This document is free; you can redistribute it",
    "# Chapter 1. Introduction\n",
    "The **update-passwd** tool keeps the entries",
  ]);
  assert.doesNotMatch(text, /<\/?[a-z]+[ >]/, "no tags left");
  const info = await exec(dir.path, "doc info manual.html");
  assert.equal((info.result as { title: string }).title, "Users and Groups in the Debian System");
});

Deno.test("doc extract: markitdown's web page: its sentences and links, no script or style", async () => {
  await using dir = await rootWith({ "blog.html": "markitdown/test_blog.html" });
  const { text } = await extractOk(dir.path, "doc extract blog.html");
  // markitdown's own test vector for this page.
  assert.ok(
    text.includes(
      "Large language models (LLMs) are powerful tools that can generate natural language texts for various " +
        "applications, such as chatbots, summarization, translation, and more. GPT-4 is currently the state of " +
        "the art LLM in the world. Is model selection irrelevant? What about inference parameters?",
    ),
  );
  assert.ok(text.includes("an example where high cost can easily prevent a generic complex"));
  assert.match(text, /\[GitHub\]\(https:\/\/github\.com\/microsoft\/autogen\)/);
  assert.doesNotMatch(text, /function\s*\(|window\.|\{[^}]*:[^}]*;\s*\}/, "no script or style text");
});

Deno.test("doc extract: HTML's scripts, images, styles and frames are never fetched, nor run", async () => {
  let requests = 0;
  await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    requests++;
    return new Response("<p>fetched</p>");
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  const html = `<!DOCTYPE html><html><head><title>t</title>
<link rel="stylesheet" href="${base}/style.css"><script src="${base}/app.js"></script>
<meta http-equiv="refresh" content="0; url=${base}/next"><style>p { color: red }</style></head>
<body><h1>Report</h1><script>fetch("${base}/inline"); document.write("injected")</script>
<p>Intro with <a href="${base}/page">a link</a> and <a href="javascript:alert(1)">a script link</a>.</p>
<img src="${base}/pic.png" alt="A chart"><iframe src="${base}/frame"></iframe>
<ul><li>one<ul><li>nested</li></ul></li><li>two</li></ul>
<ol><li>first</li><li>second</li></ol>
<table><tr><th>Name</th><th>Value</th></tr><tr><td>a | b</td><td>1</td></tr></table>
<pre>  keep   spacing</pre></body></html>`;
  await using dir = await rootWith({});
  await Deno.writeTextFile(`${dir.path}/page.html`, html);
  const { text } = await extractOk(dir.path, "doc extract page.html");
  assert.equal(requests, 0, "nothing was fetched");
  assert.equal(
    text,
    `# Report

Intro with [a link](${base}/page) and a script link.

[image: A chart]

- one
  - nested
- two

1. first
2. second

| Name | Value |
| --- | --- |
| a \\| b | 1 |

\`\`\`
  keep   spacing
\`\`\`
`,
  );
  assert.doesNotMatch(text, /injected|fetched|color/);
});

Deno.test("doc extract: HTML nested 100,000 lists deep reads in linear time, its indentation capped", async () => {
  await using dir = await rootWith({});
  await Deno.writeTextFile(`${dir.path}/deep.html`, "<ul><li>x".repeat(100_000) + "</li></ul>".repeat(100_000));
  const started = performance.now();
  const { text } = await extractOk(dir.path, "doc extract deep.html");
  assert.ok(performance.now() - started < 10_000);
  assert.ok(text.length < 100_000 * 40, `${text.length} characters`);
});

Deno.test("doc extract: CSV and TSV as one table; ragged rows padded; quoted fields kept whole", async () => {
  await using dir = await rootWith({ "debian.csv": "debian/distro-info-debian.csv" });
  const { envelope, text } = await extractOk(dir.path, "doc extract debian.csv");
  assert.equal((envelope.result as { format: string }).format, "csv");
  const lines = text.trimEnd().split("\n");
  assert.equal(lines[0], "| version | codename | series | created | release | eol | eol-lts | eol-elts |");
  assert.equal(lines[1], "| --- | --- | --- | --- | --- | --- | --- | --- |");
  assert.equal(lines[2], "| 1.1 | Buzz | buzz | 1993-08-16 | 1996-06-17 | 1997-06-05 |  |  |");
  assert.ok(lines.some((line) => line.startsWith("| 12 | Bookworm | bookworm |")));
  await Deno.writeTextFile(
    `${dir.path}/quoted.csv`,
    'name,notes,amount\r\n"Smith, J","said ""hi""\r\nthen left",3\r\nLee,,4\r\n',
  );
  const quoted = await extractOk(dir.path, "doc extract quoted.csv --mode json");
  const rows = JSON.parse(quoted.text).blocks[0].rows;
  assert.deepEqual(rows, [["name", "notes", "amount"], ["Smith, J", 'said "hi"\nthen left', "3"], ["Lee", "", "4"]]);
  await Deno.writeTextFile(`${dir.path}/data.tsv`, "a\tb\tc\n1\t2\t3\n4\t5\t6\n");
  const tsv = await extractOk(dir.path, "doc extract data.tsv --mode text");
  assert.equal(tsv.text, "a\tb\tc\n1\t2\t3\n4\t5\t6\n");
});

Deno.test("doc extract: a CSV in an undeclared encoding (markitdown's Shift-JIS file) is refused, then read as UTF-8", async () => {
  await using dir = await rootWith({ "kanji.csv": "markitdown/test_mskanji.csv" });
  const refused = await exec(dir.path, "doc extract kanji.csv");
  assert.equal(refused.error_code, "CorruptInput", refused.stderr);
  assert.match(refused.stderr, /not valid utf-8 text/);
  assert.deepEqual(refused.artifacts, [], "nothing written");
  // What the user does next: convert it to UTF-8 and extract the copy (markitdown's expected rows).
  const bytes = await Deno.readFile(`${FIXTURES}markitdown/test_mskanji.csv`);
  await Deno.writeTextFile(`${dir.path}/kanji-utf8.csv`, new TextDecoder("shift_jis").decode(bytes));
  const { text } = await extractOk(dir.path, "doc extract kanji-utf8.csv");
  for (
    const row of [
      "| 名前 | 年齢 | 住所 |",
      "| --- | --- | --- |",
      "| 佐藤太郎 | 30 | 東京 |",
      "| 髙橋淳 | 35 | 名古屋 |",
    ]
  ) {
    assert.ok(text.includes(row), row);
  }
});

Deno.test("doc extract: JSON and XML as text; an XML entity bomb is shown, never expanded", async () => {
  await using dir = await rootWith({ "test.json": "markitdown/test.json" });
  const json = await extractOk(dir.path, "doc extract test.json");
  assert.match(json.text, /^```json\n/);
  assert.ok(json.text.includes("5b64c88c-b3c3-4510-bcb8-da0b200602d8"));
  assert.ok(json.text.includes("9700dc99-6685-40b4-9a3a-5e406dcb37f3"));
  const lol = ['<?xml version="1.0"?>', '<!DOCTYPE lolz [<!ENTITY lol "lol">'];
  for (let i = 1; i <= 9; i++) lol.push(`<!ENTITY lol${i} "${`&lol${i - 1 || ""};`.repeat(10)}">`);
  lol.push("]>", "<lolz>&lol9;</lolz>");
  const bomb = lol.join("\n").replace("&lol0;", "&lol;");
  await Deno.writeTextFile(`${dir.path}/bomb.xml`, bomb);
  const { envelope, text } = await extractOk(dir.path, "doc extract bomb.xml --mode text");
  assert.equal((envelope.result as { format: string }).format, "xml");
  assert.equal(text, `${bomb}\n`);
});

Deno.test("doc extract: markitdown's EPUB, chapters in spine order", async () => {
  await using dir = await rootWith({ "book.epub": "markitdown/test.epub" });
  const { envelope, text } = await extractOk(dir.path, "doc extract book.epub");
  assert.equal((envelope.result as { format: string }).format, "epub");
  assertInOrder(text, [
    "# Chapter 1: Test Content",
    "This is a **test** paragraph with some formatting",
    "- A bullet point\n- Another point",
    "# Chapter 2: More Content",
    "*different* style",
    "This is a blockquote for testing",
  ]);
  const info = await exec(dir.path, "doc info book.epub");
  assert.equal((info.result as { author: string }).author, "Test Author");
});

Deno.test("doc extract: an EPUB zip bomb and oversized text inputs are refused with their codes", async () => {
  await using dir = await rootWith({}, { doc: { max_inflated_bytes: 1024 * 1024, max_input_bytes: 200_000 } });
  const container = '<?xml version="1.0"?><container xmlns="urn:oasis:names:tc:opendocument:xmlns:container">' +
    '<rootfiles><rootfile full-path="OEBPS/book.opf" media-type="application/oebps-package+xml"/></rootfiles></container>';
  const opf = '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata/>' +
    '<manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/></manifest>' +
    '<spine><itemref idref="c1"/></spine></package>';
  await Deno.writeFile(
    `${dir.path}/bomb.epub`,
    await writeZip({
      "mimetype": encoder.encode("application/epub+zip"),
      "META-INF/container.xml": encoder.encode(container),
      "OEBPS/book.opf": encoder.encode(opf),
      "OEBPS/c1.xhtml": encoder.encode(`<html><body><p>${"a".repeat(8 * 1024 * 1024)}</p></body></html>`),
    }),
  );
  const bomb = await exec(dir.path, "doc extract bomb.epub");
  assert.equal(bomb.error_code, "InputTooLarge", bomb.stderr);
  await Deno.writeTextFile(`${dir.path}/big.csv`, "a,b,c\n1,2,3\n".repeat(20_000));
  const big = await exec(dir.path, "doc extract big.csv");
  assert.equal(big.error_code, "InputTooLarge", big.stderr);
  assert.deepEqual([...bomb.artifacts, ...big.artifacts], [], "nothing written");
});

Deno.test("doc extract: RTF is refused as UnsupportedFormat, saying why", async () => {
  await using dir = await rootWith({});
  await Deno.writeTextFile(`${dir.path}/note.rtf`, "{\\rtf1\\ansi{\\fonttbl\\f0\\fswiss Helvetica;}\\f0\\pard Hello}");
  const envelope = await exec(dir.path, "doc extract note.rtf");
  assert.equal(envelope.error_code, "UnsupportedFormat", envelope.stderr);
  assert.match(envelope.stderr, /no maintained RTF reader runs under Deno/);
});

Deno.test("doc extract: a CSV of more fields than the memory ceiling holds is InputTooLarge before it is held", async () => {
  const { parseDelimited } = await import("../../../commands/doc/csv.ts");
  const small = "1,2,3\n".repeat(400_000);
  assert.throws(
    () => parseDelimited(small, ",", Infinity, 256 * 1024 * 1024 + 64 * 1_000_000),
    /more than 1000000 fields/,
  );
  assert.equal(parseDelimited(small, ",", Infinity, 2 ** 31).rows.length, 400_000);
});
