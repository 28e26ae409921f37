/**
 * `git blame` of a long file: the structured result holds every line (stdout is bounded by the
 * envelope; the result is not cut), each named as `git blame --porcelain` names it — lines past
 * the 5,000th included, and a last line that lost its newline blamed on the commit that took it.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { exec, makeRoot } from "../../../_support/helpers.ts";
import { git } from "../oracle.ts";

/** Final line number (1-based) → [commit, line number in that commit], from `git blame --porcelain`. */
function parsePorcelain(text: string): [string, number][] {
  const owners: [string, number][] = [];
  for (const line of text.split("\n")) {
    const match = line.match(/^([0-9a-f]{40}) (\d+) (\d+)/);
    if (match) owners[Number(match[3]) - 1] = [match[1], Number(match[2])];
  }
  return owners;
}

Deno.test({
  name: "git blame of a 7,000-line file lists every line in its result, each as git blame --porcelain names it",
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  await using root = await makeRoot("pterm-blame-long-");
  const repo = join(root.path, "r");
  await Deno.mkdir(repo);
  await git(repo, "init", "-q", "-b", "main");
  const file = join(repo, "long.txt");
  let lines = Array.from({ length: 7000 }, (_, i) => `line ${i}`);
  const commit = async (text: string, message: string) => {
    await Deno.writeTextFile(file, text);
    await git(repo, "add", "long.txt");
    await git(repo, "commit", "-q", "-m", message);
  };
  await commit(lines.join("\n") + "\n", "seven thousand lines");
  lines = lines.map((l, i) => (i % 7 === 3 ? `${l} changed` : l));
  await commit(lines.join("\n") + "\n", "every seventh line");
  lines.splice(6100, 0, "inserted far down", "and another");
  lines.splice(5200, 3);
  await commit(lines.join("\n") + "\n", "past the five thousandth");
  // The last line loses its newline: git's diff compares lines with their newline, so it is new.
  await commit(lines.join("\n"), "no newline at the end");
  // An uncommitted line in the work tree, past the 5,000th.
  lines[6500] = "not committed";
  await Deno.writeTextFile(file, lines.join("\n"));

  const real = parsePorcelain(await git(repo, "blame", "--porcelain", "long.txt"));
  const envelope = await exec(root.path, "git blame --repo r long.txt", { timeoutMs: 120_000 });
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  // deno-lint-ignore no-explicit-any
  const result = envelope.result as any;
  assert.equal(result.lines.length, lines.length);
  assert.equal(real.length, lines.length);
  assert.equal("truncated" in result, false);
  const differing: string[] = [];
  result.lines.forEach((l: { line: number; commit: string; text: string }, i: number) => {
    if (l.line !== i + 1 || l.text !== lines[i] || l.commit !== real[i][0]) {
      differing.push(
        `line ${i + 1}: ${l.commit.slice(0, 7)} ${JSON.stringify(l.text)} (git: ${real[i][0].slice(0, 7)})`,
      );
    }
  });
  assert.deepEqual(differing.slice(0, 5), [], `${differing.length} lines differ`);
  const last = await git(repo, "log", "-1", "--format=%H");
  assert.equal(result.lines.at(-1).commit, last.trim(), "the line that lost its newline is the last commit's");
  assert.equal(result.lines[6500].commit, "0".repeat(40));
  // What the person does next: their own git reads the same file and agrees on what is committed.
  assert.match(await git(repo, "status", "--porcelain"), /^ M long\.txt$/m);
});
