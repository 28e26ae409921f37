/**
 * The ignore files `search` honours as ripgrep does: `.gitignore` inside a git work tree,
 * `.ignore` and `.rgignore` anywhere; a deeper file's rules win, and within one file the last
 * matching rule (a `!` rule un-ignores).
 */

import { join } from "../../../core/fs/path.ts";

interface Rule {
  readonly regex: RegExp;
  readonly negated: boolean;
  readonly dirOnly: boolean;
}

/** One ignore file's rules, relative to the folder holding it. */
function parseRules(text: string): Rule[] {
  const rules: Rule[] = [];
  for (let line of text.split(/\r?\n/)) {
    if (line === "" || line.startsWith("#")) continue;
    line = line.replace(/(?<!\\)\s+$/, "");
    if (line === "") continue;
    let negated = false;
    if (line.startsWith("!")) {
      negated = true;
      line = line.slice(1);
    } else if (line.startsWith("\\!") || line.startsWith("\\#")) line = line.slice(1);
    let dirOnly = false;
    if (line.endsWith("/")) {
      dirOnly = true;
      line = line.slice(0, -1);
    }
    const anchored = line.includes("/");
    if (line.startsWith("/")) line = line.slice(1);
    let source = "";
    for (let i = 0; i < line.length; i++) {
      const char = line[i];
      if (char === "*" && line[i + 1] === "*") {
        const before = i === 0 || line[i - 1] === "/";
        const after = i + 2 === line.length || line[i + 2] === "/";
        if (before && after) {
          if (i + 2 === line.length) source += ".*";
          else {
            source += "(?:.*/)?";
            i += 2; // the slash after `**`
            continue;
          }
          i++;
          continue;
        }
      }
      if (char === "*") source += "[^/]*";
      else if (char === "?") source += "[^/]";
      else if (char === "[") {
        const close = line.indexOf("]", i + 2);
        if (close < 0) source += "\\[";
        else {
          source += `[${line.slice(i + 1, close).replace(/^!/, "^").replace(/\\/g, "\\\\")}]`;
          i = close;
        }
      } else if (char === "\\" && i + 1 < line.length) source += `\\${line[++i]}`;
      else source += char.replace(/[.+^${}()|/]/g, "\\$&");
    }
    const prefix = anchored ? "^" : "^(?:.*/)?";
    rules.push({ regex: new RegExp(`${prefix}${source}$`, "s"), negated, dirOnly });
  }
  return rules;
}

interface Layer {
  /** The folder of the ignore file, root-relative (`.` for the root). */
  readonly dir: string;
  readonly rules: readonly Rule[];
}

/** The ignore rules in force in one folder of the walk: its ancestors' and its own. */
export class IgnoreStack {
  constructor(private readonly layers: readonly Layer[] = [], private readonly inGitTree = false) {}

  /** The stack for a child folder `rel` (real location `abs`), reading its ignore files. */
  enter(rel: string, abs: string, read: (abs: string) => string | null): IgnoreStack {
    const inGit = this.inGitTree || exists(join(abs, ".git"));
    const names = [...(inGit ? [".gitignore"] : []), ".ignore", ".rgignore"];
    const rules = names.flatMap((name) => {
      const text = read(join(abs, name));
      return text === null ? [] : parseRules(text);
    });
    return new IgnoreStack(rules.length ? [...this.layers, { dir: rel, rules }] : this.layers, inGit);
  }

  ignored(rel: string, isDir: boolean): boolean {
    for (let l = this.layers.length - 1; l >= 0; l--) {
      const layer = this.layers[l];
      const local = layer.dir === "." ? rel : rel.slice(layer.dir.length + 1);
      for (let r = layer.rules.length - 1; r >= 0; r--) {
        const rule = layer.rules[r];
        if (rule.dirOnly && !isDir) continue;
        if (rule.regex.test(local)) return !rule.negated;
      }
    }
    return false;
  }
}

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
