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

/** Milliseconds per clock tick of /proc/<pid>/stat's CPU fields (getconf CLK_TCK), read once. */
let tickMs: number | null = null;
function clockTickMs(): number {
  tickMs ??= 1000 / Number(
    new TextDecoder().decode(new Deno.Command("getconf", { args: ["CLK_TCK"] }).outputSync().stdout).trim() || "100",
  );
  return tickMs;
}

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces). */
function statFields(pid: number | "self"): string[] {
  const text = Deno.readTextFileSync(`/proc/${pid}/stat`);
  return text.slice(text.lastIndexOf(")") + 2).split(" ");
}

/** user+system CPU ms of a live process, its threads included (utime, stime: fields 14 and 15 of stat(5)). */
export function processCpuMs(pid: number): number {
  const f = statFields(pid);
  return (Number(f[11]) + Number(f[12])) * clockTickMs();
}

/** user+system CPU ms of this process's finished children (cutime, cstime: fields 16 and 17). */
export function childrenCpuMs(): number {
  const f = statFields("self");
  return (Number(f[13]) + Number(f[14])) * clockTickMs();
}

/** A memory figure of a live process from /proc/<pid>/status (VmRSS now, VmHWM its peak), KiB. */
export function processMemoryKiB(pid: number, field: "VmRSS" | "VmHWM"): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)![1]);
}
