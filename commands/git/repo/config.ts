/** A reader for git's config file format (enough for the keys pterm consults). */

import { PtermError } from "../../../core/errors.ts";

export class GitConfig {
  /** `section.subsection.key` (section and key lower-cased) → values in file order. */
  readonly values = new Map<string, string[]>();
  /** Keys whose last value is the command line's (`override`), so a bad one is blamed on the call's words. */
  readonly #fromCommandLine = new Set<string>();

  get(key: string): string | undefined {
    const list = this.values.get(normalizeKey(key));
    return list?.[list.length - 1];
  }

  /**
   * A boolean as git reads one (config.c's git_config_bool): a key with no `=` is true, an empty value
   * false, true/yes/on and false/no/off in any case, or an integer (non-zero is true). Any other value
   * stops the call with git's own complaint, naming the key, where git dies too.
   */
  getBool(key: string, fallback: boolean): boolean {
    const value = this.get(key);
    if (value === undefined) return fallback;
    const parsed = parseGitBool(value);
    if (parsed === null && this.#fromCommandLine.has(normalizeKey(key))) {
      throw new PtermError(
        "InvalidArgs",
        `git: -c ${key}=${value}: bad boolean config value '${value}' for '${normalizeKey(key)}'; give true or false.`,
        { helpFor: "git" },
      );
    }
    if (parsed === null) {
      throw new PtermError(
        "InvalidConfig",
        `bad boolean config value '${value}' for '${normalizeKey(key)}': set it to true or false with the real git ` +
          `(\`git config ${normalizeKey(key)} false\`).`,
      );
    }
    return parsed;
  }

  /**
   * The settings of the command line (git's `-c key=value`, `-c key` alone for true) over the file's: each
   * is the last value of its key, as git reads the command line's scope after every file.
   */
  override(settings: readonly (readonly [key: string, value: string])[]): void {
    for (const [key, value] of settings) {
      const normalized = normalizeKey(key);
      this.#fromCommandLine.add(normalized);
      this.values.set(normalized, [...(this.values.get(normalized) ?? []), value]);
    }
  }

  keys(): string[] {
    return [...this.values.keys()];
  }
}

/** git's boolean words (config.c's git_parse_maybe_bool, then an integer): null for anything else. */
export function parseGitBool(value: string): boolean | null {
  const v = value.toLowerCase();
  if (v === "true" || v === "yes" || v === "on") return true;
  if (v === "" || v === "false" || v === "no" || v === "off") return false;
  if (/^[-+]?\d+[kmg]?$/i.test(v)) return !/^[-+]?0+[kmg]?$/i.test(v);
  return null;
}

export function normalizeKey(key: string): string {
  const first = key.indexOf(".");
  const last = key.lastIndexOf(".");
  if (first < 0) return key.toLowerCase();
  const section = key.slice(0, first).toLowerCase();
  const name = key.slice(last + 1).toLowerCase();
  const sub = first === last ? null : key.slice(first + 1, last);
  return sub === null ? `${section}.${name}` : `${section}.${sub}.${name}`;
}

function parseValue(raw: string): string {
  let out = "";
  let quoted = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === '"') {
      quoted = !quoted;
      continue;
    }
    if (c === "\\" && i + 1 < raw.length) {
      const n = raw[++i];
      out += n === "n" ? "\n" : n === "t" ? "\t" : n === "b" ? "\b" : n;
      continue;
    }
    if (!quoted && (c === "#" || c === ";")) break;
    out += c;
  }
  return quoted ? out : out.trim();
}

export function parseConfig(text: string): GitConfig {
  const config = new GitConfig();
  let section = "";
  for (const rawLine of text.split(/\r?\n/)) {
    let line = rawLine.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    if (line.startsWith("[")) {
      const close = line.indexOf("]");
      const header = line.slice(1, close);
      const match = /^([^\s"]+)(?:\s+"((?:[^"\\]|\\.)*)")?$/.exec(header.trim());
      if (match) {
        const sub = match[2]?.replace(/\\(.)/g, "$1");
        section = sub === undefined ? match[1].toLowerCase() : `${match[1].toLowerCase()}.${sub}`;
        // Legacy form [section.subsection]: the subsection is case-insensitive there.
        if (sub === undefined && match[1].includes(".")) {
          const dot = match[1].indexOf(".");
          section = `${match[1].slice(0, dot).toLowerCase()}.${match[1].slice(dot + 1).toLowerCase()}`;
        }
      }
      line = line.slice(close + 1).trim();
      if (line === "") continue;
    }
    const eq = line.indexOf("=");
    const name = (eq < 0 ? line : line.slice(0, eq)).trim().toLowerCase();
    const value = eq < 0 ? "true" : parseValue(line.slice(eq + 1));
    const key = `${section}.${name}`;
    const list = config.values.get(key);
    if (list) list.push(value);
    else config.values.set(key, [value]);
  }
  return config;
}
