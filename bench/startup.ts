// deno-lint-ignore-file no-console -- a script: printing is its output
/**
 * Start-up: what one `pterm exec` process costs before and around its command's own work, against
 * `deno run` of an empty module and the real `git`, in the same run. Target: `hello` at most 2.5×
 * the empty run. The other rows show where the time goes and what a small command of each kind
 * costs whole: `git status` and `git diff` of a two-file repository, `doc info` of a small DOCX, and
 * a no-op `git fetch` of a small clone over smart HTTP from a local `git http-backend` (skipped
 * where `git` is not installed). Each row is a whole process under GNU time (where /usr/bin/time
 * exists): wall-clock median and p90, CPU (user + sys) mean, peak RSS median.
 *
 *   deno task bench startup [--quick] [--against <entry.js>]
 *
 * `--against` repeats every pterm row with another entry module beside main.bundle.js (say the
 * previous commit's bundle, `git show HEAD~1:main.bundle.js > main.before.js`), interleaved with
 * the others: a before/after in one run, under the same load.
 */

import { ptermArgs } from "../tests/_support/helpers.ts";
import { startGitHttpServer } from "../tests/commands/git/remote/http_server.ts";
import { quick, realGitEnv } from "./_timing.ts";

const RUNS = quick ? 10 : 30;
const WARMUP = 3;
const GNU_TIME = "/usr/bin/time";
const hasGnuTime = (() => {
  try {
    return Deno.statSync(GNU_TIME).isFile;
  } catch {
    return false;
  }
})();
const hasGit = await new Deno.Command("git", { args: ["--version"], stdout: "null", stderr: "null" }).output()
  .then((out) => out.success, () => false);

const againstIndex = Deno.args.indexOf("--against");
const against = againstIndex >= 0 ? new URL(Deno.args[againstIndex + 1], `file://${Deno.cwd()}/`).pathname : null;

interface Row {
  readonly name: string;
  readonly cmd: string[];
  readonly cwd?: string;
  readonly env?: Record<string, string>;
  /** The row this one's ratio is taken against (default: the empty `deno run`). */
  readonly reference?: string;
}

interface Run {
  readonly wall: number;
  /** user + sys CPU ms (GNU time, 10 ms steps); NaN without GNU time. */
  readonly cpu: number;
  /** Peak resident memory, MiB; NaN without GNU time. */
  readonly rss: number;
}

async function measured(row: Row): Promise<Run> {
  const cmd = hasGnuTime ? [GNU_TIME, "-f", "%U %S %M", ...row.cmd] : row.cmd;
  const started = performance.now();
  const out = await new Deno.Command(cmd[0], {
    args: cmd.slice(1),
    cwd: row.cwd,
    env: row.env,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  const wall = performance.now() - started;
  const lines = new TextDecoder().decode(out.stderr).trim().split("\n");
  if (!out.success) throw new Error(`${row.name} failed (${out.code}): ${lines.join("\n")}`);
  if (!hasGnuTime) return { wall, cpu: NaN, rss: NaN };
  const [user, sys, rss] = lines.at(-1)!.split(" ").map(Number);
  return { wall, cpu: (user + sys) * 1000, rss: rss / 1024 };
}

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const quantile = (values: number[], q: number) =>
  sorted(values)[Math.min(values.length - 1, Math.floor(q * values.length))];

const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "pterm-bench-startup-" }));
await using server = hasGit ? await startGitHttpServer() : null;
try {
  const empty = `${dir}/empty.ts`;
  await Deno.writeTextFile(empty, "");
  const emptyWorker = `${dir}/empty_worker.ts`;
  await Deno.writeTextFile(`${dir}/worker_body.ts`, "self.postMessage(1);\n");
  await Deno.writeTextFile(
    emptyWorker,
    `const w = new Worker(new URL("./worker_body.ts", import.meta.url).href, { type: "module", deno: { permissions: "none" } } as WorkerOptions);\n` +
      "w.onmessage = () => w.terminate();\n",
  );
  const root = `${dir}/root`;
  await Deno.mkdir(root);
  // A validated pterm.json is remembered (core/config.ts); this row shows the call still costs the same.
  const configured = `${dir}/configured`;
  await Deno.mkdir(configured);
  await Deno.writeTextFile(`${configured}/pterm.json`, JSON.stringify({ limits: { stdout_bytes: 32768 } }));
  await Deno.copyFile(new URL("../tests/fixtures/doc/report.docx", import.meta.url), `${root}/report.docx`);

  const gitEnv = realGitEnv(dir);
  const git = async (cwd: string, ...args: string[]) => {
    const out = await new Deno.Command("git", {
      args,
      cwd,
      env: gitEnv,
      clearEnv: true,
      stdout: "null",
      stderr: "piped",
    })
      .output();
    if (!out.success) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  };

  const ptermRows = (name: string, workspace: string, line: string): Row[] => {
    const rows: Row[] = [{ name, cmd: [Deno.execPath(), ...ptermArgs(["exec", "--root", workspace, line])] }];
    if (against) {
      rows.push({
        name: `${name} [against]`,
        cmd: [Deno.execPath(), ...ptermArgs(["exec", "--root", workspace, line], against)],
        reference: name,
      });
    }
    return rows;
  };

  const rows: Row[] = [
    { name: "deno run empty.ts", cmd: [Deno.execPath(), "run", empty] },
    {
      name: "deno run (one empty worker)",
      cmd: [Deno.execPath(), "run", "--allow-read", "--unstable-worker-options", emptyWorker],
    },
    ...ptermRows('pterm exec "hello --help" (no worker)', root, "hello --help"),
    ...ptermRows('pterm exec "hello"', root, "hello"),
    ...ptermRows('pterm exec "hello" with a pterm.json', configured, "hello"),
    ...ptermRows('pterm exec "doc info report.docx"', root, "doc info report.docx"),
  ];

  if (hasGit && server) {
    // A two-file repository with one file changed: status and diff have next to nothing to do.
    const repo = `${root}/repo`;
    await Deno.mkdir(repo);
    await git(repo, "init", "-q", "-b", "main");
    await Deno.writeTextFile(`${repo}/a.txt`, "one\ntwo\nthree\n");
    await Deno.writeTextFile(`${repo}/b.txt`, "unchanged\n");
    await git(repo, "add", ".");
    await git(repo, "commit", "-q", "-m", "first");
    await Deno.writeTextFile(`${repo}/a.txt`, "one\n2\nthree\n");
    rows.push(
      { name: "git status (real git)", cmd: ["git", "-C", repo, "status", "--porcelain"], env: gitEnv },
      ...ptermRows('pterm exec "git status"', root, "git status --repo repo").map((row) => ({
        ...row,
        reference: row.reference ?? "git status (real git)",
      })),
      { name: "git diff (real git)", cmd: ["git", "-C", repo, "--no-pager", "diff"], env: gitEnv },
      ...ptermRows('pterm exec "git diff"', root, "git diff --repo repo").map((row) => ({
        ...row,
        reference: row.reference ?? "git diff (real git)",
      })),
    );

    // A no-op fetch: both sides cloned the same small repository and the remote has nothing new.
    const bare = await server.createBare("small.git");
    const seed = `${dir}/seed`;
    await Deno.mkdir(seed);
    await git(seed, "init", "-q", "-b", "main");
    for (let i = 0; i < 20; i++) await Deno.writeTextFile(`${seed}/file-${i}.txt`, `file ${i}\n`);
    await git(seed, "add", ".");
    await git(seed, "commit", "-q", "-m", "first");
    await git(seed, "push", "-q", bare, "main");
    const url = server.url("small.git");
    await git(dir, "clone", "-q", url, `${dir}/real-clone`);
    const netRoot = `${dir}/net`;
    await Deno.mkdir(netRoot);
    await Deno.writeTextFile(
      `${netRoot}/pterm.json`,
      JSON.stringify({ git: { remotes: { allow: [`${server.origin}/`] } } }),
    );
    await measured({
      name: "pterm git clone",
      cmd: [Deno.execPath(), ...ptermArgs(["exec", "--root", netRoot, `git clone --url ${url} --dir clone --confirm`])],
    });
    rows.push(
      { name: "git fetch, no-op (real git)", cmd: ["git", "-C", `${dir}/real-clone`, "fetch", "-q"], env: gitEnv },
      ...ptermRows('pterm exec "git fetch", no-op', netRoot, "git fetch --repo clone --confirm").map((row) => ({
        ...row,
        reference: row.reference ?? "git fetch, no-op (real git)",
      })),
    );
  }

  const loadBefore = Deno.loadavg();
  const runs = rows.map(() => [] as Run[]);
  for (let i = 0; i < WARMUP + RUNS; i++) {
    for (const [k, row] of rows.entries()) {
      const run = await measured(row);
      if (i >= WARMUP) runs[k].push(run);
    }
  }
  const loadAfter = Deno.loadavg();

  const stats = rows.map((row, k) => ({
    row,
    wall: quantile(runs[k].map((r) => r.wall), 0.5),
    p90: quantile(runs[k].map((r) => r.wall), 0.9),
    // GNU time counts CPU in 10 ms steps: the mean over the runs resolves more than the median.
    cpu: runs[k].reduce((sum, r) => sum + r.cpu, 0) / runs[k].length,
    rss: quantile(runs[k].map((r) => r.rss), 0.5),
  }));
  const byName = new Map(stats.map((s) => [s.row.name, s]));
  const fmt = (value: number, digits = 1) => (Number.isNaN(value) ? "—" : value.toFixed(digits));
  const ratio = (a: number, b: number) => (Number.isNaN(a) || !(b > 0) ? "—" : `${(a / b).toFixed(2)}×`);
  const header = ["subject", "wall ms", "p90 ms", "CPU ms", "peak RSS MiB", "wall ratio", "CPU ratio", "against"];
  const cells = stats.map((s) => {
    const reference = byName.get(s.row.reference ?? "deno run empty.ts")!;
    return [
      s.row.name,
      fmt(s.wall),
      fmt(s.p90),
      fmt(s.cpu, 0),
      fmt(s.rss),
      s === reference ? "" : ratio(s.wall, reference.wall),
      s === reference || !(reference.cpu >= 5) ? "" : ratio(s.cpu, reference.cpu),
      s === reference ? "" : reference.row.name,
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (row: string[]) => "| " + row.map((c, i) => c.padEnd(widths[i])).join(" | ") + " |";
  console.log(
    `## start-up (${RUNS} runs each, interleaved, after ${WARMUP} warm-up rounds; Deno ${Deno.version.deno}, ` +
      `${Deno.build.os}-${Deno.build.arch})\n`,
  );
  console.log([line(header), line(widths.map((w) => "-".repeat(w))), ...cells.map(line)].join("\n"));
  const hello = byName.get('pterm exec "hello"')!;
  const base = byName.get("deno run empty.ts")!;
  console.log(`\npterm exec "hello" / empty deno run = ${(hello.wall / base.wall).toFixed(2)}× (target ≤ 2.5×)`);
  if (against) console.log(`[against] rows ran ${against}`);
  console.log(
    `load average (1, 5, 15 min) before ${loadBefore.map((l) => l.toFixed(1)).join(", ")}, ` +
      `after ${loadAfter.map((l) => l.toFixed(1)).join(", ")}`,
  );
} finally {
  await Deno.remove(dir, { recursive: true });
}
