// deno-lint-ignore-file no-console -- a script: printing is its output
/**
 * `doc extract` against the real tools, in the same run, with the speed target each must meet:
 *
 *   A. PDFs of 1, 15 and 360 pages, cut from and joined out of Debian's libtasn1 manual (pdfTeX,
 *      tests/fixtures/doc/debian/libtasn1.pdf) with qpdf, against poppler's `pdftotext`:
 *      - `pterm exec` as a whole process (cold: process start, kernel, sandbox worker, PDF.js);
 *      - the same with V8's code cache turned off (`deno run --no-code-cache`), which shows what
 *        Deno's code cache (on by default) already saves;
 *      - `pterm exec` through the root's session server (`pterm server start`: the warm path of
 *        scripts), and `hello` the same way: "warm engine" = warm exec minus warm hello;
 *      - one call through a warm `pterm mcp` server (the engine stays loaded between calls);
 *      - `pterm hello`, the start-up floor every `pterm exec` number includes.
 *      "engine" = pterm exec minus pterm hello. Targets: engine ≤ 3× pdftotext at every size,
 *      whole process ≤ 2× pdftotext at 300+ pages, warm mcp ≤ 3× pdftotext.
 *   A2. small real PDFs of other producers (LibreOffice, pdfTeX, pdfeTeX's 14-page TraceMonkey paper
 *      from pdf-parse's tests, camelot's, PDF.js's right-to-left test file; tests/fixtures/doc): which reader takes each (pterm's own, or PDF.js and why), and
 *      the engine time against pdftotext's.
 *   B. small office files (the fixtures report.docx, deck.pptx, book.xlsx): pterm's engine time
 *      (target ≤ 50 ms).
 *   C. every other format pterm reads (HTML, CSV, TSV, JSON, EPUB, ODT, ODS, ODP, DOCX, PPTX, XLSX;
 *      tests/fixtures/doc), each row pterm against the tool Debian has for that format, in the same
 *      run: pandoc (`-t gfm`) where Debian's pandoc 2.17 reads it, else LibreOffice's
 *      `--convert-to`; a row whose tool is not installed says so with the apt-get line, and a row no
 *      Debian tool reads says why.
 *
 *   Each process's CPU time (user + sys of all its threads, from separate runs under bash's `times`,
 *   to the millisecond) is printed beside its wall-clock median, and the load average at the start
 *   and the end: on a shared machine the CPU times are the steadier measure.
 *
 *   deno task bench doc            # 7 runs per subject
 *   deno task bench doc --quick    # 3 runs
 *   deno task bench doc --formats  # part C only
 *
 * Needs Debian's poppler-utils and qpdf; pandoc and LibreOffice (libreoffice-calc-nogui) only for
 * their rows of part C.
 */

import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { ptermArgs } from "../tests/_support/helpers.ts";
import { ptermCommand, quick, type Subject, table, timeSubjects, type Timing } from "./_timing.ts";

const BENCH_DIR = new URL("../.bench/doc/", import.meta.url).pathname;
const ROOT = `${BENCH_DIR}root/`;
const FIXTURES = new URL("../tests/fixtures/doc/", import.meta.url).pathname;
const RUNS = quick ? 3 : 7;

function run(cmd: string, ...args: string[]): void {
  const out = new Deno.Command(cmd, { args, stdout: "null", stderr: "piped" }).outputSync();
  if (!out.success) throw new Error(`${cmd} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
}

function has(cmd: string): boolean {
  try {
    new Deno.Command(cmd, { args: ["--version"], stdout: "null", stderr: "null" }).outputSync();
    return true;
  } catch {
    return false;
  }
}

/** The PDFs of part A, made once with qpdf from the Debian manual (36 pages). */
function preparePdfs(): { name: string; pages: number }[] {
  Deno.mkdirSync(`${ROOT}out`, { recursive: true });
  const manual = `${FIXTURES}debian/libtasn1.pdf`;
  const made = [
    { name: "pages-1.pdf", pages: 1, args: ["--empty", "--pages", manual, "1", "--"] },
    { name: "pages-15.pdf", pages: 15, args: ["--empty", "--pages", manual, "1-15", "--"] },
    { name: "pages-360.pdf", pages: 360, args: ["--empty", "--pages", ...Array(10).fill(manual), "--"] },
  ];
  for (const pdf of made) {
    try {
      Deno.statSync(`${ROOT}${pdf.name}`);
    } catch {
      run("qpdf", ...pdf.args, `${ROOT}${pdf.name}`);
    }
  }
  return made;
}

const pruneRuns: Subject["before"] = async () => {
  // Each pterm run leaves an audit record; keep the root from growing across runs.
  await Deno.remove(`${ROOT}audit`, { recursive: true }).catch(() => {});
};
const pterm = (line: string): Subject["cmd"] => ptermCommand("exec", "--root", ROOT, line);
/** A cold `pterm exec`: not handed to the root's session server, which part A starts for its warm rows. */
const COLD = { PTERM_SERVER: "off" };
const ptermNoCodeCache = (line: string): Subject["cmd"] => {
  const cmd = ptermCommand("exec", "--root", ROOT, line);
  return [cmd[0], cmd[1], "--no-code-cache", ...cmd.slice(2)];
};

/** A warm `pterm mcp` server over stdio, driven by the official SDK client as a host drives it. */
async function warmServer(): Promise<{ time: (line: string) => Promise<number>; close: () => Promise<void> }> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ptermArgs(["mcp", "--root", ROOT, "--session", "bench"]),
    stderr: "ignore",
  });
  const client = new Client({ name: "pterm-bench", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  await client.connect(transport);
  return {
    time: async (line: string) => {
      const started = performance.now();
      const result = await client.callTool({ name: "terminal_exec", arguments: { command: line } });
      const elapsed = performance.now() - started;
      if (result.isError) throw new Error(`${line}: ${JSON.stringify(result.content)}`);
      return elapsed;
    },
    close: () => client.close(),
  };
}

/**
 * Each subject's median CPU time (user + sys of the process and its threads, in ms), from runs of
 * its own after the timed ones: bash's `times` reads the children's rusage to the millisecond
 * (GNU time prints hundredths, too coarse for a 6 ms pdftotext). Kept out of the timed runs so
 * that no wrapper's start-up is in the wall-clock numbers.
 */
async function cpuMedians(subjects: readonly Subject[], runs: number): Promise<(number | null)[]> {
  if (!has("bash")) return subjects.map(() => null);
  const samples = subjects.map(() => [] as number[]);
  for (let i = 0; i < runs; i++) {
    for (const [index, subject] of subjects.entries()) {
      await subject.before?.();
      const out = new Deno.Command("bash", {
        args: ["-c", '"$@" >/dev/null 2>&1; status=$?; times; exit $status', "cpu", ...subject.cmd],
        env: subject.env,
        stdout: "piped",
        stderr: "null",
      }).outputSync();
      if (!out.success) throw new Error(`${subject.name} failed under bash: exit ${out.code}`);
      // `times` prints the shell's user and sys time, then its children's: "0m0.052s 0m0.012s".
      const children = new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!;
      const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
      samples[index].push((seconds[0] + seconds[1]) * 1000);
    }
  }
  return samples.map(median);
}

function loadAverage(): string {
  try {
    return Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
  } catch {
    return "unknown";
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function ms(value: number): string {
  return `${value.toFixed(0)} ms`;
}

const cpu = (value: number | null) => (value === null ? "" : ` (CPU ${ms(value)})`);
/** Parts A, A2 and B: the summary's rows and the other producers' table. */
async function pdfsAndOfficeFiles(): Promise<
  { summary: string[]; otherSummary: string[]; otherFloor: number; otherWarmFloor: number }
> {
  const pdfs = preparePdfs();
  const server = await warmServer();
  const summary: string[] = [
    "| PDF | pdftotext | pterm exec | engine (exec − hello) | engine ÷ pdftotext | exec ÷ pdftotext | warm exec | warm engine (warm exec − warm hello) | warm engine ÷ pdftotext | warm mcp | mcp ÷ pdftotext |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
  ];
  // The root's session server, for the warm rows; the cold ones keep it out ($PTERM_SERVER=off).
  run(Deno.execPath(), ...ptermArgs(["server", "start", "--root", ROOT]));
  for (const pdf of pdfs) {
    const line = `doc extract --in ${pdf.name} --mode text --out out/${pdf.name}.txt`;
    console.log(
      `\nA. ${pdf.name} (${pdf.pages} pages, ${(Deno.statSync(`${ROOT}${pdf.name}`).size / 1024).toFixed(0)} KiB)\n`,
    );
    const poppler: Subject = {
      name: "pdftotext",
      cmd: ["pdftotext", "-enc", "UTF-8", `${ROOT}${pdf.name}`, `${ROOT}out/poppler.txt`],
    };
    const execSubject: Subject = {
      name: "pterm exec doc extract --mode text",
      cmd: pterm(line),
      env: COLD,
      before: pruneRuns,
    };
    const helloSubject: Subject = {
      name: "pterm hello (start-up floor)",
      cmd: pterm("hello"),
      env: COLD,
      before: pruneRuns,
    };
    const timings: Timing[] = await timeSubjects(
      [
        poppler,
        execSubject,
        { name: "  the same, --no-code-cache", cmd: ptermNoCodeCache(line), env: COLD, before: pruneRuns },
        helloSubject,
        { name: "  warm exec (the root's session server)", cmd: pterm(line), before: pruneRuns },
        { name: "  warm exec hello", cmd: pterm("hello"), before: pruneRuns },
      ],
      RUNS,
      1,
    );
    const [popplerCpu, execCpu, helloCpu] = await cpuMedians([poppler, execSubject, helloSubject], RUNS);
    const mcpRuns: number[] = [];
    for (let i = 0; i < RUNS + 1; i++) {
      const elapsed = await server.time(line);
      if (i > 0) mcpRuns.push(elapsed); // the first call loads the engine
    }
    console.log(table(timings, "pdftotext"));
    const [popplerMs, exec, , hello, warmExec, warmHello] = timings.map((t) => t.median);
    const warm = median(mcpRuns);
    console.log(
      `\nwarm pterm mcp: median ${ms(warm)} over ${mcpRuns.length} calls (${(warm / popplerMs).toFixed(2)}× pdftotext)`,
    );
    const engineCpu = execCpu === null || helloCpu === null ? null : execCpu - helloCpu;
    const cpuRatio = engineCpu === null || !popplerCpu ? "" : ` (CPU ${(engineCpu / popplerCpu).toFixed(1)}×)`;
    const wholeCpuRatio = execCpu === null || !popplerCpu ? "" : ` (CPU ${(execCpu / popplerCpu).toFixed(1)}×)`;
    summary.push(
      `| ${pdf.pages} p. | ${ms(popplerMs)}${cpu(popplerCpu)} | ${ms(exec)}${cpu(execCpu)} | ${ms(exec - hello)}${
        cpu(engineCpu)
      } | ${((exec - hello) / popplerMs).toFixed(1)}×${cpuRatio} | ${
        (exec / popplerMs).toFixed(1)
      }×${wholeCpuRatio} | ${ms(warmExec)} | ${ms(warmExec - warmHello)} | ${
        ((warmExec - warmHello) / popplerMs).toFixed(1)
      }× | ${ms(warm)} | ${(warm / popplerMs).toFixed(1)}× |`,
    );
  }
  await server.close();

  /**
   * Real PDFs of other producers (test fixtures), so the numbers above are not one producer's: for
   * each, which reader took it (pterm's own, or PDF.js and why) and its engine time against
   * pdftotext's, interleaved with `hello` in one group.
   */
  const OTHER_PDFS = [
    "report.pdf",
    "deck.pdf",
    "debian/shared-mime-info-spec.pdf",
    "tex/accents.pdf",
    "pdfparse/default-test.pdf",
    "camelot/foo.pdf",
    "pdfjs/ArabicCIDTrueType.pdf",
  ].filter((file) => {
    try {
      return Deno.statSync(`${FIXTURES}${file}`).isFile;
    } catch {
      return false;
    }
  });
  console.log("\nA2. small real PDFs of other producers (tests/fixtures/doc; the reader that takes each)\n");
  const { extractWithPtermReader } = await import("../commands/doc/pdf/pdf.ts");
  const others: Subject[] = [
    { name: "pterm hello (start-up floor)", cmd: pterm("hello"), env: COLD, before: pruneRuns },
    { name: "pterm hello, warm exec", cmd: pterm("hello"), before: pruneRuns },
  ];
  const otherRows: { file: string; reader: string; pages: string }[] = [];
  for (const [i, file] of OTHER_PDFS.entries()) {
    const local = `other-${i}.pdf`;
    await Deno.copyFile(`${FIXTURES}${file}`, `${ROOT}${local}`);
    const bytes = await Deno.readFile(`${ROOT}${local}`);
    const fast = await extractWithPtermReader(bytes, {
      signal: AbortSignal.timeout(60_000),
      charBudget: 10_000_000,
      memoryBytes: 1 << 30,
      maxInflatedBytes: 512 * 1024 * 1024,
    });
    const reader = "unsupported" in fast ? `PDF.js (${fast.unsupported})` : "pterm's";
    const pages = "unsupported" in fast ? "" : String(fast.counts.pages ?? "");
    otherRows.push({ file, reader, pages });
    others.push({
      name: `pdftotext ${file}`,
      cmd: ["pdftotext", "-enc", "UTF-8", `${ROOT}${local}`, `${ROOT}out/poppler.txt`],
    });
    const line = `doc extract --in ${local} --mode text --out out/${local}.txt`;
    others.push({ name: `pterm ${file}`, cmd: pterm(line), env: COLD, before: pruneRuns });
    others.push({ name: `pterm ${file}, warm exec`, cmd: pterm(line), before: pruneRuns });
  }
  const otherTimings = await timeSubjects(others, RUNS, 1);
  run(Deno.execPath(), ...ptermArgs(["server", "stop", "--root", ROOT]));
  console.log(table(otherTimings, "pterm hello (start-up floor)"));
  const otherFloor = otherTimings[0].median;
  const warmFloor = otherTimings[1].median;
  const otherSummary = [
    "| PDF | reader | pdftotext | pterm exec | engine (exec − hello) | engine ÷ pdftotext | warm exec | warm engine (− warm hello) | warm engine ÷ pdftotext |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
  ];
  for (const row of otherRows) {
    const poppler = otherTimings.find((t) => t.name === `pdftotext ${row.file}`)!.median;
    const exec = otherTimings.find((t) => t.name === `pterm ${row.file}`)!.median;
    const warmExec = otherTimings.find((t) => t.name === `pterm ${row.file}, warm exec`)!.median;
    otherSummary.push(
      `| ${row.file}${row.pages ? ` (${row.pages} p.)` : ""} | ${row.reader} | ${ms(poppler)} | ${ms(exec)} | ${
        ms(exec - otherFloor)
      } | ${((exec - otherFloor) / poppler).toFixed(1)}× | ${ms(warmExec)} | ${ms(warmExec - warmFloor)} | ${
        ((warmExec - warmFloor) / poppler).toFixed(1)
      }× |`,
    );
  }

  console.log("\nB. small office files (tests/fixtures/doc): the engine time (their references: part C)\n");
  await Deno.copyFile(`${FIXTURES}report.docx`, `${ROOT}report.docx`);
  await Deno.copyFile(`${FIXTURES}deck.pptx`, `${ROOT}deck.pptx`);
  await Deno.copyFile(`${FIXTURES}book.xlsx`, `${ROOT}book.xlsx`);
  const office: Subject[] = [{ name: "pterm hello (start-up floor)", cmd: pterm("hello"), before: pruneRuns }];
  for (const file of ["report.docx", "deck.pptx", "book.xlsx"]) {
    office.push({
      name: `pterm ${file}`,
      cmd: pterm(`doc extract --in ${file} --mode text --out out/${file}.txt`),
      before: pruneRuns,
    });
  }
  const officeTimings = await timeSubjects(office, RUNS, 1);
  console.log(table(officeTimings, "pterm hello (start-up floor)"));
  const floor = officeTimings[0].median;
  const ptermOffice = office.filter((subject) => subject.name.startsWith("pterm"));
  const officeCpu = new Map((await cpuMedians(ptermOffice, RUNS)).map((value, i) => [ptermOffice[i].name, value]));
  const floorCpu = officeCpu.get(office[0].name) ?? null;
  for (const t of officeTimings.slice(1).filter((t) => t.name.startsWith("pterm"))) {
    const file = t.name.replace("pterm ", "");
    const fileCpu = officeCpu.get(t.name) ?? null;
    const engineCpu = fileCpu === null || floorCpu === null ? null : fileCpu - floorCpu;
    summary.push(`| ${file} | | ${ms(t.median)}${cpu(fileCpu)} | ${ms(t.median - floor)}${cpu(engineCpu)} | | | | |`);
  }
  return { summary, otherSummary, otherFloor, otherWarmFloor: warmFloor };
}

/**
 * What reads each format on Debian, for part C: pandoc (`-t gfm`) for what Debian's pandoc 2.17
 * reads, else LibreOffice's `--convert-to`, else nothing (the row says why).
 */
type Reference =
  | { readonly tool: "pandoc"; readonly from: string }
  | { readonly tool: "LibreOffice"; readonly to: string; readonly apt: string }
  | { readonly tool: null; readonly why: string };

interface Format {
  readonly format: string;
  readonly file: string;
  /** The fixture it is copied from, or how it is made in the bench's root. */
  readonly fixture: string | (() => Promise<void>);
  readonly reference: Reference;
}

const NO_PANDOC_READER = "Debian's pandoc 2.17 has no reader for it";
const FORMATS: readonly Format[] = [
  {
    format: "HTML",
    file: "users-and-groups.html",
    fixture: "debian/users-and-groups.html",
    reference: { tool: "pandoc", from: "html" },
  },
  {
    format: "CSV",
    file: "distro-info-debian.csv",
    fixture: "debian/distro-info-debian.csv",
    reference: { tool: "pandoc", from: "csv" },
  },
  {
    format: "TSV",
    file: "distro-info-debian.tsv",
    // The CSV above with tabs for its commas (it quotes no field).
    fixture: async () => {
      const csv = await Deno.readTextFile(`${FIXTURES}debian/distro-info-debian.csv`);
      if (csv.includes('"')) throw new Error("distro-info-debian.csv quotes a field: convert it properly");
      await Deno.writeTextFile(`${ROOT}distro-info-debian.tsv`, csv.replaceAll(",", "\t"));
    },
    reference: { tool: null, why: NO_PANDOC_READER },
  },
  {
    format: "JSON",
    file: "test.json",
    fixture: "markitdown/test.json",
    reference: { tool: null, why: "pandoc's json is its own document tree, not JSON data" },
  },
  { format: "EPUB", file: "book.epub", fixture: "markitdown/test.epub", reference: { tool: "pandoc", from: "epub" } },
  { format: "ODT", file: "report.odt", fixture: "report.odt", reference: { tool: "pandoc", from: "odt" } },
  {
    format: "ODS",
    file: "book.fods",
    fixture: "src/book.fods",
    reference: { tool: "LibreOffice", to: "csv", apt: "libreoffice-calc-nogui" },
  },
  {
    format: "ODP",
    file: "deck.fodp",
    fixture: "src/deck.fodp",
    reference: { tool: null, why: `${NO_PANDOC_READER}, and LibreOffice Impress no text export` },
  },
  { format: "DOCX", file: "report.docx", fixture: "report.docx", reference: { tool: "pandoc", from: "docx" } },
  {
    format: "PPTX",
    file: "deck.pptx",
    fixture: "deck.pptx",
    reference: { tool: null, why: `${NO_PANDOC_READER}, and LibreOffice Impress no text export` },
  },
  {
    format: "XLSX",
    file: "book.xlsx",
    fixture: "book.xlsx",
    reference: { tool: "LibreOffice", to: "csv", apt: "libreoffice-calc-nogui" },
  },
];

/** The command of a format's reference, or why its row has none. */
function referenceCommand(format: Format, tools: { pandoc: boolean; soffice: boolean }): string[] | string {
  const reference = format.reference;
  if (reference.tool === null) return `none: ${reference.why}`;
  if (reference.tool === "pandoc") {
    if (!tools.pandoc) return "pandoc is not installed (apt-get install -y pandoc)";
    return [
      "pandoc",
      "-f",
      reference.from,
      "-t",
      "gfm",
      "-o",
      `${ROOT}out/${format.file}.pandoc.md`,
      `${ROOT}${format.file}`,
    ];
  }
  if (!tools.soffice) return `LibreOffice is not installed (apt-get install -y ${reference.apt})`;
  return [
    "soffice",
    `-env:UserInstallation=file://${BENCH_DIR}lo-profile`,
    "--headless",
    "--convert-to",
    reference.to,
    "--outdir",
    `${ROOT}out`,
    `${ROOT}${format.file}`,
  ];
}

/**
 * Part C: each format's file through `pterm exec doc extract` (Markdown out) and through its
 * reference, interleaved in one run with `hello`; one row per format, pterm against its reference.
 */
async function formatsAgainstReferences(): Promise<string[]> {
  console.log(
    "\nC. the other formats (tests/fixtures/doc): pterm against pandoc or LibreOffice, where Debian has one\n",
  );
  Deno.mkdirSync(`${ROOT}out`, { recursive: true });
  const tools = { pandoc: has("pandoc"), soffice: has("soffice") };
  const subjects: Subject[] = [{ name: "pterm hello (start-up floor)", cmd: pterm("hello"), before: pruneRuns }];
  const rows: { format: Format; reference: string[] | string }[] = [];
  for (const format of FORMATS) {
    if (typeof format.fixture === "string") {
      await Deno.copyFile(`${FIXTURES}${format.fixture}`, `${ROOT}${format.file}`);
    } else await format.fixture();
    subjects.push({
      name: `pterm ${format.file}`,
      cmd: pterm(`doc extract --in ${format.file} --out out/${format.file}.md`),
      before: pruneRuns,
    });
    const reference = referenceCommand(format, tools);
    if (typeof reference !== "string") subjects.push({ name: `${reference[0]} ${format.file}`, cmd: reference });
    rows.push({ format, reference });
  }
  const timings = await timeSubjects(subjects, RUNS, 1);
  console.log(table(timings, "pterm hello (start-up floor)"));
  const floor = timings[0].median;
  const cpus = new Map((await cpuMedians(subjects, RUNS)).map((value, i) => [subjects[i].name, value]));
  const floorCpu = cpus.get(subjects[0].name) ?? null;
  const summary = [
    `| format | file | pterm exec | engine (exec − hello ${ms(floor)}${
      cpu(floorCpu)
    }) | reference | reference's time | ` +
    "exec ÷ reference, wall (CPU) |",
    "| --- | --- | --- | --- | --- | --- | --- |",
  ];
  for (const { format, reference } of rows) {
    const exec = timings.find((t) => t.name === `pterm ${format.file}`)!.median;
    const execCpu = cpus.get(`pterm ${format.file}`) ?? null;
    const engineCpu = execCpu === null || floorCpu === null ? null : execCpu - floorCpu;
    const size = `${(Deno.statSync(`${ROOT}${format.file}`).size / 1024).toFixed(0)} KiB`;
    const head = `| ${format.format} | ${format.file} (${size}) | ${ms(exec)}${cpu(execCpu)} | ${ms(exec - floor)}${
      cpu(engineCpu)
    } |`;
    if (typeof reference === "string") {
      summary.push(`${head} ${reference} | | |`);
      continue;
    }
    const name = `${reference[0]} ${format.file}`;
    const theirs = timings.find((t) => t.name === name)!.median;
    const theirCpu = cpus.get(name) ?? null;
    const tool = format.reference.tool === "pandoc"
      ? `pandoc -f ${format.reference.from} -t gfm`
      : format.reference.tool === "LibreOffice"
      ? `LibreOffice --convert-to ${format.reference.to}`
      : "";
    const cpuRatio = execCpu === null || !theirCpu ? "" : ` (${(execCpu / theirCpu).toFixed(1)}×)`;
    summary.push(`${head} ${tool} | ${ms(theirs)}${cpu(theirCpu)} | ${(exec / theirs).toFixed(1)}×${cpuRatio} |`);
  }
  return summary;
}

const formatsOnly = Deno.args.includes("--formats");
const loadAtStart = loadAverage();
const pdfParts = formatsOnly ? null : await pdfsAndOfficeFiles();
const formatSummary = await formatsAgainstReferences();

console.log(`\nSummary (medians; load average ${loadAtStart} at the start, ${loadAverage()} at the end)\n`);
if (pdfParts) {
  console.log(pdfParts.summary.join("\n"));
  console.log(
    `\nOther producers (medians; \`hello\` ${ms(pdfParts.otherFloor)} cold, ${
      ms(pdfParts.otherWarmFloor)
    } warm, in their group)\n`,
  );
  console.log(pdfParts.otherSummary.join("\n"));
  console.log("\nThe other formats against their references (part C)\n");
}
console.log(formatSummary.join("\n"));
