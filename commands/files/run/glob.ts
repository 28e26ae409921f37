/**
 * Shell wildcards as the real tools match them: `fnmatch` for `find -name` and `grep --include`
 * (a `*` crosses dots, not slashes), and bash's globstar for `glob` (`**` is any number of folders;
 * names starting with a dot only when the pattern's segment does).
 */

function escapeRegex(char: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(char) ? `\\${char}` : char;
}

/** The regular expression of one wildcard segment (no `/` inside). */
function segmentSource(pattern: string, anyChar = "[^/]"): string {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === "*") out += `${anyChar}*`;
    else if (char === "?") out += anyChar;
    else if (char === "\\" && i + 1 < pattern.length) out += escapeRegex(pattern[++i]);
    else if (char === "[") {
      const close = pattern.indexOf("]", i + 2);
      if (close < 0) {
        out += "\\[";
        continue;
      }
      let body = pattern.slice(i + 1, close);
      const negated = body.startsWith("!") || body.startsWith("^");
      if (negated) body = body.slice(1);
      body = body.replace(/\[:(\w+):\]/g, (_, name: string) => CLASSES[name] ?? "").replace(/\\(?![\]\-^])/g, "\\\\");
      out += `[${negated ? "^" : ""}${body.replace(/^\]/, "\\]")}]`;
      i = close;
    } else out += escapeRegex(char);
  }
  return out;
}

const CLASSES: Record<string, string> = {
  alpha: "A-Za-z",
  digit: "0-9",
  alnum: "A-Za-z0-9",
  upper: "A-Z",
  lower: "a-z",
  space: " \\t\\n\\r\\f\\v",
  punct: "!-\\/:-@\\[-`{-~",
  xdigit: "0-9A-Fa-f",
};

/** `fnmatch(pattern, name, 0)`: the whole name; `ignoreCase` for `-iname`. */
export function nameMatcher(pattern: string, ignoreCase = false): (name: string) => boolean {
  const regex = new RegExp(`^${segmentSource(pattern)}$`, ignoreCase ? "is" : "s");
  return (name) => regex.test(name);
}

/** `find -path`: fnmatch without FNM_PATHNAME, so `*` crosses slashes too. */
export function pathMatcher(pattern: string): (path: string) => boolean {
  const regex = new RegExp(`^${segmentSource(pattern, ".")}$`, "s");
  return (path) => regex.test(path);
}

/**
 * A globstar pattern (`src/**\/*.ts`) as one regular expression over root-relative paths, and
 * the literal folder it starts from (where the walk begins).
 */
export function globMatcher(pattern: string): { base: string; match: (rel: string) => boolean } {
  const segments = pattern.split("/").filter((s) => s !== "" && s !== ".");
  const literal: string[] = [];
  for (const segment of segments) {
    if (/[*?[\\]/.test(segment)) break;
    literal.push(segment);
  }
  let source = "";
  segments.forEach((segment, i) => {
    const last = i === segments.length - 1;
    if (segment === "**") {
      // Zero or more folders, none of them hidden; at the end, the folder itself and everything below.
      if (!last) source += "(?:[^/.][^/]*/)*";
      else if (i === 0) source += "(?:[^/.][^/]*(?:/[^/.][^/]*)*)?";
      else source = `${source.slice(0, -1)}(?:/[^/.][^/]*)*`;
      return;
    }
    const hidden = segment.startsWith(".") ? "" : "(?!\\.)";
    source += `${hidden}${segmentSource(segment)}${last ? "" : "/"}`;
  });
  const regex = new RegExp(`^${source}$`, "s");
  return { base: literal.join("/") || ".", match: (rel) => regex.test(rel) };
}
