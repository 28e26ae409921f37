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
 * Targets (issue 17): hello ≤ 5 ms median; git status ≤ 1× real git clean, ≤ 2× with 100 changes.
 */

import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { ptermArgs } from "../tests/helpers.ts";
import { ptermCommand, quick, realGitEnv } from "./_timing.ts";

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

function pathOf(i: number): string {
  return `src/m${Math.floor(i / 500)}/d${Math.floor(i / 50) % 10}/file${i}.ts`;
}

/** The workspace root (pterm's) holding repository `r` of FILES files, one commit. */
function build(root: string): string {
  const repo = `${root}/r`;
  try {
    Deno.statSync(`${repo}/.git`);
    gitSync(repo, "reset", "-q", "--hard");
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

function edit(repo: string): void {
  const step = Math.floor(FILES / CHANGED);
  for (let k = 0; k < CHANGED; k++) Deno.writeTextFileSync(`${repo}/${pathOf(k * step)}`, `// edited\n`);
}

interface Row {
  readonly call: string;
  readonly samples: Record<string, number[]>;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function p90(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.9))];
}

async function processTime(cmd: string[], cwd?: string, env?: Record<string, string>): Promise<number> {
  const started = performance.now();
  const out = await new Deno.Command(cmd[0], { args: cmd.slice(1), cwd, env, stdin: "null", stdout: "null" })
    .output();
  const elapsed = performance.now() - started;
  if (!out.success) throw new Error(`${cmd.join(" ")} failed (${out.code})`);
  return elapsed;
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

async function mcpTime(line: string): Promise<number> {
  const started = performance.now();
  const result = await client.callTool({ name: "terminal_exec", arguments: { command: line } });
  const elapsed = performance.now() - started;
  if (result.isError) throw new Error(`${line}: ${JSON.stringify(result.content)}`);
  return elapsed;
}

const rows: Row[] = [];
async function measure(call: string, line: string, withGit: boolean): Promise<void> {
  const samples: Record<string, number[]> = { "pterm mcp (warm)": [], "pterm exec": [] };
  if (withGit) samples["real git status"] = [];
  for (let i = 0; i < RUNS + 3; i++) {
    const mcp = await mcpTime(line);
    const exec = await processTime(ptermCommand("exec", "--root", root, line));
    const git = withGit ? await processTime(["git", "-C", repo, "status"], undefined, GIT_ENV) : 0;
    if (i < 3) continue; // warm-up
    samples["pterm mcp (warm)"].push(mcp);
    samples["pterm exec"].push(exec);
    if (withGit) samples["real git status"].push(git);
  }
  rows.push({ call, samples });
  console.error(`  ${call}: ${Object.entries(samples).map(([k, v]) => `${k} ${median(v).toFixed(1)} ms`).join(", ")}`);
}

/** Calls one right after another: no pause in which the server can start the next call's worker. */
async function backToBack(call: string, line: string): Promise<void> {
  const values: number[] = [];
  for (let i = 0; i < RUNS + 3; i++) {
    const elapsed = await mcpTime(line);
    if (i >= 3) values.push(elapsed);
  }
  rows.push({ call, samples: { "pterm mcp (warm), back to back": values } });
  console.error(`  ${call}, back to back: ${median(values).toFixed(1)} ms`);
}

try {
  await measure("hello", "hello", false);
  await backToBack("hello", "hello");
  await measure(`git status, ${FILES} files, clean`, "git status --repo r", true);
  edit(repo);
  await measure(`git status, ${FILES} files, ${CHANGED} changed`, "git status --repo r", true);
} finally {
  await client.close();
  gitSync(repo, "reset", "-q", "--hard");
}

console.log(`Per-call latency, ${RUNS} runs each, interleaved (Deno ${Deno.version.deno}, ${Deno.build.target}).\n`);
console.log("| call | subject | median ms | p90 ms | ÷ reference |");
console.log("| ---- | ------- | --------: | -----: | ----------: |");
for (const row of rows) {
  const reference = row.samples["real git status"] ?? row.samples["pterm exec"] ??
    rows.find((r) => r.call === row.call)!.samples["pterm exec"];
  for (const [name, values] of Object.entries(row.samples)) {
    const ratio = median(values) / median(reference);
    console.log(
      `| ${row.call} | ${name} | ${median(values).toFixed(1)} | ${p90(values).toFixed(1)} | ${ratio.toFixed(2)}× |`,
    );
  }
}
