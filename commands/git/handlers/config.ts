/**
 * `config`: one git subcommand's handler (its declaration is under sub/).
 *
 * Reading: any key of the repository's own config (.git/config, with config.worktree over it when
 * extensions.worktreeConfig is on) — never the person's ~/.gitconfig, outside the workspace. Values that can hold
 * a credential (a URL's user:token@, a password, a token, an extra HTTP header) are printed redacted.
 * Writing: only keys that cannot make a person's git run a program or send anything elsewhere (WRITABLE); any
 * other key is refused by name (core.hooksPath, core.pager, alias.*, remote.*.url… run or reach out).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import { redactCredentials, REDACTED } from "../../../core/redact.ts";
import type { configFlags } from "../sub/config.ts";
import { parseConfig } from "../repo/config.ts";
import { configValueText, removeConfigValues, setConfigValues, splitConfigKey } from "../repo/config_edit.ts";
import { withRepoLock } from "../repo/state.ts";
import type { Repo } from "../repo/repo.ts";
import { openFromFlags } from "./common.ts";

/** Keys pterm writes (lower-cased; `*` one subsection): settings of identity and of texts, none that runs anything. */
const WRITABLE: readonly RegExp[] = [
  /^(user|author|committer)\.(name|email)$/,
  /^init\.defaultbranch$/,
  /^pull\.(rebase|ff)$/,
  /^push\.(default|autosetupremote)$/,
  /^fetch\.prune$/,
  /^branch\.autosetupmerge$/,
  /^branch\.[^\n]+\.(remote|merge|description)$/,
  /^core\.(autocrlf|eol|safecrlf)$/,
  /^status\.(showuntrackedfiles|renames|aheadbehind)$/,
  /^(diff\.(renames|algorithm)|merge\.conflictstyle|checkout\.(defaultremote|guess)|advice\.[a-z]+)$/,
];

/** Keys whose value is a credential however it is spelled. */
const SECRET_KEY = /(password|passwd|token|secret|extraheader|cookiefile|^credential\.)/i;

function lowerKey(key: string): string {
  const parts = splitConfigKey(key);
  if (!parts) return key.toLowerCase();
  const sub = parts.subsection === "" ? "" : `${parts.subsection}.`;
  return `${parts.section}.${sub}${parts.name.toLowerCase()}`;
}

function shown(key: string, value: string): string {
  if (SECRET_KEY.test(key)) return REDACTED;
  return redactCredentials(value, []);
}

/** The repository's config files in git's reading order (local, then the worktree's when enabled). */
function configFiles(repo: Repo, worktreeOnly: boolean): [string, string][] {
  const read = (path: string) => {
    try {
      return Deno.readTextFileSync(path);
    } catch {
      return null;
    }
  };
  const local = read(`${repo.commondir}/config`) ?? "";
  const files: [string, string][] = worktreeOnly ? [] : [["local", local]];
  if (parseConfig(local).getBool("extensions.worktreeconfig", false)) {
    const own = read(`${repo.gitdir}/config.worktree`);
    if (own !== null) files.push(["worktree", own]);
  } else if (worktreeOnly) files.push(["local", local]);
  return files;
}

/** Every `[key, value]` in reading order. */
function allEntries(repo: Repo, worktreeOnly: boolean): [string, string][] {
  const out: [string, string][] = [];
  for (const [, text] of configFiles(repo, worktreeOnly)) {
    for (const [key, values] of parseConfig(text).values) for (const value of values) out.push([key, value]);
  }
  return out;
}

function refuseWrite(key: string): never {
  throw new PtermError(
    "InvalidArgs",
    `pterm does not write \`${key}\`: it writes only keys that cannot make git run a program or reach elsewhere ` +
      "(user.name, user.email, init.defaultBranch, pull.rebase, push.default, branch.<name>.remote/merge, " +
      "core.autocrlf, …). Set it with the real git, or use pterm's own command for it (`git remote` for remotes, " +
      "`git branch --set-upstream-to` for upstreams).",
  );
}

export const config: Handler<typeof configFlags, readonly [{ name: "args"; description: string; variadic: true }]> =
  async (ctx) => {
    if (ctx.flags.global || ctx.flags.system) {
      throw new PtermError(
        "InvalidArgs",
        `--${ctx.flags.global ? "global" : "system"} is outside the workspace: pterm reads and writes the ` +
          "repository's own config only. Drop the flag (`git config --list` lists the repository's).",
      );
    }
    const { repo, rel } = await openFromFlags(ctx, "write");
    const words = [...ctx.positionals.args];
    let mode: "get" | "get-all" | "get-regexp" | "list" | "unset" | "set" | null = ctx.flags.list
      ? "list"
      : ctx.flags["get-regexp"]
      ? "get-regexp"
      : ctx.flags["get-all"]
      ? "get-all"
      : ctx.flags.unset
      ? "unset"
      : ctx.flags.get
      ? "get"
      : null;
    // git 2.46's spelling: `git config get|set|unset|list …`.
    if (mode === null && ["get", "set", "unset", "list"].includes(words[0] ?? "") && words.length >= 1) {
      mode = words.shift() as "get" | "set" | "unset" | "list";
    }
    if (mode === null) mode = words.length >= 2 ? "set" : "get";
    const worktreeOnly = ctx.flags.worktree;
    const inFiles = allEntries(repo, worktreeOnly);
    // Reading without a scope sees the call's own settings (git's `-c`) last, as git's command-line scope;
    // --local and --worktree read their file only, and unset/set look at the file.
    const entries: [string, string][] = ctx.flags.local || worktreeOnly
      ? inFiles
      : [...inFiles, ...repo.commandLine.map(([key, value]): [string, string] => [lowerKey(key), value])];
    if (mode === "list") {
      if (words.length) throw new PtermError("InvalidArgs", "`git config --list` takes no key.");
      const lines = entries.map(([key, value]) => `${key}=${shown(key, value)}`);
      ctx.stdout.write(lines.map((l) => `${l}\n`).join(""));
      return { repo_path: rel, action: "list", key: null, values: lines };
    }
    const key = words[0];
    if (key === undefined) {
      throw new PtermError("InvalidArgs", "name the key: `git config user.name` (or `git config --list`).");
    }
    if (mode === "get-regexp") {
      let pattern: RegExp;
      try {
        pattern = new RegExp(key);
      } catch {
        throw new PtermError("InvalidArgs", `\`${key}\` is not a valid regular expression.`);
      }
      const lines = entries.filter(([k]) => pattern.test(k)).map(([k, v]) => `${k} ${shown(k, v)}`);
      if (lines.length === 0) throw new PtermError("NotFound", `no key of the repository's config matches ${key}.`);
      ctx.stdout.write(lines.map((l) => `${l}\n`).join(""));
      return { repo_path: rel, action: "get-regexp", key, values: lines };
    }
    if (!splitConfigKey(key)) {
      throw new PtermError("InvalidArgs", `\`${key}\` is not a config key (section.name, e.g. user.name).`);
    }
    const wanted = lowerKey(key);
    if (mode === "get" || mode === "get-all") {
      if (words.length > 1) {
        throw new PtermError("InvalidArgs", `reading takes one key; to set it: \`git config ${key} <value>\`.`);
      }
      const values = entries.filter(([k]) => k === wanted).map(([k, v]) => shown(k, v));
      if (values.length === 0) {
        throw new PtermError(
          "NotFound",
          `${key} is not set in the repository's config (pterm reads the repository's own config, not ~/.gitconfig). ` +
            "`git config --list` lists what is set.",
        );
      }
      const out = mode === "get" ? values.slice(-1) : values;
      ctx.stdout.write(out.map((v) => `${v}\n`).join(""));
      return { repo_path: rel, action: mode, key: wanted, values: out };
    }
    if (worktreeOnly) {
      throw new PtermError("InvalidArgs", "pterm writes the repository's .git/config only; drop --worktree.");
    }
    if (!WRITABLE.some((rule) => rule.test(wanted))) refuseWrite(key);
    const parts = splitConfigKey(key)!;
    if (mode === "unset") {
      if (words.length > 1) {
        throw new PtermError("InvalidArgs", `--unset takes the key only: \`git config --unset ${key}\`.`);
      }
      if (!inFiles.some(([k]) => k === wanted)) {
        throw new PtermError("NotFound", `${key} is not set in the repository's config; nothing to unset.`);
      }
      await withRepoLock(repo, () => removeConfigValues(repo, parts.section, parts.subsection, [parts.name]));
      return { repo_path: rel, action: "unset", key: wanted, values: [] };
    }
    if (words.length !== 2) {
      throw new PtermError("InvalidArgs", `give one value, quoted if it has spaces: \`git config ${key} "<value>"\`.`);
    }
    const value = words[1];
    if (/[\0]/.test(value)) throw new PtermError("InvalidArgs", "a config value cannot hold a NUL byte.");
    await withRepoLock(
      repo,
      () => setConfigValues(repo, parts.section, parts.subsection, [[parts.name, configValueText(value)]]),
    );
    return { repo_path: rel, action: "set", key: wanted, values: [shown(wanted, value)] };
  };
