/**
 * Edits `.git/config` the way `git config` does, for the sections remotes need
 * (`[remote "name"]`, `[branch "name"]`): under `config.lock`, keeping every other line — comments
 * and sections pterm does not know — byte for byte.
 */

import { PtermError } from "../../../core/errors.ts";
import { parseConfig } from "./config.ts";
import { LockFile } from "./lock.ts";
import type { Repo } from "./repo.ts";

const HEADER = /^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/;

function quote(subsection: string): string {
  if (/[\n\0]/.test(subsection)) {
    throw new PtermError("InvalidArgs", "a remote or branch name cannot hold a newline or NUL.");
  }
  return subsection.replace(/\\/g, "\\\\").replace(/"/g, '\\"');
}

/** The lines of `[section "subsection"]` (header included): start and end (exclusive) indexes, every occurrence. */
function sectionRanges(lines: string[], section: string, subsection: string): [number, number][] {
  const ranges: [number, number][] = [];
  let start = -1;
  for (let i = 0; i <= lines.length; i++) {
    const header = i < lines.length ? HEADER.exec(lines[i]) : null;
    if (i === lines.length || header) {
      if (start >= 0) ranges.push([start, i]);
      start = -1;
      if (
        header && header[1].toLowerCase() === section &&
        (header[2] ?? "").replace(/\\(.)/g, "$1") === subsection
      ) start = i;
    }
  }
  return ranges;
}

/**
 * Keeps the repository's parsed config in step with the file just written, so that what this call
 * reads next (a branch's new upstream in the listing it returns) is what is on disk.
 */
function refreshConfig(repo: Repo, written: string): void {
  let text = written;
  if (parseConfig(written).getBool("extensions.worktreeconfig", false)) {
    try {
      text += "\n" + Deno.readTextFileSync(`${repo.gitdir}/config.worktree`);
    } catch { /* no worktree config */ }
  }
  const fresh = parseConfig(text);
  repo.config.values.clear();
  for (const [key, values] of fresh.values) repo.config.values.set(key, values);
}

async function editConfig(repo: Repo, edit: (lines: string[]) => string[]): Promise<void> {
  const path = `${repo.commondir}/config`;
  const lock = await LockFile.acquire(path, "the repository config");
  try {
    let text = "";
    try {
      text = Deno.readTextFileSync(path);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    const lines = text.endsWith("\n") ? text.slice(0, -1).split("\n") : text === "" ? [] : text.split("\n");
    const next = edit(lines);
    const written = next.length ? next.join("\n") + "\n" : "";
    lock.commit(written);
    refreshConfig(repo, written);
  } finally {
    lock.rollback();
  }
}

/** Sets `key = value` pairs in `[section "subsection"]`: replaces every existing value of those keys, else appends. */
export async function setConfigValues(
  repo: Repo,
  section: string,
  subsection: string,
  values: readonly [string, string][],
): Promise<void> {
  await editConfig(repo, (lines) => {
    const keys = new Set(values.map(([k]) => k.toLowerCase()));
    const ranges = sectionRanges(lines, section, subsection);
    const out = [...lines];
    // Drop the old values of those keys (from the last range backwards, so indexes stay right).
    for (const [start, end] of [...ranges].reverse()) {
      for (let i = end - 1; i > start; i--) {
        const key = /^\s*([A-Za-z0-9-]+)\s*(=|$)/.exec(out[i])?.[1]?.toLowerCase();
        if (key && keys.has(key)) out.splice(i, 1);
      }
    }
    const fresh = sectionRanges(out, section, subsection);
    const added = values.map(([k, v]) => `\t${k} = ${v}`);
    if (fresh.length) out.splice(fresh[fresh.length - 1][1], 0, ...added);
    else out.push(subsection === "" ? `[${section}]` : `[${section} "${quote(subsection)}"]`, ...added);
    return out;
  });
}

/** Removes the values of `keys` from `[section "subsection"]`, and the section if nothing is left in it. */
export async function removeConfigValues(
  repo: Repo,
  section: string,
  subsection: string,
  keys: readonly string[],
): Promise<void> {
  const drop = new Set(keys.map((k) => k.toLowerCase()));
  await editConfig(repo, (lines) => {
    const out = [...lines];
    for (const [start, end] of sectionRanges(lines, section, subsection).reverse()) {
      for (let i = end - 1; i > start; i--) {
        const key = /^\s*([A-Za-z0-9-]+)\s*(=|$)/.exec(out[i])?.[1]?.toLowerCase();
        if (key && drop.has(key)) out.splice(i, 1);
      }
    }
    // A section left with nothing in it goes too, as `git config --unset` leaves none behind for remotes.
    for (const [start, end] of sectionRanges(out, section, subsection).reverse()) {
      if (out.slice(start + 1, end).every((l) => l.trim() === "")) out.splice(start, end - start);
    }
    return out;
  });
}

/** Removes every `[section "subsection"]` with its values. */
export async function removeConfigSection(repo: Repo, section: string, subsection: string): Promise<void> {
  await editConfig(repo, (lines) => {
    const out = [...lines];
    for (const [start, end] of sectionRanges(lines, section, subsection).reverse()) out.splice(start, end - start);
    return out;
  });
}

/** The names of every `[section "…"]` subsection. */
export function configSubsections(text: string, section: string): string[] {
  const names: string[] = [];
  for (const line of text.split("\n")) {
    const header = HEADER.exec(line);
    if (header && header[1].toLowerCase() === section && header[2] !== undefined) {
      const name = header[2].replace(/\\(.)/g, "$1");
      if (!names.includes(name)) names.push(name);
    }
  }
  return names;
}

/**
 * Renames every `[section "from"]` to `[section "to"]`, values and comments kept, as git's
 * `git_config_rename_section` does for `git branch -m` (a `[section "to"]` already there stays, after or before).
 */
export async function renameConfigSection(repo: Repo, section: string, from: string, to: string): Promise<void> {
  const header = `[${section} "${quote(to)}"]`;
  await editConfig(repo, (lines) => {
    const out = [...lines];
    for (const [start] of sectionRanges(lines, section, from)) {
      // Values written on the header's own line (`[branch "x"] remote = o`) stay after the new header.
      const rest = out[start].replace(HEADER, "").trim();
      out[start] = rest ? `${header}\n\t${rest}` : header;
    }
    return out.join("\n").split("\n");
  });
}

/** `section.subsection.name` split as git splits a key (the subsection may hold dots; the name keeps its case). */
export function splitConfigKey(key: string): { section: string; subsection: string; name: string } | null {
  const first = key.indexOf(".");
  const last = key.lastIndexOf(".");
  if (first <= 0 || last === key.length - 1) return null;
  const section = key.slice(0, first).toLowerCase();
  const name = key.slice(last + 1);
  if (!/^[a-z0-9-]+$/.test(section) || !/^[a-z][a-z0-9-]*$/i.test(name)) return null;
  return { section, subsection: first === last ? "" : key.slice(first + 1, last), name };
}

/** A value as git config writes it: quoted when it has leading or trailing space or a comment character. */
export function configValueText(value: string): string {
  const escaped = value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n").replace(/\t/g, "\\t");
  return /^\s|\s$|[;#]/.test(value) ? `"${escaped}"` : escaped;
}
