// deno-lint-ignore-file no-console -- a script: printing is its output
/**
 * `git clone` and a no-op `git fetch` over smart HTTP from a local `git http-backend` (the tests'
 * server, tests/commands/git/remote/http_server.ts), pterm against the real git in the same run, whole
 * processes. The repository is generated with the real git's fast-import: 5,000 commits over
 * 2,000 files (each commit rewrites a few lines of a few files, so the pack has long delta
 * chains). Targets: clone ≤ 2× git, no-op fetch ≤ 3× git, pterm's peak RSS during
 * the clone ≤ 2× the pack size + 100 MiB.
 *
 *   deno task bench git-remote            # 5,000 commits, 2,000 files
 *   deno task bench git-remote --quick    # 1,000 commits, 500 files, fewer runs
 *
 * Every pterm number includes pterm's process and sandbox-worker start-up (bench/startup.ts). The
 * 5,000-commit clone and the no-op fetch run three ways, interleaved: real git, `pterm exec` cold
 * (`PTERM_SERVER=off`) and warm (the root's session server up, docs/server.md). A warm call's CPU
 * time is its client process's plus what the server spent on it (/proc/<pid>/stat); its memory is
 * the server's, whose peak over all its calls is printed under the table.
 */

import { processCpuMs, processMemoryKiB, ptermCommand, quick, realGitEnv } from "./_timing.ts";
import { startGitHttpServer } from "../tests/commands/git/remote/http_server.ts";

const BENCH_DIR = new URL("../.bench/git-remote/", import.meta.url).pathname;
const COMMITS = quick ? 1_000 : 5_000;
const FILES = quick ? 500 : 2_000;
const RUNS = quick ? 2 : 5;
const GIT_ENV = realGitEnv(BENCH_DIR);

async function git(dir: string, args: string[], stdin?: Uint8Array): Promise<void> {
  const child = new Deno.Command("git", {
    args,
    cwd: dir,
    env: GIT_ENV,
    clearEnv: true,
    stdin: stdin ? "piped" : "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  if (stdin) {
    const writer = child.stdin.getWriter();
    await writer.write(stdin);
    await writer.close();
  }
  const out = await child.output();
  if (!out.success) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
}

/** A fast-import stream: the first commit adds FILES files; each later one rewrites a line in three of them. */
function history(): Uint8Array {
  const encoder = new TextEncoder();
  const parts: string[] = [];
  const files: string[][] = Array.from(
    { length: FILES },
    (_, f) => Array.from({ length: 40 }, (_, l) => `file ${f} line ${l}: ${"lorem ipsum ".repeat(3)}`),
  );
  const data = (text: string) => `data ${encoder.encode(text).length}\n${text}\n`;
  for (let c = 1; c <= COMMITS; c++) {
    parts.push(`commit refs/heads/main\nmark :${c}\ncommitter Bench <bench@example.com> ${1_700_000_000 + c} +0000\n`);
    parts.push(data(`commit ${c}`));
    if (c > 1) parts.push(`from :${c - 1}\n`);
    const touched = c === 1 ? files.map((_, f) => f) : [c * 7 % FILES, c * 13 % FILES, c * 31 % FILES];
    for (const f of touched) {
      if (c > 1) files[f][c % 40] = `file ${f} line ${c % 40}: changed in commit ${c}`;
      parts.push(`M 100644 inline dir${f % 50}/file-${f}.txt\n${data(files[f].join("\n") + "\n")}`);
    }
  }
  return encoder.encode(parts.join(""));
}

/** The size of the single large blob of the last table. */
const BLOB_BYTES = (quick ? 20 : 60) * 1024 * 1024;

/** `n` bytes mixing incompressible runs, text and long repeats (xorshift, so every run is the same). */
function mixedBytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let state = seed >>> 0;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
  const words = ["lorem ", "ipsum ", "dolor\n", "sit ", "amet, ", "consectetur "].map((w) =>
    new TextEncoder().encode(w)
  );
  for (let o = 0; o < n;) {
    const kind = next() % 3;
    const run = Math.min(n - o, 1 + (next() % 300_000));
    if (kind === 0) { for (let k = 0; k < run; k++) out[o + k] = next() & 0xff; }
    else if (kind === 1) {
      for (let k = 0; k < run;) {
        const word = words[next() % words.length];
        for (let b = 0; b < word.length && k < run; b++) out[o + k++] = word[b];
      }
    } else out.fill(next() & 0xff, o, o + run);
    o += run;
  }
  return out;
}

interface Run {
  readonly wall: number;
  /** user + sys CPU time of the process and its children, ms (GNU time). */
  readonly cpu: number;
  /** Peak resident memory, MiB (GNU time's maximum resident set size). */
  readonly rss: number;
}

/** One run of `cmd` under GNU time: wall-clock, CPU (user + sys) and peak RSS. */
async function measured(cmd: string[], env?: Record<string, string>): Promise<Run> {
  const started = performance.now();
  const out = await new Deno.Command("/usr/bin/time", {
    args: ["-f", "%U %S %M", ...cmd],
    env,
    stdout: "null",
    stderr: "piped",
  }).output();
  const wall = performance.now() - started;
  const lines = new TextDecoder().decode(out.stderr).trim().split("\n");
  if (!out.success) throw new Error(`${cmd.join(" ")} failed: ${lines.join("\n")}`);
  const [user, sys, rss] = lines.at(-1)!.split(" ").map(Number);
  return { wall, cpu: (user + sys) * 1000, rss: rss / 1024 };
}

interface Side {
  readonly name: string;
  readonly cmd: string[];
  readonly env?: Record<string, string>;
  readonly before?: () => Promise<void>;
  /** A process that does this side's work besides its own (the session server): its CPU time is added. */
  readonly alsoCpuOf?: () => number;
}

/** Runs both sides `runs` times, alternating, after `warmup` untimed rounds. */
async function interleaved(sides: readonly Side[], runs: number, warmup: number): Promise<Run[][]> {
  const results = sides.map(() => [] as Run[]);
  for (let i = 0; i < warmup + runs; i++) {
    for (const [k, side] of sides.entries()) {
      await side.before?.();
      const cpuBefore = side.alsoCpuOf?.() ?? 0;
      const own = await measured(side.cmd, side.env);
      const run = side.alsoCpuOf ? { ...own, cpu: own.cpu + side.alsoCpuOf() - cpuBefore } : own;
      if (i >= warmup) results[k].push(run);
    }
  }
  return results;
}

/** The memory target (peak RSS ≤ 2× the pack + 100 MiB), judged on every run, not the median. */
function rssVerdict(runs: readonly Run[], packBytes: number): string {
  const limit = 2 * packBytes / 2 ** 20 + 100;
  const worst = Math.max(...runs.map((r) => r.rss));
  return `pterm's peak RSS target ≤ ${limit.toFixed(0)} MiB: ${worst <= limit ? "met" : "NOT met"} ` +
    `(worst run ${worst.toFixed(0)} MiB)`;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function report(sides: readonly Side[], results: Run[][]): string {
  const [base] = results;
  const baseWall = median(base.map((r) => r.wall));
  const baseCpu = median(base.map((r) => r.cpu));
  const rows = sides.map((side, k) => {
    const runs = results[k];
    const wall = median(runs.map((r) => r.wall));
    const cpu = median(runs.map((r) => r.cpu));
    // GNU time counts CPU in 10 ms steps: a reference below that gives no ratio.
    const cpuRatio = baseCpu >= 10 ? `${(cpu / baseCpu).toFixed(2)}×` : "—";
    const cells = [
      side.name.padEnd(16),
      wall.toFixed(0).padStart(8),
      `${(wall / baseWall).toFixed(2)}×`.padStart(7),
      cpu.toFixed(0).padStart(8),
      cpuRatio.padStart(7),
      median(runs.map((r) => r.rss)).toFixed(0).padStart(16),
      Math.max(...runs.map((r) => r.rss)).toFixed(0).padStart(5),
    ];
    return `| ${cells.join(" | ")} |`;
  });
  return [
    "| subject          | wall ms  | ratio   | cpu ms   | ratio   | RSS MiB (median) | (max) |",
    "| ---------------- | -------- | ------- | -------- | ------- | ---------------- | ----- |",
    ...rows,
  ].join("\n");
}

try {
  Deno.removeSync(BENCH_DIR, { recursive: true });
} catch { /* fresh */ }
Deno.mkdirSync(BENCH_DIR, { recursive: true });
await using server = await startGitHttpServer();
const bare = await server.createBare("big.git");
const started = performance.now();
await git(bare, ["fast-import", "--quiet"], history());
await git(bare, ["repack", "-a", "-d", "-q"]);
console.log(
  `generated ${COMMITS.toLocaleString("en")} commits over ${FILES.toLocaleString("en")} files in ` +
    `${((performance.now() - started) / 1000).toFixed(1)} s`,
);
const url = server.url("big.git");
const root = `${BENCH_DIR}root`;
Deno.mkdirSync(root, { recursive: true });
Deno.writeTextFileSync(`${root}/pterm.json`, JSON.stringify({ git: { remotes: { allow: [`${server.origin}/`] } } }));
const real = `${BENCH_DIR}real`;
const remove = (path: string) => async () => await Deno.remove(path, { recursive: true }).catch(() => {});
/** A cold `pterm exec`: never handed to the root's session server, which is up for the warm rows. */
const COLD = { PTERM_SERVER: "off" };

async function ptermOutput(...args: string[]): Promise<string> {
  const [cmd, ...rest] = ptermCommand(...args);
  const out = await new Deno.Command(cmd, { args: rest, stdout: "piped", stderr: "piped" }).output();
  if (!out.success) throw new Error(`pterm ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}
await ptermOutput("server", "start", "--root", root);
const serverPid = (JSON.parse(await ptermOutput("server", "status", "--root", root)) as { pid: number }).pid;
const serverCpu = () => processCpuMs(serverPid);

const cloneSides: Side[] = [
  { name: "git clone", cmd: ["git", "clone", "-q", url, real], env: GIT_ENV, before: remove(real) },
  {
    name: "pterm git clone",
    cmd: ptermCommand("exec", "--root", root, `git clone --url ${url} --dir clone --confirm`),
    env: COLD,
    before: remove(`${root}/clone`),
  },
  {
    name: "  warm (server)",
    cmd: ptermCommand("exec", "--root", root, `git clone --url ${url} --dir clone --confirm`),
    before: remove(`${root}/clone`),
    alsoCpuOf: serverCpu,
  },
];
const loadBefore = Deno.loadavg();
const cloneRuns = await interleaved(cloneSides, RUNS, 1);
// Both clones exist now (the last run of each); a fetch has nothing to bring.
const fetchSides: Side[] = [
  { name: "git fetch", cmd: ["git", "-C", real, "fetch", "-q"], env: GIT_ENV },
  {
    name: "pterm git fetch",
    cmd: ptermCommand("exec", "--root", root, "git fetch --repo clone --confirm"),
    env: COLD,
  },
  {
    name: "  warm (server)",
    cmd: ptermCommand("exec", "--root", root, "git fetch --repo clone --confirm"),
    alsoCpuOf: serverCpu,
  },
];
const fetchRuns = await interleaved(fetchSides, RUNS * 2, 2);
const serverPeak = processMemoryKiB(serverPid, "VmHWM") / 1024;
await ptermOutput("server", "stop", "--root", root);
const loadAfter = Deno.loadavg();
const packBytesOf = (repo: string) =>
  [...Deno.readDirSync(`${repo}/.git/objects/pack`)]
    .filter((e) => e.name.endsWith(".pack"))
    .reduce((n, e) => n + Deno.statSync(`${repo}/.git/objects/pack/${e.name}`).size, 0);
const packBytes = packBytesOf(real);
console.log(
  `\nclone (pack ${(packBytes / 2 ** 20).toFixed(1)} MiB), ${RUNS} runs each, alternating:\n\n` +
    `${report(cloneSides, cloneRuns)}\n\nno-op fetch, ${RUNS * 2} runs each:\n\n${report(fetchSides, fetchRuns)}\n\n` +
    `warm rows: wall and RSS are the client process's, CPU the client's plus the server's for the call; ` +
    `the session server's peak RSS over all ${(RUNS + 1) + (RUNS * 2 + 2)} of its calls: ${
      serverPeak.toFixed(0)
    } MiB\n\n` +
    `${rssVerdict(cloneRuns[1], packBytes)}; ` +
    `load average (1, 5, 15 min) before ${loadBefore.map((l) => l.toFixed(1)).join(", ")}, ` +
    `after ${loadAfter.map((l) => l.toFixed(1)).join(", ")}`,
);

// A single large blob (random runs, text and repeats: stored and Huffman blocks): its peak RSS
// shows whether indexing and checkout hold it whole.
const blobBare = await server.createBare("blob.git");
const blobSrc = `${BENCH_DIR}blob-src`;
await git(BENCH_DIR, ["init", "-q", "--initial-branch=main", blobSrc]);
Deno.writeFileSync(`${blobSrc}/large.bin`, mixedBytes(BLOB_BYTES, 7));
await git(blobSrc, ["add", "large.bin"]);
await git(blobSrc, ["commit", "-q", "-m", "a large file"]);
await git(blobSrc, ["push", "-q", `file://${blobBare}`, "main"]);
const blobUrl = server.url("blob.git");
const blobReal = `${BENCH_DIR}blob-real`;
const blobSides: Side[] = [
  { name: "git clone", cmd: ["git", "clone", "-q", blobUrl, blobReal], env: GIT_ENV, before: remove(blobReal) },
  {
    name: "pterm git clone",
    cmd: ptermCommand("exec", "--root", root, `git clone --url ${blobUrl} --dir blob --confirm`),
    env: COLD,
    before: remove(`${root}/blob`),
  },
];
const blobLoad = Deno.loadavg();
const blobRuns = await interleaved(blobSides, quick ? 1 : 3, 0);
const blobPack = packBytesOf(blobReal);
const same =
  (await new Deno.Command("cmp", { args: ["-s", `${root}/blob/large.bin`, `${blobReal}/large.bin`] }).output())
    .success;
console.log(
  `\nclone of one ${(BLOB_BYTES / 2 ** 20).toFixed(0)} MiB blob (pack ${(blobPack / 2 ** 20).toFixed(1)} MiB), ` +
    `${quick ? 1 : 3} runs each, alternating (the file ${same ? "is" : "is NOT"} identical to git's):\n\n` +
    `${report(blobSides, blobRuns)}\n\n${rssVerdict(blobRuns[1], blobPack)}; ` +
    `load average before ${blobLoad.map((l) => l.toFixed(1)).join(", ")}, ` +
    `after ${Deno.loadavg().map((l) => l.toFixed(1)).join(", ")}`,
);

// The same large file stored as a delta: two versions of it, the older one larger (a run of
// bytes the newer one drops), so git's pack-objects keeps the older whole and stores the one
// checked out as a delta against it. Indexing hashes it and the checkout writes it piece by piece,
// from its base spilled to a temporary file (git holds the base whole): this row measures what
// that costs.
const deltaBare = await server.createBare("delta.git");
const deltaSrc = `${BENCH_DIR}delta-src`;
await git(BENCH_DIR, ["init", "-q", "--initial-branch=main", deltaSrc]);
const large = mixedBytes(BLOB_BYTES, 7);
const longer = new Uint8Array(large.length + 1024 * 1024);
longer.set(large);
longer.set(mixedBytes(1024 * 1024, 11), large.length);
Deno.writeFileSync(`${deltaSrc}/large.bin`, longer);
await git(deltaSrc, ["add", "large.bin"]);
await git(deltaSrc, ["commit", "-q", "-m", "a large file"]);
Deno.writeFileSync(`${deltaSrc}/large.bin`, large);
await git(deltaSrc, ["commit", "-q", "-a", "-m", "shorter"]);
await git(deltaSrc, ["push", "-q", `file://${deltaBare}`, "main"]);
await git(deltaBare, ["repack", "-a", "-d", "-f", "-q"]);
const deltaUrl = server.url("delta.git");
const deltaReal = `${BENCH_DIR}delta-real`;
const deltaSides: Side[] = [
  { name: "git clone", cmd: ["git", "clone", "-q", deltaUrl, deltaReal], env: GIT_ENV, before: remove(deltaReal) },
  {
    name: "pterm git clone",
    cmd: ptermCommand("exec", "--root", root, `git clone --url ${deltaUrl} --dir delta --confirm`),
    env: COLD,
    before: remove(`${root}/delta`),
  },
];
const deltaLoad = Deno.loadavg();
const deltaRuns = await interleaved(deltaSides, quick ? 1 : 3, 0);
const deltaPack = packBytesOf(deltaReal);
/** Whether the pack stores `path` at HEAD of `repo` as a delta (verify-pack lists a depth and a base for it). */
async function storedAsDelta(repo: string, path: string): Promise<boolean> {
  const run = async (args: string[]) =>
    new TextDecoder().decode(
      (await new Deno.Command("git", { args, cwd: repo, env: GIT_ENV, clearEnv: true, stdout: "piped" }).output())
        .stdout,
    );
  const oid = (await run(["rev-parse", `HEAD:${path}`])).trim();
  const idx = [...Deno.readDirSync(`${repo}/.git/objects/pack`)].find((e) => e.name.endsWith(".idx"))!.name;
  const line = (await run(["verify-pack", "-v", `.git/objects/pack/${idx}`])).split("\n").find((l) =>
    l.startsWith(oid)
  );
  return (line?.trim().split(/\s+/).length ?? 0) >= 7;
}
const checkedOutAsDelta = await storedAsDelta(deltaReal, "large.bin");
const deltaSame =
  (await new Deno.Command("cmp", { args: ["-s", `${root}/delta/large.bin`, `${deltaReal}/large.bin`] }).output())
    .success;
console.log(
  `\nclone of that ${(BLOB_BYTES / 2 ** 20).toFixed(0)} MiB file stored as a delta (the checked-out version ${
    checkedOutAsDelta ? "is" : "is NOT"
  } a delta in the pack; pack ${(deltaPack / 2 ** 20).toFixed(1)} MiB), ${quick ? 1 : 3} runs each, alternating (the ` +
    `file ${deltaSame ? "is" : "is NOT"} identical to git's):\n\n${report(deltaSides, deltaRuns)}\n\n` +
    `${rssVerdict(deltaRuns[1], deltaPack)}; load average before ${deltaLoad.map((l) => l.toFixed(1)).join(", ")}, ` +
    `after ${Deno.loadavg().map((l) => l.toFixed(1)).join(", ")}`,
);
