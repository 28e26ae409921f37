/**
 * git's wildmatch (the glob of .gitignore and pathspecs): `*`, `?`, `[...]` with ranges,
 * negation and [:classes:], backslash escapes, and `**` that spans folders when it stands
 * alone between slashes. With `pathname`, `*`, `?` and brackets never match `/`.
 */

const MATCH = 0;
const NOMATCH = 1;
const ABORT_ALL = -1;
const ABORT_TO_STARSTAR = -2;

export interface WildmatchOptions {
  readonly pathname: boolean;
  readonly caseFold?: boolean;
}

const CLASSES: Record<string, (c: string) => boolean> = {
  alnum: (c) => /[A-Za-z0-9]/.test(c),
  alpha: (c) => /[A-Za-z]/.test(c),
  blank: (c) => c === " " || c === "\t",
  cntrl: (c) => c.charCodeAt(0) < 32 || c.charCodeAt(0) === 127,
  digit: (c) => /[0-9]/.test(c),
  graph: (c) => c.charCodeAt(0) > 32 && c.charCodeAt(0) < 127,
  lower: (c) => /[a-z]/.test(c),
  print: (c) => c.charCodeAt(0) >= 32 && c.charCodeAt(0) < 127,
  punct: (c) => /[!-/:-@[-`{-~]/.test(c),
  space: (c) => /[ \t\n\r\v\f]/.test(c),
  upper: (c) => /[A-Z]/.test(c),
  xdigit: (c) => /[0-9A-Fa-f]/.test(c),
};

function isGlobSpecial(c: string | undefined): boolean {
  return c === "*" || c === "?" || c === "[" || c === "\\";
}

function dowild(p: string, pi: number, t: string, ti: number, flags: WildmatchOptions): number {
  const fold = flags.caseFold ?? false;
  const low = (c: string) => (fold ? c.toLowerCase() : c);
  for (; pi < p.length; pi++, ti++) {
    let pc = p[pi];
    const tc0 = t[ti];
    if (tc0 === undefined && pc !== "*") return ABORT_ALL;
    const tc = tc0 === undefined ? "" : low(tc0);
    switch (pc) {
      case "\\":
        pc = p[++pi] ?? "";
        if (tc !== low(pc)) return NOMATCH;
        continue;
      case "?":
        if (flags.pathname && tc === "/") return NOMATCH;
        continue;
      case "*": {
        let matchSlash: boolean;
        if (p[pi + 1] === "*") {
          const prev = pi - 1;
          pi++;
          while (p[pi + 1] === "*") pi++;
          const after = p[pi + 1];
          if (
            (prev < 0 || p[prev] === "/") &&
            (after === undefined || after === "/" || (after === "\\" && p[pi + 2] === "/"))
          ) {
            if (after === "/" && dowild(p, pi + 2, t, ti, flags) === MATCH) return MATCH;
            matchSlash = true;
          } else {
            matchSlash = !flags.pathname;
          }
        } else {
          matchSlash = !flags.pathname;
        }
        pi++;
        if (pi >= p.length) {
          if (!matchSlash && t.indexOf("/", ti) >= 0) return NOMATCH;
          return MATCH;
        }
        if (!matchSlash && p[pi] === "/") {
          // One `*` then `/`: the star takes the rest of this folder name; the loop's step matches the slashes.
          const slash = t.indexOf("/", ti);
          if (slash < 0) return NOMATCH;
          ti = slash;
          continue;
        }
        for (;;) {
          if (ti >= t.length) break;
          let cur = low(t[ti]);
          if (!isGlobSpecial(p[pi])) {
            const want = low(p[pi]);
            while (ti < t.length && (matchSlash || t[ti] !== "/")) {
              cur = low(t[ti]);
              if (cur === want) break;
              ti++;
            }
            if (ti >= t.length || low(t[ti]) !== want) return matchSlash ? ABORT_ALL : ABORT_TO_STARSTAR;
            cur = low(t[ti]);
          }
          const matched = dowild(p, pi, t, ti, flags);
          if (matched !== NOMATCH) {
            if (!matchSlash || matched !== ABORT_TO_STARSTAR) return matched;
          } else if (!matchSlash && cur === "/") {
            return ABORT_TO_STARSTAR;
          }
          ti++;
        }
        return ABORT_ALL;
      }
      case "[": {
        pi++;
        let pch = p[pi];
        if (pch === "^") pch = "!";
        const negated = pch === "!";
        if (negated) pch = p[++pi];
        let prevCh = "";
        let matched = false;
        let first = true;
        for (;;) {
          if (pch === undefined) return ABORT_ALL;
          if (!first && pch === "]") break;
          first = false;
          if (pch === "\\") {
            pch = p[++pi];
            if (pch === undefined) return ABORT_ALL;
            if (tc === low(pch)) matched = true;
          } else if (pch === "-" && prevCh && p[pi + 1] !== undefined && p[pi + 1] !== "]") {
            pi++;
            let hi = p[pi];
            if (hi === "\\") {
              hi = p[++pi];
              if (hi === undefined) return ABORT_ALL;
            }
            if (tc0 !== undefined && tc0 <= hi && tc0 >= prevCh) matched = true;
            else if (fold && tc0 !== undefined) {
              const lc = tc0.toLowerCase();
              const uc = tc0.toUpperCase();
              if ((lc <= hi && lc >= prevCh) || (uc <= hi && uc >= prevCh)) matched = true;
            }
            pch = "";
          } else if (pch === "[" && p[pi + 1] === ":") {
            const start = pi + 2;
            let end = start;
            while (end < p.length && p[end] !== "]") end++;
            if (end >= p.length) return ABORT_ALL;
            if (end - start - 1 < 0 || p[end - 1] !== ":") {
              // No ":]": an ordinary `[` in the set.
              if (tc === "[") matched = true;
            } else {
              const name = p.slice(start, end - 1);
              const test = CLASSES[name];
              if (!test) return ABORT_ALL;
              if (tc0 !== undefined && (test(tc0) || (fold && name === "upper" && /[a-z]/.test(tc0)))) matched = true;
              pi = end;
              pch = "";
            }
          } else if (tc === low(pch)) {
            matched = true;
          }
          prevCh = pch;
          pch = p[++pi];
        }
        if (matched === negated || (flags.pathname && tc === "/")) return NOMATCH;
        continue;
      }
      default:
        if (tc !== low(pc)) return NOMATCH;
    }
  }
  return ti < t.length ? NOMATCH : MATCH;
}

export function wildmatch(pattern: string, text: string, flags: WildmatchOptions): boolean {
  return dowild(pattern, 0, text, 0, flags) === MATCH;
}
