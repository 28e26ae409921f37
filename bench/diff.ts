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
 * Every pterm number includes pterm's process and sandbox-worker start-up; the row "pterm git diff,
 * 1 line" (a one-line change in a one-line file) shows what that fixed part costs in the same run.
 * Wall-clock times swing with the machine's load; each subject's CPU time (user + system, all its
 * threads, read with bash's `time`) is measured too, interleaved the same way, and the load
 * average is printed with the tables. Before timing, pterm's patch (the artifact) is checked to be
 * git's, byte for byte: a fast wrong diff would not count.
 */

import { cpuTable, ptermCommand, quick, realGitEnv, type Subject, table, timeSubjects } from "./_timing.ts";

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

/** A repository at `dir` with one committed line, changed in the work tree: pterm's fixed cost for `git diff`. */
function prepareTiny(dir: string): void {
  try {
    Deno.removeSync(dir, { recursive: true });
  } catch { /* fresh */ }
  Deno.mkdirSync(dir, { recursive: true });
  gitSync(dir, "init", "-q", "-b", "main");
  Deno.writeTextFileSync(`${dir}/one.txt`, "before\n");
  gitSync(dir, "add", "-A");
  gitSync(dir, "commit", "-qm", "base");
  Deno.writeTextFileSync(`${dir}/one.txt`, "after\n");
}

/** pterm's patch (its artifact) against `git diff`'s bytes; throws unless identical. */
async function checkSamePatch(root: string, repo: string): Promise<number> {
  const [exe, ...args] = ptermCommand("exec", "--root", root, `git diff --repo ${repo}`);
  const out = await new Deno.Command(exe, { args, stdout: "piped", stderr: "piped" }).output();
  const envelope = JSON.parse(new TextDecoder().decode(out.stdout));
  const artifact = envelope.result?.patch_artifact;
  if (!artifact) throw new Error(`pterm git diff gave no patch artifact: ${JSON.stringify(envelope).slice(0, 400)}`);
  const ours = await Deno.readFile(`${root}/${artifact}`);
  const theirs = await new Deno.Command("git", {
    args: ["diff", "--no-color"],
    cwd: `${root}/${repo}`,
    env: GIT_ENV,
    clearEnv: true,
    stdout: "piped",
  }).output();
  const same = ours.length === theirs.stdout.length && ours.every((byte, i) => byte === theirs.stdout[i]);
  if (!same) throw new Error(`pterm's patch (${ours.length} bytes) is not git's (${theirs.stdout.length} bytes)`);
  return ours.length;
}

const loadAverage = () => Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");

const results: string[] = [];
for (const lines of SIZES) {
  const root = `${BENCH_DIR}${lines}`;
  prepare(`${root}/r`, lines);
  prepareTiny(`${root}/tiny`);
  const bytes = await checkSamePatch(root, "r");
  const subjects: Subject[] = [
    { name: "git diff", cmd: ["git", "diff"], cwd: `${root}/r`, env: GIT_ENV },
    { name: "pterm git diff", cmd: ptermCommand("exec", "--root", root, "git diff --repo r") },
    { name: "pterm git diff, 1 line", cmd: ptermCommand("exec", "--root", root, "git diff --repo tiny") },
  ];
  const before = loadAverage();
  const timings = await timeSubjects(subjects, RUNS, 1);
  const cpu = await cpuTable(subjects, RUNS, "git diff");
  results.push(
    `${lines.toLocaleString("en")} lines, 30% rewritten; pterm's ${bytes}-byte patch is git's, byte for byte ` +
      `(load average ${before} before, ${loadAverage()} after):\n\n` +
      `${table(timings, "git diff")}\n\n${cpu}`,
  );
}
console.log(results.join("\n\n"));
