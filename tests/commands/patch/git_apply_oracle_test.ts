/**
 * The `git apply` oracle: random real-world-shaped changes are made in a real git
 * repository — text edits in LF, CRLF, BOM and no-final-newline files, new and deleted files,
 * renames and copies (with edits), mode changes, binary files (literal and delta), symbolic links
 * and submodule pointers, paths with spaces and non-ASCII names — and real `git diff --binary -M
 * -C -C` describes each change. The same diff is applied by `git apply --index` to one copy of the
 * repository and by pterm's `git.diff` (the engine `patch apply` runs, committing) to another; the
 * tree pterm commits must be the tree git's apply gives, and pterm's work tree must match it
 * (`git status` clean). The copies move on together, so later diffs meet the states earlier ones made.
 *
 * DIFFS diffs per run: 1,000, in CI too (about 3,000 file diffs, ~2–3 minutes on a
 * shared 2-core machine); PTERM_ORACLE_DIFFS overrides it. The seed is random and printed on
 * failure (PTERM_ORACLE_SEED replays one).
 */

import assert from "node:assert/strict";
import { createWorkspace } from "../../../core/context.ts";
import { runPatch } from "../../../commands/patch/engine.ts";
import * as gitApi from "../../../commands/git/api.ts";
import { decodeLossless, encodeLossless } from "../../../commands/patch/text.ts";
import { makeRoot } from "../../_support/helpers.ts";

const DIFFS = Number(Deno.env.get("PTERM_ORACLE_DIFFS") ?? 1000);
const SEED = Number(Deno.env.get("PTERM_ORACLE_SEED") ?? Math.floor(Math.random() * 2 ** 31));

const ENV = {
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.com",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.com",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
};

/** git's output, its bytes kept (a diff of a Latin-1 file is not UTF-8). */
function git(dir: string, ...args: string[]): string {
  const out = new Deno.Command("git", { args, cwd: dir, env: ENV, clearEnv: true, stdout: "piped", stderr: "piped" })
    .outputSync();
  if (!out.success) throw new Error(`git ${args.join(" ")} in ${dir}: ${new TextDecoder().decode(out.stderr)}`);
  return decodeLossless(out.stdout);
}

/** mulberry32: a seeded sequence, so a failure replays. */
function prng(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)],
    chance: (p: number) => next() < p,
  };
}
type Rng = ReturnType<typeof prng>;

/** Lines real files have, including ones that look like diff or patch syntax. */
const VOCABULARY = [
  "",
  "{",
  "}",
  "  return 0;",
  "\tindented with a tab",
  "    x = y + 1",
  "// a comment",
  "-- an SQL comment",
  "++ counter",
  "--- not a header",
  "@@ not a hunk @@",
  "=== end ===",
  "a, b, c",
  "café ☕ naïve",
  "trailing space  ",
  " leading space",
  "\\ backslash line",
  "diff --git looks like a header",
];

const DIRS = ["", "src/", "docs/", "lib/a b/", "deep/er/path/", "ünï/"];
const NAMES = ["main", "util", "read me", "notes", "x", "Makefile", "café"];

type Kind = "text" | "binary" | "link" | "gitlink";

interface Model {
  /** What each tracked path is in the generator repository. */
  files: Map<string, Kind>;
}

function textContent(rng: Rng, lines: string[]): Uint8Array {
  const crlf = rng.chance(0.2);
  const finalNewline = lines.length > 0 && !rng.chance(0.15);
  const latin1 = rng.chance(0.08);
  const bom = !latin1 && rng.chance(0.08);
  const eol = crlf ? "\r\n" : "\n";
  const text = (bom ? "\ufeff" : "") + lines.join(eol) + (finalNewline ? eol : "");
  // Now and then a file in Latin-1, as old projects have them: not UTF-8, but text to git.
  return latin1 ? Uint8Array.from(text, (c) => (c.charCodeAt(0) < 256 ? c.charCodeAt(0) : 0x3f)) : encodeLossless(text);
}

function randomLines(rng: Rng, count: number): string[] {
  return Array.from({ length: count }, (_, i) => rng.chance(0.5) ? rng.pick(VOCABULARY) : `line ${rng.int(1000)} ${i}`);
}

function binaryContent(rng: Rng, size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = rng.int(256);
  bytes[0] = 0; // a NUL: git takes it for binary
  return bytes;
}

/** Edits a text file the way people do: runs of lines inserted, removed, replaced; endings kept or changed. */
function editText(rng: Rng, bytes: Uint8Array): Uint8Array {
  let text = decodeLossless(bytes);
  const hadBom = text.startsWith("\ufeff");
  if (hadBom) text = text.slice(1);
  const bom = hadBom !== rng.chance(0.05); // sometimes a BOM is added or dropped
  // Now and then a file changes its line endings as a whole (an editor's setting).
  const crlf = text.includes("\r\n") ? !rng.chance(0.05) : rng.chance(0.05);
  const finalNewline = rng.chance(0.1) ? !/\n$/.test(text) : /\n$/.test(text);
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === "") lines.pop();
  for (let e = 1 + rng.int(3); e > 0; e--) {
    const at = rng.int(lines.length + 1);
    const op = rng.int(3);
    if (op === 0) lines.splice(at, 0, ...randomLines(rng, 1 + rng.int(3)));
    else if (op === 1) lines.splice(at, 1 + rng.int(2));
    else lines.splice(at, 1, ...randomLines(rng, 1));
  }
  const eol = crlf ? "\r\n" : "\n";
  const out = (bom ? "\ufeff" : "") + lines.join(eol) + (finalNewline && lines.length ? eol : "");
  return encodeLossless(out);
}

function newPath(rng: Rng, model: Model, ext: string): string {
  for (;;) {
    const path = `${rng.pick(DIRS)}${rng.pick(NAMES)}${rng.int(50)}${ext}`;
    const clashes = [...model.files.keys()].some((p) =>
      p === path || p.startsWith(path + "/") || path.startsWith(p + "/")
    );
    if (!clashes) return path;
  }
}

function ofKind(model: Model, kind: Kind): string[] {
  return [...model.files].filter(([, k]) => k === kind).map(([p]) => p);
}

async function write(repo: string, path: string, bytes: Uint8Array, mode = 0o644): Promise<void> {
  const abs = `${repo}/${path}`;
  await Deno.mkdir(abs.slice(0, abs.lastIndexOf("/")), { recursive: true });
  await Deno.writeFile(abs, bytes);
  await Deno.chmod(abs, mode);
}

async function remove(repo: string, path: string): Promise<void> {
  await Deno.remove(`${repo}/${path}`, { recursive: true });
  // git drops emptied folders from its view; so do we, so a new path can take the name.
  let dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "";
  while (dir) {
    try {
      await Deno.remove(`${repo}/${dir}`);
    } catch {
      break;
    }
    dir = dir.includes("/") ? dir.slice(0, dir.lastIndexOf("/")) : "";
  }
}

/** One random change of the generator repository's work tree and index. */
async function change(rng: Rng, repo: string, model: Model): Promise<void> {
  for (let n = 1 + rng.int(5); n > 0; n--) {
    const texts = ofKind(model, "text");
    const op = rng.int(14);
    if (op <= 3 && texts.length) {
      const path = rng.pick(texts);
      await write(
        repo,
        path,
        editText(rng, await Deno.readFile(`${repo}/${path}`)),
        (await Deno.stat(`${repo}/${path}`)).mode! & 0o777,
      );
    } else if (op === 4) {
      const path = newPath(rng, model, rng.pick([".c", ".md", ".txt", ""]));
      await write(repo, path, textContent(rng, randomLines(rng, rng.int(12))), rng.chance(0.2) ? 0o755 : 0o644);
      model.files.set(path, "text");
    } else if (op === 5 && model.files.size > 3) {
      const [path, kind] = rng.pick([...model.files]);
      if (kind === "gitlink") git(repo, "rm", "-q", "--cached", path);
      await remove(repo, path).catch(() => {});
      model.files.delete(path);
    } else if ((op === 6 || op === 7) && texts.length) {
      // A rename (op 6) or a copy (op 7), with at most a small edit so git sees them as such.
      const from = rng.pick(texts);
      const bytes = await Deno.readFile(`${repo}/${from}`);
      if (bytes.length < 40) continue;
      const to = newPath(
        rng,
        model,
        from.slice(from.lastIndexOf(".")).includes("/") ? "" : from.slice(from.lastIndexOf(".")),
      );
      const mode = (await Deno.stat(`${repo}/${from}`)).mode! & 0o777;
      await write(repo, to, rng.chance(0.5) ? bytes : editText(rng, bytes), mode);
      model.files.set(to, "text");
      if (op === 6) {
        await remove(repo, from);
        model.files.delete(from);
      }
    } else if (op === 8 && texts.length) {
      const path = rng.pick(texts);
      const mode = (await Deno.stat(`${repo}/${path}`)).mode! & 0o777;
      await Deno.chmod(`${repo}/${path}`, mode & 0o100 ? 0o644 : 0o755);
    } else if (op === 9) {
      const binaries = ofKind(model, "binary");
      if (binaries.length && rng.chance(0.6)) {
        const path = rng.pick(binaries);
        const bytes = new Uint8Array(await Deno.readFile(`${repo}/${path}`));
        if (rng.chance(0.7)) { for (let k = 0; k < 4; k++) bytes[rng.int(bytes.length)] = rng.int(256); }
        await write(repo, path, rng.chance(0.7) ? bytes : binaryContent(rng, 50 + rng.int(4000)));
      } else {
        const path = newPath(rng, model, ".bin");
        await write(repo, path, binaryContent(rng, 50 + rng.int(6000)));
        model.files.set(path, "binary");
      }
    } else if (op === 10 || op === 11) {
      const links = ofKind(model, "link");
      if (links.length && rng.chance(0.5)) {
        const path = rng.pick(links);
        await Deno.remove(`${repo}/${path}`);
        await Deno.symlink(
          rng.pick(["target.txt", "../up/there", "dir with space/x", "café"]) + rng.int(9),
          `${repo}/${path}`,
        );
      } else {
        const path = newPath(rng, model, ".lnk");
        await Deno.mkdir(`${repo}/${path}`.slice(0, `${repo}/${path}`.lastIndexOf("/")), { recursive: true });
        await Deno.symlink(rng.pick(["target.txt", "src/main.c", "../elsewhere"]), `${repo}/${path}`);
        model.files.set(path, "link");
      }
    } else if (op === 13) {
      // A type change at one path: a file becomes a link, or a link a file (git diffs it as a
      // deletion and a creation of the same path).
      const links = ofKind(model, "link");
      if (links.length && rng.chance(0.5)) {
        const path = rng.pick(links);
        await Deno.remove(`${repo}/${path}`);
        await write(repo, path, textContent(rng, randomLines(rng, 1 + rng.int(4))));
        model.files.set(path, "text");
      } else if (texts.length) {
        const path = rng.pick(texts);
        await Deno.remove(`${repo}/${path}`);
        await Deno.symlink(rng.pick(["target.txt", "src/main.c"]), `${repo}/${path}`);
        model.files.set(path, "link");
      }
    } else if (op === 12) {
      const gitlinks = ofKind(model, "gitlink");
      const oid = Array.from({ length: 40 }, () => "0123456789abcdef"[rng.int(16)]).join("");
      const path = gitlinks.length && rng.chance(0.5) ? rng.pick(gitlinks) : newPath(rng, model, "");
      // An empty folder: a submodule that is not checked out, which git leaves alone.
      await Deno.mkdir(`${repo}/${path}`, { recursive: true });
      git(repo, "add", "-A");
      git(repo, "update-index", "--add", "--cacheinfo", `160000,${oid},${path}`);
      model.files.set(path, "gitlink");
    }
  }
  git(repo, "add", "-A");
}

let runs = 0;

async function ptermApply(
  root: string,
  repoRel: string,
  diff: string,
  mode: "apply" | "check" = "apply",
): Promise<void> {
  await runPatch({
    mode,
    command: "patch apply",
    text: `=== git.diff: "." ===\n${diff}=== end ===\n=== PATCH EOF ===\n`,
    workspace: createWorkspace(root),
    repoFlag: repoRel,
    noCommit: false,
    config: {},
    session: { id: "oracle", dir: `${root}/sessions/oracle` },
    runId: `run-${runs++}`,
    signal: new AbortController().signal,
    git: gitApi,
    durable: false,
  });
}

Deno.test(`git apply oracle: ${DIFFS} random diffs made by real git apply through git.diff as git apply does (seed ${SEED})`, async () => {
  await using root = await makeRoot("pterm-oracle-");
  const gen = `${root.path}/gen`;
  const rng = prng(SEED);
  const model: Model = { files: new Map() };
  await Deno.mkdir(gen);
  git(gen, "init", "-q", "-b", "main");
  for (let i = 0; i < 6; i++) {
    const path = newPath(rng, model, ".txt");
    await write(gen, path, textContent(rng, randomLines(rng, 5 + rng.int(20))));
    model.files.set(path, "text");
  }
  git(gen, "add", "-A");
  git(gen, "commit", "-qm", "base");
  git(root.path, "clone", "-q", "gen", "byGit");
  git(root.path, "clone", "-q", "gen", "byPterm");
  const byGit = `${root.path}/byGit`;
  const byPterm = `${root.path}/byPterm`;
  const stats = {
    diffs: 0,
    files: 0,
    renames: 0,
    copies: 0,
    binary: 0,
    links: 0,
    gitlinks: 0,
    modes: 0,
    /** Diffs git applies a second time too (and so must pterm). */
    twice: 0,
    /** -U0 insertions git applies again and pterm refuses as AlreadyApplied (see above). */
    reappliedZero: 0,
  };
  for (let round = 0; stats.diffs < DIFFS; round++) {
    await change(rng, gen, model);
    // The shapes diffs come in: plain, --no-prefix, less or more context (-U0 needs git apply
    // --unidiff-zero), and a mail from git format-patch (header, diffstat, `-- ` signature).
    const shape = rng.pick(["plain", "plain", "plain", "plain", "no-prefix", "U0", "U1", "U8", "mail", "mail"]);
    const noPrefix = shape === "no-prefix";
    const options = [
      "--binary",
      "-M",
      "-C",
      "-C",
      ...(noPrefix ? ["--no-prefix"] : []),
      ...(shape.startsWith("U") ? [`-${shape}`] : []),
    ];
    let diff = git(gen, "diff", "--cached", ...options);
    if (diff === "") continue;
    git(gen, "commit", "-qm", `round ${round}`);
    if (shape === "mail") diff = git(gen, "format-patch", "-1", "--stdout", ...options);
    const expected = git(gen, "rev-parse", "HEAD^{tree}").trim();
    const context = () => `seed ${SEED}, round ${round} (PTERM_ORACLE_SEED=${SEED} replays it); the diff:\n${diff}`;

    await Deno.writeFile(`${root.path}/round.diff`, encodeLossless(diff));
    git(
      byGit,
      "apply",
      "--index",
      ...(noPrefix ? ["-p0"] : []),
      ...(shape === "U0" ? ["--unidiff-zero"] : []),
      `${root.path}/round.diff`,
    );
    assert.equal(git(byGit, "write-tree").trim(), expected, `git apply itself disagrees: ${context()}`);

    try {
      await ptermApply(root.path, "byPterm", diff);
    } catch (error) {
      throw new Error(`pterm refused a diff git applies: ${(error as Error).message}\n${context()}`);
    }
    if (git(byPterm, "rev-parse", "HEAD^{tree}").trim() !== expected) {
      const ours = new Set(git(byPterm, "ls-tree", "-r", "HEAD").split("\n"));
      const theirs = new Set(git(byGit, "ls-tree", "-r", expected).split("\n"));
      const delta = [
        ...[...theirs].filter((l) => !ours.has(l)).map((l) => `git:   ${l}`),
        ...[...ours].filter((l) => !theirs.has(l)).map((l) => `pterm: ${l}`),
      ];
      assert.fail(`pterm's tree differs:\n${delta.join("\n")}\n${context()}`);
    }
    const dirty = git(byPterm, "-c", "core.quotePath=false", "status", "--porcelain", "--untracked-files=no")
      .split("\n").filter((l) => l !== "");
    assert.deepEqual(dirty, [], `pterm's work tree differs from its commit: ${context()}`);

    // The same diff a second time (a retry): pterm refuses exactly when git apply refuses.
    const again = new Deno.Command("git", {
      args: [
        "apply",
        "--check",
        "--index",
        ...(noPrefix ? ["-p0"] : []),
        ...(shape === "U0" ? ["--unidiff-zero"] : []),
        `${root.path}/round.diff`,
      ],
      cwd: byGit,
      env: ENV,
      clearEnv: true,
      stdout: "null",
      stderr: "piped",
    }).outputSync();
    let ptermRefusal: string | null = null;
    try {
      await ptermApply(root.path, "byPterm", diff, "check");
    } catch (error) {
      ptermRefusal = (error as Error).message;
    }
    // One refusal git has no counterpart for: a `-U0` insertion (no context, applied by its line
    // number, as git apply --unidiff-zero does) whose lines already stand at that line is
    // AlreadyApplied, as GNU patch detects a patch applied before; git inserts them a second time.
    const onlyAlreadyApplied = ptermRefusal !== null && /already applied/.test(ptermRefusal);
    if (again.success && shape === "U0" && onlyAlreadyApplied) stats.reappliedZero++;
    else if (again.success !== (ptermRefusal === null)) {
      assert.fail(
        `applied a second time, git apply ${
          again.success ? "accepts" : `refuses (${new TextDecoder().decode(again.stderr).trim()})`
        } but pterm ${ptermRefusal === null ? "accepts" : `refuses (${ptermRefusal})`}: ${context()}`,
      );
    }
    stats.twice += again.success && ptermRefusal === null ? 1 : 0;

    stats.diffs++;
    stats.files += diff.match(/^diff --git /gm)?.length ?? 0;
    stats.renames += diff.match(/^rename from /gm)?.length ?? 0;
    stats.copies += diff.match(/^copy from /gm)?.length ?? 0;
    stats.binary += diff.match(/^GIT binary patch$/gm)?.length ?? 0;
    stats.links += diff.match(/ 120000$/gm)?.length ?? 0;
    stats.gitlinks += diff.match(/ 160000$/gm)?.length ?? 0;
    stats.modes += diff.match(/^new mode /gm)?.length ?? 0;
  }
  // The shapes must actually have been drawn (a generator that stopped making them would pass vacuously).
  if (DIFFS >= 200) {
    for (const [shape, count] of Object.entries(stats)) {
      // The -U0 exception is rare by nature; the rest must have been drawn.
      if (shape !== "reappliedZero") assert.ok(count > 0, `no ${shape} in ${DIFFS} diffs`);
    }
  }
  // deno-lint-ignore no-console -- how many of each shape this run drew, for whoever reads the log
  console.log(`git apply oracle: ${JSON.stringify(stats)}`);
  git(byPterm, "fsck", "--strict");
});
