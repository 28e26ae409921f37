/**
 * `reflog`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { reflogFlags } from "../sub/reflog.ts";
import { abbreviate } from "../odb/abbrev.ts";
import { readReflog } from "../repo/refs.ts";
import { dwimRef } from "../history/revparse.ts";
import { openFromFlags } from "./common.ts";

/** `git reflog [show] [<ref>] [-n N]`: git's `<abbrev> <ref>@{N}: <message>` lines, newest first. */
export const reflog: Handler<typeof reflogFlags, readonly [{ name: "args"; description: string; variadic: true }]> =
  async (ctx) => {
    const { repo, rel } = await openFromFlags(ctx, "read");
    const words = [...ctx.positionals.args];
    if (words[0] === "show") words.shift();
    if (words.length > 1) {
      throw new PtermError("InvalidArgs", "git reflog shows one ref: `git reflog [show] [<ref>]` (default HEAD).");
    }
    const spelled = words[0] ?? "HEAD";
    const ref = spelled === "HEAD" ? "HEAD" : dwimRef(repo, spelled);
    if (!ref) {
      throw new PtermError("NotFound", `there is no ref \`${spelled}\`; \`git branch --all\` lists them.`);
    }
    const entries = readReflog(repo, ref).reverse().slice(0, ctx.flags.max ?? Infinity).map((e, i) => ({
      selector: `${spelled}@{${i}}`,
      commit_id: e.newOid,
      previous: /^0{40}$/.test(e.oldOid) ? null : e.oldOid,
      message: e.message,
    }));
    ctx.stdout.write(
      entries.length
        ? entries.map((e) => `${abbreviate(repo, e.commit_id)} ${e.selector}: ${e.message}`).join("\n") + "\n"
        : `${spelled} has no reflog entries.\n`,
    );
    return { repo_path: rel, ref, entries };
  };
