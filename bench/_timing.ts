/** Shared by the benchmarks: time whole processes, interleaved, and print a table. */

import { ptermArgs } from "../tests/_support/helpers.ts";

export interface Subject {
  readonly name: string;
  readonly cmd: string[];
  readonly cwd?: string;
  readonly env?: Record<string, string>;
  /** Run before each timed run (not timed). */
  readonly before?: () => Promise<void>;
}

export interface Timing {
  readonly name: string;
  readonly runs: number[];
  readonly median: number;
  readonly p90: number;
}

async function once(subject: Subject): Promise<number> {
  await subject.before?.();
  const started = performance.now();
  const output = await new Deno.Command(subject.cmd[0], {
    args: subject.cmd.slice(1),
    cwd: subject.cwd,
    env: subject.env,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  const elapsed = performance.now() - started;
  if (!output.success) {
    throw new Error(`${subject.name} failed (${output.code}): ${new TextDecoder().decode(output.stderr)}`);
  }
  return elapsed;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** Runs every subject `runs` times, round-robin so machine noise hits all of them alike. */
export async function timeSubjects(subjects: readonly Subject[], runs: number, warmup = 3): Promise<Timing[]> {
  for (let i = 0; i < warmup; i++) for (const s of subjects) await once(s);
  const samples = subjects.map(() => [] as number[]);
  for (let i = 0; i < runs; i++) {
    for (const [index, subject] of subjects.entries()) samples[index].push(await once(subject));
  }
  return subjects.map((subject, index) => {
    const sorted = [...samples[index]].sort((a, b) => a - b);
    return { name: subject.name, runs: samples[index], median: quantile(sorted, 0.5), p90: quantile(sorted, 0.9) };
  });
}

/** A Markdown table; `baseline` names the row every ratio is relative to. */
export function table(timings: readonly Timing[], baseline: string): string {
  const base = timings.find((t) => t.name === baseline)!;
  const rows = timings.map((
    t,
  ) => [t.name, t.median.toFixed(1), t.p90.toFixed(1), (t.median / base.median).toFixed(2) + "×"]);
  const header = ["subject", "median ms", "p90 ms", `÷ ${baseline}`];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => "| " + cells.map((c, i) => c.padEnd(widths[i])).join(" | ") + " |";
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

/**
 * CPU time (user + system) of one run of `subject` (its `before` first, untimed), in ms, as bash's
 * `time` reads it (getrusage, to the ms): on a loaded machine a steadier measure than wall time.
 */
export async function cpuOnce(subject: Subject): Promise<number> {
  await subject.before?.();
  const out = await new Deno.Command("bash", {
    args: ["-c", 'TIMEFORMAT="%3U %3S"; { time "$@" >/dev/null 2>&1 || exit 1; } 2>&1', "bash", ...subject.cmd],
    cwd: subject.cwd,
    env: subject.env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`${subject.name} failed: ${new TextDecoder().decode(out.stderr)}`);
  const [user, system] = new TextDecoder().decode(out.stdout).trim().split(/\s+/).map(Number);
  return (user + system) * 1000;
}

/** CPU medians, the subjects interleaved run by run. */
export async function cpuTable(subjects: readonly Subject[], runs: number, baseline: string): Promise<string> {
  const samples = subjects.map(() => [] as number[]);
  for (let i = 0; i < runs; i++) {
    for (const [k, subject] of subjects.entries()) samples[k].push(await cpuOnce(subject));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const base = median(samples[subjects.findIndex((s) => s.name === baseline)]);
  const rows = subjects.map((
    s,
    k,
  ) => [s.name, median(samples[k]).toFixed(0), (median(samples[k]) / base).toFixed(2) + "×"]);
  return markdownTable(["subject", "CPU ms (median)", `÷ ${baseline}`], rows);
}

/** A Markdown table, each column as wide as its widest cell. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: readonly string[]) => "| " + cells.map((c, i) => c.padEnd(widths[i])).join(" | ") + " |";
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

export const quick = Deno.args.includes("--quick");

/**
 * The environment the benchmarks run the real `git` in: nothing of the machine's config, a fixed
 * identity, and a ceiling at `home` — .bench/ lies inside pterm's own checkout, and git must not
 * take that for the repository.
 */
export function realGitEnv(home: string): Record<string, string> {
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: home,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_AUTHOR_NAME: "Bench",
    GIT_AUTHOR_EMAIL: "bench@example.com",
    GIT_COMMITTER_NAME: "Bench",
    GIT_COMMITTER_EMAIL: "bench@example.com",
    GIT_CEILING_DIRECTORIES: home.replace(/\/$/, ""),
  };
}

/** The command that runs pterm as the README's `deno task pterm` does (main.bundle.js; see scripts/bundle.ts). */
export function ptermCommand(...args: string[]): string[] {
  return [Deno.execPath(), ...ptermArgs(args)];
}
