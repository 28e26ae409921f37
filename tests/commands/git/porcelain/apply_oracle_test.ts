/**
 * pterm's `git apply` held to real `git apply` on random diffs real git made (the generator of
 * tests/commands/patch/diff_generator.ts: text in every line-ending shape, renames, copies, modes,
 * binary files, links, submodule pointers). Each diff is applied with `git apply --index` by real
 * git to one clone and by pterm's `git -C byPterm apply --index` to another: the index trees must be
 * the same and pterm's work tree must match its index. Before that, the diff is mutated so that it
 * does not apply — a changed context line, a file that is not there, a file that already is — and
 * both must refuse it with the same `error:` lines and exit 1, pterm leaving everything as it was;
 * after it, the same diff a second time (`--check`) must be refused or accepted as git does, in
 * git's words. The clones move on together (real git commits both after each round).
 *
 * Now and then a line of a file the diff edits is changed in both clones first (a commit of its
 * own, as work done meanwhile): the diff's context no longer matches, but its preimage blob is in
 * the repository, and `git apply --3way` merges — cleanly or with conflicts. pterm's and git's
 * exit codes, whole stderr, index stages and work-tree bytes must be the same; the clones then go
 * back to where they were.
 *
 * DIFFS rounds per run: 60 by default (about a minute on a shared machine); PTERM_APPLY_ORACLE_DIFFS
 * overrides it. The seed is random and printed on failure (PTERM_ORACLE_SEED replays one).
 */

import assert from "node:assert/strict";
import { encodeLossless } from "../../../../commands/patch/text.ts";
import { exec, makeRoot } from "../../../_support/helpers.ts";
import { worktreeSnapshot } from "../oracle.ts";
import {
  change,
  ENV,
  git,
  type Model,
  newPath,
  prng,
  randomLines,
  type Rng,
  textContent,
  write,
} from "../../patch/diff_generator.ts";

const DIFFS = Number(Deno.env.get("PTERM_APPLY_ORACLE_DIFFS") ?? 60);
const SEED = Number(Deno.env.get("PTERM_ORACLE_SEED") ?? Math.floor(Math.random() * 2 ** 31));

/**
 * Real git apply's outcome for a diff sent on stdin: its exit code, its `error:` lines and its whole
 * stderr (whitespace warnings included).
 */
async function realApply(dir: string, args: string[], diff: Uint8Array): Promise<{
  code: number;
  errors: string[];
  stderr: string;
  stdout: string;
}> {
  const child = new Deno.Command("git", {
    args: ["apply", ...args],
    cwd: dir,
    env: ENV,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(diff);
  await writer.close();
  const out = await child.output();
  const stderr = new TextDecoder().decode(out.stderr);
  return {
    code: out.code,
    errors: stderr.split("\n").filter((l) => l.startsWith("error: ")),
    stderr,
    stdout: new TextDecoder().decode(out.stdout),
  };
}

/** pterm's outcome for the same diff (sent as stdin bytes, as a tool call or pipe gives them). */
async function ptermApply(
  root: string,
  args: string[],
  diff: Uint8Array,
): Promise<{ code: number; errors: string[]; stderr: string }> {
  const envelope = await exec(root, `git -C byPterm apply ${args.join(" ")}`, { stdin: diff });
  const errors = envelope.stderr.split("\n").filter((l) => l.startsWith("error: "));
  return { code: envelope.exit_code ?? -1, errors, stderr: envelope.stderr };
}

/** Everything a refused apply must leave as it was: the index, the work tree against it, untracked files. */
function fingerprint(dir: string): string {
  return git(dir, "write-tree") + git(dir, "status", "--porcelain=v1", "-uall") +
    git(dir, "diff", "--binary");
}

/**
 * The bytes in `dir` of each path real git's apply changed in `reference` (its index against HEAD,
 * conflicts included; a link: its target, as pterm writes a link as a file holding it).
 */
function applied(dir: string, reference: string): string {
  const paths = git(reference, "diff", "--name-only", "-z", "HEAD").split("\0").filter((p) => p !== "");
  return paths.map((path) => {
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(`${dir}/${path}`);
    } catch {
      return `${path} (none)\n`;
    }
    if (info.isDirectory) return `${path}/\n`;
    const bytes = info.isSymlink
      ? new TextEncoder().encode(Deno.readLinkSync(`${dir}/${path}`))
      : Deno.readFileSync(`${dir}/${path}`);
    return `${path} ${btoa(String.fromCharCode(...bytes))}\n`;
  }).join("");
}

/** The diff's per-file sections (each from its `diff --git` line). */
function sections(diff: string): string[] {
  const parts = diff.split(/^(?=diff --git )/m);
  return parts.filter((p) => p.startsWith("diff --git "));
}

type Mutation = "context" | "missing" | "exists";

/** The path of a section that names the same file on both sides, or null. */
function plainName(section: string): string | null {
  const m = /^diff --git a\/(\S+) b\/(\S+)\n/.exec(section);
  return m && m[1] === m[2] ? m[1] : null;
}

/**
 * A line in the old range of one hunk of a file the diff edits in place (its `index` line names
 * the preimage), to change in the repository before a `--3way` apply; null when there is none.
 */
function lineToMove(rng: Rng, diff: string): { path: string; line: number } | null {
  const edits = sections(diff).filter((s) =>
    plainName(s) !== null && /\nindex [0-9a-f]+\.\.[0-9a-f]+ 100(644|755)\n/.test(s) && /\n@@ /.test(s) &&
    !/^GIT binary patch$/m.test(s) && !/\n(new|deleted) file mode/.test(s)
  );
  if (edits.length === 0) return null;
  const section = rng.pick(edits);
  const ranges = [...section.matchAll(/^@@ -(\d+)(?:,(\d+))? /gm)].map((m) => ({
    start: Number(m[1]),
    count: m[2] === undefined ? 1 : Number(m[2]),
  })).filter((r) => r.count > 0);
  if (ranges.length === 0) return null;
  const range = rng.pick(ranges);
  // Inside the hunk's old lines (a conflict, mostly) or up to two lines around them (a clean merge, often).
  return { path: plainName(section)!, line: Math.max(1, range.start - 2 + rng.int(range.count + 4)) };
}

/** Line `line` (1-based) of the file, its bytes kept, with ` (moved)` put before its line end. */
async function moveLine(dir: string, path: string, line: number): Promise<void> {
  const bytes = await Deno.readFile(`${dir}/${path}`);
  const text = Array.from(bytes, (b) => String.fromCharCode(b)).join("");
  const lines = text.split(/(?<=\n)/);
  if (line > lines.length) return;
  lines[line - 1] = lines[line - 1].replace(/(\r?\n)?$/, (eol) => ` (moved)${eol}`);
  const out = lines.join("");
  await Deno.writeFile(`${dir}/${path}`, Uint8Array.from(out, (c) => c.charCodeAt(0)));
}

/** The diff made not to apply in one of three ways, or null when it has nothing to mutate that way. */
function mutate(rng: Rng, diff: string, kind: Mutation, tracked: readonly string[]): string | null {
  const files = sections(diff);
  const head = diff.slice(0, diff.indexOf("diff --git "));
  if (kind === "context") {
    const candidates = files.flatMap((s, i) =>
      /\n@@ /.test(s) && !/^GIT binary patch$/m.test(s) && /\n [^\n]*\n/.test(s.slice(s.indexOf("\n@@ "))) ? [i] : []
    );
    if (candidates.length === 0) return null;
    const i = rng.pick(candidates);
    const body = files[i].slice(files[i].indexOf("\n@@ "));
    const lines = body.split("\n");
    const contexts = lines.flatMap((l, k) => (l.startsWith(" ") ? [k] : []));
    const k = rng.pick(contexts);
    lines[k] = lines[k].replace(/\r?$/, (eol) => ` (edited)${eol}`);
    files[i] = files[i].slice(0, files[i].indexOf("\n@@ ")) + lines.join("\n");
    return head + files.join("");
  }
  if (kind === "missing") {
    const candidates = files.flatMap((s, i) =>
      plainName(s) !== null && /\n--- a\//.test(s) && !/\n(new|deleted) file mode|\n(rename|copy) from/.test(s)
        ? [i]
        : []
    );
    if (candidates.length === 0) return null;
    const i = rng.pick(candidates);
    const name = plainName(files[i])!;
    const gone = `${name}.gone`;
    const headerEnd = files[i].indexOf("\n@@ ");
    const header = files[i].slice(0, headerEnd).replaceAll(`a/${name}`, `a/${gone}`).replaceAll(
      `b/${name}`,
      `b/${gone}`,
    );
    files[i] = header + files[i].slice(headerEnd);
    return head + files.join("");
  }
  const created = files.flatMap((s, i) => (plainName(s) !== null && /\nnew file mode 100644\n/.test(s) ? [i] : []));
  const existing = tracked.filter((p) => !/[\s"\\]/.test(p) && /^[\x21-\x7e]+$/.test(p));
  if (created.length === 0 || existing.length === 0) return null;
  const i = rng.pick(created);
  const name = plainName(files[i])!;
  const target = rng.pick(existing);
  if (diff.includes(`/${target}\n`) || diff.includes(` b/${target} `)) return null;
  const headerEnd = files[i].search(/\n(@@ |GIT binary patch)/);
  const end = headerEnd < 0 ? files[i].length : headerEnd;
  files[i] = files[i].slice(0, end).replaceAll(`a/${name}`, `a/${target}`).replaceAll(`b/${name}`, `b/${target}`) +
    files[i].slice(end);
  return head + files.join("");
}

Deno.test(`git apply spelling oracle: ${DIFFS} random diffs, their refusals and retries, as real git apply (seed ${SEED})`, async () => {
  await using root = await makeRoot("pterm-apply-oracle-");
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
    views: 0,
    cached: 0,
    context: 0,
    missing: 0,
    exists: 0,
    threeway: 0,
    threewayConflicts: 0,
    twiceRefused: 0,
    twiceAccepted: 0,
  };
  // Whether a --3way merge conflicts, or a retry is accepted, is up to the draw: those rounds need not come.
  const optional = new Set(["twiceAccepted", "threewayConflicts"]);
  const lacking = () => Object.entries(stats).some(([what, count]) => !optional.has(what) && count === 0);
  // A full run goes on past DIFFS (up to three times as many) until every kind of round has come: a
  // seed that draws no refused "exists" diff in 60 rounds is not a failure of pterm.
  const enough = () => stats.diffs >= DIFFS && (DIFFS < 50 || !lacking() || stats.diffs >= DIFFS * 3);
  for (let round = 0; !enough(); round++) {
    await change(rng, gen, model);
    const shape = rng.pick(["plain", "plain", "plain", "no-prefix", "U0", "U1", "U8", "mail"]);
    const options = [
      "--binary",
      "-M",
      "-C",
      "-C",
      ...(shape === "no-prefix" ? ["--no-prefix"] : []),
      ...(shape.startsWith("U") ? [`-${shape}`] : []),
    ];
    let diff = git(gen, "diff", "--cached", ...options);
    if (diff === "") continue;
    const tracked = git(byGit, "ls-files").split("\n").filter((l) => l !== "");
    git(gen, "commit", "-qm", `round ${round}`);
    if (shape === "mail") diff = git(gen, "format-patch", "-1", "--stdout", ...options);
    const expected = git(gen, "rev-parse", "HEAD^{tree}").trim();
    // Now and then the index alone (`--cached`): the work trees are brought back in line after the round.
    const cached = rng.chance(0.25);
    const flags = [
      cached ? "--cached" : "--index",
      ...(shape === "no-prefix" ? ["-p0"] : []),
      ...(shape === "U0" ? ["--unidiff-zero"] : []),
    ];
    const context = (what: string) =>
      `${what}: seed ${SEED}, round ${round} (PTERM_ORACLE_SEED=${SEED} replays it), git apply ${
        flags.join(" ")
      }; the diff:\n${what === "diff" ? diff : ""}`;

    // The diff made not to apply: git refuses it, and so must pterm, in git's words, writing nothing.
    if (shape !== "no-prefix") {
      for (const kind of ["context", "missing", "exists"] as const) {
        if (!rng.chance(0.4)) continue;
        const bad = mutate(rng, diff, kind, tracked);
        if (bad === null) continue;
        const theirs = await realApply(byGit, ["--check", ...flags], encodeLossless(bad));
        if (theirs.code === 0) continue;
        const before = fingerprint(byPterm);
        const ours = await ptermApply(root.path, flags, encodeLossless(bad));
        const where = `${context(kind)}\nthe mutated diff:\n${bad}`;
        assert.equal(ours.code, 1, `pterm's exit code for a diff git refuses (${theirs.errors.join(" / ")}): ${where}`);
        assert.deepEqual(
          ours.errors,
          theirs.errors,
          `pterm's error lines differ from git's (${ours.stderr}): ${where}`,
        );
        assert.equal(fingerprint(byPterm), before, `pterm changed something while refusing: ${where}`);
        stats[kind]++;
      }
    }

    // A line the diff's hunks read changed meanwhile (a commit in both clones): --3way merges.
    const moved = shape !== "no-prefix" && rng.chance(0.5) ? lineToMove(rng, diff) : null;
    if (moved !== null) {
      for (const dir of [byGit, byPterm]) {
        await moveLine(dir, moved.path, moved.line);
        git(dir, "commit", "-qam", `meanwhile ${round}`, "--allow-empty");
      }
      const args = ["--3way", ...flags.filter((f) => f !== "--index")];
      const where = `${context("diff")}\n(git apply ${args.join(" ")}, line ${moved.line} of ${moved.path} changed)`;
      const theirs3 = await realApply(byGit, args, encodeLossless(diff));
      const ours3 = await ptermApply(root.path, args, encodeLossless(diff));
      assert.equal(
        ours3.code,
        theirs3.code,
        `--3way exit code (git: ${theirs3.stderr}, pterm: ${ours3.stderr}): ${where}`,
      );
      // pterm's own account of a refusal or a conflict follows git's lines in the envelope's stderr.
      const gitLines = ours3.stderr.replace(/\[Error\][\s\S]*$/, "");
      assert.equal(gitLines, theirs3.stderr, `--3way stderr differs: ${where}`);
      assert.equal(
        git(byPterm, "ls-files", "-s"),
        git(byGit, "ls-files", "-s"),
        `--3way index stages differ: ${where}`,
      );
      assert.equal(applied(byPterm, byGit), applied(byGit, byGit), `--3way work trees differ: ${where}`);
      for (const dir of [byGit, byPterm]) {
        git(dir, "reset", "-q", "--hard", "HEAD~1");
        git(dir, "clean", "-fdq");
      }
      stats.threeway++;
      if (theirs3.code !== 0) stats.threewayConflicts++;
    }

    // What the diff would do, as --stat and --numstat print it: git's bytes.
    if (rng.chance(0.3)) {
      for (const view of ["--stat", "--numstat"]) {
        const args = [view, ...flags.filter((f) => f !== "--index" && f !== "--cached")];
        const real = await realApply(byGit, [...args], encodeLossless(diff));
        const envelope = await exec(root.path, `git -C byPterm apply ${args.join(" ")}`, {
          stdin: encodeLossless(diff),
        });
        assert.equal(envelope.stdout, real.stdout, `git apply ${view} prints otherwise: ${context("diff")}`);
        stats.views++;
      }
    }
    const theirs = await realApply(byGit, flags, encodeLossless(diff));
    assert.equal(theirs.code, 0, `git apply itself refuses: ${theirs.errors.join(" / ")} ${context("diff")}`);
    assert.equal(git(byGit, "write-tree").trim(), expected, `git apply itself disagrees: ${context("diff")}`);
    const before = cached ? worktreeSnapshot(byPterm) : "";
    const ours = await ptermApply(root.path, flags, encodeLossless(diff));
    assert.equal(ours.code, 0, `pterm refused a diff git applies: ${ours.stderr} ${context("diff")}`);
    // Its whitespace warnings (lines added with trailing whitespace, …) are git's, byte for byte.
    assert.equal(ours.stderr, theirs.stderr, `pterm's stderr differs from git's: ${context("diff")}`);
    assert.equal(git(byPterm, "write-tree").trim(), expected, `pterm's index differs from git's: ${context("diff")}`);
    if (cached) {
      assert.equal(worktreeSnapshot(byPterm), before, `pterm's --cached changed the work tree: ${context("diff")}`);
    } else {
      assert.equal(
        git(byPterm, "diff", "--stat"),
        "",
        `pterm's work tree differs from the index it staged: ${context("diff")}`,
      );
    }

    // The same diff again, as a retry: refused or accepted as git decides, with git's lines.
    const again = await realApply(byGit, ["--check", ...flags], encodeLossless(diff));
    const ourAgain = await ptermApply(root.path, ["--check", ...flags], encodeLossless(diff));
    assert.equal(
      ourAgain.code === 0,
      again.code === 0,
      `applied twice, git says ${again.errors.join(" / ") || "ok"} but pterm ${ourAgain.stderr || "accepts"}: ${
        context("diff")
      }`,
    );
    if (again.code !== 0) {
      assert.deepEqual(
        ourAgain.errors,
        again.errors,
        `applied twice, pterm's lines differ (${ourAgain.stderr}): ${context("diff")}`,
      );
      stats.twiceRefused++;
    } else stats.twiceAccepted++;

    for (const dir of [byGit, byPterm]) {
      git(dir, "commit", "-qm", `round ${round}`, "--allow-empty");
      if (cached) {
        git(dir, "reset", "-q", "--hard");
        git(dir, "clean", "-fdq");
      }
    }
    stats.diffs++;
    if (cached) stats.cached++;
  }
  if (DIFFS >= 50) {
    for (const [what, count] of Object.entries(stats)) {
      if (!optional.has(what)) assert.ok(count > 0, `no ${what} in ${stats.diffs} rounds`);
    }
  }
  // deno-lint-ignore no-console -- what this run drew, for whoever reads the log
  console.log(`git apply spelling oracle: ${JSON.stringify(stats)}`);
});

Deno.test("a diff that turns a file into a link and copies its old text elsewhere, applied a second time: git's lines", async () => {
  await using root = await makeRoot("pterm-apply-copy-");
  const gen = `${root.path}/gen`;
  await Deno.mkdir(gen);
  git(gen, "init", "-q", "-b", "main");
  const text = Array.from({ length: 11 }, (_, i) => `line ${i}`).join("\n") + "\n";
  const bytes = (t: string) => new TextEncoder().encode(t);
  await write(gen, "docs/read me.txt", bytes(text));
  git(gen, "add", "-A");
  git(gen, "commit", "-qm", "base");
  git(root.path, "clone", "-q", "gen", "byGit");
  git(root.path, "clone", "-q", "gen", "byPterm");
  // The file becomes a link; a copy of its old text, slightly changed, goes to a new name (`git diff -C`).
  await write(gen, "src/copied.txt", bytes(text.replace("line 3\n", "line three\n")));
  await Deno.remove(`${gen}/docs/read me.txt`);
  await Deno.symlink("target.txt", `${gen}/docs/read me.txt`);
  git(gen, "add", "-A");
  const diff = encodeLossless(git(gen, "diff", "--cached", "-C", "-C"));
  assert.match(git(gen, "diff", "--cached", "-C", "-C"), /copy from docs\/read me\.txt/);
  // First: both apply it. Second: git checks the copy's source as it was before the diff (a link now: "wrong
  // type") and says nothing of the copy's target.
  assert.equal((await realApply(`${root.path}/byGit`, ["--index"], diff)).code, 0);
  assert.equal((await ptermApply(root.path, ["--index"], diff)).code, 0);
  const theirs = await realApply(`${root.path}/byGit`, ["--index"], diff);
  const ours = await ptermApply(root.path, ["--index"], diff);
  assert.equal(theirs.code, 1);
  assert.equal(ours.code, 1);
  assert.deepEqual(ours.errors, theirs.errors);
  assert.equal(theirs.errors.filter((l) => l.endsWith("docs/read me.txt: wrong type")).length, 2, theirs.stderr);
});

Deno.test("git apply --3way merges as git's ll_merge does, with Myers's diff, not a tree merge's histogram", async () => {
  await using root = await makeRoot("pterm-apply-3way-");
  const gen = `${root.path}/gen`;
  const crlf = (lines: string[]) => new TextEncoder().encode(lines.map((l) => `${l}\r\n`).join(""));
  await Deno.mkdir(gen);
  git(gen, "init", "-q", "-b", "main");
  // The case an apply oracle seed found: both sides change the first line; theirs also adds lines
  // around a line both keep. Histogram and Myers cut the conflict differently.
  await write(gen, "main.txt", crlf(["line 795 0", "café ☕ naïve", "++ counter"]));
  git(gen, "add", "-A");
  git(gen, "commit", "-qm", "base");
  git(root.path, "clone", "-q", "gen", "byGit");
  git(root.path, "clone", "-q", "gen", "byPterm");
  await write(
    gen,
    "main.txt",
    crlf(["line 36 0", "++ counter", "{", "{", "café ☕ naïve", "line 68 0", "line 566 1", "line 217 2", "++ counter"]),
  );
  git(gen, "add", "-A");
  const diff = encodeLossless(git(gen, "diff", "--cached"));
  for (const dir of [`${root.path}/byGit`, `${root.path}/byPterm`]) {
    await write(dir, "main.txt", crlf(["line 795 0 (moved)", "café ☕ naïve", "++ counter"]));
    git(dir, "commit", "-qam", "meanwhile");
  }
  const theirs = await realApply(`${root.path}/byGit`, ["--3way", "--index"], diff);
  const ours = await ptermApply(root.path, ["--3way", "--index"], diff);
  assert.equal(theirs.code, 1, theirs.stderr);
  assert.equal(ours.code, theirs.code, ours.stderr);
  assert.equal(
    await Deno.readTextFile(`${root.path}/byPterm/main.txt`),
    await Deno.readTextFile(`${root.path}/byGit/main.txt`),
  );
  assert.equal(git(`${root.path}/byPterm`, "ls-files", "-u"), git(`${root.path}/byGit`, "ls-files", "-u"));
});
