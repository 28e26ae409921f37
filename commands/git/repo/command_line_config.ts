/**
 * git's `-c key=value` before the subcommand: which settings pterm follows for one call (read over the
 * repository's config, exactly where the file's would be), which only change how git displays things
 * and mean nothing here (no colour, no pager, no columns), and which are refused by name. A setting
 * is never accepted and then ignored.
 *
 * The followed ones change what pterm prints or how it reads and writes the work tree, and nothing
 * else: never where the repository is (core.worktree, core.bare, extensions.*), never what runs
 * (core.hooksPath, filters, aliases), never where the network goes (remote.*.url, http.*).
 */

import { PtermError } from "../../../core/errors.ts";
import type { CommandLineSetting } from "./repo.ts";

/** The settings a call follows, as git spells them (`advice.*`: every hint git's texts name). */
export const FOLLOWED_SETTINGS = [
  "user.name",
  "user.email",
  "core.quotePath",
  "core.abbrev",
  "core.autocrlf",
  "core.safecrlf",
  "core.eol",
  "core.fileMode",
  "status.showUntrackedFiles",
  "status.renames",
  "status.aheadBehind",
  "log.decorate",
  "log.date",
  "log.abbrevCommit",
  "format.pretty",
  "diff.renames",
  "diff.algorithm",
  "diff.ignoreSubmodules",
  "diff.noprefix",
  "diff.mnemonicPrefix",
  "merge.conflictStyle",
  "branch.sort",
  "tag.sort",
  "branch.autoSetupMerge",
  "checkout.guess",
  "fetch.prune",
  "push.default",
  "pull.rebase",
  "advice.*",
] as const;

const FOLLOWED = new Set(FOLLOWED_SETTINGS.filter((k) => !k.endsWith("*")).map((k) => k.toLowerCase()));

/** Subcommands that open no existing repository, so no setting of theirs is read over one. */
export const OPENS_NO_REPOSITORY = new Set(["clone", "init", "ls-remote"]);

/** Whether pterm reads `key` (any case) for a call when the command line sets it. */
export function isFollowedSetting(key: string): boolean {
  const lower = key.toLowerCase();
  return FOLLOWED.has(lower) || /^advice\.[a-z0-9-]+$/.test(lower);
}

/** Settings that only change how git displays its text: colour, pager, columns off. */
export function isDisplaySetting(key: string, value: string): boolean {
  const lower = key.toLowerCase();
  if (/^column\./.test(lower)) return /(^|[\s,])(never|auto)($|[\s,])/i.test(value);
  return /^(color\.|pager\.|core\.pager$)/.test(lower);
}

/** `key=value` (`key` alone: true, as git reads `-c key`) as one setting; the key must be section.name. */
export function parseSetting(text: string): CommandLineSetting {
  const eq = text.indexOf("=");
  const key = eq < 0 ? text : text.slice(0, eq);
  if (!/^[A-Za-z][A-Za-z0-9-]*\.(.*\.)?[A-Za-z][A-Za-z0-9-]*$/s.test(key)) {
    throw new PtermError(
      "InvalidArgs",
      `git: -c ${text}: a setting is section.name=value, as \`git -c core.quotePath=false status\`.`,
      { helpFor: "git" },
    );
  }
  return [key, eq < 0 ? "true" : text.slice(eq + 1)];
}

/** The refusal of a setting pterm does not follow: what is followed, and what to do instead. */
export function refuseSetting(key: string, value: string): never {
  if (/^column\./i.test(key)) {
    throw new PtermError(
      "InvalidArgs",
      `git: -c ${key}=${value} is not followed: pterm prints git's lists one per line, without columns; drop it.`,
      { helpFor: "git" },
    );
  }
  throw new PtermError(
    "InvalidArgs",
    `git: -c ${key} is not applied by pterm. It follows these settings for one call: ${
      FOLLOWED_SETTINGS.join(", ")
    }; and accepts display ones (color.*, pager.*, core.pager, column.* never/auto). Drop it, or set what pterm ` +
      "reads in pterm.json's git section (author, default_repo).",
    { helpFor: "git" },
  );
}

/**
 * The call's `--config` values (what git's `-c` becomes), each checked: a setting pterm does not follow
 * is refused here too, whoever spelled it, so that no setting reaches the repository's reading unchecked.
 */
export function commandLineSettings(values: readonly string[] | undefined): CommandLineSetting[] {
  const settings: CommandLineSetting[] = [];
  for (const text of values ?? []) {
    const [key, value] = parseSetting(text);
    if (!isFollowedSetting(key)) refuseSetting(key, value);
    settings.push([key, value]);
  }
  return settings;
}
