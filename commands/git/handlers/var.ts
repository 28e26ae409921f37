/**
 * `gitVar`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { varFlags } from "../sub/var.ts";
import { formatSignature } from "../odb/objects.ts";
import { signatureNow } from "../repo/identity.ts";
import { authorOf, openFromFlags } from "./common.ts";

const IDENTS = new Set(["GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"]);

export const gitVar: Handler<typeof varFlags, readonly [{ name: "variable"; description: string; required: true }]> =
  async (ctx) => {
    const { repo, rel } = await openFromFlags(ctx, "read");
    const variable = ctx.positionals.variable;
    if (!IDENTS.has(variable)) {
      throw new PtermError(
        "InvalidArgs",
        `pterm's git var knows GIT_AUTHOR_IDENT and GIT_COMMITTER_IDENT: \`git var GIT_AUTHOR_IDENT\`.`,
      );
    }
    // The identity a commit made by this call would record: the same rule as `git commit` (--author, else the
    // repository's config, else pterm.json).
    const ident = formatSignature(signatureNow(authorOf(ctx, repo)));
    ctx.stdout.write(ident + "\n");
    return { repo_path: rel, variable, value: ident };
  };
