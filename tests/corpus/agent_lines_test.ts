/**
 * The corpus of agent command lines (tests/corpus/lines.ts), run against a real workspace with
 * real git as the oracle: each line runs in a fresh copy of one workspace; what it did
 * is compared with what real git does for the same intent — the repository's state after a
 * change (refs by tree, parents and message; the index; the work tree; the stash), or what a query
 * reported (the commits of a log, the files of a diff or status, the bytes of `show rev:path`).
 *
 * A line that fails must change nothing, and its error should name a line that works: every
 * backticked pterm command line in the message is run in order, and the outcome judged the same way.
 * The figures (first try cold, after the suggested line, first try warm) are printed and held to
 * targets (cold first try ≥ 60 %, cold with the suggestion ≥ 95 %, warm first try ≥ 85 %);
 * docs/commands/git.md reports them.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { exec, makeRoot } from "../_support/helpers.ts";
import { git, gitRaw } from "../commands/git/oracle.ts";
import { repoState, worktreeFingerprint as files } from "../commands/git/repo_state.ts";
import { tokenize } from "../../core/grammar.ts";
import type { Envelope } from "../../core/envelope.ts";
import { cold, type CorpusLine, warm } from "./lines.ts";
import { commands } from "../../commands/index.ts";
import { real, sortedLines } from "../commands/files/oracle.ts";

const FIXTURES = new URL("../fixtures/doc/", import.meta.url).pathname;
const COMMANDS = new Set([...Object.keys(commands), "help"]);

async function write(path: string, text: string) {
  await Deno.mkdir(join(path, ".."), { recursive: true });
  await Deno.writeTextFile(path, text);
}

/** The workspace every line starts from: a repository with history, branches, a tag and local changes. */
async function buildTemplate(root: string): Promise<void> {
  const proj = join(root, "proj");
  await Deno.mkdir(proj, { recursive: true });
  await git(proj, "init", "-q", "-b", "main");
  await write(join(proj, "README.md"), "# Proj\n\nA small projcet.\n");
  await write(join(proj, "src/app.py"), "import sys\n\nFEATURE = False\n\ndef main():\n    print('hi')\n");
  await write(join(proj, "src/util.py"), "def helper():\n    return 1\n");
  await write(join(proj, "docs/guide.md"), "# Guide\n\nRun it.\n");
  await git(proj, "add", "-A");
  await git(proj, "commit", "-q", "-m", "Initial commit");
  await git(proj, "branch", "old");
  await write(join(proj, "src/app.py"), "import sys\n\nFEATURE = True\n\ndef main():\n    print('hi')\n");
  await git(proj, "commit", "-q", "-am", "Add feature flag");
  await git(proj, "tag", "v1.0");
  await git(proj, "checkout", "-q", "-b", "feature");
  await write(join(proj, "src/util.py"), "def helper():\n    return 2\n");
  await git(proj, "commit", "-q", "-am", "Feature work");
  await git(proj, "checkout", "-q", "main");
  await write(join(proj, "README.md"), "# Proj\n\nA small project.\n");
  await git(proj, "commit", "-q", "-am", "Fix typo in README");
  // Local changes: one unstaged, one staged, one untracked.
  await write(join(proj, "src/app.py"), "import sys\n\nFEATURE = True\n\ndef main():\n    print('hi')\n# local edit\n");
  await write(join(proj, "docs/guide.md"), "# Guide\n\nRun it with care.\n");
  await git(proj, "add", "docs/guide.md");
  await write(join(proj, "notes.txt"), "todo\n");
  await Deno.mkdir(join(root, "reports"));
  await Deno.copyFile(join(FIXTURES, "debian/shared-mime-info-spec.pdf"), join(root, "reports/spec.pdf"));
  await Deno.copyFile(join(FIXTURES, "mammoth/tables.docx"), join(root, "reports/tables.docx"));
  await Deno.copyFile(join(FIXTURES, "book.xlsx"), join(root, "book.xlsx"));
  await Deno.writeTextFile(
    join(root, "pterm.json"),
    JSON.stringify({ git: { author: { name: "Oracle", email: "oracle@example.com" } } }),
  );
}

/** A copy of the template made ready for `entry`: local changes gone (`clean`), its `before` lines run by real git. */
async function prepare(dir: string, entry: CorpusLine): Promise<void> {
  const proj = join(dir, "proj");
  if (entry.clean) {
    // Lines agents run on a clean tree (merge, revert, rm -r): real git refuses them with staged changes too.
    await git(proj, "reset", "-q", "--hard");
    await git(proj, "clean", "-qfd");
  }
  for (const words of entry.before ?? []) await gitRaw(proj, [...words]);
}

async function copyTree(from: string, to: string) {
  const out = await new Deno.Command("cp", { args: ["-a", `${from}/.`, to] }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
}

const state = repoState;

const FORMAT_FLAGS =
  /^(--stat|--name-only|--name-status|-p|--patch|--no-color|--oneline|--graph|--decorate|--abbrev-commit|-s|--no-patch|-U\d*|--unified(=\d+)?|--(pretty|format)(=.*)?)$/;

function gitWords(line: string): string[] {
  const words = tokenize(line);
  assert.equal(words[0], "git");
  return words.slice(1).filter((w) => w !== "--no-pager");
}

/** Queries whose stdout is git's own bytes in pterm (cat-file --batch-check reads stdin: judged by state). */
const PLUMBING = new Set([
  "rev-list",
  "ls-tree",
  "diff-tree",
  "for-each-ref",
  "merge-base",
  "show-ref",
  "symbolic-ref",
  "name-rev",
  "hash-object",
]);

/** What real git reports for a query, in the form pterm's result gives it; null for a change. */
async function realAnswer(proj: string, words: string[]): Promise<{ kind: string; value: string } | null> {
  const sub = words[0];
  const rest = words.slice(1);
  const kept = rest.filter((w) => !FORMAT_FLAGS.test(w));
  const run = async (args: string[]) => {
    const out = await gitRaw(proj, args);
    assert.equal(out.code, 0, `real git ${args.join(" ")}: ${out.stderr}`);
    return out.stdout;
  };
  const sorted = (text: string) => text.split("\n").filter(Boolean).sort().join("\n");
  if (sub === "status") {
    const untracked = kept.some((w) => /^-u|^--untracked-files/.test(w)) ? [] : ["-uall"];
    const short = await run([
      "status",
      "--porcelain",
      ...untracked,
      ...kept.filter((w) => !/^-(s|b|sb)$|^--(short|porcelain|branch)$/.test(w)),
    ]);
    return { kind: "paths", value: sorted(short.split("\n").filter(Boolean).map((l) => l.slice(3)).join("\n")) };
  }
  if (sub === "log") {
    // --graph lists the commits in git's topological order: the same list, in that order.
    const order = rest.includes("--graph") ? ["--topo-order"] : [];
    // -L prints each commit's line diff whatever the format: -s leaves the ids alone.
    const ids = rest.some((w) => w.startsWith("-L")) ? ["-s"] : [];
    return { kind: "commits", value: await run(["log", "--format=%H", ...ids, ...order, ...kept]) };
  }
  if (sub === "diff") return { kind: "paths", value: sorted(await run(["diff", "--name-only", ...kept])) };
  if (sub === "show") {
    const rev = kept.find((w) => !w.startsWith("-"));
    if (rev?.includes(":")) return { kind: "stdout", value: await run(["show", rev]) };
    return { kind: "commit", value: (await run(["show", "-s", "--format=%H", ...(rev ? [rev] : [])])).trim() };
  }
  if (sub === "branch" && (kept.length === 0 || kept.every((w) => w.startsWith("-") && !/^-(d|D|m|M|c|C)$/.test(w)))) {
    if (kept.includes("--show-current")) return { kind: "stdout", value: await run(["branch", "--show-current"]) };
    return {
      kind: "branches",
      value: sorted(
        await run(["branch", "--format=%(refname:short)", ...kept.filter((w) => w !== "-v" && w !== "--list")]),
      ),
    };
  }
  if (sub === "tag" && kept.every((w) => w === "-l" || w === "--list" || /^-n\d*$/.test(w))) {
    return { kind: "tags", value: sorted(await run(["tag", "-l"])) };
  }
  if (sub === "cat-file" && !words.includes("--batch-check")) return { kind: "stdout", value: await run(words) };
  if (sub === "rev-parse" || sub === "ls-files" || PLUMBING.has(sub)) {
    return { kind: "stdout", value: await run(words) };
  }
  if (sub === "describe") return { kind: "stdout", value: await run(words) };
  // git shortlog reads stdin when no revision is given and stdin is no terminal: HEAD is what a person gets.
  if (sub === "shortlog") {
    return { kind: "stdout", value: await run([...words, ...(kept.some((w) => !w.startsWith("-")) ? [] : ["HEAD"])]) };
  }
  if (sub === "blame") {
    const owners: string[] = [];
    for (const line of (await run(["blame", "--porcelain", ...kept.filter((w) => !/^-[lse]$/.test(w))])).split("\n")) {
      const match = line.match(/^([0-9a-f]{40}) \d+ (\d+)/);
      if (match) owners[Number(match[2]) - 1] = match[1];
    }
    return { kind: "blame", value: owners.join("\n") };
  }
  if (sub === "stash" && rest[0] === "list") {
    return { kind: "stdout-lines", value: String((await run(["stash", "list"])).split("\n").filter(Boolean).length) };
  }
  return null;
}

function ptermAnswer(kind: string, envelope: Envelope, root: string): string {
  // deno-lint-ignore no-explicit-any
  const result = envelope.result as any;
  const sorted = (list: string[]) => [...list].sort().join("\n");
  switch (kind) {
    case "paths":
      return sorted(result.files.map((f: { path: string }) => f.path));
    case "commits":
      return result.commits.map((c: { id: string }) => `${c.id}\n`).join("");
    case "commit":
      return result.commit.id;
    case "branches":
      return sorted([
        ...result.branches.map((b: { name: string }) => b.name),
        ...(result.remote_branches ?? []).map((b: { name: string }) => b.name),
      ]);
    case "tags":
      return sorted(result.tags.map((t: { name: string }) => t.name));
    case "stdout-lines":
      return String(result.entries.length);
    case "blame":
      return result.lines.map((l: { commit: string }) => l.commit).join("\n");
    default:
      return envelope.stdout.replaceAll(root + "/", "");
  }
}

type Outcome = { ok: boolean; why: string };

/** Runs real git's intent in `twin` and judges pterm's envelope from `work` against it. */
/** Every object id the template's repository has, for `state`. */
let KNOWN: ReadonlySet<string> = new Set();

async function judge(
  entry: CorpusLine,
  envelope: Envelope,
  work: string,
  twin: string,
  retry = false,
): Promise<Outcome> {
  if (envelope.exit_code !== 0) return { ok: false, why: `${envelope.error_code}: ${envelope.stderr.split("\n")[0]}` };
  if (entry.oracle === "doc") {
    const out = entry.line.match(/(?:--out|-o|--output)\s+(\S+)/)?.[1];
    const text = out ? await Deno.readTextFile(join(work, out)).catch(() => "") : envelope.stdout;
    return text.includes(entry.expect!) ? { ok: true, why: "" } : { ok: false, why: `output lacks ${entry.expect}` };
  }
  if (entry.oracle === "files") {
    // The real tool in the twin, which pterm never ran in (no audit/ there).
    const theirs = await real(twin, tokenize(entry.tool ?? entry.line));
    const shape = (text: string) => entry.sorted ? sortedLines(text).join("\n") : text;
    if (theirs.code !== 0) return { ok: false, why: `the real tool failed: ${theirs.stderr.split("\n")[0]}` };
    return shape(envelope.stdout) === shape(theirs.stdout) ? { ok: true, why: "" } : {
      ok: false,
      why: `printed ${JSON.stringify(envelope.stdout).slice(0, 200)}, the real tool ${
        JSON.stringify(theirs.stdout).slice(0, 200)
      }`,
    };
  }
  if (entry.oracle === "worktree") {
    if (entry.diff) {
      const applied = await gitRaw(join(twin, "proj"), ["apply"], entry.diff);
      assert.equal(applied.code, 0, applied.stderr);
    }
    const [mine, theirs] = [await files(join(work, "proj")), await files(join(twin, "proj"))];
    return mine === theirs ? { ok: true, why: "" } : { ok: false, why: "work tree differs from git apply's" };
  }
  if (entry.oracle === "init") {
    const made = await Deno.stat(join(work, "newrepo/.git/HEAD")).catch(() => null);
    const branch = entry.line.match(/-b (\S+)/)?.[1];
    if (!made) return { ok: false, why: "no repository made" };
    const head = await Deno.readTextFile(join(work, "newrepo/.git/HEAD"));
    return !branch || head.includes(`refs/heads/${branch}`) ? { ok: true, why: "" } : { ok: false, why: head };
  }
  const intents = (entry.intent ?? entry.line.replace(/^git /, "")).split(" && ").map((l) => gitWords(`git ${l}`));
  const proj = join(twin, "proj");
  const cwd = (words: string[]) => (words[0] === "-C" ? twin : proj);
  if (intents.length === 1) {
    const asked = await realAnswer(
      cwd(intents[0]) === twin ? join(twin, intents[0][1]) : proj,
      intents[0][0] === "-C" ? intents[0].slice(2) : intents[0],
    );
    if (asked) {
      const mine = ptermAnswer(asked.kind, envelope, work);
      // rev-parse --show-toplevel: pterm names the repository relative to the root, never a host path.
      if (asked.kind === "stdout" && asked.value.startsWith("/") && asked.value.endsWith(`/${mine}`)) {
        return { ok: true, why: "" };
      }
      return mine === asked.value ? { ok: true, why: "" } : {
        ok: false,
        why: `reported ${JSON.stringify(mine).slice(0, 200)}, git ${JSON.stringify(asked.value).slice(0, 200)}`,
      };
    }
  }
  for (const words of intents) {
    const out = await gitRaw(cwd(words), words, entry.stdin);
    // A suggested line for what real git cannot do here (e.g. `rebase` with local changes) is judged a failure;
    // a first try pterm ran while real git could not is a corpus error.
    if (out.code !== 0 && retry) return { ok: false, why: `real git cannot: ${out.stderr.split("\n")[0]}` };
    assert.equal(out.code, 0, `real git ${words.join(" ")} failed: ${out.stderr}`);
  }
  const [mine, theirs] = [await state(join(work, "proj"), KNOWN), await state(proj, KNOWN)];
  return mine === theirs ? { ok: true, why: "" } : { ok: false, why: `state differs:\n${diffLines(mine, theirs)}` };
}

function diffLines(a: string, b: string): string {
  const left = a.split("\n");
  const right = b.split("\n");
  const out: string[] = [];
  for (let i = 0; i < Math.max(left.length, right.length) && out.length < 6; i++) {
    if (left[i] !== right[i]) out.push(`  pterm: ${left[i]}\n  git:   ${right[i]}`);
  }
  return out.join("\n");
}

/** The command lines an error message offers, in order: backticked spans that start with a pterm command. */
export function suggestedLines(stderr: string): string[] {
  const message = stderr.split("\n\nHint:")[0];
  const spans = [...message.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
  return spans.filter((span) => {
    if (/[<>…]|\.\.\.$/.test(span) || span.endsWith("--help")) return false;
    try {
      const words = tokenize(span);
      return COMMANDS.has(words[0]) && words.length > 1;
    } catch {
      return false;
    }
  });
}

interface Scores {
  first: number;
  recovered: number;
  total: number;
  failures: string[];
}

async function runCorpus(template: string, lines: readonly CorpusLine[]): Promise<Scores> {
  const scores: Scores = { first: 0, recovered: 0, total: lines.length, failures: [] };
  KNOWN = new Set(
    (await git(join(template, "proj"), "cat-file", "--batch-all-objects", "--batch-check=%(objectname)")).split("\n"),
  );
  const templateState = await state(join(template, "proj"), KNOWN);
  for (const entry of lines) {
    await using work = await makeRoot("pterm-corpus-");
    await using twin = await makeRoot("pterm-corpus-git-");
    await copyTree(template, work.path);
    await copyTree(template, twin.path);
    for (const dir of [work.path, twin.path]) await prepare(dir, entry);
    const pristine = entry.before ? await state(join(work.path, "proj"), KNOWN) : templateState;
    const envelope = await exec(work.path, entry.line, { stdin: entry.stdin });
    const first = await judge(entry, envelope, work.path, twin.path);
    if (first.ok) {
      scores.first++;
      scores.recovered++;
      continue;
    }
    if (envelope.exit_code !== 0) {
      // A refused line changes nothing: errors never leave work half done.
      if (!entry.clean || entry.before) {
        assert.equal(
          await state(join(work.path, "proj"), KNOWN),
          pristine,
          `\`${entry.line}\` failed but changed the repository`,
        );
      }
      const next = suggestedLines(envelope.stderr);
      let retried: Envelope | null = null;
      for (const line of next) {
        retried = await exec(work.path, line, { stdin: entry.stdin });
        if (retried.exit_code !== 0) break;
      }
      if (retried) {
        await using twin2 = await makeRoot("pterm-corpus-git-");
        await copyTree(template, twin2.path);
        await prepare(twin2.path, entry);
        const second = await judge(entry, retried, work.path, twin2.path, true);
        if (second.ok) {
          scores.recovered++;
          scores.failures.push(`recovered  ${entry.line}  →  ${next.join(" ; ")}`);
          continue;
        }
        scores.failures.push(`FAILED     ${entry.line}  →  ${next.join(" ; ")}: ${second.why}`);
        continue;
      }
    }
    scores.failures.push(`FAILED     ${entry.line}: ${first.why}`);
  }
  return scores;
}

function percent(n: number, total: number): string {
  return `${(100 * n / total).toFixed(0)}% (${n}/${total})`;
}

Deno.test({
  name: "agent command lines: what models type works as real git does, or its error names a line that does",
  sanitizeResources: false,
  sanitizeOps: false,
}, async (t) => {
  await using template = await makeRoot("pterm-corpus-template-");
  await buildTemplate(template.path);
  let coldScores: Scores | null = null;
  let warmScores: Scores | null = null;
  await t.step(`cold (${cold.length} lines)`, async () => {
    coldScores = await runCorpus(template.path, cold);
  });
  await t.step(`warm (${warm.length} lines)`, async () => {
    warmScores = await runCorpus(template.path, warm);
  });
  const c = coldScores!;
  const w = warmScores!;
  const table = [
    "",
    "| corpus | lines | first try | first try or the suggested line |",
    "|---|---|---|---|",
    `| cold (no help read) | ${c.total} | ${percent(c.first, c.total)} | ${percent(c.recovered, c.total)} |`,
    `| warm (after pterm prompt) | ${w.total} | ${percent(w.first, w.total)} | ${percent(w.recovered, w.total)} |`,
    "",
    "cold, not first try:",
    ...c.failures.map((f) => `  ${f}`),
    "warm, not first try:",
    ...w.failures.map((f) => `  ${f}`),
  ].join("\n");
  // The figures are the test's report (docs/commands/git.md: "Agents' git spellings").
  await Deno.stderr.write(new TextEncoder().encode(table + "\n"));
  assert.ok(cold.length >= 150, "the corpus has at least 150 cold lines");
  assert.ok(c.first / c.total >= 0.6, `cold first try ${percent(c.first, c.total)} < 60%\n${table}`);
  assert.ok(c.recovered / c.total >= 0.95, `cold with the suggestion ${percent(c.recovered, c.total)} < 95%\n${table}`);
  assert.ok(w.first / w.total >= 0.85, `warm first try ${percent(w.first, w.total)} < 85%\n${table}`);
});
