/**
 * Real git's options before the subcommand, rewritten into pterm's words:
 * `git -C proj status` is `git status --repo proj`; `git --no-pager log` and `--no-color` change
 * nothing pterm prints and are dropped; `-c key=value` becomes `--config=key=value`, the setting for
 * this call (repo/command_line_config.ts says which are followed; display ones are dropped, the rest
 * refused by name; `-c user.name=…` is read as the repository's own identity is, for author and
 * committer alike). Anything else git takes there is refused with what to run instead, never
 * ignored with another meaning.
 */

import { PtermError } from "../../core/errors.ts";
import type { SpellingRewriter } from "../../core/declaration.ts";
import {
  isDisplaySetting,
  isFollowedSetting,
  OPENS_NO_REPOSITORY,
  parseSetting,
  refuseSetting,
} from "./repo/command_line_config.ts";

/** Display options: pterm prints no colour and uses no pager, so these mean nothing here. */
const DISPLAY_WORDS = new Set(["--no-pager", "-P", "--no-color", "--color=never", "--no-optional-locks"]);

function refuse(message: string): never {
  throw new PtermError("InvalidArgs", `git: ${message}`, { helpFor: "git" });
}

export const gitSpellings: SpellingRewriter = {
  rewrite(words) {
    const rest = words.slice(1);
    const repoParts: string[] = [];
    const settings: string[] = [];
    let i = 0;
    for (; i < rest.length; i++) {
      const word = rest[i];
      if (DISPLAY_WORDS.has(word) || word === "--paginate" || word === "-p") continue;
      if (word === "-C" || (word.startsWith("-C") && word.length > 2)) {
        const dir = word === "-C" ? rest[++i] : word.slice(2);
        if (dir === undefined) refuse("-C needs a folder: `git -C <repository> <subcommand> …`.");
        // As in git, each -C is taken relative to the one before; an empty one is ignored.
        if (dir !== "") repoParts.push(dir.replace(/\/+$/, ""));
        continue;
      }
      if (word === "-c" || (word.startsWith("-c") && word.length > 2 && word.includes("="))) {
        const setting = word === "-c" ? rest[++i] : word.slice(2);
        if (setting === undefined) refuse("-c needs a setting: `git -c user.name=Ada <subcommand> …`.");
        const [key, value] = parseSetting(setting);
        if (isDisplaySetting(key, value)) continue;
        if (!isFollowedSetting(key)) refuseSetting(key, value);
        settings.push(`${key}=${value}`);
        continue;
      }
      if (
        word === "--git-dir" || word.startsWith("--git-dir=") || word === "--work-tree" ||
        word.startsWith("--work-tree=")
      ) {
        refuse(`${word.split("=")[0]} is not taken: name the repository's top folder with --repo (or -C).`);
      }
      break;
    }
    const sub = rest.slice(i);
    if (sub[0] === "help") return ["git", ...sub.slice(1).filter((w) => !w.startsWith("-")), "--help"];
    if (sub[0] === "--version") {
      refuse(
        "pterm's git has no version of its own: `git --help` lists what it does (its repositories are git's format 0, SHA-1).",
      );
    }
    const dashes = sub.indexOf("--");
    const flags = dashes < 0 ? sub : sub.slice(0, dashes);
    const paths = dashes < 0 ? [] : sub.slice(dashes);
    // Display flags after the subcommand too (`git diff --no-color`), but never a path after `--`.
    const kept = flags.filter((w) => !DISPLAY_WORDS.has(w) && w !== "--color=auto" && w !== "--color=always")
      // `git apply -` names stdin, which `git apply` reads when it names no file.
      .filter((w, k) => !(sub[0] === "apply" && k > 0 && w === "-"));
    const added: string[] = [];
    if (repoParts.length && OPENS_NO_REPOSITORY.has(sub[0] ?? "")) {
      // The folder the words name (the last word that is no flag nor a flag's value), under -C's.
      const valued = /^(-b|--initial-branch|--branch|--template|--separate-git-dir|--depth|--origin|-o)$/;
      const named = sub.slice(1).filter((w, k, all) => !w.startsWith("-") && !valued.test(all[k - 1] ?? ""));
      const base = repoParts.join("/");
      const given = sub[0] === "init" ? named[0] : named[1];
      const target = given === undefined ? base : `${base}/${given}`;
      const line = sub[0] === "init"
        ? `git init ${target}`
        : sub[0] === "clone"
        ? `git clone ${named[0] ?? "<url>"} ${given === undefined ? `${base}/<name>` : target}`
        : `git ls-remote ${named[0] ?? "<url>"}`;
      refuse(`-C ${base} names a repository to work in, and \`git ${sub[0]}\` opens none: \`${line}\`.`);
    }
    if (repoParts.length) added.push("--repo", repoParts.join("/"));
    if (settings.length && OPENS_NO_REPOSITORY.has(sub[0] ?? "")) {
      // Only display settings (dropped above) mean something to a subcommand that opens no repository:
      // user.* and core.quotePath change nothing it prints, the rest would change what it writes.
      const kept = settings.filter((s) => !/^(user\.(name|email)|core\.quotepath)=/i.test(s));
      if (kept.length) {
        refuse(
          `-c ${kept[0]} is not applied to \`git ${sub[0]}\`: run it without, then set the setting in the ` +
            `repository (\`git config ${kept[0].replace("=", " ")}\`).`,
        );
      }
    } else for (const setting of settings) added.push(`--config=${setting}`);
    return ["git", ...kept, ...added, ...paths];
  },
};
