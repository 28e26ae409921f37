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
  ctx.stdout.write(
    entries.length ? entries.map((e) => `${e.ref}: ${e.message}`).join("\n") + "\n" : "The stash is empty.\n",
  );
  return { repo_path: rel, entries };
};
