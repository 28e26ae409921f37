/** Helpers for the patch tests: build trees, read them back, hash them (work tree, index, refs). */

import { STATE_ENTRIES } from "../../../core/fs/paths.ts";
import { exec } from "../../_support/helpers.ts";
import type { Envelope } from "../../../core/envelope.ts";

const STATE = new Set<string>(STATE_ENTRIES);

export async function writeTree(dir: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const abs = `${dir}/${path}`;
    await Deno.mkdir(abs.slice(0, abs.lastIndexOf("/")), { recursive: true });
    if (typeof content === "string") await Deno.writeTextFile(abs, content);
    else await Deno.writeFile(abs, content);
  }
}

/** Every file under `dir` (pterm's state and .git left out) → its text. */
export async function readTree(dir: string, prefix = ""): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for await (const entry of Deno.readDir(`${dir}${prefix ? "/" + prefix : ""}`)) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (!prefix && STATE.has(entry.name)) continue;
    if (entry.name === ".git") continue;
    if (entry.isDirectory) Object.assign(out, await readTree(dir, rel));
    else if (entry.isFile) out[rel] = await Deno.readTextFile(`${dir}/${rel}`);
    else if (entry.isSymlink) out[rel] = `-> ${await Deno.readLink(`${dir}/${rel}`)}`;
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * A fingerprint of everything a failed patch must leave as it was: every path under `dir`
 * (files with content hash and mode, folders, symlinks), pterm's state aside; inside .git the
 * index, HEAD, refs, packed-refs, ORIG_HEAD and MERGE_* (objects may stay, as in git).
 */
export async function fingerprint(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  async function walk(rel: string, inGit: boolean): Promise<void> {
    const abs = rel ? `${dir}/${rel}` : dir;
    for await (const entry of Deno.readDir(abs)) {
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      if (!rel && STATE.has(entry.name)) continue;
      const childAbs = `${dir}/${childRel}`;
      const git = inGit || entry.name === ".git";
      if (git && /(^|\/)\.git\/(objects|hooks|info)(\/|$)/.test(childRel)) continue;
      const info = await Deno.lstat(childAbs);
      if (entry.isSymlink) out[childRel] = `link ${await Deno.readLink(childAbs)}`;
      else if (entry.isDirectory) {
        out[childRel] = "dir";
        await walk(childRel, git);
      } else out[childRel] = `${((info.mode ?? 0) & 0o777).toString(8)} ${await sha256(await Deno.readFile(childAbs))}`;
    }
  }
  await walk("", false);
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

export function patchOf(...blocks: string[]): string {
  return blocks.join("") + "=== PATCH EOF ===\n";
}

export function block(op: string, path: string, lines: string[] = []): string {
  return `=== ${op}: "${path}" ===\n${lines.map((l) => l + "\n").join("")}=== end ===\n`;
}

export async function apply(root: string, patch: string, flags = ""): Promise<Envelope> {
  return await exec(root, `patch apply${flags ? " " + flags : ""}`, { stdin: patch });
}

export async function check(root: string, patch: string, flags = ""): Promise<Envelope> {
  return await exec(root, `patch check${flags ? " " + flags : ""}`, { stdin: patch });
}

/** The result of a failed call, typed loosely for assertions. */
// deno-lint-ignore no-explicit-any
export function problemsOf(envelope: Envelope): any[] {
  // deno-lint-ignore no-explicit-any
  return ((envelope.result as any)?.problems ?? []) as any[];
}

export async function git(dir: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args,
    cwd: dir,
    env: {
      GIT_AUTHOR_NAME: "Test",
      GIT_AUTHOR_EMAIL: "test@example.com",
      GIT_COMMITTER_NAME: "Test",
      GIT_COMMITTER_EMAIL: "test@example.com",
      GIT_CONFIG_NOSYSTEM: "1",
      HOME: dir,
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`git ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}
