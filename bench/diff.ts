// deno-lint-ignore-file no-console -- a script: printing is its output
/**
 * `git diff` of one large file with many changed lines — the shape of lockfiles and generated
 * files — against the real git, whole processes, in the same run. A 60,000-line file (and a
 * 10,000-line one) with 30% of its lines rewritten in scattered runs, diffed in the work tree
 * (`git diff`). Target: pterm ≤ 3× real git at 60,000 lines.
 *
 *   deno run -A bench/diff.ts            # 10,000 and 60,000 lines
 *   deno run -A bench/diff.ts --quick    # 10,000 lines, fewer runs
 *
 * Every pterm number includes pterm's process and sandbox-worker start-up (~35 ms; bench/startup.ts).
 */

import { ptermCommand, quick, realGitEnv, table, timeSubjects } from "./_timing.ts";

const BENCH_DIR = new URL("../.bench/diff/", import.meta.url).pathname;
const SIZES = quick ? [10_000] : [10_000, 60_000];
const RUNS = quick ? 3 : 7;
const GIT_ENV = realGitEnv(BENCH_DIR);

function gitSync(dir: string, ...args: string[]): void {
  const out = new Deno.Command("git", { args, cwd: dir, env: GIT_ENV, clearEnv: true, stdout: "null", stderr: "piped" })
    .outputSync();
  if (!out.success) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
}

/** A deterministic pseudo-random sequence, so every run diffs the same file. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => { // mulberry32
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** A repository at `dir` holding `lines` lines committed, then 30% of them rewritten in runs of 1–20 lines. */
function prepare(dir: string, lines: number): void {
  try {
    Deno.removeSync(dir, { recursive: true });
  } catch { /* fresh */ }
  Deno.mkdirSync(dir, { recursive: true });
  gitSync(dir, "init", "-q", "-b", "main");
  const next = random(lines);
  const text = Array.from({ length: lines }, (_, i) => `"package-${i}": "^${i % 17}.${i % 7}.${i % 5}", // ${next()}`);
  Deno.writeTextFileSync(`${dir}/big.lock`, text.join("\n") + "\n");
  gitSync(dir, "add", "-A");
  gitSync(dir, "commit", "-qm", "base");
  let changed = 0;
  while (changed < lines * 0.3) {
    const at = Math.floor(next() * lines);
    const run = 1 + Math.floor(next() * 20);
    for (let k = at; k < Math.min(lines, at + run); k++) {
      if (!text[k].startsWith("rewritten")) changed++;
      text[k] = `rewritten ${k} ${next()}`;
    }
  }
  Deno.writeTextFileSync(`${dir}/big.lock`, text.join("\n") + "\n");
}

const results: string[] = [];
for (const lines of SIZES) {
  const root = `${BENCH_DIR}${lines}`;
  prepare(`${root}/r`, lines);
  const timings = await timeSubjects(
    [
      { name: "git diff", cmd: ["git", "diff"], cwd: `${root}/r`, env: GIT_ENV },
      { name: "pterm git diff", cmd: ptermCommand("exec", "--root", root, "git diff --repo r") },
    ],
    RUNS,
    1,
  );
  results.push(`${lines.toLocaleString("en")} lines, 30% rewritten:\n\n${table(timings, "git diff")}`);
}
console.log(results.join("\n\n"));
