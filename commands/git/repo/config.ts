/** A reader for git's config file format (enough for the keys pterm consults). */

export class GitConfig {
  /** `section.subsection.key` (section and key lower-cased) → values in file order. */
  readonly values = new Map<string, string[]>();

  get(key: string): string | undefined {
    const list = this.values.get(normalizeKey(key));
    return list?.[list.length - 1];
  }

  getBool(key: string, fallback: boolean): boolean {
    const value = this.get(key);
    if (value === undefined) return fallback;
    const v = value.toLowerCase();
    if (v === "" || v === "true" || v === "yes" || v === "on" || v === "1") return true;
    if (v === "false" || v === "no" || v === "off" || v === "0") return false;
    return fallback;
  }

  keys(): string[] {
    return [...this.values.keys()];
  }
}

function normalizeKey(key: string): string {
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
