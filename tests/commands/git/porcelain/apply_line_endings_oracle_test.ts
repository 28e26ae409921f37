/**
 * pterm's `git apply` held to real `git apply` where git converts line endings: `core.autocrlf`
 * (true, input), `text=auto`, `eol=crlf`, `-text` in `.gitattributes`, over work-tree files whose
 * lines end in LF, CRLF or a mix. git patches a file in git's form (its CRLFs taken out, or kept
 * when the diff's own old lines end in CRLF) and writes the result back as a checkout would, so an
 * LF diff from `git diff` applies to a CRLF work tree. Each round builds one such repository with
 * the real git, copies it twice, edits a third copy and takes its diff — as `git diff` prints it
 * (LF), or byte for byte from the files (`git diff --no-index`, CRLF lines and all) — then applies it
 * with and without `--index` in both copies: the exit code, the `error:` lines, every work-tree
 * file's bytes, the index and what `git status` says afterwards must be the same. Then the same
 * diff once more, as a retry: refused in git's words, nothing changed; and taken back with `-R`.
 *
 * ROUNDS per run: 24 by default; PTERM_APPLY_EOL_ROUNDS overrides it. The seed is random and printed
 * on failure (PTERM_ORACLE_SEED replays one).
 */

import assert from "node:assert/strict";
import { decodeLossless, encodeLossless } from "../../../../commands/patch/text.ts";
import { exec, makeRoot } from "../../../_support/helpers.ts";
import { ENV, git, prng, randomLines, type Rng } from "../../patch/diff_generator.ts";
import { gitRaw, worktreeSnapshot } from "../oracle.ts";

const ROUNDS = Number(Deno.env.get("PTERM_APPLY_EOL_ROUNDS") ?? 24);
const SEED = Number(Deno.env.get("PTERM_ORACLE_SEED") ?? Math.floor(Math.random() * 2 ** 31));

/** How the repository converts line endings: its configuration and its `.gitattributes` (null: none). */
const SETUPS: readonly { name: string; config: readonly [string, string][]; attributes: string | null }[] = [
  { name: "core.autocrlf=true", config: [["core.autocrlf", "true"]], attributes: null },
  { name: "core.autocrlf=input", config: [["core.autocrlf", "input"]], attributes: null },
  { name: "text=auto", config: [], attributes: "* text=auto\n" },
  { name: "text=auto eol=crlf", config: [], attributes: "* text=auto eol=crlf\n" },
  { name: "*.txt eol=crlf", config: [], attributes: "*.txt eol=crlf\n" },
  { name: "core.autocrlf=true, *.md -text", config: [["core.autocrlf", "true"]], attributes: "*.md -text\n" },
  { name: "core.eol=crlf, text", config: [["core.eol", "crlf"]], attributes: "* text\n" },
  { name: "no conversion", config: [], attributes: null },
];

type Line = { text: string; eol: "\n" | "\r\n" | "" };

function linesOf(rng: Rng, count: number, style: "lf" | "crlf" | "mixed"): Line[] {
  return randomLines(rng, count).map((text) => ({
    text,
    eol: style === "lf" ? "\n" : style === "crlf" ? "\r\n" : rng.chance(0.5) ? "\r\n" : "\n",
  }));
}

function bytesOf(lines: readonly Line[]): Uint8Array {
  return encodeLossless(lines.map((l) => l.text + l.eol).join(""));
}

function parse(bytes: Uint8Array): Line[] {
  return decodeLossless(bytes).split(/(?<=\n)/).filter((l) => l !== "").map((l) =>
    l.endsWith("\r\n")
      ? { text: l.slice(0, -2), eol: "\r\n" as const }
      : l.endsWith("\n")
      ? { text: l.slice(0, -1), eol: "\n" as const }
      : { text: l, eol: "" as const }
  );
}

/** A person's edit: lines replaced, inserted (in the file's own ending, or now and then the other), removed. */
function edit(rng: Rng, bytes: Uint8Array): Uint8Array {
  const lines = parse(bytes);
  const usual = lines.some((l) => l.eol === "\r\n") ? "\r\n" : "\n";
  const ending = (): Line["eol"] => rng.chance(0.85) ? usual : usual === "\n" ? "\r\n" : "\n";
  for (let e = 1 + rng.int(3); e > 0; e--) {
    const at = rng.int(lines.length + 1);
    const op = rng.int(3);
    if (op === 0) lines.splice(at, 0, ...randomLines(rng, 1 + rng.int(2)).map((text) => ({ text, eol: ending() })));
    else if (op === 1 && lines.length > 2) lines.splice(at, 1);
    else if (at < lines.length) lines[at] = { text: `${lines[at].text} (edited)`, eol: lines[at].eol };
  }
  if (lines.length > 0 && lines[lines.length - 1].eol === "") lines[lines.length - 1].eol = usual;
  return bytesOf(lines);
}

/**
 * The index's entries and the untracked files. How the work tree differs from the index by content
 * follows from these and the work trees' bytes; `git diff` itself is not compared between the
 * two: what it reads depends on its stat cache, and git's own cache is racy (see notTheirBlob).
 */
function gitView(dir: string): string {
  return git(dir, "ls-files", "-s") + git(dir, "ls-files", "--others", "--exclude-standard");
}

/**
 * pterm leaves no state a person's git misreads: `git diff` in pterm's copy names exactly the files
 * whose content in git's form is not their index blob (no entry claims, by its stat data, a content
 * it does not have).
 */
function assertGitReadsTrue(dir: string, message: string): void {
  const listed = git(dir, "diff", "--name-only").split("\n").filter(Boolean);
  assert.deepEqual(listed, [...notTheirBlob(dir)].sort(), message);
}

/** Real git apply's exit code, `error:` lines and whole stderr for a diff sent on stdin. */
async function realApply(
  dir: string,
  args: string[],
  diff: Uint8Array,
): Promise<{ code: number; errors: string[]; stderr: string }> {
  const out = await gitRaw(dir, ["apply", ...args], diff);
  return { code: out.code, errors: out.stderr.split("\n").filter((l) => l.startsWith("error: ")), stderr: out.stderr };
}

async function ptermApply(
  root: string,
  repo: string,
  args: string[],
  diff: Uint8Array,
): Promise<{ code: number; errors: string[]; stderr: string }> {
  const envelope = await exec(root, `git -C ${repo} apply ${args.join(" ")}`, { stdin: diff });
  const errors = envelope.stderr.split("\n").filter((l) => l.startsWith("error: "));
  return { code: envelope.exit_code ?? -1, errors, stderr: envelope.stderr };
}

/** The diff of the files as bytes (`git diff --no-index` of the two work trees): CRLF lines stay CRLF. */
function rawDiff(parent: string, from: string, to: string): Uint8Array {
  const out = new Deno.Command("git", {
    args: ["diff", "--no-index", "--no-renames", "--src-prefix=a/", "--dst-prefix=b/", from, to],
    cwd: parent,
    env: ENV,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).outputSync();
  if (out.code > 1) throw new Error(new TextDecoder().decode(out.stderr));
  // The two folders' names leave the paths: `a/<from>/x` and `b/<to>/x` become `a/x` and `b/x`.
  const text = decodeLossless(out.stdout).split(/(?<=\n)/).map((line) =>
    /^(diff --git |--- |\+\+\+ )/.test(line) ? line.replaceAll(`a/${from}/`, "a/").replaceAll(`b/${to}/`, "b/") : line
  ).join("");
  return encodeLossless(text);
}

/**
 * The tracked files whose content in git's form is not their index blob, as git's own content check
 * says (read in a copy, where no entry's stat data matches its file, so git reads every one).
 * git apply --index stages its result as it made it, so a line it added with CRLF under eol=crlf
 * leaves such a file; whether git's next apply --index trusts its stat data ("patch failed") or reads
 * it ("does not match index") depends on whether a racy read or write of git's caught it in the
 * same clock tick as the file. pterm always reads it.
 */
function notTheirBlob(dir: string): Set<string> {
  const copied = Deno.makeTempDirSync({ prefix: "pterm-eol-content-" });
  try {
    copy(`${dir}/.`, copied);
    return new Set(git(copied, "diff", "--name-only").split("\n").filter(Boolean));
  } finally {
    Deno.removeSync(copied, { recursive: true });
  }
}

/** The `error:` lines, a file of `unlike` said to fail either way (see notTheirBlob). */
function outcomes(errors: readonly string[], unlike: ReadonlySet<string>): string[] {
  return errors.map((line) => {
    const named = /^error: (?:patch failed: (.+):\d+|(.+): (?:patch does not apply|does not match index))$/.exec(line);
    const path = named?.[1] ?? named?.[2];
    return path !== undefined && unlike.has(path) ? `error: ${path}: does not apply, or does not match index` : line;
  }).filter((line, i, all) => i === 0 || line !== all[i - 1]);
}

/**
 * Moves both repositories past git's racy window: their index files' modification time becomes a
 * moment after every file's. git trusts an entry's stat data only when the file is older than the
 * index; a file written in the same clock tick as the index (git apply --index is quick) is read
 * again instead, and where the file in git's form differs from the blob git apply staged (a line it
 * added with CRLF under eol=crlf) the answer to the next call depends on that tick. A moment later,
 * as a retry comes, both trust the stat data.
 */
async function pastRacyWindow(...repos: string[]): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 20));
  const now = new Date();
  for (const repo of repos) Deno.utimeSync(`${repo}/.git/index`, now, now);
}

function copy(from: string, to: string): void {
  const out = new Deno.Command("cp", { args: ["-a", from, to] }).outputSync();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
}

Deno.test(`git apply under line-ending conversion: ${ROUNDS} rounds as real git apply (seed ${SEED})`, async () => {
  await using root = await makeRoot("pterm-apply-eol-");
  const rng = prng(SEED);
  const stats = { applied: 0, refused: 0, retried: 0, undone: 0, crlfDiffs: 0, crlfFiles: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    const setup = rng.pick(SETUPS);
    const base = `${root.path}/base${round}`;
    await Deno.mkdir(base);
    git(base, "init", "-q", "-b", "main");
    for (const [key, value] of setup.config) git(base, "config", key, value);
    if (setup.attributes !== null) await Deno.writeTextFile(`${base}/.gitattributes`, setup.attributes);
    const names = ["a.txt", "b.txt", "notes.md", "src/c.txt"];
    await Deno.mkdir(`${base}/src`);
    for (const name of names) {
      const style = rng.pick(["lf", "crlf", "crlf", "mixed"] as const);
      if (style !== "lf") stats.crlfFiles++;
      await Deno.writeFile(`${base}/${name}`, bytesOf(linesOf(rng, 4 + rng.int(10), style)));
    }
    git(base, "add", "-A");
    git(base, "commit", "-qm", "base");
    // Now and then the files as a checkout writes them, not as they were written before the commit.
    if (rng.chance(0.5)) {
      for (const name of names) await Deno.remove(`${base}/${name}`);
      git(base, "checkout", "--", ".");
    }

    const edited = `edited${round}`;
    copy(base, `${root.path}/${edited}`);
    const touched = names.filter(() => rng.chance(0.5));
    if (touched.length === 0) touched.push(rng.pick(names));
    for (const name of touched) {
      const path = `${root.path}/${edited}/${name}`;
      await Deno.writeFile(path, edit(rng, await Deno.readFile(path)));
    }
    const crlfDiff = rng.chance(0.4);
    let diff: Uint8Array;
    if (crlfDiff) {
      const before = `before${round}`;
      copy(base, `${root.path}/${before}`);
      await Deno.remove(`${root.path}/${before}/.git`, { recursive: true });
      await Deno.remove(`${root.path}/${edited}/.git`, { recursive: true });
      diff = rawDiff(root.path, before, edited);
      stats.crlfDiffs++;
    } else {
      diff = encodeLossless(git(`${root.path}/${edited}`, "diff"));
    }
    if (diff.length === 0) continue;

    for (const flags of [[], ["--index"]]) {
      const byGit = `${root.path}/git${round}${flags.join("")}`;
      const byPterm = `ptm${round}${flags.join("")}`;
      copy(base, byGit);
      copy(base, `${root.path}/${byPterm}`);
      // The copies' files have new stat data: both indexes are refreshed, as a person's `git status` would.
      git(byGit, "update-index", "-q", "--refresh");
      git(`${root.path}/${byPterm}`, "update-index", "-q", "--refresh");
      const where = (what: string) =>
        `${what}: seed ${SEED}, round ${round} (PTERM_ORACLE_SEED=${SEED} replays it), ${setup.name}, git apply ${
          flags.join(" ")
        }, ${crlfDiff ? "a diff of the files' bytes" : "git diff's diff"}:\n${JSON.stringify(decodeLossless(diff))}`;
      /** Both apply the diff with `args`; everything git says and leaves, pterm says and leaves. */
      const both = async (args: string[], what: string) => {
        const theirs = await realApply(byGit, args, diff);
        const ours = await ptermApply(root.path, byPterm, args, diff);
        const label = (part: string) => where(`${part} ${what} (git said ${theirs.stderr}, pterm ${ours.stderr})`);
        assert.equal(ours.code, theirs.code, label("exit code of"));
        const unlike = args.includes("--index") ? notTheirBlob(byGit) : new Set<string>();
        assert.deepEqual(outcomes(ours.errors, unlike), outcomes(theirs.errors, unlike), label("error lines of"));
        // Whitespace warnings included (a CR is trailing whitespace unless the diff's old lines end in CRLF).
        if (unlike.size === 0) {
          assert.equal(ours.stderr.replace(/\[Error\][\s\S]*$/, ""), theirs.stderr, label("stderr of"));
        }
        assert.equal(worktreeSnapshot(`${root.path}/${byPterm}`), worktreeSnapshot(byGit), label("work tree after"));
        assert.equal(gitView(`${root.path}/${byPterm}`), gitView(byGit), label("index after"));
        assertGitReadsTrue(`${root.path}/${byPterm}`, label("what git diff reads in pterm's copy after"));
        return theirs.code;
      };
      const code = await both(flags, "the apply");
      if (code === 0) stats.applied++;
      else stats.refused++;

      // The same diff once more: what a retry does (a moment later, as a person or an agent retries).
      await pastRacyWindow(byGit, `${root.path}/${byPterm}`);
      await both(flags, "the retry");
      stats.retried++;

      // Undone with -R, as a person takes a change back.
      if (code !== 0) continue;
      await pastRacyWindow(byGit, `${root.path}/${byPterm}`);
      await both(["-R", ...flags], "-R");
      stats.undone++;
    }
  }
  assert.ok(stats.applied > 0, `nothing applied in ${ROUNDS} rounds: ${JSON.stringify(stats)}`);
  // deno-lint-ignore no-console -- what this run drew, for whoever reads the log
  console.log(`git apply under line-ending conversion: ${JSON.stringify(stats)}`);
});
