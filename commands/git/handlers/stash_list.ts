/**
 * `stashList`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import type { stashRefFlags } from "../sub/stash.ts";
import { listStash } from "../porcelain/stash.ts";
import { openFromFlags } from "./common.ts";

export const stashList: Handler<typeof stashRefFlags> = async (ctx) => {
  const { repo, rel } = await openFromFlags(ctx, "read");
  const entries = listStash(repo);
  // git's `%gd: %gs` per entry; an empty stash lists nothing, as git's.
  ctx.stdout.write(entries.map((e) => `${e.ref}: ${e.message}\n`).join(""));
  return { repo_path: rel, entries };
};
