// deno-lint-ignore-file no-console -- a script: printing is its output
/**
 * `pterm mcp` against `pterm exec` and the real git, in the same run: per-call latency of `hello`
 * and of `git status` on 10,000 files (clean, and with 100 changed files) through one warm
 * `pterm mcp` server, driven by the official SDK client over stdio as a host drives it; the same
 * calls as whole `pterm exec` processes; and `git status` as a whole `git` process. Runs are
 * interleaved so machine noise hits all subjects alike.
 *
 *   deno task bench mcp            # 10,000 files, 30 runs per subject
 *   deno task bench mcp --quick    # 1,000 files, 10 runs
 *
 * Targets: hello ≤ 5 ms median; git status ≤ 1× real git clean, ≤ 2× with 100 changes.
 *
 * Besides wall-clock medians it reports CPU time per call (the machine is shared, so wall time is
 * noisy): for `pterm mcp` the server process's user+system time (/proc/<pid>/stat) across its calls,
 * for `pterm exec` and git their processes' (the children's times in /proc/self/stat); both count
 * in clock ticks (10 ms), so CPU is given as the mean over all runs, not a median. The client's own
 * side of the MCP round trip is not in it. The load average is printed before and after.
 *
 * The warm server's git worker keeps the status between calls (commands/git/worktree/fsmonitor.ts): in
 * the clean and "100 changed" rows nothing changes between calls. The last two rows change the tree
 * before every call of every subject: a file created or removed (its folder listed again), a
 * `.gitignore` rewritten (the kept answer cannot say what that does: everything is scanned), and
 * 100 files rewritten (100 files re-checked).
 */

import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { ptermArgs } from "../tests/_support/helpers.ts";
import { childrenCpuMs, processCpuMs, ptermCommand, quick, realGitEnv } from "./_timing.ts";

const BENCH_DIR = new URL("../.bench/mcp/", import.meta.url).pathname;
const FILES = quick ? 1000 : 10000;
const RUNS = quick ? 10 : 30;
const CHANGED = 100;
const GIT_ENV = realGitEnv(BENCH_DIR);

function gitSync(dir: string, ...args: string[]): void {
  const out = new Deno.Command("git", { args, cwd: dir, env: GIT_ENV, clearEnv: true, stdout: "null", stderr: "piped" })
    .outputSync();
  if (!out.success) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
}

/** Back to the committed state: edits undone, the files the rows make removed. */
function tidy(repo: string): void {
  gitSync(repo, "reset", "-q", "--hard");
  for (const made of [".gitignore", "src/new-file.txt"]) {
    try {
      Deno.removeSync(`${repo}/${made}`);
    } catch { /* not made */ }
  }
}

function pathOf(i: number): string {
  return `src/m${Math.floor(i / 500)}/d${Math.floor(i / 50) % 10}/file${i}.ts`;
}

/** The workspace root (pterm's) holding repository `r` of FILES files, one commit. */
function build(root: string): string {
  const repo = `${root}/r`;
  try {
    Deno.statSync(`${repo}/.git`);
    tidy(repo);
    return repo;
  } catch { /* build it */ }
  console.error(`building a repository of ${FILES} files in ${repo} ...`);
  Deno.mkdirSync(repo, { recursive: true });
  gitSync(repo, "init", "-q", "-b", "main");
  for (let i = 0; i < FILES; i++) {
    const path = `${repo}/${pathOf(i)}`;
    if (i % 50 === 0) Deno.mkdirSync(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    Deno.writeTextFileSync(path, `export const value${i} = ${i};\n`.repeat(8));
  }
  gitSync(repo, "add", "-A");
  gitSync(repo, "commit", "-qm", "initial");
  return repo;
}

function edit(repo: string, text = `// edited\n`): void {
  const step = Math.floor(FILES / CHANGED);
  for (let k = 0; k < CHANGED; k++) Deno.writeTextFileSync(`${repo}/${pathOf(k * step)}`, text);
}

let edits = 0;
/** 100 files rewritten with new content (of a new size every other time), before a timed call. */
function editAgain(repo: string): void {
  edits++;
  edit(repo, `// edited ${edits}\n`.repeat(1 + (edits % 2)));
}

interface Row {
  readonly call: string;
  readonly samples: Record<string, number[]>;
  /** CPU milliseconds per subject, one entry per run. */
  readonly cpu: Record<string, number[]>;
}

function loadAverage(): string {
  return Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function p90(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.9))];
}

async function processTime(cmd: string[], cwd?: string, env?: Record<string, string>): Promise<[number, number]> {
  const cpu = childrenCpuMs();
  const started = performance.now();
  const out = await new Deno.Command(cmd[0], { args: cmd.slice(1), cwd, env, stdin: "null", stdout: "null" })
    .output();
  const elapsed = performance.now() - started;
  if (!out.success) throw new Error(`${cmd.join(" ")} failed (${out.code})`);
  return [elapsed, childrenCpuMs() - cpu];
}

const root = `${BENCH_DIR}${FILES}`;
const repo = build(root);
const transport = new StdioClientTransport({
  command: Deno.execPath(),
  args: ptermArgs(["mcp", "--root", root, "--session", "bench"]),
  stderr: "ignore",
});
const client = new Client({ name: "pterm-bench", version: "1.0.0" }, {
  versionNegotiation: { mode: { pin: "2026-07-28" } },
});
await client.connect(transport);

const serverPid = transport.pid!;

async function mcpTime(line: string): Promise<[number, number]> {
  const cpu = processCpuMs(serverPid);
  const started = performance.now();
  const result = await client.callTool({ name: "terminal_exec", arguments: { command: line } });
  const elapsed = performance.now() - started;
  if (result.isError) throw new Error(`${line}: ${JSON.stringify(result.content)}`);
  return [elapsed, processCpuMs(serverPid) - cpu];
}

const rows: Row[] = [];
async function measure(call: string, line: string, withGit: boolean, before?: () => void): Promise<void> {
  const samples: Record<string, number[]> = { "pterm mcp (warm)": [], "pterm exec": [] };
  const cpu: Record<string, number[]> = { "pterm mcp (warm)": [], "pterm exec": [] };
  if (withGit) samples["real git status"] = [];
  if (withGit) cpu["real git status"] = [];
  for (let i = 0; i < RUNS + 3; i++) {
    before?.();
    const mcp = await mcpTime(line);
    before?.();
    const exec = await processTime(ptermCommand("exec", "--root", root, line));
    before?.();
    const git = withGit ? await processTime(["git", "-C", repo, "status"], undefined, GIT_ENV) : [0, 0];
    if (i < 3) continue; // warm-up
    samples["pterm mcp (warm)"].push(mcp[0]);
    cpu["pterm mcp (warm)"].push(mcp[1]);
    samples["pterm exec"].push(exec[0]);
    cpu["pterm exec"].push(exec[1]);
    if (withGit) {
      samples["real git status"].push(git[0]);
      cpu["real git status"].push(git[1]);
    }
  }
  if (withGit) await sameAsGit(line);
  rows.push({ call, samples, cpu });
  console.error(
    `  ${call}: ${
      Object.entries(samples).map(([k, v]) => `${k} ${median(v).toFixed(1)} ms (CPU ${mean(cpu[k]).toFixed(1)})`)
        .join(", ")
    }`,
  );
}

/** The warm server's answer, file by file, is real git's (a fast wrong answer would be no result). */
async function sameAsGit(line: string): Promise<void> {
  const result = await client.callTool({ name: "terminal_exec", arguments: { command: line } });
  const files = (result.structuredContent as { result: { files: { path: string; xy: string }[] } }).result.files;
  const ours = files.map((f) => `${f.xy.replaceAll(".", " ")} ${f.path}`).sort();
  const out = new Deno.Command("git", {
    args: ["-C", repo, "status", "--porcelain", "--untracked-files=all", "--no-renames"],
    env: GIT_ENV,
    clearEnv: true,
    stdout: "piped",
  }).outputSync();
  const theirs = new TextDecoder().decode(out.stdout).split("\n").filter((l) => l !== "").sort();
  if (JSON.stringify(ours) !== JSON.stringify(theirs)) {
    throw new Error(`pterm mcp and git disagree after "${line}": ${ours.length} against ${theirs.length} files`);
  }
}

function mean(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
}

/** Calls one right after another: no pause in which the server can start the next call's worker. */
async function backToBack(call: string, line: string): Promise<void> {
  const values: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < RUNS + 3; i++) {
    const [elapsed, used] = await mcpTime(line);
    if (i < 3) continue;
    values.push(elapsed);
    cpu.push(used);
  }
  const name = "pterm mcp (warm), back to back";
  rows.push({ call, samples: { [name]: values }, cpu: { [name]: cpu } });
  console.error(`  ${call}, back to back: ${median(values).toFixed(1)} ms`);
}

const loadBefore = loadAverage();
try {
  await measure("hello", "hello", false);
  await backToBack("hello", "hello");
  await measure(`git status, ${FILES} files, clean`, "git status --repo r", true);
  edit(repo);
  await measure(`git status, ${FILES} files, ${CHANGED} changed`, "git status --repo r", true);
  let created = false;
  await measure(
    `git status, ${FILES} files, a file created or removed before each call`,
    "git status --repo r",
    true,
    () => {
      created = !created;
      if (created) Deno.writeTextFileSync(`${repo}/src/new-file.txt`, "new\n");
      else Deno.removeSync(`${repo}/src/new-file.txt`);
    },
  );
  let ignoreEdits = 0;
  await measure(
    `git status, ${FILES} files, .gitignore rewritten before each call`,
    "git status --repo r",
    true,
    () => {
      // A rule change: the kept answer cannot say what it does, so the warm call scans everything.
      Deno.writeTextFileSync(`${repo}/.gitignore`, `# ${++ignoreEdits}\n*.tmp\n`);
    },
  );
  await measure(
    `git status, ${FILES} files, ${CHANGED} rewritten before each call`,
    "git status --repo r",
    true,
    () => editAgain(repo),
  );
} finally {
  await client.close();
  tidy(repo);
}

console.log(
  `Per-call latency, ${RUNS} runs each, interleaved (Deno ${Deno.version.deno}, ${Deno.build.target}; ` +
    `load average ${loadBefore} before, ${loadAverage()} after).\n`,
);
console.log("| call | subject | median ms | p90 ms | ÷ reference | CPU ms (mean) | CPU ÷ reference |");
console.log("| ---- | ------- | --------: | -----: | ----------: | ------------: | --------------: |");
for (const row of rows) {
  const referenceName = row.samples["real git status"] ? "real git status" : "pterm exec";
  const referenceRow = row.samples[referenceName] ? row : rows.find((r) => r.call === row.call)!;
  const reference = referenceRow.samples[referenceName];
  const referenceCpu = mean(referenceRow.cpu[referenceName]);
  for (const [name, values] of Object.entries(row.samples)) {
    const ratio = median(values) / median(reference);
    const cpu = mean(row.cpu[name]);
    console.log(
      `| ${row.call} | ${name} | ${median(values).toFixed(1)} | ${p90(values).toFixed(1)} | ${ratio.toFixed(2)}× | ` +
        `${cpu.toFixed(1)} | ${(cpu / referenceCpu).toFixed(2)}× |`,
    );
  }
}
