/**
 * A rebase in progress as git keeps it in `.git/rebase-merge/`: its todo and done lists, and the lines git's status
 * prints about it. Small, so that `git status` loads it without the rebase machinery.
 */

import { PtermError } from "../../../core/errors.ts";
import { abbreviate } from "../odb/abbrev.ts";
import { rebaseStateDir } from "../merge/sequence.ts";
import type { Repo } from "../repo/repo.ts";

export const REBASE_DIR = "rebase-merge";
const DIR = REBASE_DIR;

/** One line of git's todo list: `pick <oid> <subject>`. */
export interface Step {
  readonly oid: string;
  readonly line: string;
}

/** A file of the rebase's state folder, or null when it is absent. */
export function readRebaseFile(repo: Repo, name: string): string | null {
  try {
    return Deno.readTextFileSync(`${repo.gitdir}/${DIR}/${name}`);
  } catch {
    return null;
  }
}
const readState = readRebaseFile;

/** The lines of a todo or done file that are commands (comments and blank lines left out), each with its commit. */
export function parseSteps(text: string | null): Step[] {
  if (text === null) return [];
  const steps: Step[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const match = /^(?:pick|p)\s+([0-9a-f]{4,40})\b/.exec(line);
    if (!match) {
      throw new PtermError(
        "UnsupportedFormat",
        `the rebase's todo list has \`${line}\`, which is not a pick; pterm runs git's non-interactive rebase ` +
          "(pick only). Finish this rebase with the real git (`git rebase --continue`), or `git rebase --abort`.",
      );
    }
    steps.push({ oid: match[1], line });
  }
  return steps;
}

/** What git's status prints while a rebase is stopped (wt-status.c's show_rebase_information and show_rebase_in_progress). */
export function rebaseStatusLines(
  repo: Repo,
  unmerged: boolean,
  hints: boolean,
): { branchLine: string; lines: string[] } | null {
  if (rebaseStateDir(repo) !== DIR) return null;
  const abbrevLine = (step: Step) =>
    `   ${
      step.line.replace(/^(\S+ )([0-9a-f]{40})\b/, (_, verb: string, oid: string) => verb + abbreviate(repo, oid))
    }`;
  const read = (name: string) => {
    try {
      return parseSteps(readState(repo, name));
    } catch {
      return [];
    }
  };
  const done = read("done");
  const todo = read("git-rebase-todo");
  const onto = readState(repo, "onto")?.trim() ?? "";
  const ontoShort = /^[0-9a-f]{40}$/.test(onto) ? abbreviate(repo, onto) : onto;
  const headName = readState(repo, "head-name")?.trim() ?? "";
  const branch = headName.startsWith("refs/heads/") ? headName.slice(11) : null;
  const lines: string[] = [];
  if (done.length === 0) lines.push("No commands done.");
  else {
    lines.push(
      done.length === 1 ? "Last command done (1 command done):" : `Last commands done (${done.length} commands done):`,
    );
    for (const step of done.slice(-2)) lines.push(abbrevLine(step));
    if (done.length > 2 && hints) lines.push(`  (see more in file .git/${DIR}/done)`);
  }
  if (todo.length === 0) lines.push("No commands remaining.");
  else {
    lines.push(
      todo.length === 1
        ? "Next command to do (1 remaining command):"
        : `Next commands to do (${todo.length} remaining commands):`,
    );
    for (const step of todo.slice(0, 2)) lines.push(abbrevLine(step));
    if (hints) lines.push('  (use "git rebase --edit-todo" to view and edit)');
  }
  const rebasing = branch
    ? `You are currently rebasing branch '${branch}' on '${ontoShort}'.`
    : "You are currently rebasing.";
  let stopState = "conflicts";
  try {
    Deno.statSync(`${repo.gitdir}/MERGE_MSG`);
  } catch {
    stopState = "editing";
  }
  if (unmerged) {
    lines.push(rebasing);
    if (hints) {
      lines.push(
        '  (fix conflicts and then run "git rebase --continue")',
        '  (use "git rebase --skip" to skip this patch)',
        '  (use "git rebase --abort" to check out the original branch)',
      );
    }
  } else if (stopState === "conflicts") {
    lines.push(rebasing);
    if (hints) lines.push('  (all conflicts fixed: run "git rebase --continue")');
  } else {
    lines.push(
      branch
        ? `You are currently editing a commit while rebasing branch '${branch}' on '${ontoShort}'.`
        : "You are currently editing a commit during a rebase.",
    );
    if (hints) {
      lines.push(
        '  (use "git commit --amend" to amend the current commit)',
        '  (use "git rebase --continue" once you are satisfied with your changes)',
      );
    }
  }
  lines.push("");
  return { branchLine: `interactive rebase in progress; onto ${ontoShort}`, lines };
}
