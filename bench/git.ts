// deno-lint-ignore-file no-console -- a script: printing is its output
/**
 * `git` against the real git, whole processes, in the same run: repositories of 1,000 and
 * 10,000 files under .bench/git/, one for pterm and an identical one for git. Timed: status
 * (clean and with 100 changed files), add --all (100 changed files), commit (100 staged files),
 * log --max 50, diff (100 changed files). Target: within 5× of git at 10,000 files. Then, when
 * PTERM_BENCH_JQ names a clone of jq's repository (https://github.com/jqlang/jq),
 * `blame src/builtin.c` over its long history: target within 3× of git.
 *
 *   deno run -A bench/git.ts            # 1,000 and 10,000 files
 *   deno run -A bench/git.ts --quick    # 1,000 files, fewer runs
 *
 * Every pterm number includes pterm's process and sandbox-worker start-up (~35 ms; bench/startup.ts).
 */

import { ptermCommand, quick, realGitEnv, type Subject, timeSubjects, type Timing } from "./_timing.ts";

const BENCH_DIR = new URL("../.bench/git/", import.meta.url).pathname;
const SIZES = quick ? [1000] : [1000, 10000];
const RUNS = quick ? 5 : 15;
const CHANGED = 100;

const GIT_ENV = realGitEnv(BENCH_DIR);

function gitSync(dir: string, ...args: string[]): void {
  const out = new Deno.Command("git", { args, cwd: dir, env: GIT_ENV, clearEnv: true, stdout: "null", stderr: "piped" })
    .outputSync();
  if (!out.success) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
}

/** A repository of `files` files in folders of 50, with 60 commits of history. */
function build(dir: string, files: number): void {
  Deno.mkdirSync(dir, { recursive: true });
  gitSync(dir, "init", "-q", "-b", "main");
  for (let i = 0; i < files; i++) {
    const folder = `${dir}/src/m${Math.floor(i / 500)}/d${Math.floor(i / 50) % 10}`;
    if (i % 50 === 0) Deno.mkdirSync(folder, { recursive: true });
    Deno.writeTextFileSync(`${folder}/file${i}.ts`, `export const value${i} = ${i};\n`.repeat(8));
  }
  gitSync(dir, "add", "-A");
  gitSync(dir, "commit", "-qm", "initial");
  for (let c = 0; c < 59; c++) {
    Deno.writeTextFileSync(`${dir}/CHANGELOG.md`, `change ${c}\n`, { append: true });
    gitSync(dir, "add", "CHANGELOG.md");
    gitSync(dir, "commit", "-qm", `change ${c}`);
  }
}

function changedFiles(files: number): string[] {
  const step = Math.floor(files / CHANGED);
  return Array.from({ length: CHANGED }, (_, k) => {
    const i = k * step;
    return `src/m${Math.floor(i / 500)}/d${Math.floor(i / 50) % 10}/file${i}.ts`;
  });
}

let round = 0;
function edit(dirs: string[], files: number): void {
  round++;
  for (const dir of dirs) {
    for (const path of changedFiles(files)) {
      Deno.writeTextFileSync(`${dir}/${path}`, `// edit ${round}\nexport const x = ${round};\n`);
    }
  }
}

function restore(dir: string): void {
  gitSync(dir, "reset", "-q", "--hard");
}

interface Row {
  files: string;
  operation: string;
  git: Timing;
  pterm: Timing;
}

const rows: Row[] = [];

for (const files of SIZES) {
  const base = `${BENCH_DIR}${files}`;
  const ptermRoot = `${base}/pterm`;
  const ptermRepo = `${ptermRoot}/r`;
  const gitRepo = `${base}/git/r`;
  if (!exists(`${gitRepo}/.git`) || !exists(`${ptermRepo}/.git`)) {
    console.error(`building repositories of ${files} files in ${base} ...`);
    try {
      Deno.removeSync(base, { recursive: true });
    } catch { /* first build */ }
    build(gitRepo, files);
    build(ptermRepo, files);
  }
  restore(gitRepo);
  restore(ptermRepo);
  const pt = (line: string) => ptermCommand("exec", "--root", ptermRoot, line);
  const gitCmd = (...args: string[]) => ["git", "-C", gitRepo, ...args];
  const both = (dirs: string[], fn: (dirs: string[]) => void) => () => Promise.resolve(fn(dirs));

  const measure = async (operation: string, ptermLine: string, gitArgs: string[], before?: () => Promise<void>) => {
    const subjects: Subject[] = [
      { name: "git", cmd: gitCmd(...gitArgs), env: GIT_ENV, before },
      { name: "pterm", cmd: pt(ptermLine), before },
    ];
    const [gitTiming, ptermTiming] = await timeSubjects(subjects, RUNS, 2);
    rows.push({ files: `${files} files`, operation, git: gitTiming, pterm: ptermTiming });
    console.error(
      `  ${files} files, ${operation}: git ${gitTiming.median.toFixed(1)} ms, pterm ${
        ptermTiming.median.toFixed(1)
      } ms`,
    );
  };

  await measure("status (clean)", "git status --repo r", ["status"]);
  edit([gitRepo, ptermRepo], files);
  await measure(`status (${CHANGED} changed)`, "git status --repo r", ["status"]);
  await measure(`diff (${CHANGED} changed)`, "git diff --repo r", ["diff"]);
  await measure("log --max 50", "git log --repo r --max 50", ["log", "-50"]);
  await measure(
    `add --all (${CHANGED} changed)`,
    "git add --repo r --all",
    ["add", "-A"],
    both([gitRepo, ptermRepo], (dirs) => {
      for (const dir of dirs) gitSync(dir, "reset", "-q");
      edit(dirs, files);
    }),
  );
  await measure(
    `commit (${CHANGED} staged)`,
    "git commit --repo r -m bench",
    ["commit", "-qm", "bench"],
    both([gitRepo, ptermRepo], (dirs) => {
      edit(dirs, files);
      for (const dir of dirs) gitSync(dir, "add", "-A");
    }),
  );
  restore(gitRepo);
  restore(ptermRepo);
}

// `git blame` over a real long history: a clone of jq's repository for each tool, from the one PTERM_BENCH_JQ names.
const JQ_SNAPSHOT = Deno.env.get("PTERM_BENCH_JQ");
if (JQ_SNAPSHOT && exists(JQ_SNAPSHOT)) {
  const base = `${BENCH_DIR}jq`;
  const ptermRoot = `${base}/pterm`;
  for (const root of [ptermRoot, `${base}/git`]) {
    if (!exists(`${root}/jq/.git`)) {
      Deno.mkdirSync(root, { recursive: true });
      gitSync(root, "clone", "-q", JQ_SNAPSHOT, "jq");
    }
  }
  const gitRepo = `${base}/git/jq`;
  const commits = new TextDecoder().decode(
    new Deno.Command("git", { args: ["-C", gitRepo, "rev-list", "--count", "HEAD"], env: GIT_ENV, clearEnv: true })
      .outputSync().stdout,
  ).trim();
  const [gitTiming, ptermTiming] = await timeSubjects(
    [
      { name: "git", cmd: ["git", "-C", gitRepo, "blame", "src/builtin.c"], env: GIT_ENV },
      { name: "pterm", cmd: ptermCommand("exec", "--root", ptermRoot, "git blame --repo jq src/builtin.c") },
    ],
    quick ? 3 : 7,
    1,
  );
  rows.push({ files: `jq (${commits} commits)`, operation: "blame src/builtin.c", git: gitTiming, pterm: ptermTiming });
  console.error(`  jq, blame: git ${gitTiming.median.toFixed(1)} ms, pterm ${ptermTiming.median.toFixed(1)} ms`);
} else {
  console.error(
    JQ_SNAPSHOT
      ? `PTERM_BENCH_JQ names ${JQ_SNAPSHOT}, which does not exist: the jq blame row is left out`
      : "PTERM_BENCH_JQ is not set: the jq blame row is left out (set it to a clone of https://github.com/jqlang/jq)",
  );
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

const header = ["repository", "operation", "git median ms", "pterm median ms", "pterm p90 ms", "pterm ÷ git"];
const body = rows.map((r) => [
  r.files,
  r.operation,
  r.git.median.toFixed(1),
  r.pterm.median.toFixed(1),
  r.pterm.p90.toFixed(1),
  (r.pterm.median / r.git.median).toFixed(2) + "×",
]);
const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
const line = (cells: string[]) => "| " + cells.map((c, i) => c.padEnd(widths[i])).join(" | ") + " |";
console.log(
  `## git (${RUNS} runs each, whole processes, Deno ${Deno.version.deno}, ${Deno.build.os}-${Deno.build.arch})\n`,
);
console.log([line(header), line(widths.map((w) => "-".repeat(w))), ...body.map(line)].join("\n"));
console.log("\npterm numbers include its process and sandbox-worker start-up (about 35 ms; see bench/startup.ts).");
