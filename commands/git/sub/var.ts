/**
 * `git var`: its flags and declaration (the handler: handlers/var.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { authorFlag, handler, leaf, repoFlag } from "./common.ts";

export const varFlags = [repoFlag("read"), authorFlag] as const satisfies readonly FlagSpec[];

export const varSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "var",
  "Who a commit made now would name (GIT_AUTHOR_IDENT, GIT_COMMITTER_IDENT: `Name <email> <time> +0000`).",
  varFlags,
  [{ command: "git var GIT_AUTHOR_IDENT", description: "The author pterm's next commit records." }],
  {
    positionals: [{ name: "variable", required: true, description: "GIT_AUTHOR_IDENT or GIT_COMMITTER_IDENT." }],
    handler: handler("var", "gitVar"),
  },
);
