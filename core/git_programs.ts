/**
 * What a person's real git executes from the workspace: the folder a work tree's `core.hooksPath`
 * names (husky, `.githooks`), and the program files its config names by path (core.fsmonitor,
 * core.sshCommand, filter drivers, ...). An agent that writes there — a new executable
 * `.githooks/pre-commit`, an edited `tools/fsmonitor.sh` — has the person's next `git commit` or
 * `git status` run its code. These paths are protected like `.git`: no command writes them.
 *
 * The rule is decided here, once, for every writer (patch, `doc --out`, git's work-tree writer):
 * for a path about to be written, every work tree that contains it (a folder with `.git`, from
 * the path up to the root) is asked what its config makes git execute.
 */

import { PtermError } from "./errors.ts";
import { basename, dirname, join, resolve } from "./fs/path.ts";

/** Config settings whose value is a shell command git runs (its first word a program, maybe a path). */
const PROGRAM_SETTINGS = [
  /^core\.(?:fsmonitor|sshcommand|editor|pager|askpass)$/,
  /^sequence\.editor$/,
  /^gpg(?:\.[^.]+)?\.program$/,
  /^credential(?:\..+)?\.helper$/,
  /^filter\..+\.(?:clean|smudge|process)$/,
  /^diff\..+\.(?:textconv|command)$/,
  /^diff\.external$/,
  /^merge\..+\.driver$/,
];

const MAX_CONFIG_BYTES = 1 << 20;

/** lstat, null when nothing can be there (absent, a name too long, a parent that is a file). */
function lstatOrNull(path: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(path);
  } catch {
    return null;
  }
}

/** Reads a small text file inside `root`, or null (absent, too large, outside the root). */
function readInside(root: string, path: string): string | null {
  if (!within(root, resolve("/", path))) return null;
  const info = lstatOrNull(path);
  if (!info?.isFile || info.size > MAX_CONFIG_BYTES) return null;
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return null;
  }
}

function within(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith("/") ? root : root + "/");
}

/**
 * The `key → values` of a git config file (section and key lower-cased, subsection as written),
 * enough to find program settings: `[section "sub"]`, `key = value`, quotes and backslash
 * escapes, comments. `[include]` files are not followed.
 */
function parseGitConfig(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let section = "";
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    if (line.startsWith("[")) {
      const header = /^\[\s*([^\s"\]]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(line);
      if (!header) continue;
      const name = header[1].toLowerCase();
      section = header[2] === undefined ? name : `${name}.${header[2].replace(/\\(.)/g, "$1")}`;
      const rest = line.slice(header[0].length).trim();
      if (rest !== "" && !rest.startsWith("#") && !rest.startsWith(";")) addSetting(out, section, rest);
      continue;
    }
    addSetting(out, section, line);
  }
  return out;
}

function addSetting(out: Map<string, string[]>, section: string, line: string): void {
  const match = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
  if (!match || section === "") return;
  const key = `${section}.${match[1].toLowerCase()}`;
  const value = unquote(match[2] ?? "true");
  out.set(key, [...(out.get(key) ?? []), value]);
}

/** A config value as git reads it: quotes removed, escapes resolved, a comment outside quotes dropped. */
function unquote(raw: string): string {
  let out = "";
  let quoted = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === '"') quoted = !quoted;
    else if (c === "\\" && i + 1 < raw.length) {
      const next = raw[++i];
      out += next === "n" ? "\n" : next === "t" ? "\t" : next;
    } else if (!quoted && (c === "#" || c === ";")) break;
    else out += c;
  }
  return out.trim();
}

/** The config file git reads for the work tree `workTree` (whose `.git` is a folder or a gitfile), or null. */
function configOf(root: string, workTree: string): string | null {
  const dotGit = join(workTree, ".git");
  const info = lstatOrNull(dotGit);
  if (info?.isDirectory) return readInside(root, join(dotGit, "config"));
  if (!info?.isFile) return null;
  const pointer = /^gitdir: (.+?)[\r\n]*$/s.exec(readInside(root, dotGit) ?? "");
  if (!pointer) return null;
  const gitdir = resolve(workTree, pointer[1]);
  const common = readInside(root, join(gitdir, "commondir"))?.replace(/[\r\n]+$/, "");
  const commondir = common ? resolve(gitdir, common) : gitdir;
  return readInside(root, join(commondir, "config"));
}

/** The first word of a shell command, when it names a file by path (has a `/`); null for a bare name found on PATH. */
function programPath(command: string): string | null {
  const word = /^\s*(?:"([^"]*)"|'([^']*)'|(\S+))/.exec(command.replace(/^!/, ""));
  const path = word ? (word[1] ?? word[2] ?? word[3]) : "";
  return path.includes("/") ? path : null;
}

export interface ExecutedPath {
  /** Absolute path: a folder git runs every file of, or one program file. */
  readonly abs: string;
  /** Why git executes it, for messages ("core.hooksPath of proj"). */
  readonly why: string;
}

/**
 * What the config of the work tree at `workTree` makes git execute inside `root`: the hooks
 * folder core.hooksPath names (relative to the work tree; husky's `.husky/_`, whose scripts run
 * the files of `.husky/`, protects `.husky/` too) and the program files settings name by path.
 */
export function executedPathsOf(root: string, workTree: string, label: string): ExecutedPath[] {
  const text = configOf(root, workTree);
  if (text === null) return [];
  const config = parseGitConfig(text);
  const found: ExecutedPath[] = [];
  const add = (path: string, why: string) => {
    const abs = resolve(workTree, path.startsWith("~") ? "/nonexistent" : path);
    if (within(root, abs)) found.push({ abs, why });
  };
  const hooks = config.get("core.hookspath")?.at(-1);
  if (hooks) {
    add(hooks, `the hooks folder core.hooksPath names in ${label}`);
    const abs = resolve(workTree, hooks);
    // husky 9: core.hooksPath=.husky/_, whose generated scripts run `.husky/<hook>` with sh.
    if (basename(abs) === "_" && lstatOrNull(join(abs, "h"))?.isFile) {
      found.push({ abs: dirname(abs), why: `the husky hooks folder of ${label} (core.hooksPath ${hooks})` });
    }
  }
  for (const [key, values] of config) {
    if (!PROGRAM_SETTINGS.some((pattern) => pattern.test(key))) continue;
    for (const value of values) {
      if (key === "core.fsmonitor" && /^(?:true|false|yes|no|on|off|0|1)$/i.test(value)) continue;
      const path = programPath(value);
      if (path !== null) add(path, `the program ${key} runs in ${label}`);
    }
  }
  return found;
}

/**
 * Refuses writes (create, change, delete, mode change) where a person's real git executes
 * programs: answers, for one writer, whether an absolute path lies in what the config of any work
 * tree containing it names (see `executedPathsOf`). Work trees are looked up once per folder.
 */
export class ExecutedPathGuard {
  readonly #root: string;
  readonly #byWorkTree = new Map<string, ExecutedPath[]>();
  readonly #isWorkTree = new Map<string, boolean>();

  constructor(root: string) {
    this.#root = root;
  }

  /** The executed path `abs` is in (or is), or null. */
  find(abs: string): ExecutedPath | null {
    for (let dir = dirname(abs); within(this.#root, dir); dir = dirname(dir)) {
      if (this.#workTree(dir)) {
        for (const executed of this.#pathsOf(dir)) {
          if (abs === executed.abs || abs.startsWith(executed.abs + "/")) return executed;
        }
      }
      if (dir === this.#root) break;
    }
    return null;
  }

  /** Throws `GitDirDenied` when `abs` is where git executes programs; `what` names the writer ("the patch"). */
  refuse(abs: string, what: string): void {
    const executed = this.find(abs);
    if (executed === null) return;
    const rel = (path: string) => path === this.#root ? "." : path.slice(this.#root.length + 1);
    throw new PtermError(
      "GitDirDenied",
      `${what} would write \`${rel(abs)}\`, inside \`${rel(executed.abs)}\` — ${executed.why}: a person's real ` +
        "git runs what is there (on commit, checkout, status or push), so no command writes it, as with .git. " +
        "Nothing was written. Show the person the change you propose and let them make it, or write elsewhere.",
    );
  }

  #workTree(dir: string): boolean {
    let known = this.#isWorkTree.get(dir);
    if (known === undefined) this.#isWorkTree.set(dir, known = lstatOrNull(join(dir, ".git")) !== null);
    return known;
  }

  #pathsOf(workTree: string): ExecutedPath[] {
    let known = this.#byWorkTree.get(workTree);
    if (known === undefined) {
      const label = workTree === this.#root
        ? "the workspace root's repository"
        : `the repository ${workTree.slice(this.#root.length + 1)}`;
      this.#byWorkTree.set(workTree, known = executedPathsOf(this.#root, workTree, label));
    }
    return known;
  }
}
