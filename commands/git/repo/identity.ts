/** Authors: `Name <email>` parsing, the pterm.json default, and signatures stamped in UTC. */

import { PtermError } from "../../../core/errors.ts";
import type { Signature } from "../odb/objects.ts";
import type { GitConfig } from "./config.ts";

export interface GitAuthor {
  name: string;
  email: string;
}

/** The author pterm uses when pterm.json has no `git.author`. */
export const DEFAULT_AUTHOR: GitAuthor = { name: "pterm", email: "pterm@localhost" };

export function parseAuthor(text: string): GitAuthor {
  const match = /^\s*([^<>]*?)\s*<([^<>\s]*)>\s*$/.exec(text);
  if (!match || match[1] === "" || /[\n\0]/.test(text)) {
    throw new PtermError(
      "InvalidArgs",
      `--author must look like "Name <email>" (e.g. --author "Ada Lovelace <ada@example.com>"), not \`${text}\`.`,
    );
  }
  return { name: match[1], email: match[2] };
}

/** The author from the `git` section of pterm.json (`{"author": {"name", "email"}}`), else DEFAULT_AUTHOR. */
export function authorFromConfig(section: unknown): GitAuthor {
  const author = (section as { author?: { name?: unknown; email?: unknown } } | undefined)?.author;
  if (author && typeof author.name === "string" && typeof author.email === "string" && author.name !== "") {
    return { name: author.name, email: author.email };
  }
  return { ...DEFAULT_AUTHOR };
}

/**
 * The identity a commit, tag, stash or reflog entry is made with, in git's order: the repository's own config
 * (`author.name`/`author.email` — `committer.*` for the committer — then `user.name`/`user.email`; the local
 * config with the worktree's config.worktree over it), then the `git` section of pterm.json, then DEFAULT_AUTHOR —
 * each of name and email on its own, as git looks each up on its own. An explicit `--author` (or
 * `-c user.name=… -c user.email=…`) wins for the author.
 */
export function repositoryIdentity(
  config: GitConfig,
  ptermSection: unknown,
  role: "author" | "committer" = "author",
): GitAuthor {
  const fallback = authorFromConfig(ptermSection);
  const name = config.get(`${role}.name`) ?? config.get("user.name");
  const email = config.get(`${role}.email`) ?? config.get("user.email");
  return {
    name: name !== undefined && name.trim() !== "" && !/[<>\n\0]/.test(name) ? name.trim() : fallback.name,
    email: email !== undefined && !/[<>\s\0]/.test(email) ? email : fallback.email,
  };
}

/** A signature for now, in UTC (pterm stamps every commit and tag in UTC). */
export function signatureNow(author: GitAuthor, now = Date.now()): Signature {
  return { name: author.name, email: author.email, timestamp: Math.floor(now / 1000), tzOffset: 0 };
}
