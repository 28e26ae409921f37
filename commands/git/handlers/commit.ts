/**
 * `commit`: one git subcommand's handler (its declaration is under sub/).
 */

import { skippedHooks } from "../repo/hooks.ts";
import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { CommandContext } from "../../../core/context.ts";
import type { commitFlags } from "../sub/commit.ts";
import { stage } from "../worktree/add.ts";
import { commitIndex, onlyPathsIndex, partialCommitFiles } from "../porcelain/commit.ts";
import {
  concludingMessage,
  preparedMessage,
  sequenceCommit,
  sequenceCommitOptions,
  sequenceInProgress,
  squashMessage,
} from "../merge/sequence.ts";
import { describeCommit, readCommit } from "../history/log.ts";
import { readHead } from "../repo/refs.ts";
import { type GitAuthor, repositoryIdentity } from "../repo/identity.ts";
import { pathWithin } from "../odb/tree.ts";
import { hiddenPathDenied, lstatTracked } from "../worktree/worktree.ts";
import { loadIndex, withRepoLock } from "../repo/state.ts";
import { authorOf, openFromFlags, userPaths } from "./common.ts";
import { stageTracked } from "./basic_shared.ts";
import { commitSummaryText } from "../porcelain/summary_text.ts";

/**
 * The message of a commit: each -m a paragraph (as git joins them), or stdin with `-F -`; with
 * --amend and neither, the amended commit's own.
 */
export function commitMessage(
  // deno-lint-ignore no-explicit-any
  ctx: CommandContext<any, any>,
  warnings: string[],
): string | null {
  const parts = ctx.flags.message as string[];
  const file = ctx.flags.file as string | undefined;
  if (file !== undefined && file !== "-") {
    throw new PtermError(
      "InvalidArgs",
      `-F reads the message from the call's stdin only: write \`-F -\` and put the message in stdin ` +
        `(pterm does not read ${file} as a message file).`,
    );
  }
  if (file !== undefined && parts.length) {
    throw new PtermError("InvalidArgs", "give the message with -m or with -F -, not both.");
  }
  if (file !== undefined) return ctx.stdin ?? "";
  if (parts.length === 0) return null;
  if (parts.some((p) => p.includes("\\n"))) {
    // git keeps a backslash-n as two characters; so does pterm, but it warns that it did.
    warnings.push(
      "the message contains `\\n` (a backslash and an n), which git keeps as two characters, not a line break; " +
        "for a body give -m again per paragraph (`-m subject -m body`) or pass the message on stdin with -F -. " +
        "Fix it with `git commit --amend -m … -m …`.",
    );
  }
  return parts.join("\n\n");
}

export const commit: Handler<typeof commitFlags> = async (ctx) => {
  const { repo, policy, rel } = await openFromFlags(ctx);
  const author = authorOf(ctx, repo);
  // --author names the author only; the committer is the repository's identity, as in git.
  const committer = repositoryIdentity(repo.config, ctx.config, "committer");
  const warnings: string[] = [];
  let message = commitMessage(ctx, warnings);
  const amend = ctx.flags.amend;
  // git refuses to amend in the middle of a cherry-pick ("cannot amend"): the amend would rewrite HEAD and
  // end the pick without its commit.
  if (amend && sequenceCommit(repo, "cherry-pick") !== null) {
    throw new PtermError(
      "UncommittedChanges",
      "a cherry-pick is in progress, and git does not amend in the middle of one; finish it with " +
        "`git cherry-pick --continue` (or end it with `git cherry-pick --skip` or `--abort`) before amending.",
    );
  }
  // Concluding a merge, cherry-pick or revert (or a rebase's stopped pick): git's message is the one it prepared,
  // as git's editor saves it unchanged — its comment lines (`# Conflicts:`) stripped.
  if (message === null && !amend) {
    const prepared = sequenceInProgress(repo) ? preparedMessage(repo) : squashMessage(repo);
    message = prepared === null ? null : concludingMessage(prepared);
  }
  if (message === null && !amend) {
    throw new PtermError(
      "InvalidArgs",
      'git commit needs a message: `git commit -m "subject"` (or -m twice for a body, or -F - with the message on stdin).',
    );
  }
  const only = userPaths(ctx.flags.path);
  if (only.length && ctx.flags.all) {
    throw new PtermError("InvalidArgs", "give paths or -a, not both: `git commit -a` commits every tracked change.");
  }
  // git's summary shows the author date when the commit takes another's (--amend, a cherry-pick concluded),
  // and names a branch's first commit `(root-commit)`.
  const showDate = amend || sequenceInProgress(repo) === "cherry-pick";
  const initial = !amend && readHead(repo).oid === null;
  const id = await withRepoLock(repo, async () => {
    let index = loadIndex(repo);
    if (ctx.flags.all) await stageTracked(ctx, repo, index, policy, []);
    if (only.length) {
      // `git commit <paths>`: those paths as they are in the work tree, the rest as HEAD has it.
      for (const spec of only) {
        const hidden = spec === "" ? null : policy.hidden(spec);
        if (hidden) throw hiddenPathDenied(spec, hidden, "it is never committed");
      }
      const tracked = (p: string, spec: string) => spec === "" || pathWithin(p, spec);
      const exists = (p: string) => lstatTracked(repo, p) !== null;
      const files = await partialCommitFiles(repo, index, only, tracked, exists);
      if (files.length) await stage(repo, index, policy, files, { signal: ctx.signal });
      index = await onlyPathsIndex(repo, index, only, tracked);
    }
    if (message === null) {
      const head = readHead(repo).oid;
      if (!head) throw new PtermError("NothingToCommit", "there is no commit to amend yet; make the first one.");
      message = (await readCommit(repo, head)).message;
    }
    if (ctx.flags.signoff) message = withSignoff(message, author);
    return await commitIndex(repo, index, {
      message,
      author,
      committer,
      ...(amend ? {} : await sequenceCommitOptions(repo, ctx.flags.author !== undefined)),
      allowEmpty: ctx.flags["allow-empty"],
      amend: amend ? { keepAuthor: ctx.flags.author === undefined } : undefined,
    });
  });
  const made = describeCommit(id, await readCommit(repo, id));
  const branch = readHead(repo).branch;
  const hooks = skippedHooks(
    repo,
    ctx.flags["no-verify"]
      ? ["prepare-commit-msg", "post-commit"]
      : ["pre-commit", "prepare-commit-msg", "commit-msg", "post-commit"],
  );
  if (hooks) warnings.push(hooks);
  ctx.stdout.write(await commitSummaryText(repo, id, { showDate, initial }));
  for (const warning of warnings) ctx.stderr.write(`[Warning] ${warning}\n`);
  return {
    repo_path: rel,
    commit_id: id,
    short_id: made.short_id,
    branch,
    parents: made.parents,
    subject: made.subject,
    amended: amend,
    warnings,
  };
};

/** git's `-s`: a `Signed-off-by:` trailer, in the trailer block if the message ends with one. */
export function withSignoff(message: string, author: GitAuthor): string {
  const line = `Signed-off-by: ${author.name} <${author.email}>`;
  const trimmed = message.replace(/\s+$/, "");
  if (trimmed.split("\n").includes(line)) return trimmed + "\n";
  const paragraphs = trimmed.split(/\n\s*\n/);
  const last = paragraphs[paragraphs.length - 1];
  const isTrailerBlock = paragraphs.length > 1 && last.split("\n").every((l) => /^[A-Za-z0-9-]+: /.test(l));
  return `${trimmed}${isTrailerBlock ? "\n" : "\n\n"}${line}\n`;
}
