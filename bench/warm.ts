// deno-lint-ignore-file no-console -- a script: printing is its output
/**
 * The warm path of `pterm exec`: each row whole processes, cold (no server: `PTERM_SERVER=off`)
 * and warm (the root's session server up, `pterm server start`), against the real tool in the same
 * run, interleaved round-robin so the machine's load hits every row alike. Targets with the server
 * up: `exec hello` ≤ 1.5× an empty `deno run`; `git status` at 10,000 files ≤ 1.5× git; `git add
 * --all` (10,000 files, the index emptied before each run) ≤ 2× git; `git log -n 50` on a real
 * repository (a clone of this one) ≤ 2× git; `patch apply` of 1,000 line edits over 100 files
 * (bench/patch.ts's workload, as the diff git wrote) ≤ 5× `git apply`; and, when PTERM_BENCH_JQ names a
 * clone of jq's repository (https://github.com/jqlang/jq), `git blame src/builtin.c` over its long history
 * (target ≤ 3× git).
 *
 *   deno task bench warm [--quick] [--only=hello,status,add,log,patch,blame]
 */

import { baseEnv, watchedTempBase } from "../tests/_support/helpers.ts";
import {
  markdownTable,
  processMemoryKiB,
  ptermCommand,
  quick,
  realGitEnv,
  type Subject,
  table,
  timeSubjects,
} from "./_timing.ts";
import { callServer } from "../hosts/cli/warm_client.ts";
import { buildWorkload, realDiff, writeTree } from "./patch.ts";
import { VERSION } from "../version.ts";
import { COMMANDS_DIR, CORE_DIR, LIB_DIR, permissionsFor } from "../core/sandbox/sandbox.ts";
import { BUNDLE_DIR } from "../core/bundles.ts";

/**
 * The same call answered by the server to a client already running (this process): what the warm
 * path costs without a client process's start-up — the floor for a native client or a host that
 * keeps the connection.
 */
async function roundTrip(
  root: string,
  line: string,
  before?: () => Promise<void>,
  stdin?: string,
  runs = RUNS,
): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    await before?.();
    const started = performance.now();
    const outcome = await callServer(
      VERSION,
      {
        root,
        session: "default",
        line,
        stdin: stdin === undefined ? { kind: "none" } : { kind: "text", text: stdin },
        color: false,
      },
      () => null,
      { maxTimeoutMs: 600_000 },
    );
    samples.push(performance.now() - started);
    if (outcome.kind !== "answered" || outcome.envelope.exit_code !== 0) {
      throw new Error(`${line} through the server: ${JSON.stringify(outcome)}`);
    }
  }
  return samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)];
}

/**
 * The file operations alone of a `git add --all` of `root`: one lstat and one read of each of its
 * files (`reads` false: the lstat alone, what a clean `git status` does per file), in a Worker with
 * the permissions a command's worker gets (core/sandbox/sandbox.ts's permissionsFor, so Deno checks
 * each path as it does in the sandbox) or with all of them. Median ms of `runs`, each in a fresh
 * worker.
 */
async function fileOpsFloor(root: string, sandboxed: boolean, runs: number, reads = true): Promise<number> {
  const paths: string[] = [];
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(dir)) {
      if (entry.name === ".git") continue;
      if (entry.isDirectory) walk(`${dir}/${entry.name}`);
      else if (entry.isFile) paths.push(`${dir}/${entry.name}`);
    }
  };
  walk(root);
  const source = "self.onmessage = (e) => { const started = performance.now(); " +
    "for (const path of e.data.paths) { Deno.lstatSync(path); if (e.data.reads) Deno.readFileSync(path); } " +
    "self.postMessage(performance.now() - started); };";
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const worker = new Worker(`data:application/javascript,${encodeURIComponent(source)}`, {
      type: "module",
      deno: {
        permissions: sandboxed
          ? permissionsFor(["fs.read", "fs.write"], root, [], [CORE_DIR, COMMANDS_DIR, LIB_DIR, BUNDLE_DIR])
          : "inherit",
      },
    });
    samples.push(
      await new Promise<number>((resolve) => {
        worker.onmessage = (e) => resolve(e.data);
        worker.postMessage({ paths, reads });
      }),
    );
    worker.terminate();
  }
  return samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)];
}

const RUNS = quick ? 8 : 20;
/** `--only=patch,status`: the groups to run (all when absent); only their workspaces are built. */
const only = Deno.args.find((a) => a.startsWith("--only="))?.slice("--only=".length).split(",");
const wanted = (key: string) => only === undefined || only.includes(key);
const FILES = quick ? 2_000 : 10_000;

// On a file system whose changes inotify sees, where a warm `git status` may keep its last answer
// (commands/git/lib/fsmonitor.ts), as it does in a person's checkout.
const base = await watchedTempBase();
const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "pterm-bench-warm-", dir: base ?? undefined }));
const gitEnv = realGitEnv(dir);
const ptermEnv = (warm: boolean) => ({ ...baseEnv(), NO_COLOR: "1", ...(warm ? {} : { PTERM_SERVER: "off" }) });

async function run(cmd: string[], cwd?: string, env: Record<string, string> = gitEnv): Promise<string> {
  const out = await new Deno.Command(cmd[0], { args: cmd.slice(1), cwd, env, clearEnv: true, stderr: "piped" })
    .output();
  if (!out.success) throw new Error(`${cmd.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}
const git = (cwd: string, ...args: string[]) => run(["git", ...args], cwd);

/** A root with a repository of `count` committed files, clean. */
async function bigRepository(root: string, count: number): Promise<void> {
  await Deno.mkdir(root);
  await git(root, "init", "-q", "-b", "main");
  for (let d = 0; d < count / 100; d++) {
    await Deno.mkdir(`${root}/d${d}`);
    for (let f = 0; f < 100; f++) await Deno.writeTextFile(`${root}/d${d}/f${f}.txt`, `file ${d}/${f}\n`);
  }
  await git(root, "add", "--all");
  await git(root, "commit", "-q", "-m", "files");
}

const roots: string[] = [];
try {
  const hello = `${dir}/hello`;
  await Deno.mkdir(hello);
  const empty = `${dir}/empty.ts`;
  await Deno.writeTextFile(empty, "");
  // Each tool in its own copy, so that neither's caches (the index, a warm server's watcher) help the other.
  const statusGit = `${dir}/status-git`;
  const statusPterm = `${dir}/status-pterm`;
  if (wanted("status")) {
    await bigRepository(statusGit, FILES);
    await bigRepository(statusPterm, FILES);
  }
  // `git add --all` of every file: the index is emptied (untimed) before each run.
  const addGit = `${dir}/add-git`;
  const addPterm = `${dir}/add-pterm`;
  for (const root of wanted("add") ? [addGit, addPterm] : []) {
    await bigRepository(root, FILES);
    await git(root, "read-tree", "--empty");
  }
  const emptyIndex = (root: string) => async () => void await git(root, "read-tree", "--empty");
  // A real repository: a clone of this one (its whole history).
  const real = `${dir}/real`;
  if (wanted("log")) await run(["git", "clone", "-q", "--no-local", new URL("../", import.meta.url).pathname, real]);
  // `patch apply`: each side's files put back (untimed) before each run; the roots are no repositories.
  const patchGit = `${dir}/patch-git`;
  const patchPterm = `${dir}/patch-pterm`;
  const edits = buildWorkload(100, 200, 10);
  const patchFile = `${dir}/patch.diff`;
  // Put back as new files, as bench/patch.ts does: files rewritten in place make the next replacement of
  // them wait for their data to reach the disk (ext4's auto_da_alloc), which slowed `git apply` 5-10×.
  const restore = (root: string) => () => {
    for (const top of new Set([...edits.before.keys()].map((path) => path.split("/")[0]))) {
      Deno.removeSync(`${root}/${top}`, { recursive: true });
    }
    for (const [path, content] of edits.before) {
      Deno.mkdirSync(`${root}/${path.slice(0, path.lastIndexOf("/"))}`, { recursive: true });
      Deno.writeTextFileSync(`${root}/${path}`, content);
    }
    return Promise.resolve();
  };
  if (wanted("patch")) {
    Deno.writeTextFileSync(patchFile, realDiff(`${dir}/patch-oracle`, edits));
    writeTree(patchGit, edits.before);
    writeTree(patchPterm, edits.before);
  }

  // A real long history to blame: jq's, cloned from the clone PTERM_BENCH_JQ names.
  const jqSnapshot = Deno.env.get("PTERM_BENCH_JQ");
  let jq: string | null = null;
  try {
    if (wanted("blame") && jqSnapshot && Deno.statSync(jqSnapshot).isDirectory) jq = `${dir}/jq`;
  } catch { /* PTERM_BENCH_JQ names nothing: the row is left out */ }
  if (jq && jqSnapshot) await run(["git", "clone", "-q", jqSnapshot, jq]);

  const keyed: [string, string][] = [["hello", hello], ["status", statusPterm], ["add", addPterm], ["log", real], [
    "patch",
    patchPterm,
  ]];
  roots.push(...keyed.filter(([key]) => wanted(key)).map(([, root]) => root), ...(jq ? [jq] : []));
  for (const root of roots) await run(ptermCommand("server", "start", "--root", root), undefined, ptermEnv(true));

  const pterm = (
    name: string,
    root: string,
    line: string,
    warm: boolean,
    before?: () => Promise<void>,
    stdinFile?: string,
  ): Subject => ({
    name: `${name} (pterm ${warm ? "warm" : "cold"})`,
    cmd: ptermCommand("exec", "--root", root, ...(stdinFile ? ["--stdin-file", stdinFile] : []), line),
    env: ptermEnv(warm),
    before,
  });
  const groups: {
    key: string;
    title: string;
    baseline: string;
    subjects: Subject[];
    inProcess: () => Promise<number>;
    /** A line on what the work cannot go below, given the reference's median. */
    floor?: (base: number) => Promise<string>;
  }[] = [
    {
      key: "hello",
      title: "`exec hello` against an empty `deno run` (target warm ≤ 1.5×)",
      baseline: "deno run empty.ts",
      subjects: [
        { name: "deno run empty.ts", cmd: [Deno.execPath(), "run", empty] },
        pterm("hello", hello, "hello", false),
        pterm("hello", hello, "hello", true),
      ],
      inProcess: () => roundTrip(hello, "hello"),
    },
    {
      key: "status",
      title: `\`git status\`, ${FILES} files, clean (target warm ≤ 1.5×)`,
      baseline: "git status",
      subjects: [
        { name: "git status", cmd: ["git", "status"], cwd: statusGit, env: gitEnv },
        pterm("git status", statusPterm, "git status", false),
        pterm("git status", statusPterm, "git status", true),
      ],
      inProcess: () => roundTrip(statusPterm, "git status"),
      // What a cold call cannot go below: a cold `exec hello` (start-up, the kernel, a worker) and one
      // lstat per file under a command's permissions, against the cold target of 5× git.
      floor: async (base) => {
        const [coldHello] = await timeSubjects([pterm("exec hello", hello, "hello", false)], 10);
        const lstats = await fileOpsFloor(statusPterm, true, 5, false);
        const sum = coldHello.median + lstats;
        return `a cold call's floor: a cold \`exec hello\` ${
          coldHello.median.toFixed(1)
        } ms + an lstat of each file in a ` +
          `worker with a command's permissions ${lstats.toFixed(1)} ms = ${sum.toFixed(1)} ms (${
            (sum / base).toFixed(2)
          }×; ` +
          `cold target ≤ 5×)`;
      },
    },
    {
      key: "add",
      title: `\`git add --all\`, ${FILES} files into an empty index (target warm ≤ 2×)`,
      baseline: "git add --all",
      subjects: [
        { name: "git add --all", cmd: ["git", "add", "--all"], cwd: addGit, env: gitEnv, before: emptyIndex(addGit) },
        pterm("git add --all", addPterm, "git add --all", false, emptyIndex(addPterm)),
        pterm("git add --all", addPterm, "git add --all", true, emptyIndex(addPterm)),
      ],
      inProcess: () => roundTrip(addPterm, "git add --all", emptyIndex(addPterm)),
      // What no JavaScript of pterm's goes below: Deno's file operations, each path checked.
      floor: async (base) => {
        const sandboxed = await fileOpsFloor(addPterm, true, 5);
        const unchecked = await fileOpsFloor(addPterm, false, 5);
        return `its file operations alone (an lstat and a read of each file, in a worker): ${
          sandboxed.toFixed(1)
        } ms ` +
          `with a command's permissions (${(sandboxed / base).toFixed(2)}×), ${unchecked.toFixed(1)} ms with all ` +
          `(${(unchecked / base).toFixed(2)}×)`;
      },
    },
    {
      key: "log",
      title: "`git log -n 50` on a clone of pterm's own repository (target warm ≤ 2×)",
      baseline: "git log -n 50",
      subjects: [
        { name: "git log -n 50", cmd: ["git", "log", "-n", "50"], cwd: real, env: gitEnv },
        pterm("git log -n 50", real, "git log -n 50", false),
        pterm("git log -n 50", real, "git log -n 50", true),
      ],
      inProcess: () => roundTrip(real, "git log -n 50"),
    },
    {
      key: "patch",
      title: "`patch apply`, 1,000 line edits over 100 files, the diff git wrote (target warm ≤ 5×)",
      baseline: "git apply",
      subjects: [
        { name: "git apply", cmd: ["git", "apply", patchFile], cwd: patchGit, env: gitEnv, before: restore(patchGit) },
        pterm("patch apply", patchPterm, "patch apply", false, restore(patchPterm), patchFile),
        pterm("patch apply", patchPterm, "patch apply", true, restore(patchPterm), patchFile),
      ],
      inProcess: () => roundTrip(patchPterm, "patch apply", restore(patchPterm), Deno.readTextFileSync(patchFile)),
      // git apply's own time moves with the folder it writes its 100 new files in (up to 4× on an ext4
      // folder whose files were just replaced many times over): the same comparison with both in pterm's folder.
      floor: async () => {
        const text = Deno.readTextFileSync(patchFile);
        const git: number[] = [];
        const server: number[] = [];
        for (let i = 0; i < RUNS; i++) {
          await restore(patchPterm)();
          const started = performance.now();
          await run(["git", "apply", patchFile], patchPterm);
          git.push(performance.now() - started);
          server.push(await roundTrip(patchPterm, "patch apply", restore(patchPterm), text, 1));
        }
        const median = (samples: number[]) => samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)];
        const [g, p] = [median(git), median(server)];
        return `in the same folder, alternately: git apply ${g.toFixed(1)} ms, the server's answer ${
          p.toFixed(1)
        } ms ` +
          `(${(p / g).toFixed(2)}×)`;
      },
    },
  ];
  if (jq) {
    groups.push({
      key: "blame",
      title: "`git blame src/builtin.c` on a clone of jq's repository (target ≤ 3×)",
      baseline: "git blame",
      subjects: [
        { name: "git blame", cmd: ["git", "blame", "src/builtin.c"], cwd: jq, env: gitEnv },
        pterm("git blame", jq, "git blame src/builtin.c", false),
        pterm("git blame", jq, "git blame src/builtin.c", true),
      ],
      inProcess: () => roundTrip(jq, "git blame src/builtin.c"),
    });
  } else if (wanted("blame")) {
    console.log(
      jqSnapshot
        ? `(PTERM_BENCH_JQ names ${jqSnapshot}, which is not a folder: the blame row is left out)\n`
        : "(PTERM_BENCH_JQ is not set: the blame row is left out; set it to a clone of https://github.com/jqlang/jq)\n",
    );
  }
  console.log(
    `${RUNS} runs per row after 3 warm-up runs, wall-clock ms of the whole process; ratios within each table.\n`,
  );
  for (const group of groups.filter((g) => wanted(g.key))) {
    const timings = await timeSubjects(group.subjects, RUNS);
    const base = timings.find((t) => t.name === group.baseline)!.median;
    const floor = await group.inProcess();
    console.log(`${group.title}\n\n${table(timings, group.baseline)}`);
    console.log(
      `server round trip without a client process: ${floor.toFixed(1)} ms median ` +
        `(${(floor / base).toFixed(2)}× the reference's median above)`,
    );
    if (group.floor) console.log(await group.floor(base));
    console.log("");
  }
  // The warm path's memory is the server's: its resident memory now, with the workers its calls left idle, and its peak.
  const memory: string[][] = [];
  for (const root of roots) {
    const status = JSON.parse(await run(ptermCommand("server", "status", "--root", root), undefined, ptermEnv(true)));
    memory.push([
      root.slice(dir.length + 1),
      String(status.calls),
      (processMemoryKiB(status.pid, "VmRSS") / 1024).toFixed(0),
      (processMemoryKiB(status.pid, "VmHWM") / 1024).toFixed(0),
    ]);
  }
  console.log(
    "session servers' memory after the runs (idle workers are stopped after two minutes without a call):\n\n" +
      markdownTable(["root", "calls", "RSS MiB now", "peak RSS MiB"], memory) + "\n",
  );
} finally {
  for (const root of roots) {
    await run(ptermCommand("server", "stop", "--root", root), undefined, ptermEnv(true)).catch(() => {});
  }
  await Deno.remove(dir, { recursive: true });
}
