/**
 * What the read-only file commands may see, in one place: a path named on the line goes through
 * the kernel's confinement (`confinePathSync`), and a walk shows an entry only when confinement
 * would let it be named. Secret paths, `.git` and git directories by other names, symlinks
 * leading out of the root, FIFOs, sockets and devices are therefore invisible, the same way for
 * every command. pterm's own state is invisible too, except `artifacts/` named directly: a run's
 * artifacts are how long output reaches an agent, so `read artifacts/<run>/<name>` works.
 */

import { ARTIFACTS_DIR } from "../../core/artifacts.ts";
import { PtermError } from "../../core/errors.ts";
import { join } from "../../core/fs/path.ts";
import {
  type ConfinedPath,
  confinePathSync,
  isGitPath,
  isSecretPath,
  isStatePath,
  specialFileKind,
} from "../../core/fs/paths.ts";

/** A path named on the command line, confined for reading, with what lstat/stat say about it. */
export interface Named extends ConfinedPath {
  /** The path as the user wrote it (what the real tools print). */
  readonly input: string;
  /** stat of the canonical location (links inside the root already followed by confinement). */
  readonly info: Deno.FileInfo;
  /** lstat of the location as named: a symlink stays a symlink (ls -l, find). */
  readonly linkInfo: Deno.FileInfo;
}

/** True for pterm's state other than `artifacts/`: never shown, never read. */
function isHiddenState(rel: string): boolean {
  return isStatePath(rel) && rel.split("/")[0].toLowerCase() !== ARTIFACTS_DIR;
}

/**
 * Confines `input` for reading and refuses what does not exist (`NotFound`, with the words of
 * the real tools) and pterm's state other than artifacts.
 */
export function named(root: string, input: string, command: string): Named {
  const confined = confinePathSync(root, input, "read", { label: `${command}:`, refuseFileAsFolder: true });
  if (isHiddenState(confined.rel)) {
    throw new PtermError(
      "ReadOnlyPath",
      `${command}: \`${input}\` is pterm's own state (audit, sessions, cache, pterm.json), which no command reads; ` +
        "only artifacts/ is readable, e.g. `ls artifacts`.",
    );
  }
  if (!confined.exists) {
    throw new PtermError("NotFound", `${command}: cannot access '${input}': No such file or directory`);
  }
  const lexical = join(root, ...input.split("/").filter((s) => s !== "" && s !== "."));
  return {
    ...confined,
    input,
    info: Deno.statSync(confined.abs),
    linkInfo: Deno.lstatSync(lexical),
  };
}

/** One entry met by a walk. */
export interface Entry {
  readonly name: string;
  /** Relative to the root, `/`-separated. */
  readonly rel: string;
  /** The folder's real location joined with the name (not followed). */
  readonly abs: string;
  /** lstat: a symlink is a symlink. */
  readonly info: Deno.FileInfo;
}

/**
 * Whether a walk may show `name` inside the folder `dirRel` (real location `dirAbs`): exactly
 * what confinement lets a command name, and no state other than artifacts (none at all when
 * the walk did not start inside artifacts/).
 */
function visible(
  root: string,
  dirRel: string,
  name: string,
  info: Deno.FileInfo,
  startedInArtifacts: boolean,
): boolean {
  const rel = dirRel === "." ? name : `${dirRel}/${name}`;
  if (isStatePath(rel) && !(startedInArtifacts && !isHiddenState(rel))) return false;
  if (info.isFile) {
    // A regular file in a folder confinement already admitted: only its own name can be refused
    // (what confinePathSync would decide for it, without walking its folders again).
    return !isSecretPath(name) && !isGitPath(name);
  }
  if (specialFileKind(info) !== null) return false;
  try {
    confinePathSync(root, rel, "read");
    return true;
  } catch (error) {
    if (error instanceof PtermError) return false;
    throw error;
  }
}

/**
 * The visible entries of a folder (`dirRel` relative to the root, `dirAbs` its real location),
 * sorted byte-wise by name as GNU tools sort in the C locale.
 */
export function listFolder(root: string, dirRel: string, dirAbs: string): Entry[] {
  const startedInArtifacts = dirRel.split("/")[0].toLowerCase() === ARTIFACTS_DIR;
  const entries: Entry[] = [];
  for (const item of Deno.readDirSync(dirAbs)) {
    const abs = join(dirAbs, item.name);
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(abs);
    } catch {
      continue; // gone since readdir
    }
    if (!visible(root, dirRel, item.name, info, startedInArtifacts)) continue;
    entries.push({ name: item.name, rel: dirRel === "." ? item.name : `${dirRel}/${item.name}`, abs, info });
  }
  return entries.sort((a, b) => compareBytes(a.name, b.name));
}

/**
 * Every visible entry below a folder, depth first, folders before their contents, siblings in
 * byte order. Symlinks are listed, never followed. `descend` decides whether a folder is entered.
 */
export function* walk(
  root: string,
  dirRel: string,
  dirAbs: string,
  descend: (entry: Entry, depth: number) => boolean = () => true,
  depth = 1,
): Generator<Entry & { readonly depth: number }> {
  for (const entry of listFolder(root, dirRel, dirAbs)) {
    yield { ...entry, depth };
    if (entry.info.isDirectory && descend(entry, depth)) {
      yield* walk(root, entry.rel, entry.abs, descend, depth + 1);
    }
  }
}

const encoder = new TextEncoder();

/** strcmp on UTF-8 bytes: the C locale's order. */
export function compareBytes(a: string, b: string): number {
  if (a === b) return 0;
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

/** The largest file a reading command loads whole; larger ones are refused with a line that reads a part. */
export const MAX_READ_BYTES = 64 * 1024 * 1024;

/** A file's text, or `binary: true` when it holds a NUL byte (what grep and ripgrep call binary). */
export function loadText(
  abs: string,
  shown: string,
  command: string,
): { text: string; binary: boolean; bytes: number } {
  const size = Deno.statSync(abs).size;
  if (size > MAX_READ_BYTES) {
    throw new PtermError(
      "InputTooLarge",
      `${command}: '${shown}' is ${size} bytes, more than the ${MAX_READ_BYTES} a read loads; ` +
        `read a part of it: \`read ${shown} --lines 1:200\` reads the start, \`grep -n <pattern> ${shown}\` finds lines.`,
    );
  }
  const data = Deno.readFileSync(abs);
  const binary = data.includes(0);
  return { text: new TextDecoder().decode(data), binary, bytes: data.length };
}

/** Splits text into lines, each keeping its `\n` (the last one may lack it), as the line tools count them. */
export function splitLines(text: string): string[] {
  const lines = text.split("\n").map((line) => line + "\n");
  const last = lines.pop()!;
  if (last !== "\n") lines.push(last.slice(0, -1));
  return lines;
}

/**
 * Up to `limit` visible files named `name` anywhere under the root (root-relative paths, in walk
 * order): the candidates a "does not exist" message offers. Stops after `budget` entries.
 */
export function filesNamed(root: string, name: string, limit = 5, budget = 20_000): string[] {
  const found: string[] = [];
  let seen = 0;
  const wanted = name.toLowerCase();
  for (const entry of walk(root, ".", root, () => seen < budget)) {
    if (++seen > budget || found.length >= limit) break;
    if (entry.info.isFile && entry.name.toLowerCase() === wanted) found.push(entry.rel);
  }
  return found;
}
