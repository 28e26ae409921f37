/**
 * `stashClearHandler`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import type { stashRefFlags } from "../sub/stash.ts";
import { stashClear } from "../porcelain/stash.ts";
import { withRepoLock } from "../repo/state.ts";
import { openFromFlags, plural } from "./common.ts";

export const stashClearHandler: Handler<typeof stashRefFlags> = async (ctx) => {
  const { repo, rel } = await openFromFlags(ctx);
  const cleared = await withRepoLock(repo, () => stashClear(repo));
  ctx.stdout.write(`Cleared ${plural(cleared, "stash entry")}.\n`.replace("entrys", "entries"));
  return { repo_path: rel, cleared };
};
