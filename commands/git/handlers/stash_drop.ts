/**
 * `stashDropHandler`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import type { stashRefFlags } from "../sub/stash.ts";
import { parseStashRef, stashDrop } from "../porcelain/stash.ts";
import { withRepoLock } from "../repo/state.ts";
import { openFromFlags } from "./common.ts";
import { droppedStashText, type Pos } from "./change_shared.ts";

export const stashDropHandler: Handler<typeof stashRefFlags, Pos<"stash">> = async (ctx) => {
  const { repo, rel } = await openFromFlags(ctx);
  const n = parseStashRef(ctx.positionals.stash as string | undefined);
  const oid = await withRepoLock(repo, () => stashDrop(repo, n));
  ctx.stdout.write(droppedStashText(ctx.positionals.stash as string | undefined, oid));
  return { repo_path: rel, stash: `stash@{${n}}`, commit_id: oid };
};
