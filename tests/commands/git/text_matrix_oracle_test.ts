/**
 * Every query spelling pterm's git accepts prints what real git prints, byte for byte (colour off,
 * no pager), with git's exit code: status, log with its format, date and graph flags, show, branch,
 * tag, stash list/show, blame, the diff family, shortlog, describe, reflog, ls-files, grep and
 * rev-parse, each run on several repository shapes built by the real git — merges (a clean one and
 * one whose resolution differs from both parents), an octopus, annotated and lightweight tags,
 * stashes, upstreams ahead/behind/diverged/gone, a staged rename, a conflicted merge in progress, and
 * non-ASCII names with and without core.quotePath. The same line runs in pterm (in process) and in
 * git (`git -C <shape> …`).
 *
 * The flags each covered subcommand declares (commands/git/sub/*.ts) must each appear in some
 * spelling here, or be named in NOT_QUERIES with why, so a flag added later is covered or fails here.
 * A text that still differs is named in STILL_DIFFERS with why (also stated in docs/commands/git.md);
 * an entry that no longer differs fails too, so the list stays true.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { exec, makeRoot } from "../../_support/helpers.ts";
import { gitRaw } from "./oracle.ts";
import { Shaper } from "./history/history_repos.ts";
import { tokenize } from "../../../core/grammar.ts";
import type { FlagSpec } from "../../../core/declaration.ts";
import { statusFlags } from "../../../commands/git/sub/status.ts";
import { logFlags } from "../../../commands/git/sub/log.ts";
import { showFlags } from "../../../commands/git/sub/show.ts";
import { branchFlags } from "../../../commands/git/sub/branch.ts";
import { tagFlags } from "../../../commands/git/sub/tag.ts";
import { stashShowFlags } from "../../../commands/git/sub/stash.ts";
import { blameFlags } from "../../../commands/git/sub/blame.ts";
import { diffFlags } from "../../../commands/git/sub/diff.ts";
import { shortlogFlags } from "../../../commands/git/sub/shortlog.ts";
import { describeFlags } from "../../../commands/git/sub/describe.ts";
import { reflogFlags } from "../../../commands/git/sub/reflog.ts";
import { lsFilesFlags } from "../../../commands/git/sub/ls_files.ts";
import { grepFlags } from "../../../commands/git/sub/grep.ts";
import { revParseFlags } from "../../../commands/git/sub/rev_parse.ts";

type ShapeName = "history" | "upstream" | "conflict" | "names" | "names-raw";
const SHAPES: readonly ShapeName[] = ["history", "upstream", "conflict", "names", "names-raw"];

/** Every shape has these: main with tags v0.1 (lightweight) and v1.0 (annotated), a branch `side`, b.txt never touched after. */
async function base(s: Shaper): Promise<void> {
  await s.git("init", "-q", "-b", "main");
  await s.commit("a.txt", "one\ntwo\nthree\n", "First commit", "-m", "With a body line.\n\nAnd a second paragraph.");
  await s.git("tag", "v0.1");
  await s.commit("b.txt", "bee\nbuzz\n", "Add b", "--author", "Other Person <other@example.com>");
  s.tick();
  await s.git("tag", "-a", "-m", "Release 1.0\n\nThe first release.", "v1.0");
  await s.commit("a.txt", "one\ntwo\nthree\nfour\n", "Grow a");
  await s.git("branch", "side");
}

async function buildHistory(root: string): Promise<void> {
  const s = new Shaper(join(root, "history"));
  await Deno.mkdir(s.dir);
  await base(s);
  await s.git("switch", "-q", "side");
  await s.commit("s.txt", "side\n", "Side work", "--author", "\u00c1nna \u00dcmlaut <anna@example.com>");
  await s.commit("a.txt", "zero\none\ntwo\nthree\nfour\n", "Side grows a at the top");
  await s.git("switch", "-q", "main");
  await s.commit("c.txt", "sea\nshore\n", "Add c");
  await s.merge("side", "-m", "Merge branch 'side'");
  await s.git("tag", "clean-merge");
  // A merge whose resolution is neither side's: git show prints it as a combined diff.
  await s.git("switch", "-q", "-c", "left", "main");
  await s.commit("c.txt", "sea\nshore\nleft\n", "Left edits c");
  await s.git("switch", "-q", "-c", "right", "main");
  await s.commit("c.txt", "sea\nshore\nright\n", "Right edits c");
  await s.git("switch", "-q", "main");
  await s.merge("left", "-m", "Take left");
  await s.git("merge", "-q", "--no-ff", "right", "-m", "Resolve by hand").catch(() => {});
  await Deno.writeTextFile(join(s.dir, "c.txt"), "sea\nshore\nboth, by hand\n");
  await s.git("add", "c.txt");
  s.tick();
  await s.git("commit", "-q", "--no-edit");
  await s.git("tag", "evil-merge");
  // An octopus.
  for (const name of ["x", "y", "z"]) {
    await s.git("switch", "-q", "-c", name, "main");
    await s.commit(`${name}.txt`, `${name}\n`, `Work on ${name}`);
  }
  await s.git("switch", "-q", "main");
  await s.merge("x", "y", "z", "-m", "Octopus of x, y and z");
  // A rename, committed.
  await s.git("mv", "s.txt", "moved.txt");
  await s.commit("moved.txt", "side\n", "Move s.txt");
  // Two stashes; then staged, unstaged and untracked changes, and a staged rename.
  await Deno.writeTextFile(join(s.dir, "a.txt"), "stashed\n");
  s.tick();
  await s.git("stash", "push", "-q");
  await Deno.writeTextFile(join(s.dir, "c.txt"), "stashed too\n");
  s.tick();
  await s.git("stash", "push", "-q", "-m", "a named stash");
  await s.git("mv", "x.txt", "ex.txt");
  await Deno.writeTextFile(join(s.dir, "y.txt"), "y\nstaged\n");
  await s.git("add", "y.txt");
  await Deno.writeTextFile(join(s.dir, "z.txt"), "z\nunstaged\n");
  await Deno.writeTextFile(join(s.dir, "a.txt"), "one\ntwo words here\nthree\nfour\n");
  await Deno.remove(join(s.dir, "c.txt"));
  await Deno.writeTextFile(join(s.dir, "new.txt"), "untracked\n");
  await Deno.mkdir(join(s.dir, "newdir"));
  await Deno.writeTextFile(join(s.dir, "newdir", "inner.txt"), "untracked inside\n");
  await Deno.writeTextFile(join(s.dir, ".gitignore"), "*.log\n");
  await Deno.writeTextFile(join(s.dir, "debug.log"), "ignored\n");
}

async function buildUpstream(root: string): Promise<void> {
  const seed = new Shaper(join(root, "seed"));
  await Deno.mkdir(seed.dir);
  await base(seed);
  for (const b of ["behind", "sync", "doomed", "diverged"]) await seed.git("branch", b);
  await seed.git("clone", "-q", "--bare", seed.dir, join(root, "origin.git"));
  const s = new Shaper(join(root, "upstream"));
  await seed.git("clone", "-q", join(root, "origin.git"), s.dir);
  for (const b of ["behind", "sync", "doomed", "diverged"]) await s.git("branch", "-q", "--track", b, `origin/${b}`);
  s.tick(7200);
  await s.commit("u.txt", "ahead\n", "Ahead of origin");
  await s.git("branch", "-f", "behind", "HEAD~2");
  await s.git("switch", "-q", "diverged");
  await s.git("reset", "-q", "--hard", "HEAD~1");
  await s.commit("d.txt", "mine\n", "Diverging work");
  await s.git("switch", "-q", "main");
  await s.git("--git-dir", join(root, "origin.git"), "branch", "-D", "doomed");
  await s.git("fetch", "-q", "--prune");
  await s.git("branch", "-q", "--track", "local-follower", "main");
  await s.git("branch", "a-rather-long-branch-name", "HEAD~1");
  await s.git("tag", "light-on-head");
  await Deno.writeTextFile(join(s.dir, "a.txt"), "one\nchanged\nthree\nfour\n");
  await s.git("add", "a.txt");
  await s.git("mv", "u.txt", "you.txt");
  await Deno.writeTextFile(join(s.dir, "a.txt"), "one\nchanged again\nthree\nfour\n");
}

async function buildConflict(root: string): Promise<void> {
  const s = new Shaper(join(root, "conflict"));
  await Deno.mkdir(s.dir);
  await base(s);
  await s.commit("gone.txt", "keep me\n", "Add gone");
  await s.git("switch", "-q", "side");
  await s.commit("a.txt", "one\nTWO from side\nthree\nfour\n", "Side changes a");
  await s.commit("both.txt", "side's version\n", "Side adds both");
  await s.commit("ok.txt", "merges cleanly\n", "Side adds ok");
  await s.git("switch", "-q", "main");
  await s.commit("a.txt", "one\ntwo from main\nthree\nfour\n", "Main changes a");
  await s.commit("both.txt", "main's version\n", "Main adds both");
  await s.git("rm", "-q", "gone.txt");
  await s.commit("a.txt", "one\ntwo from main\nthree\nfour\nfive\n", "Main removes gone, grows a");
  await s.git("merge", "side").catch(() => {});
  await Deno.writeTextFile(join(s.dir, "loose.txt"), "untracked\n");
}

/** Non-ASCII names, spaces and a quote; `names-raw` is the same with core.quotePath=false. */
async function buildNames(root: string, name: "names" | "names-raw"): Promise<void> {
  const s = new Shaper(join(root, name));
  await Deno.mkdir(s.dir);
  await base(s);
  await Deno.mkdir(join(s.dir, "d\u00efr"));
  await s.commit("caf\u00e9.txt", "coffee\n", "Add caf\u00e9");
  await s.commit("d\u00efr/\u65e5\u672c.md", "nihon\n", "Add a Japanese name");
  await s.commit("with space.txt", "spaced\n", "Add a spaced name");
  await s.commit('quo"te.txt', "quoted\n", "Add a quoted name");
  await s.git("mv", "caf\u00e9.txt", "th\u00e9.txt");
  await s.commit("th\u00e9.txt", "coffee\ntea\n", "Rename caf\u00e9 to th\u00e9");
  await Deno.writeTextFile(join(s.dir, "d\u00efr/\u65e5\u672c.md"), "nihon\ngo\n");
  await Deno.writeTextFile(join(s.dir, "\u00fcber.txt"), "untracked\n");
  await s.git("mv", "with space.txt", "na\u00efve space.txt");
  if (name === "names-raw") await s.git("config", "core.quotePath", "false");
}

/**
 * Lines of the names shapes, with and without core.quotePath: several names at once (a diffstat
 * whose columns count a wide character as two, a rename in both forms git names it), and the
 * plumbing that prints names.
 */
const NAMES_EITHER_WAY: readonly string[] = [
  "diff --stat HEAD~4",
  "diff --numstat HEAD~4",
  "diff --name-status HEAD~4",
  "diff HEAD~4",
  "diff --stat HEAD~4 -- d\u00efr",
  "ls-tree -r HEAD",
  "ls-tree -r --name-only HEAD",
  "diff-tree -r --name-status HEAD~2 HEAD",
  "cat-file -p HEAD:d\u00efr",
  "ls-files -s",
];

/** Lines run on every shape (`git -C <shape>` prefixed). */
const EVERY_SHAPE: readonly string[] = [
  // status
  "status",
  "status -s",
  "status --short",
  "status --porcelain",
  "status -s -b",
  "status -sb",
  "status --porcelain -b",
  "status --short --branch",
  "status -uno",
  "status -uall",
  "status -s -uall",
  "status --untracked-files=no -s",
  "status -s -- a.txt",
  // log
  "log",
  "log -3",
  "log -n 2",
  "log --max-count=2",
  "log --oneline",
  "log --oneline --all",
  "log --oneline --decorate",
  "log --oneline --decorate --all",
  "log --abbrev-commit -2",
  "log --pretty=oneline",
  "log --pretty=short -2",
  "log --pretty=medium -2",
  "log --pretty=full -2",
  "log --pretty=fuller -2",
  "log --format=fuller -1",
  "log '--format=%h %an %s'",
  "log '--pretty=format:%H%n%ae%n%B'",
  "log '--format=%h%d %s' --all",
  "log --graph",
  "log --graph --oneline",
  "log --graph --oneline --all",
  "log --graph --oneline --decorate --all",
  "log --graph --stat -3",
  "log --stat",
  "log --stat -2",
  "log --name-status",
  "log --name-only --oneline",
  "log -p",
  "log -p -2 --histogram",
  "log -p -1 --minimal",
  "log -p -1 --diff-algorithm=patience",
  "log --date=iso -2",
  "log --date=iso-strict -2",
  "log --date=short --oneline --format=%ad",
  "log --date=rfc -1",
  "log --date=raw -1",
  "log --date=unix -1",
  "log --date=local -1",
  "log --date=default -1",
  "log --date=format:%Y/%m/%d -1",
  "log --author=Other --oneline",
  "log --grep=Add --oneline",
  "log --grep=add -i --oneline",
  "log -S two --oneline",
  "log -G four --oneline",
  "log -S o+ --pickaxe-regex --oneline",
  "log --since=2023-11-14 --oneline",
  "log --until=2023-11-15 --oneline",
  "log --after=2023-11-14 --before=2030-01-01 --oneline",
  "log --oneline -- a.txt",
  "log --oneline HEAD~2..HEAD",
  "log --oneline v1.0..",
  "log --oneline side...main",
  "log --oneline --all -- b.txt",
  // show
  "show",
  "show --stat",
  "show --name-only",
  "show --name-status",
  "show -s",
  "show --no-patch",
  "show --oneline -s",
  "show '--format=%H %P' -s",
  "show --pretty=fuller -s",
  "show --abbrev-commit -s",
  "show --decorate -s",
  "show --date=iso -s",
  "show HEAD~1",
  "show v1.0",
  "show v1.0 -s",
  "show v0.1 --stat",
  "show HEAD:a.txt",
  "show v1.0:b.txt",
  "show HEAD~1 --histogram",
  "show HEAD~1 --minimal",
  "show HEAD~1 --diff-algorithm=patience",
  "show HEAD -M50 --stat",
  "show HEAD --no-renames --stat",
  // branch
  "branch",
  "branch -v",
  "branch -vv",
  "branch -a",
  "branch -a -v",
  "branch -r",
  "branch -r -v",
  "branch --remotes",
  "branch --list",
  "branch -l",
  "branch --list 's*'",
  "branch --show-current",
  "branch '--format=%(refname:short) %(objectname:short) %(upstream:short)'",
  // tag
  "tag",
  "tag -l",
  "tag --list",
  "tag -l 'v*'",
  "tag -n",
  "tag -n3",
  "tag -n1 -l 'v*'",
  // stash
  "stash list",
  // blame
  "blame b.txt",
  "blame -- b.txt",
  "blame --porcelain b.txt",
  "blame -p b.txt",
  "blame --line-porcelain b.txt",
  "blame -L 2,2 b.txt",
  "blame -L 1,+1 b.txt",
  "blame -l b.txt",
  "blame -s b.txt",
  "blame -e b.txt",
  "blame HEAD -- b.txt",
  "blame v1.0 b.txt",
  // diff
  "diff",
  "diff -p",
  "diff --patch",
  "diff --cached",
  "diff --staged",
  "diff --stat",
  "diff --numstat",
  "diff --shortstat",
  "diff --name-only",
  "diff --name-status",
  "diff --cached --stat",
  "diff --cached --name-status",
  "diff --cached --numstat",
  "diff --word-diff",
  "diff --cached --word-diff",
  "diff HEAD",
  "diff HEAD --stat",
  "diff HEAD --name-status",
  "diff HEAD~1",
  "diff HEAD~2 HEAD",
  "diff HEAD~2 HEAD --stat",
  "diff HEAD~2..HEAD --name-only",
  "diff v0.1...HEAD --stat",
  "diff v0.1 v1.0",
  "diff -U1 HEAD~1",
  "diff --unified=0 HEAD~1",
  "diff --histogram HEAD~1",
  "diff --minimal HEAD~1",
  "diff --diff-algorithm=patience HEAD~1",
  "diff -- a.txt",
  "diff HEAD -- b.txt",
  "diff --cc",
  "diff -c",
  "diff --cached -M50 --stat",
  "diff --cached --no-renames --name-status",
  // shortlog (git reads stdin without a revision; HEAD is spelled out, as a person at a terminal gets)
  "shortlog HEAD",
  "shortlog -s HEAD",
  "shortlog -n HEAD",
  "shortlog -sn HEAD",
  "shortlog -e -s HEAD",
  "shortlog -sne --all",
  "shortlog -s --no-merges HEAD",
  "shortlog -s HEAD -- a.txt",
  // describe
  "describe",
  "describe --tags",
  "describe --always",
  "describe --tags --long",
  "describe --abbrev=4",
  "describe --dirty",
  "describe HEAD~1",
  // reflog
  "reflog",
  "reflog -n 3",
  "reflog -2",
  "reflog --max-count=1",
  "reflog show main",
  // ls-files
  "ls-files",
  "ls-files -c",
  "ls-files -s",
  "ls-files --stage",
  "ls-files -u",
  "ls-files --unmerged",
  "ls-files -o",
  "ls-files --others --exclude-standard",
  "ls-files -m",
  "ls-files -d",
  "ls-files -- a.txt",
  // grep
  "grep two",
  "grep -n two",
  "grep -i TWO",
  "grep -w one",
  "grep -c e",
  "grep -l e",
  "grep --name-only e",
  "grep -v e",
  "grep -E 'o+n'",
  "grep -F o.",
  "grep -e two -e bee",
  "grep --cached two",
  "grep --untracked untracked",
  "grep two -- a.txt",
  "grep --no-color two",
  "grep -h -n two",
  "grep -H two",
  "grep -h -c e",
  "grep nothing-matches-this",
  // rev-parse
  "rev-parse HEAD",
  "rev-parse --short HEAD",
  "rev-parse --abbrev-ref HEAD",
  "rev-parse HEAD~2",
  "rev-parse --verify HEAD",
  "rev-parse --verify -q nowhere",
  "rev-parse v1.0",
  "rev-parse v1.0^{}",
  "rev-parse --short v1.0^{commit}",
  "rev-parse --show-toplevel",
  "rev-parse --git-dir",
  "rev-parse --is-inside-work-tree",
  "rev-parse HEAD:a.txt",
];

/** Lines run only on the shapes that have what they name. */
const SOME_SHAPES: Readonly<Record<ShapeName, readonly string[]>> = {
  history: [
    "show clean-merge",
    "show evil-merge",
    "show evil-merge --stat",
    "show evil-merge -s",
    "show evil-merge --name-status",
    "show evil-merge --name-only",
    "show --oneline evil-merge",
    "show clean-merge --name-status",
    "show HEAD~1 --name-only",
    "show HEAD~1 --stat",
    "log --oneline --graph HEAD~1",
    "log -p -1 HEAD~1",
    "log --oneline --no-walk evil-merge",
    "log --stat -1 evil-merge",
    "log -L 1,3:a.txt",
    "log -L 2,+2:a.txt --oneline",
    "stash show",
    "stash show -p",
    "stash show --stat stash@{1}",
    "stash show --name-only",
    "stash show --name-status 1",
    "stash show -u -p",
    "blame moved.txt",
    "blame -s c.txt",
    "rev-parse HEAD^2",
    "rev-parse evil-merge^@",
    "describe --tags clean-merge~1",
    "diff clean-merge evil-merge",
    "diff HEAD~1 HEAD --stat -- moved.txt",
  ],
  upstream: [
    "rev-parse --abbrev-ref @{u}",
    "rev-parse --abbrev-ref main@{upstream}",
    "log --oneline @{u}..",
    "log --oneline --decorate -3 --all",
    "branch -a -vv",
    "branch -vv --list 'd*'",
    "branch '--format=%(refname:short)|%(upstream:track)|%(upstream:trackshort)|%(HEAD)'",
  ],
  conflict: [
    "diff --cached",
    "diff --cached --stat",
    "diff HEAD --stat",
    "diff -- a.txt",
    "diff --stat -- a.txt",
    "ls-files -u -- a.txt",
    "status -- both.txt",
  ],
  names: [
    "blame th\u00e9.txt",
    "log --oneline --follow -- th\u00e9.txt",
    "show HEAD:th\u00e9.txt",
    "grep -l ''",
    ...NAMES_EITHER_WAY,
  ],
  "names-raw": [
    "blame th\u00e9.txt",
    "grep -l ''",
    "blame --porcelain th\u00e9.txt",
    "blame --porcelain -L 1,1 -- d\u00efr/\u65e5\u672c.md",
    ...NAMES_EITHER_WAY,
  ],
};

/**
 * Texts that still differ from git's, each with why; stated as well in docs/commands/git.md's
 * "texts that still differ". Keys are `<shape>: <line>`; `*: <line>` is every shape.
 */
const STILL_DIFFERS: Readonly<Record<string, string>> = {
  "*: rev-parse --show-toplevel": "pterm prints the repository's folder relative to the workspace root (`history`), " +
    "never a path of the host (`/tmp/…/history`): every path pterm shows is the workspace's",
  "*: rev-parse --git-dir": "pterm prints the git directory relative to the workspace root (`history/.git`), where " +
    "git prints it relative to the folder it runs in (`.git`): pterm runs in the workspace root",
  "history: ls-files -o": "pterm never walks what .gitignore leaves out (build output, dependencies), so --others " +
    "lists no ignored file, as with --exclude-standard; git lists them without it. Said on stderr",
};

/**
 * Spellings git takes that pterm refuses by name (an InvalidArgs or UnsupportedFormat error whose
 * message says what to run instead), each with why; stated as well in docs/commands/git.md. They
 * run on every shape, and must still be refused: one pterm answers is compared with git instead.
 */
const REFUSED: Readonly<Record<string, string>> = {
  "log -p -1 --diff-algorithm=patience": "pterm has no patience diff (git's xpatience.c is not carried); it has " +
    "Myers, minimal and histogram",
  "show HEAD~1 --diff-algorithm=patience": "no patience diff",
  "diff --diff-algorithm=patience HEAD~1": "no patience diff",
  "log --date=local -1": "dates in the machine's time zone: pterm prints each date in its own zone (iso, rfc, …)",
  "log --date=format:%Y/%m/%d -1": "strftime formats are not carried; pterm has git's named date modes",
  "grep -e two -e bee": "several patterns in one search are not combined: one -e (or a regular expression with |, -E)",
  "log --oneline --no-walk evil-merge": "pterm's log has no --no-walk: `git show -s --oneline <rev>` shows one commit",
  "log --oneline --follow -- th\u00e9.txt": "pterm's log does not follow a file across renames; " +
    "`git log -- <old path>` lists its history before the move",
  "rev-parse evil-merge^@": "the ^@, ^! and ^- parent shorthands are not carried: `git rev-parse <rev>^1 <rev>^2`",
};

/** Declared flags no query spelling above uses, each with why (they change state, or choose a repository). */
const NOT_QUERIES: Readonly<Record<string, string>> = {
  "*:repo": "chooses the repository: every line here runs with `git -C <shape>`, which pterm rewrites to --repo",
  "log:ref":
    "pterm's own spelling of the revision to list from (git has no --ref), which the lines here give as git does",
  "*:path": "pterm's own spelling of the paths after `--`, which the lines here use",
  "*:quote-path": "pterm's own spelling of git's `-c core.quotePath=…`, which the settings test below gives as git " +
    "does (the names-raw shape sets it in the repository's config)",
  "branch:delete": "changes state (its text is the branch test's)",
  "branch:force-delete": "changes state",
  "branch:move": "changes state",
  "branch:force-move": "changes state",
  "branch:force": "changes state",
  "branch:track": "changes state",
  "branch:no-track": "changes state",
  "branch:set-upstream-to": "changes state",
  "branch:unset-upstream": "changes state",
  "tag:message": "changes state (makes an annotated tag)",
  "tag:annotate": "changes state",
  "tag:delete": "changes state",
  "tag:force": "changes state",
  "tag:author": "changes state",
};

/** The subcommands whose query flags this test covers, with their declared flags. */
const DECLARED: ReadonlyArray<readonly [string, readonly FlagSpec[]]> = [
  ["status", statusFlags],
  ["log", logFlags],
  ["show", showFlags],
  ["branch", branchFlags],
  ["tag", tagFlags],
  ["stash show", stashShowFlags],
  ["blame", blameFlags],
  ["diff", diffFlags],
  ["shortlog", shortlogFlags],
  ["describe", describeFlags],
  ["reflog", reflogFlags],
  ["ls-files", lsFilesFlags],
  ["grep", grepFlags],
  ["rev-parse", revParseFlags],
];

function allLines(): string[] {
  return [...EVERY_SHAPE, ...SHAPES.flatMap((shape) => SOME_SHAPES[shape])];
}

/** Does some line of `sub` spell `flag` (long name, alias, or short letter alone or in a cluster)? */
function spelled(sub: string, flag: FlagSpec, lines: readonly string[]): boolean {
  const longs = [flag.name, ...(flag.aliases ?? [])].map((n) => `--${n}`);
  return lines.some((line) => {
    if (!line.startsWith(`${sub} `)) return false;
    const words = tokenize(line).slice(sub.split(" ").length);
    return words.some((w) =>
      longs.some((l) => w === l || w.startsWith(`${l}=`)) ||
      (flag.short !== undefined && /^-[a-zA-Z]/.test(w) && !w.startsWith("--") &&
        (w.slice(1).split("").includes(flag.short) && /^-[a-zA-Z]+$/.test(w) ||
          w.startsWith(`-${flag.short}`)))
    );
  });
}

Deno.test("every declared query flag of the covered subcommands is spelled by some line of the text matrix", () => {
  const lines = allLines();
  const missing: string[] = [];
  for (const [sub, flags] of DECLARED) {
    for (const flag of flags) {
      if (NOT_QUERIES[`*:${flag.name}`] || NOT_QUERIES[`${sub}:${flag.name}`]) continue;
      if (!spelled(sub, flag, lines)) missing.push(`${sub} --${flag.name}`);
    }
  }
  assert.deepEqual(missing, [], "declared flags no line of the matrix spells (add a line, or say in NOT_QUERIES why)");
});

/** Whether a line prints path names (the only lines whose text core.quotePath changes). */
function printsNames(line: string): boolean {
  return /^(status|diff|ls-files|grep|blame|show( |$))|--stat|--name-|--numstat| -p\b/.test(line);
}

function linesOf(shape: ShapeName): string[] {
  // names-raw differs from names only in core.quotePath: the lines that print no names would repeat names'.
  const every = shape === "names-raw" ? EVERY_SHAPE.filter(printsNames) : EVERY_SHAPE;
  return [...every, ...SOME_SHAPES[shape]];
}

/**
 * git's exit code and stdout, kept: 0 and 1 (a "no" answer: nothing found, nothing matched) must be
 * pterm's, with the same stdout; git's fatal 128/129 is pterm's failure, whose code is pterm's
 * envelope's (1 or 2) and whose error is on stderr (what git echoes on stdout before dying is not compared).
 */
function sameOutcome(ours: { exit_code: number; stdout: string }, theirs: { code: number; stdout: string }): boolean {
  return theirs.code >= 128 ? ours.exit_code !== 0 : ours.exit_code === theirs.code && ours.stdout === theirs.stdout;
}

Deno.test({
  name: "every query spelling prints real git's text and exit code on every repository shape",
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  await using root = await makeRoot("pterm-text-matrix-");
  await Promise.all([
    buildHistory(root.path),
    buildUpstream(root.path),
    buildConflict(root.path),
    buildNames(root.path, "names"),
    buildNames(root.path, "names-raw"),
  ]);
  // The shapes are separate repositories: each runs its lines while the others run theirs.
  const perShape = await Promise.all(SHAPES.map(async (shape) => {
    const differs: string[] = [];
    const stale: string[] = [];
    const unrefused: string[] = [];
    for (const line of linesOf(shape)) {
      const [ours, theirs] = await Promise.all([
        exec(root.path, `git -C ${shape} ${line}`),
        gitRaw(root.path, ["-C", shape, "-c", "color.ui=never", "--no-pager", ...tokenize(line)]),
      ]);
      const refusal = REFUSED[line];
      if (refusal !== undefined) {
        // Refused by name, never answered with another text: the refusal says what to run instead.
        if (!["InvalidArgs", "UnsupportedFormat"].includes(ours.error_code ?? "") || ours.stdout !== "") {
          unrefused.push(`${shape}: git ${line} (${ours.exit_code} ${ours.error_code ?? ""})`);
        }
        continue;
      }
      const same = sameOutcome(ours, theirs);
      const allowed = STILL_DIFFERS[`${shape}: ${line}`] ?? STILL_DIFFERS[`*: ${line}`];
      if (!same && !allowed) {
        differs.push(
          `${shape}: git ${line}\n  exit pterm ${ours.exit_code} (${ours.error_code ?? ""}) git ${theirs.code}\n` +
            `  pterm stdout: ${JSON.stringify(ours.stdout)}\n  pterm stderr: ${JSON.stringify(ours.stderr)}\n` +
            `  git stdout:   ${JSON.stringify(theirs.stdout)}\n  git stderr:   ${JSON.stringify(theirs.stderr)}`,
        );
      } else if (same && STILL_DIFFERS[`${shape}: ${line}`]) stale.push(`${shape}: ${line}`);
    }
    return { differs, stale, unrefused };
  }));
  const differs = perShape.flatMap((r) => r.differs);
  const stale = perShape.flatMap((r) => r.stale);
  const unrefused = perShape.flatMap((r) => r.unrefused);
  assert.deepEqual(differs, [], `${differs.length} texts differ from git's:\n${differs.join("\n")}`);
  assert.deepEqual(stale, [], "STILL_DIFFERS names texts that now match git's: remove them (and from the docs)");
  assert.deepEqual(unrefused, [], "REFUSED lines pterm no longer refuses by name: compare them with git instead");
});

Deno.test("a setting git's text depends on is followed, or refused by name: never ignored", async () => {
  await using root = await makeRoot("pterm-text-settings-");
  const s = new Shaper(join(root.path, "r"));
  await Deno.mkdir(s.dir);
  await base(s);
  await Deno.writeTextFile(join(s.dir, "caf\u00e9.txt"), "untracked\n");
  const run = async (line: string) => {
    const [ours, theirs] = await Promise.all([
      exec(root.path, `git -C r ${line}`),
      gitRaw(root.path, ["-C", "r", ...tokenize(line)]),
    ]);
    return { ours, theirs };
  };
  const followed = async (line: string) => {
    const { ours, theirs } = await run(line);
    assert.equal(ours.exit_code, 0, `${line}: ${ours.stderr}`);
    assert.equal(ours.stdout, theirs.stdout, line);
  };
  const refused = async (line: string, key: RegExp, code = /InvalidArgs|UnsupportedFormat/) => {
    const { ours } = await run(line);
    assert.match(ours.error_code ?? "", code, `${line}: ${ours.exit_code} ${ours.stdout}`);
    assert.match(ours.stderr, key, line);
    assert.equal(ours.stdout, "", line);
  };
  const set = (key: string, value: string) => s.git("config", key, value);
  const unset = (key: string) => s.git("config", "--unset", key);

  // Columns: auto prints none off a terminal, as git; always (or a layout alone) is refused by name.
  await set("column.ui", "auto");
  for (const line of ["branch", "tag", "status"]) await followed(line);
  for (const value of ["always", "column,dense"]) {
    await set("column.ui", value);
    for (const line of ["branch", "tag", "status"]) await refused(line, /column\.ui/);
    // Lists git never sets in columns follow git: the short status, branch -v, tag -n.
    for (const line of ["status -s", "branch -v", "tag -n"]) await followed(line);
  }
  await unset("column.ui");
  await set("column.tag", "always");
  await refused("tag -l", /column\.tag/);
  await followed("branch");
  await unset("column.tag");
  await refused("-c column.ui=always branch", /column\.ui/);
  await followed("-c column.ui=never branch");

  // Order: git's default by name is followed; another order is refused by name.
  await set("branch.sort", "refname");
  await followed("branch");
  await set("branch.sort", "-committerdate");
  await refused("branch", /branch\.sort/);
  await unset("branch.sort");
  await set("tag.sort", "-version:refname");
  await refused("tag", /tag\.sort/);
  await unset("tag.sort");

  // status.showUntrackedFiles and log.date are followed.
  for (const value of ["no", "all", "normal"]) {
    await set("status.showUntrackedFiles", value);
    for (const line of ["status", "status -s"]) await followed(line);
  }
  await unset("status.showUntrackedFiles");
  for (const value of ["iso", "short", "rfc", "raw"]) {
    await set("log.date", value);
    for (const line of ["log -2", "show -s"]) await followed(line);
  }
  await unset("log.date");

  // core.quotePath is followed, from the repository's config and from `-c` (which wins), in every git
  // spelling of a boolean; a word git refuses is refused by name.
  const quoting = ["status -s", "status", "status --porcelain", "ls-files -o", "grep -l --untracked untracked"];
  await set("core.quotePath", "false");
  for (const line of quoting) await followed(line);
  for (const value of ["true", "yes", "1"]) await followed(`-c core.quotePath=${value} status -s`);
  await followed("-c core.quotePath status -s");
  await set("core.quotePath", "true");
  for (const value of ["false", "no", "off", "0"]) await followed(`-c core.quotePath=${value} status -s`);
  await followed("-c core.quotePath=false -c core.quotePath=true status -s");
  await unset("core.quotePath");
  await followed("-c core.quotePath=false status -s");
  await refused("-c core.quotePath=maybe status -s", /core\.quotepath/);
  // A subcommand that prints no name takes the setting and changes nothing, as git.
  await followed("-c core.quotePath=false log --oneline -1");

  // What a person does next: take the name as the text shows it, stage it, and real git agrees; the
  // structured result keeps each name as it is, whatever the setting.
  await set("core.quotePath", "false");
  const listed = await exec(root.path, "git -C r status -s");
  assert.equal(listed.stdout, "?? caf\u00e9.txt\n");
  const result = listed.result as { files: { path: string }[] };
  assert.deepEqual(result.files.map((f) => f.path), ["caf\u00e9.txt"]);
  const added = await exec(root.path, `git -C r add ${listed.stdout.slice(3).trim()}`);
  assert.equal(added.exit_code, 0, added.stderr);
  await followed("status -s");
  assert.equal((await gitRaw(root.path, ["-C", "r", "diff", "--cached", "--name-only"])).stdout, "caf\u00e9.txt\n");
  await unset("core.quotePath");
});
