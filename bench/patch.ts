// deno-lint-ignore-file no-console -- a script: printing is its output
/**
 * `patch apply` against the real `git apply`, in the same run, at three sizes each:
 *
 *   A. many files: 1,000 line edits over 100 files (×1, ×2, ×4: up to 4,000 edits over 400 files)
 *   B. one big file: 500 edits in one 10,000-line file (×1, ×2, ×4: up to 40,000 lines)
 *
 * The same edits are applied three ways: as XGit `line.replace` blocks located by keys, as one
 * `git.diff` block holding the unified diff the real git wrote, and by `git apply` of that diff.
 * Rows "pterm …" are whole `pterm exec` processes (start-up, sandbox worker, audit, fsync of every
 * written file included); rows "engine …" time the patch engine alone, in this process, to show
 * how the work itself grows. Linear growth: the "per unit" column stays flat across sizes. Each
 * whole-process subject is also run for its CPU time (user + system), which a loaded machine
 * disturbs less than wall time; the ratios to git apply are within the same run.
 *
 *   deno run -A bench/patch.ts            # sizes ×1, ×2, ×4
 *   deno run -A bench/patch.ts --quick    # sizes ×0.25, ×0.5, ×1, fewer runs
 */

import { createWorkspace } from "../core/context.ts";
import { runPatch } from "../commands/patch/engine.ts";
import { cpuOnce, ptermCommand, quick, realGitEnv, type Subject, timeSubjects } from "./_timing.ts";

const BENCH_DIR = new URL("../.bench/patch/", import.meta.url).pathname;
const SCALES = quick ? [0.25, 0.5, 1] : [1, 2, 4];
const RUNS = quick ? 3 : 7;

const GIT_ENV = realGitEnv(BENCH_DIR);

function gitSync(dir: string, ...args: string[]): string {
  const out = new Deno.Command("git", {
    args,
    cwd: dir,
    env: GIT_ENV,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  })
    .outputSync();
  if (!out.success) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}

interface Workload {
  /** Path → content before, and after the edits. */
  before: Map<string, string>;
  after: Map<string, string>;
  /** The edits as XGit blocks. */
  blocks: string;
  edits: number;
  lines: number;
}

/** A line everyone can name: `#<file>.<line>#` is unique and never a prefix of another marker. */
function line(file: number, i: number): string {
  return `    value_${i} = compute(#${file}.${i}#, ${i % 97})`;
}

export function buildWorkload(files: number, linesPerFile: number, editsPerFile: number): Workload {
  const before = new Map<string, string>();
  const after = new Map<string, string>();
  const blocks: string[] = [];
  const step = Math.floor(linesPerFile / editsPerFile);
  for (let f = 0; f < files; f++) {
    const path = `src/m${Math.floor(f / 50)}/file${f}.py`;
    const lines = Array.from({ length: linesPerFile }, (_, i) => line(f, i));
    before.set(path, lines.join("\n") + "\n");
    for (let e = 0; e < editsPerFile; e++) {
      const i = e * step + (f % step);
      const replacement = `    value_${i} = compute(#${f}.${i}#, ${i % 97} + 1)  # edited`;
      blocks.push(`=== line.replace: "${path}" ===\nkeys=#${f}.${i}#\n${replacement}\n=== end ===\n`);
      lines[i] = replacement;
    }
    after.set(path, lines.join("\n") + "\n");
  }
  return {
    before,
    after,
    blocks: blocks.join("") + "=== PATCH EOF ===\n",
    edits: files * editsPerFile,
    lines: files * linesPerFile,
  };
}

export function writeTree(dir: string, files: Map<string, string>): void {
  try {
    Deno.removeSync(dir, { recursive: true });
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  Deno.mkdirSync(dir, { recursive: true });
  for (const [path, content] of files) {
    const abs = `${dir}/${path}`;
    Deno.mkdirSync(abs.slice(0, abs.lastIndexOf("/")), { recursive: true });
    Deno.writeTextFileSync(abs, content);
  }
}

/** The unified diff the real git writes for the workload. */
export function realDiff(dir: string, w: Workload): string {
  Deno.mkdirSync(dir, { recursive: true });
  writeTree(dir, w.before);
  gitSync(dir, "init", "-q");
  gitSync(dir, "add", "-A");
  for (const [path, content] of w.after) Deno.writeTextFileSync(`${dir}/${path}`, content);
  return gitSync(dir, "diff", "--no-color", "--no-ext-diff");
}

function verify(dir: string, w: Workload, what: string): void {
  for (const [path, content] of w.after) {
    if (Deno.readTextFileSync(`${dir}/${path}`) !== content) throw new Error(`${what}: ${path} is not as expected`);
  }
}

let engineRuns = 0;

async function engineOnce(root: string, base: Map<string, string>, patch: string): Promise<number> {
  writeTree(root, base);
  const started = performance.now();
  await runPatch({
    mode: "apply",
    command: "patch apply",
    text: patch,
    workspace: createWorkspace(await Deno.realPath(root)),
    noCommit: false,
    config: {},
    session: { id: "bench", dir: `${root}/sessions/bench` },
    runId: `bench-${engineRuns++}`,
    signal: new AbortController().signal,
    git: null,
  });
  return performance.now() - started;
}

async function engineMedian(root: string, w: Workload, patch: string): Promise<number> {
  const samples: number[] = [];
  await engineOnce(root, w.before, patch); // warm-up
  for (let i = 0; i < RUNS; i++) samples.push(await engineOnce(root, w.before, patch));
  verify(root, w, "engine");
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

interface Row {
  scale: number;
  edits: number;
  lines: number;
  pterm: number;
  ptermDiff: number;
  git: number;
  engine: number;
  engineDiff: number;
  /** CPU medians (user + system) of the three whole-process subjects. */
  cpuPterm: number;
  cpuPtermDiff: number;
  cpuGit: number;
}

async function measure(name: string, scale: number, w: Workload): Promise<Row> {
  const dir = `${BENCH_DIR}${name}-x${scale}`;
  Deno.mkdirSync(dir, { recursive: true });
  const diff = realDiff(`${dir}/oracle`, w);
  const blocksFile = `${dir}/blocks.patch`;
  const diffFile = `${dir}/diff.patch`;
  const plainDiff = `${dir}/plain.diff`;
  Deno.writeTextFileSync(blocksFile, w.blocks);
  Deno.writeTextFileSync(diffFile, `=== git.diff: "." ===\n${diff}=== end ===\n=== PATCH EOF ===\n`);
  Deno.writeTextFileSync(plainDiff, diff);
  const root = `${dir}/root`;
  const reset = () => Promise.resolve(writeTree(root, w.before));
  const subjects: Subject[] = [
    {
      name: "pterm blocks",
      cmd: ptermCommand("exec", "--root", root, "--stdin-file", blocksFile, "patch apply"),
      before: reset,
    },
    {
      name: "pterm git.diff",
      cmd: ptermCommand("exec", "--root", root, "--stdin-file", diffFile, "patch apply"),
      before: reset,
    },
    { name: "git apply", cmd: ["git", "apply", plainDiff], cwd: root, env: GIT_ENV, before: reset },
  ];
  Deno.mkdirSync(root, { recursive: true });
  const timings = await timeSubjects(subjects, RUNS, 1);
  const cpuSamples = subjects.map(() => [] as number[]);
  for (let i = 0; i < RUNS; i++) {
    for (const [k, subject] of subjects.entries()) cpuSamples[k].push(await cpuOnce(subject));
  }
  const cpu = (n: string) => {
    const sorted = [...cpuSamples[subjects.findIndex((s) => s.name === n)]].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)];
  };
  for (const subject of subjects) {
    await reset();
    const out = await new Deno.Command(subject.cmd[0], {
      args: subject.cmd.slice(1),
      cwd: subject.cwd,
      env: subject.env,
      stdout: "null",
    })
      .output();
    if (!out.success) throw new Error(`${subject.name} failed`);
    verify(root, w, subject.name);
  }
  const engine = await engineMedian(`${dir}/engine`, w, w.blocks);
  const engineDiff = await engineMedian(`${dir}/engine`, w, Deno.readTextFileSync(diffFile));
  const by = (n: string) => timings.find((t) => t.name === n)!.median;
  return {
    scale,
    edits: w.edits,
    lines: w.lines,
    pterm: by("pterm blocks"),
    ptermDiff: by("pterm git.diff"),
    git: by("git apply"),
    engine,
    engineDiff,
    cpuPterm: cpu("pterm blocks"),
    cpuPtermDiff: cpu("pterm git.diff"),
    cpuGit: cpu("git apply"),
  };
}

function printTable(title: string, unit: "edit" | "line", rows: Row[]): void {
  const header = [
    "size",
    "edits",
    "lines",
    "pterm blocks ms",
    "pterm git.diff ms",
    "git apply ms",
    "÷ git apply (blocks / diff)",
    "CPU ms: blocks / git.diff / git apply",
    "CPU ÷ git apply (blocks / diff)",
    "engine blocks ms",
    "engine git.diff ms",
    `engine µs per ${unit} (blocks / diff)`,
  ];
  const cells = rows.map((r) => {
    const units = unit === "edit" ? r.edits : r.lines;
    return [
      `×${r.scale}`,
      String(r.edits),
      String(r.lines),
      r.pterm.toFixed(0),
      r.ptermDiff.toFixed(0),
      r.git.toFixed(0),
      `${(r.pterm / r.git).toFixed(1)}× / ${(r.ptermDiff / r.git).toFixed(1)}×`,
      `${r.cpuPterm.toFixed(0)} / ${r.cpuPtermDiff.toFixed(0)} / ${r.cpuGit.toFixed(0)}`,
      `${(r.cpuPterm / r.cpuGit).toFixed(1)}× / ${(r.cpuPtermDiff / r.cpuGit).toFixed(1)}×`,
      r.engine.toFixed(0),
      r.engineDiff.toFixed(0),
      `${((r.engine * 1000) / units).toFixed(1)} / ${((r.engineDiff * 1000) / units).toFixed(1)}`,
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const fmt = (c: string[]) => "| " + c.map((x, i) => x.padEnd(widths[i])).join(" | ") + " |";
  console.log(`\n${title}\n`);
  console.log([fmt(header), fmt(widths.map((w) => "-".repeat(w))), ...cells.map(fmt)].join("\n"));
}

if (import.meta.main) {
  Deno.mkdirSync(BENCH_DIR, { recursive: true });
  console.log(`patch benchmark (${quick ? "quick" : "full"}; median of ${RUNS} runs; pterm rows are whole processes)`);
  const many: Row[] = [];
  for (const scale of SCALES) {
    many.push(await measure("many", scale, buildWorkload(Math.round(100 * scale), 200, 10)));
  }
  printTable("A. 1,000 line edits over 100 files, scaled (per unit = per edit)", "edit", many);
  const big: Row[] = [];
  for (const scale of SCALES) {
    big.push(await measure("big", scale, buildWorkload(1, Math.round(10_000 * scale), 500)));
  }
  printTable("B. 500 edits in one 10,000-line file, scaled (per unit = per line of the file)", "line", big);
}
