/**
 * `init`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { initFlags } from "../sub/init.ts";
import { checkBranchName } from "../repo/refs.ts";
import { excludePtermState, gitPath, initRepo, openRepo } from "../repo/repo.ts";

export const init: Handler<typeof initFlags> = async (ctx) => {
  const branch = ctx.flags["initial-branch"];
  checkBranchName(branch);
  const dir = ctx.flags.dir ?? ".";
  const confined = await ctx.workspace.resolve(dir, "write", { label: "--dir" });
  if (confined.exists && !Deno.statSync(confined.abs).isDirectory) {
    throw new PtermError("AlreadyExists", `--dir ${dir} exists and is a file; choose a folder.`);
  }
  const { created } = initRepo(confined.abs, branch);
  // A repository at the workspace root keeps pterm's own state out of real git's view.
  if (confined.rel === ".") excludePtermState(openRepo(confined.abs, ".", ctx.workspace.root).commondir);
  const gitDir = confined.rel === "." ? ".git" : `${confined.rel}/.git`;
  let initialBranch = branch;
  if (!created) {
    // Through openRepo: a gitfile's git folder is found (and confined) as for any other command.
    const existing = openRepo(confined.abs, confined.rel, ctx.workspace.root);
    const head = Deno.readTextFileSync(gitPath(existing, "HEAD")).trim();
    initialBranch = head.startsWith("ref: refs/heads/") ? head.slice("ref: refs/heads/".length) : branch;
  }
  ctx.stdout.write(
    created
      ? `Initialized empty Git repository in ${gitDir}/ (branch ${branch})\n`
      : `${confined.rel} already is a git repository; left it unchanged.\n`,
  );
  return { repo_path: confined.rel, git_dir: gitDir, created, initial_branch: initialBranch };
};
