/**
 * `.gitattributes` as git's attr.c decides it. Files: `$GIT_DIR/info/attributes` (highest), then
 * the `.gitattributes` of the path's own folder, of its parent, … up to the top one. Within a
 * file a later line wins over an earlier one; an attribute once decided at a higher level is not
 * touched by lower ones. Patterns match as in .gitignore (a pattern without a slash matches the
 * base name at any depth, one with a slash is anchored to its file's folder); `!pattern` lines
 * are ignored, as git ignores them. `attr`, `-attr`, `!attr` (back to unspecified, which still
 * stops lower levels) and `attr=value`; macros: the built-in `binary` (`-diff -merge -text`)
 * and `[attr]name …` lines in the top `.gitattributes` or `info/attributes`.
 *
 * The per-user and system files (core.attributesFile, /etc/gitattributes) are outside the
 * workspace and not read.
 */

import { lenientDecoder } from "../odb/bytes.ts";
import { type IgnorePattern, patternMatches } from "./ignore.ts";

/** An attribute's state: set (true), unset (false), a value, or explicitly unspecified (null). */
export type AttrValue = boolean | string | null;

interface AttrRule {
  readonly pattern: IgnorePattern;
  /** In line order; applied last to first, as git does. */
  readonly states: readonly (readonly [string, AttrValue])[];
}

interface AttrFile {
  readonly rules: readonly AttrRule[];
  readonly macros: ReadonlyMap<string, readonly (readonly [string, AttrValue])[]>;
}

const BLANK = /[ \t\r\n]/;
const ATTR_NAME = /^[A-Za-z0-9_.][-A-Za-z0-9_.]*$/;
const BUILTIN_MACROS = new Map<string, readonly (readonly [string, AttrValue])[]>([
  ["binary", [["diff", false], ["merge", false], ["text", false]]],
]);

/** git's unquote_c_style for a quoted pattern; null when the quoting is broken. */
function unquote(text: string): { value: string; rest: string } | null {
  let out = "";
  const bytes: number[] = [];
  const flush = () => {
    if (bytes.length) out += lenientDecoder.decode(new Uint8Array(bytes.splice(0)));
  };
  for (let i = 1; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      flush();
      return { value: out, rest: text.slice(i + 1) };
    }
    if (c !== "\\") {
      flush();
      out += c;
      continue;
    }
    const n = text[++i];
    const simple: Record<string, string> = { a: "\x07", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v" };
    if (n === "\\" || n === '"') {
      flush();
      out += n;
    } else if (n in simple) {
      flush();
      out += simple[n];
    } else if (/[0-3]/.test(n ?? "") && /^[0-7]{2}$/.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i, i + 3), 8));
      i += 2;
    } else return null;
  }
  return null;
}

/** Parses one attributes file; `base` is its folder with a trailing slash ("" for the top). */
export function parseAttributes(text: string, base: string, macrosAllowed: boolean): AttrFile {
  const rules: AttrRule[] = [];
  const macros = new Map<string, readonly (readonly [string, AttrValue])[]>();
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  for (const raw of text.split("\n")) {
    let line = raw.replace(/^[ \t\r\n]+/, "");
    if (line === "" || line.startsWith("#")) continue;
    let name: string;
    let isMacro = false;
    if (line.startsWith("[attr]")) {
      isMacro = true;
      line = line.slice(6).replace(/^[ \t\r\n]+/, "");
      const end = line.search(BLANK);
      name = end < 0 ? line : line.slice(0, end);
      line = end < 0 ? "" : line.slice(end);
      if (!ATTR_NAME.test(name)) continue;
    } else if (line.startsWith('"')) {
      const unquoted = unquote(line);
      if (!unquoted) continue;
      name = unquoted.value;
      line = unquoted.rest;
    } else {
      const end = line.search(BLANK);
      name = end < 0 ? line : line.slice(0, end);
      line = end < 0 ? "" : line.slice(end);
    }
    const states: [string, AttrValue][] = [];
    let valid = true;
    for (const word of line.split(/[ \t\r\n]+/)) {
      if (word === "") continue;
      let attr = word;
      let value: AttrValue = true;
      const eq = word.indexOf("=");
      if (word[0] === "-" || word[0] === "!") {
        value = word[0] === "-" ? false : null;
        attr = word.slice(1);
      } else if (eq >= 0) {
        attr = word.slice(0, eq);
        value = word.slice(eq + 1);
      }
      // `-a=b` is a name with "=" in it: invalid, as in git.
      if (!ATTR_NAME.test(attr)) {
        valid = false;
        break;
      }
      states.push([attr, value]);
    }
    if (!valid) continue;
    if (isMacro) {
      if (macrosAllowed) macros.set(name, states);
      continue;
    }
    if (name.startsWith("!")) continue; // negative patterns are ignored in git attributes
    let pattern = name;
    let mustBeDir = false;
    if (pattern.endsWith("/")) {
      mustBeDir = true;
      pattern = pattern.slice(0, -1);
    }
    if (pattern === "") continue;
    rules.push({ pattern: { pattern, negative: false, mustBeDir, noDir: !pattern.includes("/"), base }, states });
  }
  return { rules, macros };
}

/**
 * Reads an attributes file: `folder` is the repository-relative folder ("" for the top) whose
 * `.gitattributes` is wanted, or null for `$GIT_DIR/info/attributes`. Null when there is none.
 */
export type AttrFileReader = (folder: string | null) => Promise<Uint8Array | null>;

export class Attributes {
  readonly #read: AttrFileReader;
  readonly #caseFold: boolean;
  readonly #files = new Map<string, Promise<AttrFile>>();
  /** The files of #files already read, by the same key: a lookup of a file in hand does not wait. */
  readonly #loaded = new Map<string, AttrFile>();
  /**
   * By folder of the paths asked about: the files that hold rules for them, in the order a lookup
   * reads them ($GIT_DIR/info/attributes, then the deepest folder's up to the top). Most folders of
   * most repositories have none, and a lookup there walks no folders and matches nothing.
   */
  readonly #chains = new Map<string, readonly AttrFile[]>();
  #macros: Promise<Map<string, readonly (readonly [string, AttrValue])[]>> | null = null;
  /** #macros once read. */
  #macrosLoaded: Map<string, readonly (readonly [string, AttrValue])[]> | null = null;

  constructor(read: AttrFileReader, caseFold: boolean) {
    this.#read = read;
    this.#caseFold = caseFold;
  }

  #file(folder: string | null): Promise<AttrFile> {
    const key = folder ?? "\0info";
    let file = this.#files.get(key);
    if (!file) {
      const read = this.#read(folder).then((bytes) => {
        const parsed: AttrFile = bytes
          ? parseAttributes(lenientDecoder.decode(bytes), folder ? `${folder}/` : "", folder === null || folder === "")
          : { rules: [], macros: new Map() };
        // Still the file asked for (not forgotten meanwhile): later lookups take it without waiting.
        if (this.#files.get(key) === read) this.#loaded.set(key, parsed);
        return parsed;
      });
      file = read;
      this.#files.set(key, file);
    }
    return file;
  }

  #allMacros() {
    if (this.#macros) return this.#macros;
    const macros = (async () => {
      const all = new Map(BUILTIN_MACROS);
      for (const [name, states] of (await this.#file("")).macros) all.set(name, states);
      for (const [name, states] of (await this.#file(null)).macros) all.set(name, states);
      return all;
    })();
    this.#macros = macros;
    void macros.then((all) => {
      if (this.#macros === macros) this.#macrosLoaded = all;
    }, () => {});
    return macros;
  }

  /** Drops what was read of `folder`'s file (it is about to change). */
  forget(folder: string): void {
    this.#chains.clear();
    this.#files.delete(folder);
    this.#loaded.delete(folder);
    if (folder === "") {
      this.#macros = null;
      this.#macrosLoaded = null;
    }
  }

  /** The files with rules that apply below `folder`, read in lookup order (see #chains). */
  async #chain(folder: string): Promise<readonly AttrFile[]> {
    const known = this.#chains.get(folder);
    if (known) return known;
    const folders: (string | null)[] = [null];
    const parts = folder === "" ? [] : folder.split("/");
    for (let i = parts.length; i >= 0; i--) folders.push(parts.slice(0, i).join("/"));
    const files: AttrFile[] = [];
    for (const each of folders) {
      const file = this.#loaded.get(each ?? "\0info") ?? await this.#file(each);
      if (file.rules.length > 0) files.push(file);
    }
    this.#chains.set(folder, files);
    return files;
  }

  /** The attributes of the file at `path`: each decided attribute with its state. */
  async get(path: string): Promise<Map<string, AttrValue>> {
    const slash = path.lastIndexOf("/");
    const chain = await this.#chain(slash < 0 ? "" : path.slice(0, slash));
    const decided = new Map<string, AttrValue>();
    if (chain.length === 0) return decided;
    const macros = this.#macrosLoaded ?? await this.#allMacros();
    const fill = (states: readonly (readonly [string, AttrValue])[], depth: number) => {
      for (let i = states.length - 1; i >= 0; i--) {
        const [attr, value] = states[i];
        if (decided.has(attr)) continue;
        decided.set(attr, value);
        const macro = macros.get(attr);
        if (macro && value === true && depth < 20) fill(macro, depth + 1);
      }
    };
    for (const file of chain) {
      for (let i = file.rules.length - 1; i >= 0; i--) {
        const rule = file.rules[i];
        if (patternMatches(rule.pattern, path, false, this.#caseFold)) fill(rule.states, 0);
      }
    }
    return decided;
  }
}
