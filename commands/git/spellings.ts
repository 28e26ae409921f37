/**
 * Real git's options before the subcommand, rewritten into pterm's words:
 * `git -C proj status` is `git status --repo proj`; `git --no-pager log` and `--no-color` change
 * nothing pterm prints and are dropped; `-c user.name=… -c user.email=…` become `--author` for
 * the subcommands that make commits or tags; `-c core.quotePath=…` becomes --quote-path for the
 * subcommands that print names. Anything else git takes there is refused with what to
 * run instead, never ignored with another meaning.
 */

import { PtermError } from "../../core/errors.ts";
import type { SpellingRewriter } from "../../core/declaration.ts";

/** Subcommands that record an author (a commit, a tag, a stash entry). */
const TAKES_AUTHOR = new Set(["commit", "merge", "revert", "tag", "stash", "var"]);

/**
 * Subcommands whose text prints path names, and so takes `-c core.quotePath=…` (as their --quote-path);
 * `stash` only as `stash show`. The others print no name that setting would change: it is dropped there.
 */
export const QUOTES_NAMES = new Set([
  "status",
  "diff",
  "show",
  "log",
  "ls-files",
  "ls-tree",
  "diff-tree",
  "cat-file",
  "grep",
  "blame",
  "apply",
  "clean",
  "rebase",
  "pull",
  "stash show",
]);

/** git's booleans (config.c's git_parse_maybe_bool): null for a word git refuses. */
function gitBool(value: string): boolean | null {
  const v = value.toLowerCase();
  if (v === "true" || v === "yes" || v === "on" || v === "1") return true;
  if (v === "" || v === "false" || v === "no" || v === "off" || v === "0") return false;
  return null;
}

/** Display options: pterm prints no colour and uses no pager, so these mean nothing here. */
const DISPLAY_WORDS = new Set(["--no-pager", "-P", "--no-color", "--color=never", "--no-optional-locks"]);

/** `-c` settings that only change how git displays things. */
function isDisplaySetting(key: string): boolean {
  return /^(color\.|pager\.|core\.pager$|advice\.|column\.|log\.decorate$|diff\.noprefix$)/i
    .test(key);
}

function refuse(message: string): never {
  throw new PtermError("InvalidArgs", `git: ${message}`, { helpFor: "git" });
}

export const gitSpellings: SpellingRewriter = {
  rewrite(words) {
    const rest = words.slice(1);
    const repoParts: string[] = [];
    const identity: { name?: string; email?: string } = {};
    let quotePath: boolean | undefined;
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
        const eq = setting.indexOf("=");
        const key = (eq < 0 ? setting : setting.slice(0, eq)).toLowerCase();
        const value = eq < 0 ? "" : setting.slice(eq + 1);
        if (key === "core.quotepath") {
          // `-c core.quotePath` alone means true, as in git; the last one given wins.
          const parsed = eq < 0 ? true : gitBool(value);
          if (parsed === null) refuse(`bad boolean config value '${value}' for 'core.quotepath': give true or false.`);
          quotePath = parsed;
          continue;
        }
        if (key.startsWith("column.") && !/(^|[\s,])(never|auto)($|[\s,])/i.test(value)) {
          refuse(
            `-c ${key}=${value} is not followed: pterm prints git's lists one per line, without columns; drop it.`,
          );
        }
        if (key === "user.name") identity.name = value;
        else if (key === "user.email") identity.email = value;
        else if (!isDisplaySetting(key)) {
          refuse(
            `-c ${key} is not applied by pterm: only user.name, user.email, core.quotePath and display settings ` +
              "(color.*, core.pager) are accepted before the subcommand. Drop it, or set what pterm reads in pterm.json's " +
              "git section (author, default_repo).",
          );
        }
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
    if (repoParts.length) added.push("--repo", repoParts.join("/"));
    const named = sub[0] === "stash" ? `stash ${sub[1] ?? ""}` : sub[0] ?? "";
    if (quotePath !== undefined && QUOTES_NAMES.has(named)) added.push(`--quote-path=${quotePath}`);
    if (identity.name !== undefined || identity.email !== undefined) {
      const stashPush = sub[0] === "stash" && (sub[1] === undefined || sub[1] === "push" || sub[1].startsWith("-"));
      if (TAKES_AUTHOR.has(sub[0] ?? "") && (sub[0] !== "stash" || stashPush)) {
        if (!identity.name || identity.email === undefined) {
          refuse("-c user.name=… and -c user.email=… set the author together; give both.");
        }
        added.push("--author", `${identity.name} <${identity.email}>`);
      }
    }
    return ["git", ...kept, ...added, ...paths];
  },
};
