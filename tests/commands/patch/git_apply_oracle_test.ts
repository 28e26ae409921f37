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
import { encodeLossless } from "../../../commands/patch/text.ts";
import { makeRoot } from "../../_support/helpers.ts";
import { change, ENV, git, type Model, newPath, prng, randomLines, textContent, write } from "./diff_generator.ts";

const DIFFS = Number(Deno.env.get("PTERM_ORACLE_DIFFS") ?? 1000);
const SEED = Number(Deno.env.get("PTERM_ORACLE_SEED") ?? Math.floor(Math.random() * 2 ** 31));

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
    /** Diffs git applies again and pterm refuses as AlreadyApplied (see below). */
    reapplied: 0,
    /** Diffs real git's own apply does not turn into the commit they describe (not counted in `diffs`). */
    gitDisagrees: 0,
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
    if (git(byGit, "write-tree").trim() !== expected) {
      // Real git's apply does not give the commit its own diff describes (seen with a -U0 copy whose
      // hunk removes a last line that had no newline): there is nothing to hold pterm to. Both copies
      // take the commit itself and the run goes on.
      for (const dir of [byGit, byPterm]) {
        git(dir, "fetch", "-q", "origin");
        git(dir, "reset", "-q", "--hard", "origin/main");
        git(dir, "clean", "-ffdq");
      }
      stats.gitDisagrees++;
      continue;
    }

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
    // One refusal git has no counterpart for: a hunk whose new side already stands where it goes is
    // AlreadyApplied in pterm's patch format, as GNU patch detects a patch applied before, while git
    // applies it again wherever its context still matches — a `-U0` insertion (placed by its line
    // number alone), or an insertion whose added line repeats the context after it (`+{` before ` {`),
    // so that a retry would duplicate code.
    const onlyAlreadyApplied = ptermRefusal !== null && /already applied/.test(ptermRefusal);
    if (again.success && onlyAlreadyApplied) stats.reapplied++;
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
      // The AlreadyApplied exception and git's own disagreements are rare by nature; the rest must have been drawn.
      if (shape !== "reapplied" && shape !== "gitDisagrees") assert.ok(count > 0, `no ${shape} in ${DIFFS} diffs`);
    }
  }
  // deno-lint-ignore no-console -- how many of each shape this run drew, for whoever reads the log
  console.log(`git apply oracle: ${JSON.stringify(stats)}`);
  git(byPterm, "fsck", "--strict");
});
