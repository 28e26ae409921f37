/**
 * `git blame` in pterm names, for every line, the commit real git's blame names: random histories
 * built by real git (edits, insertions, deletions, a branch merged back, uncommitted lines in the
 * work tree), compared line by line with `git blame --porcelain`.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { join } from "node:path";
import { exec, makeRoot } from "../../../_support/helpers.ts";
import { git } from "../oracle.ts";

type Edit = { at: number; kind: "insert" | "delete" | "change"; text: string };

const edit: fc.Arbitrary<Edit> = fc.record({
  at: fc.nat(40),
  kind: fc.constantFrom("insert" as const, "delete" as const, "change" as const),
  text: fc.constantFrom("alpha", "beta", "gamma", "delta", "epsilon", "}", ""),
});

function applyEdits(lines: string[], edits: readonly Edit[], tag: string): string[] {
  const out = [...lines];
  for (const e of edits) {
    const at = out.length ? e.at % (out.length + (e.kind === "insert" ? 1 : 0)) : 0;
    if (e.kind === "insert" || out.length === 0) out.splice(at, 0, `${e.text} ${tag}`);
    else if (e.kind === "delete") out.splice(at, 1);
    else out[at] = `${e.text} ${tag}`;
  }
  return out;
}

/** Final line number (1-based) → commit, from `git blame --porcelain`. */
function parsePorcelain(text: string): string[] {
  const owners: string[] = [];
  for (const line of text.split("\n")) {
    const match = line.match(/^([0-9a-f]{40}) \d+ (\d+)/);
    if (match) owners[Number(match[2]) - 1] = match[1];
  }
  return owners;
}

Deno.test({
  name: "git blame names the commit real git's blame names, line by line",
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.array(edit, { minLength: 1, maxLength: 4 }), { minLength: 2, maxLength: 6 }),
      fc.array(edit, { minLength: 1, maxLength: 3 }),
      fc.array(edit, { maxLength: 2 }),
      async (mainCommits, sideCommit, uncommitted) => {
        await using root = await makeRoot("pterm-blame-");
        const repo = join(root.path, "r");
        await Deno.mkdir(repo);
        await git(repo, "init", "-q", "-b", "main");
        let lines = Array.from({ length: 12 }, (_, i) => `line ${i}`);
        const write = (l: string[]) => Deno.writeTextFile(join(repo, "f.txt"), l.map((x) => x + "\n").join(""));
        await write(lines);
        await git(repo, "add", "f.txt");
        await git(repo, "commit", "-q", "-m", "base");
        for (const [n, edits] of mainCommits.entries()) {
          if (n === 1) {
            // A side branch from here, merged back at the end.
            await git(repo, "checkout", "-q", "-b", "side");
            const side = applyEdits(lines, sideCommit, "side");
            await write(side);
            // Edits that cancel out (a line inserted, then deleted) leave nothing to commit: still a commit.
            await git(repo, "commit", "-q", "--allow-empty", "-am", "side work");
            await git(repo, "checkout", "-q", "main");
          }
          lines = applyEdits(lines, edits, `c${n}`);
          await write(lines);
          await git(repo, "commit", "-q", "--allow-empty", "-am", `commit ${n}`);
        }
        const merged = await new Deno.Command("git", {
          args: ["-c", "user.name=O", "-c", "user.email=o@e", "merge", "-q", "--no-edit", "side"],
          cwd: repo,
          stdout: "null",
          stderr: "null",
        }).output();
        if (merged.code !== 0) await git(repo, "merge", "--abort");
        await write(
          applyEdits((await Deno.readTextFile(join(repo, "f.txt"))).split("\n").slice(0, -1), uncommitted, "wt"),
        );
        const real = parsePorcelain(await git(repo, "blame", "--porcelain", "f.txt"));
        const envelope = await exec(root.path, "git blame f.txt");
        assert.equal(envelope.exit_code, 0, envelope.stderr);
        // deno-lint-ignore no-explicit-any
        const mine = (envelope.result as any).lines.map((l: { commit: string }) => l.commit);
        assert.deepEqual(mine, real);
      },
    ),
    { numRuns: 30 },
  );
});

Deno.test("git blame under core.autocrlf=true: a CRLF work tree whose lines are committed blames the commits", async () => {
  await using root = await makeRoot("pterm-blame-crlf-");
  const repo = join(root.path, "r");
  await Deno.mkdir(repo);
  await git(repo, "init", "-q", "-b", "main");
  await git(repo, "config", "core.autocrlf", "true");
  await Deno.writeTextFile(join(repo, "f.txt"), "one\r\ntwo\r\n");
  await git(repo, "add", "f.txt");
  await git(repo, "commit", "-q", "-m", "first");
  await Deno.writeTextFile(join(repo, "f.txt"), "one\r\ntwo\r\nthree, not committed\r\n");
  const real = parsePorcelain(await git(repo, "blame", "--porcelain", "f.txt"));
  const envelope = await exec(root.path, "git blame f.txt");
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  // deno-lint-ignore no-explicit-any
  const mine = (envelope.result as any).lines.map((l: { commit: string }) => l.commit);
  assert.deepEqual(mine, real);
  assert.equal(mine[2], "0000000000000000000000000000000000000000");
  assert.notEqual(mine[0], mine[2]);
});

Deno.test("messages as people write them: blame's summary and log's formats print them as git does", async () => {
  await using root = await makeRoot("pterm-blame-messages-");
  const repo = join(root.path, "r");
  await Deno.mkdir(repo);
  await git(repo, "init", "-q", "-b", "main");
  // Kept verbatim: a first paragraph over two lines, trailing spaces and tabs, leading blank lines, no final
  // newline, and no message at all (blame's summary is then the commit id in parentheses).
  const messages = [
    "Clean up. Added some stuff to the public API for accessing meta\ndata about TOML.\n\nThe body.\n",
    "\n\n  indented subject \t\n\n\tbody line with a tab  \n \n\n",
    "Encode values ",
    "",
  ];
  for (const [n, message] of messages.entries()) {
    await Deno.writeTextFile(join(repo, "f.txt"), messages.slice(0, n + 1).map((_, k) => `line ${k}\n`).join(""));
    await git(repo, "add", "f.txt");
    await git(repo, "commit", "-q", "--cleanup=verbatim", "--allow-empty-message", "-m", message);
  }
  for (const line of ["blame --porcelain f.txt", "blame --line-porcelain f.txt"]) {
    const [subcommand, ...rest] = line.split(" ");
    const envelope = await exec(root.path, `git ${subcommand} --repo r ${rest.join(" ")}`);
    assert.equal(envelope.exit_code, 0, envelope.stderr);
    assert.equal(envelope.stdout, await git(repo, subcommand, ...rest), line);
  }
  const logs = ["medium", "short", "full", "fuller"].map((format) => `log --format=${format}`);
  for (const line of [...logs, "log --stat", "log -p", "show --stat HEAD", "log --format=short -p"]) {
    const [subcommand, ...rest] = line.split(" ");
    const envelope = await exec(root.path, `git ${subcommand} --repo r ${rest.join(" ")}`);
    assert.equal(envelope.exit_code, 0, envelope.stderr);
    assert.equal(envelope.stdout, await git(repo, "-c", "color.ui=never", "--no-pager", subcommand, ...rest), line);
  }
});
