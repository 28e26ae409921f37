// deno-lint-ignore-file no-console -- a script: printing is its output
/**
 * `doc extract` against the real tools, whole processes, in the same run:
 *
 *   A. a 100-page PDF (made by LibreOffice): `pterm exec "doc extract --mode text"` vs poppler's
 *      `pdftotext`. Target: pterm within 3× of pdftotext.
 *   B. a large XLSX (made by LibreOffice): `doc extract --mode text` and `--mode md` vs
 *      LibreOffice's own conversion of the same file to CSV (`soffice --headless --convert-to csv`).
 *
 * "pterm hello" is the floor every pterm number includes: process start, kernel, sandbox worker.
 * Inputs are generated once under .bench/doc/ (needs Debian's libreoffice-writer,
 * libreoffice-calc and poppler-utils).
 *
 *   deno run -A bench/doc.ts           # 7 runs per subject
 *   deno run -A bench/doc.ts --quick   # 3 runs, a smaller spreadsheet
 */

import { ptermCommand, quick, type Subject, table, timeSubjects } from "./_timing.ts";

const BENCH_DIR = new URL("../.bench/doc/", import.meta.url).pathname;
const ROOT = `${BENCH_DIR}root/`;
const RUNS = quick ? 3 : 7;
const PAGES = 100;
const SHEET_ROWS = quick ? 10_000 : 40_000;

const WORDS = ("survey station water quality sensor sampling coastal northern budget report field team data " +
  "analysis season river creek bay point nitrate measurement result method summary figure table value mean median")
  .split(" ");

function prng(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

const FODT_HEAD = `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
  xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"
  xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
  xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"
  office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">
  <office:automatic-styles>
    <style:style style:name="H" style:family="paragraph">
      <style:paragraph-properties fo:break-before="page"/>
      <style:text-properties fo:font-size="16pt" fo:font-weight="bold"/>
    </style:style>
    <style:style style:name="P" style:family="paragraph">
      <style:text-properties fo:font-size="11pt"/>
    </style:style>
  </office:automatic-styles>
  <office:body><office:text>`;

/** One page per section: a heading that starts a page and paragraphs that fit on it. */
function pdfSource(): string {
  const random = prng(7);
  const word = () => WORDS[Math.floor(random() * WORDS.length)];
  const parts = [FODT_HEAD];
  for (let page = 1; page <= PAGES; page++) {
    parts.push(`<text:h text:style-name="H" text:outline-level="1">Section ${page}</text:h>`);
    for (let p = 0; p < 5; p++) {
      parts.push(`<text:p text:style-name="P">${Array.from({ length: 70 }, word).join(" ")}.</text:p>`);
    }
  }
  parts.push("</office:text></office:body></office:document>");
  return parts.join("\n");
}

function xlsxSource(): string {
  const random = prng(11);
  const word = () => WORDS[Math.floor(random() * WORDS.length)];
  const cell = (type: string, value: string | number) =>
    type === "string"
      ? `<table:table-cell office:value-type="string"><text:p>${value}</text:p></table:table-cell>`
      : `<table:table-cell office:value-type="float" office:value="${value}"><text:p>${value}</text:p></table:table-cell>`;
  const rows = [
    `<table:table-row>${
      ["Station", "Sample", "Reading", "Depth", "Note", "Flag"].map((h) => cell("string", h)).join("")
    }</table:table-row>`,
  ];
  for (let r = 1; r <= SHEET_ROWS; r++) {
    rows.push(
      `<table:table-row>${cell("string", `${word()} ${word()}`)}${cell("float", r)}${
        cell("float", Math.round(random() * 100000) / 100)
      }${cell("float", Math.round(random() * 500) / 10)}${cell("string", `${word()} ${word()} ${word()}`)}${
        cell("string", random() < 0.5 ? "ok" : "check")
      }</table:table-row>`,
    );
  }
  return `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
  xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"
  xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
  office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.spreadsheet">
  <office:body><office:spreadsheet><table:table table:name="Readings">
  ${rows.join("\n")}
  </table:table></office:spreadsheet></office:body></office:document>`;
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

async function convert(source: string, target: string, extension: string): Promise<void> {
  const output = await new Deno.Command("soffice", {
    args: [
      `-env:UserInstallation=file://${BENCH_DIR}lo-profile`,
      "--headless",
      "--convert-to",
      extension,
      "--outdir",
      ROOT,
      source,
    ],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!output.success || !(await exists(target))) {
    throw new Error(`LibreOffice could not make ${target}: ${new TextDecoder().decode(output.stderr)}`);
  }
}

async function prepare(): Promise<{ pdf: string; xlsx: string }> {
  await Deno.mkdir(ROOT, { recursive: true });
  const pdf = `${ROOT}pages.pdf`;
  const xlsx = `${ROOT}rows-${SHEET_ROWS}.xlsx`;
  if (!(await exists(pdf))) {
    console.log(`generating a ${PAGES}-page PDF with LibreOffice ...`);
    await Deno.writeTextFile(`${BENCH_DIR}pages.fodt`, pdfSource());
    await convert(`${BENCH_DIR}pages.fodt`, pdf, "pdf");
  }
  if (!(await exists(xlsx))) {
    console.log(`generating a ${SHEET_ROWS}-row XLSX with LibreOffice ...`);
    await Deno.writeTextFile(`${BENCH_DIR}rows-${SHEET_ROWS}.fods`, xlsxSource());
    await convert(`${BENCH_DIR}rows-${SHEET_ROWS}.fods`, xlsx, "xlsx");
  }
  return { pdf, xlsx };
}

function pdfPages(pdf: string): string {
  const info = new Deno.Command("pdfinfo", { args: [pdf], stdout: "piped" }).outputSync();
  return /Pages:\s+(\d+)/.exec(new TextDecoder().decode(info.stdout))?.[1] ?? "?";
}

const { pdf, xlsx } = await prepare();
const xlsxName = xlsx.split("/").pop()!;
const outDir = `${BENCH_DIR}out/`;
await Deno.mkdir(outDir, { recursive: true });
const pterm = (line: string) => ptermCommand("exec", "--root", ROOT, line);
const pruneRuns: Subject["before"] = async () => {
  // Each pterm run leaves an audit record; keep the root from growing across runs.
  await Deno.remove(`${ROOT}audit`, { recursive: true }).catch(() => {});
};

console.log(
  `\nA. ${pdf.split("/").pop()} (${pdfPages(pdf)} pages, ${(Deno.statSync(pdf).size / 1024).toFixed(0)} KiB)\n`,
);
const pdfTimings = await timeSubjects(
  [
    { name: "pdftotext", cmd: ["pdftotext", "-enc", "UTF-8", pdf, `${outDir}pages.txt`] },
    {
      name: "pterm doc extract --mode text",
      cmd: pterm("doc extract --in pages.pdf --mode text --out out/pages.txt"),
      before: pruneRuns,
    },
    {
      name: "pterm doc extract --mode md",
      cmd: pterm("doc extract --in pages.pdf --mode md --out out/pages.md"),
      before: pruneRuns,
    },
    { name: "pterm hello (start-up floor)", cmd: pterm("hello"), before: pruneRuns },
  ],
  RUNS,
  quick ? 1 : 2,
);
console.log(table(pdfTimings, "pdftotext"));

console.log(
  `\nB. ${xlsxName} (${SHEET_ROWS} rows × 6 columns, ${(Deno.statSync(xlsx).size / 1024).toFixed(0)} KiB)\n`,
);
const xlsxTimings = await timeSubjects(
  [
    {
      name: "LibreOffice --convert-to csv",
      cmd: [
        "soffice",
        `-env:UserInstallation=file://${BENCH_DIR}lo-profile`,
        "--headless",
        "--convert-to",
        "csv",
        "--outdir",
        outDir,
        xlsx,
      ],
    },
    {
      name: "pterm doc extract --mode text",
      cmd: pterm(`doc extract --in ${xlsxName} --mode text --out out/rows.txt --max-chars 100000000`),
      before: pruneRuns,
    },
    {
      name: "pterm doc extract --mode md",
      cmd: pterm(`doc extract --in ${xlsxName} --mode md --out out/rows.md --max-chars 100000000`),
      before: pruneRuns,
    },
  ],
  RUNS,
  1,
);
console.log(table(xlsxTimings, "LibreOffice --convert-to csv"));
