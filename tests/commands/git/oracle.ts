/**
 * The real git, as the oracle of the git tests: run with a clean environment (no user or
 * system config, a throw-away HOME, fixed identity) so the machine's settings cannot leak in.
 * pterm itself never runs git; only these tests do.
 */

import assert from "node:assert/strict";
import { exec, execOk } from "../../_support/helpers.ts";
import type { Envelope } from "../../../core/envelope.ts";
import type { StatusCounts } from "../../../commands/git/porcelain/status.ts";
import { decodeLossless } from "../../../commands/patch/text.ts";

const HOME = await Deno.makeTempDir({ prefix: "pterm-git-home-" });
globalThis.addEventListener("unload", () => {
  try {
    Deno.removeSync(HOME, { recursive: true });
  } catch { /* already gone */ }
});

export const GIT_ENV: Record<string, string> = {
  PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
  HOME,
  LANG: "C",
  LC_ALL: "C",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "Oracle",
  GIT_AUTHOR_EMAIL: "oracle@example.com",
  GIT_COMMITTER_NAME: "Oracle",
  GIT_COMMITTER_EMAIL: "oracle@example.com",
  GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z",
  GIT_COMMITTER_DATE: "2026-01-01T00:00:00Z",
};

export interface GitOutput {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real git in `cwd` (with `stdin` as its input, text or bytes); returns its output (no throw). */
export async function gitRaw(cwd: string, args: string[], stdin?: string | Uint8Array): Promise<GitOutput> {
  const child = new Deno.Command("git", {
    args,
    cwd,
    env: GIT_ENV,
    clearEnv: true,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(typeof stdin === "string" ? new TextEncoder().encode(stdin) : stdin);
    await writer.close();
  }
  const out = await child.output();
  return { code: out.code, stdout: new TextDecoder().decode(out.stdout), stderr: new TextDecoder().decode(out.stderr) };
}

/** Runs the real git with `input` bytes on stdin, requiring success; returns stdout as bytes (cat-file, hash-object). */
export async function gitBytes(cwd: string, args: string[], input: Uint8Array): Promise<Uint8Array> {
  const child = new Deno.Command("git", {
    args,
    cwd,
    env: GIT_ENV,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(input);
  await writer.close();
  const out = await child.output();
  if (out.code !== 0) throw new Error(`git ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  return out.stdout;
}

/** Writes raw bytes as an object of `type` with real git (`--literally`: no checks, as an attacker or another tool writes). */
export async function hashObjectLiterally(dir: string, type: string, bytes: Uint8Array): Promise<string> {
  const out = await gitBytes(dir, ["hash-object", "-w", "--literally", "-t", type, "--stdin"], bytes);
  return new TextDecoder().decode(out).trim();
}

/** Runs the real git and requires success; returns stdout. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const out = await gitRaw(cwd, args);
  if (out.code !== 0) {
    throw new Error(`git ${args.join(" ")} failed (${out.code}) in ${cwd}:\n${out.stderr}${out.stdout}`);
  }
  return out.stdout;
}

/** `git fsck --strict` must be clean. */
export async function assertFsck(dir: string): Promise<void> {
  const out = await gitRaw(dir, ["fsck", "--strict", "--no-dangling"]);
  assert.equal(out.code, 0, `git fsck --strict failed in ${dir}:\n${out.stdout}${out.stderr}`);
  const complaints = out.stderr.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("notice:"));
  assert.deepEqual(complaints, [], `git fsck --strict complained in ${dir}:\n${out.stderr}`);
}

/** The counts pterm's `git status` reports, taken here from real git's porcelain output. */
export type PorcelainCounts = StatusCounts;

/** JGit-style counts from `git status --porcelain=v2 --untracked-files=all --no-renames`. */
export async function porcelainCounts(dir: string): Promise<{ counts: PorcelainCounts; lines: string[] }> {
  const text = await git(
    dir,
    "-c",
    "core.quotePath=false",
    "status",
    "--porcelain=v2",
    "--untracked-files=all",
    "--no-renames",
  );
  const counts: PorcelainCounts = {
    untracked: 0,
    modified: 0,
    added: 0,
    changed: 0,
    removed: 0,
    missing: 0,
    conflicting: 0,
  };
  const lines = text.split("\n").filter((l) => l !== "");
  for (const line of lines) {
    if (line.startsWith("? ")) counts.untracked++;
    else if (line.startsWith("u ")) counts.conflicting++;
    else if (line.startsWith("1 ")) {
      const x = line[2];
      const y = line[3];
      if (x === "A") counts.added++;
      else if (x === "D") counts.removed++;
      else if (x === "M" || x === "T") counts.changed++;
      if (y === "M" || y === "T") counts.modified++;
      else if (y === "D") counts.missing++;
      else if (y === "A") counts.added++; // intent-to-add
    }
  }
  return { counts, lines };
}

/**
 * Porcelain-v2 paths with their XY, for comparing per-file results: "XY path". Staged renames are
 * paired as git status pairs them by default (`R. new`, the old path not listed), as pterm's
 * status does; the counts above stay JGit's (no renames).
 */
export async function porcelainFiles(dir: string): Promise<string[]> {
  const text = await git(dir, "-c", "core.quotePath=false", "status", "--porcelain=v2", "--untracked-files=all");
  return text.split("\n").filter((l) => l !== "").map((line) => {
    if (line.startsWith("? ")) return `?? ${line.slice(2)}`;
    // An unmerged path keeps git's own code (UU, AA, DU, UD, AU, UA, DD), as pterm's status gives it.
    if (line.startsWith("u ")) return `${line.split(" ")[1]} ${line.split(" ").slice(10).join(" ")}`;
    if (line.startsWith("2 ")) {
      const parts = line.slice(0, line.indexOf("\t")).split(" ");
      return `${parts[1]} ${parts.slice(9).join(" ")}`;
    }
    const parts = line.split(" ");
    return `${parts[1]} ${parts.slice(8).join(" ")}`;
  }).sort();
}

/** Runs a pterm command line in the workspace `root` and requires exit 0. */
export async function pterm(root: string, line: string, options: { stdin?: string } = {}): Promise<Envelope> {
  return await execOk(root, line, options);
}

/** Runs a pterm command line and returns the envelope whatever the outcome. */
export async function ptermTry(root: string, line: string): Promise<Envelope> {
  return await exec(root, line);
}

// deno-lint-ignore no-explicit-any
export function result(envelope: Envelope): any {
  return envelope.result;
}

export async function write(path: string, text: string | Uint8Array): Promise<void> {
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  if (typeof text === "string") await Deno.writeTextFile(path, text);
  else await Deno.writeFile(path, text);
}

/** A real-git repository at `dir` on `main` with one commit ("base") holding a.txt = "a\n". */
export async function gitInitCommitted(dir: string): Promise<void> {
  await gitInit(dir);
  await write(`${dir}/a.txt`, "a\n");
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "base");
}

/** A real-git repository at `dir` with `main` as its branch. */
export async function gitInit(dir: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  await git(dir, "init", "-q", "-b", "main");
}

/**
 * Every path under `dir` but .git, one line each, sorted: a folder, a link and its target, a file
 * and its bytes (as a JSON string, bytes that are not UTF-8 escaped one by one) — to compare two
 * work trees, or one before and after.
 */
export function worktreeSnapshot(dir: string, below = ""): string {
  let out = "";
  for (const entry of [...Deno.readDirSync(`${dir}/${below}`)].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const rel = below ? `${below}/${entry.name}` : entry.name;
    if (rel === ".git") continue;
    if (entry.isDirectory) out += `${rel}/\n` + worktreeSnapshot(dir, rel);
    else if (entry.isSymlink) out += `${rel} -> ${Deno.readLinkSync(`${dir}/${rel}`)}\n`;
    else out += `${rel} ${JSON.stringify(decodeLossless(Deno.readFileSync(`${dir}/${rel}`)))}\n`;
  }
  return out;
}
