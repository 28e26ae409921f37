/**
 * Random real-world-shaped changes of a real git repository, for the oracles that hold pterm's diff
 * application to real `git apply` (git_apply_oracle_test.ts here, tests/commands/git/
 * git_apply_spelling_oracle_test.ts): text edits in LF, CRLF, BOM, Latin-1 and no-final-newline files,
 * new and deleted files, renames and copies (with edits), mode changes, binary files, symbolic links
 * and submodule pointers, paths with spaces and non-ASCII names. A seeded generator, so a failure replays.
 */

import { decodeLossless, encodeLossless } from "../../../commands/patch/text.ts";

export const ENV = {
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.com",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.com",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
};

/** git's output, its bytes kept (a diff of a Latin-1 file is not UTF-8). */
export function git(dir: string, ...args: string[]): string {
  const out = new Deno.Command("git", { args, cwd: dir, env: ENV, clearEnv: true, stdout: "piped", stderr: "piped" })
    .outputSync();
  if (!out.success) throw new Error(`git ${args.join(" ")} in ${dir}: ${new TextDecoder().decode(out.stderr)}`);
  return decodeLossless(out.stdout);
}

/** mulberry32: a seeded sequence, so a failure replays. */
export function prng(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)],
    chance: (p: number) => next() < p,
  };
}
export type Rng = ReturnType<typeof prng>;

/** Lines real files have, including ones that look like diff or patch syntax. */
export const VOCABULARY = [
  "",
  "{",
  "}",
  "  return 0;",
  "\tindented with a tab",
  "    x = y + 1",
  "// a comment",
  "-- an SQL comment",
  "++ counter",
  "--- not a header",
  "@@ not a hunk @@",
  "=== end ===",
  "a, b, c",
  "café ☕ naïve",
  "trailing space  ",
  " leading space",
  "\\ backslash line",
  "diff --git looks like a header",
];

export const DIRS = ["", "src/", "docs/", "lib/a b/", "deep/er/path/", "ünï/"];
export const NAMES = ["main", "util", "read me", "notes", "x", "Makefile", "café"];

export type Kind = "text" | "binary" | "link" | "gitlink";

export interface Model {
  /** What each tracked path is in the generator repository. */
  files: Map<string, Kind>;
}

export function textContent(rng: Rng, lines: string[]): Uint8Array {
  const crlf = rng.chance(0.2);
  const finalNewline = lines.length > 0 && !rng.chance(0.15);
  const latin1 = rng.chance(0.08);
  const bom = !latin1 && rng.chance(0.08);
  const eol = crlf ? "\r\n" : "\n";
  const text = (bom ? "\ufeff" : "") + lines.join(eol) + (finalNewline ? eol : "");
  // Now and then a file in Latin-1, as old projects have them: not UTF-8, but text to git.
  return latin1 ? Uint8Array.from(text, (c) => (c.charCodeAt(0) < 256 ? c.charCodeAt(0) : 0x3f)) : encodeLossless(text);
}

export function randomLines(rng: Rng, count: number): string[] {
  return Array.from({ length: count }, (_, i) => rng.chance(0.5) ? rng.pick(VOCABULARY) : `line ${rng.int(1000)} ${i}`);
}

export function binaryContent(rng: Rng, size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = rng.int(256);
  bytes[0] = 0; // a NUL: git takes it for binary
  return bytes;
}

/** Edits a text file the way people do: runs of lines inserted, removed, replaced; endings kept or changed. */
export function editText(rng: Rng, bytes: Uint8Array): Uint8Array {
  let text = decodeLossless(bytes);
  const hadBom = text.startsWith("\ufeff");
  if (hadBom) text = text.slice(1);
  const bom = hadBom !== rng.chance(0.05); // sometimes a BOM is added or dropped
  // Now and then a file changes its line endings as a whole (an editor's setting).
  const crlf = text.includes("\r\n") ? !rng.chance(0.05) : rng.chance(0.05);
  const finalNewline = rng.chance(0.1) ? !/\n$/.test(text) : /\n$/.test(text);
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === "") lines.pop();
  for (let e = 1 + rng.int(3); e > 0; e--) {
    const at = rng.int(lines.length + 1);
    const op = rng.int(3);
    if (op === 0) lines.splice(at, 0, ...randomLines(rng, 1 + rng.int(3)));
    else if (op === 1) lines.splice(at, 1 + rng.int(2));
    else lines.splice(at, 1, ...randomLines(rng, 1));
  }
  const eol = crlf ? "\r\n" : "\n";
  const out = (bom ? "\ufeff" : "") + lines.join(eol) + (finalNewline && lines.length ? eol : "");
  return encodeLossless(out);
}

export function newPath(rng: Rng, model: Model, ext: string): string {
  for (;;) {
    const path = `${rng.pick(DIRS)}${rng.pick(NAMES)}${rng.int(50)}${ext}`;
    const clashes = [...model.files.keys()].some((p) =>
      p === path || p.startsWith(path + "/") || path.startsWith(p + "/")
    );
    if (!clashes) return path;
  }
}

export function ofKind(model: Model, kind: Kind): string[] {
  return [...model.files].filter(([, k]) => k === kind).map(([p]) => p);
}

export async function write(repo: string, path: string, bytes: Uint8Array, mode = 0o644): Promise<void> {
  const abs = `${repo}/${path}`;
  await Deno.mkdir(abs.slice(0, abs.lastIndexOf("/")), { recursive: true });
  await Deno.writeFile(abs, bytes);
  await Deno.chmod(abs, mode);
}

export async function remove(repo: string, path: string): Promise<void> {
  await Deno.remove(`${repo}/${path}`, { recursive: true });
  // git drops emptied folders from its view; so do we, so a new path can take the name.
  let dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "";
  while (dir) {
    try {
      await Deno.remove(`${repo}/${dir}`);
    } catch {
      break;
    }
    dir = dir.includes("/") ? dir.slice(0, dir.lastIndexOf("/")) : "";
  }
}

/** One random change of the generator repository's work tree and index. */
export async function change(rng: Rng, repo: string, model: Model): Promise<void> {
  for (let n = 1 + rng.int(5); n > 0; n--) {
    const texts = ofKind(model, "text");
    const op = rng.int(14);
    if (op <= 3 && texts.length) {
      const path = rng.pick(texts);
      await write(
        repo,
        path,
        editText(rng, await Deno.readFile(`${repo}/${path}`)),
        (await Deno.stat(`${repo}/${path}`)).mode! & 0o777,
      );
    } else if (op === 4) {
      const path = newPath(rng, model, rng.pick([".c", ".md", ".txt", ""]));
      await write(repo, path, textContent(rng, randomLines(rng, rng.int(12))), rng.chance(0.2) ? 0o755 : 0o644);
      model.files.set(path, "text");
    } else if (op === 5 && model.files.size > 3) {
      const [path, kind] = rng.pick([...model.files]);
      if (kind === "gitlink") git(repo, "rm", "-q", "--cached", path);
      await remove(repo, path).catch(() => {});
      model.files.delete(path);
    } else if ((op === 6 || op === 7) && texts.length) {
      // A rename (op 6) or a copy (op 7), with at most a small edit so git sees them as such.
      const from = rng.pick(texts);
      const bytes = await Deno.readFile(`${repo}/${from}`);
      if (bytes.length < 40) continue;
      const to = newPath(
        rng,
        model,
        from.slice(from.lastIndexOf(".")).includes("/") ? "" : from.slice(from.lastIndexOf(".")),
      );
      const mode = (await Deno.stat(`${repo}/${from}`)).mode! & 0o777;
      await write(repo, to, rng.chance(0.5) ? bytes : editText(rng, bytes), mode);
      model.files.set(to, "text");
      if (op === 6) {
        await remove(repo, from);
        model.files.delete(from);
      }
    } else if (op === 8 && texts.length) {
      const path = rng.pick(texts);
      const mode = (await Deno.stat(`${repo}/${path}`)).mode! & 0o777;
      await Deno.chmod(`${repo}/${path}`, mode & 0o100 ? 0o644 : 0o755);
    } else if (op === 9) {
      const binaries = ofKind(model, "binary");
      if (binaries.length && rng.chance(0.6)) {
        const path = rng.pick(binaries);
        const bytes = new Uint8Array(await Deno.readFile(`${repo}/${path}`));
        if (rng.chance(0.7)) { for (let k = 0; k < 4; k++) bytes[rng.int(bytes.length)] = rng.int(256); }
        await write(repo, path, rng.chance(0.7) ? bytes : binaryContent(rng, 50 + rng.int(4000)));
      } else {
        const path = newPath(rng, model, ".bin");
        await write(repo, path, binaryContent(rng, 50 + rng.int(6000)));
        model.files.set(path, "binary");
      }
    } else if (op === 10 || op === 11) {
      const links = ofKind(model, "link");
      if (links.length && rng.chance(0.5)) {
        const path = rng.pick(links);
        await Deno.remove(`${repo}/${path}`);
        await Deno.symlink(
          rng.pick(["target.txt", "../up/there", "dir with space/x", "café"]) + rng.int(9),
          `${repo}/${path}`,
        );
      } else {
        const path = newPath(rng, model, ".lnk");
        await Deno.mkdir(`${repo}/${path}`.slice(0, `${repo}/${path}`.lastIndexOf("/")), { recursive: true });
        await Deno.symlink(rng.pick(["target.txt", "src/main.c", "../elsewhere"]), `${repo}/${path}`);
        model.files.set(path, "link");
      }
    } else if (op === 13) {
      // A type change at one path: a file becomes a link, or a link a file (git diffs it as a
      // deletion and a creation of the same path).
      const links = ofKind(model, "link");
      if (links.length && rng.chance(0.5)) {
        const path = rng.pick(links);
        await Deno.remove(`${repo}/${path}`);
        await write(repo, path, textContent(rng, randomLines(rng, 1 + rng.int(4))));
        model.files.set(path, "text");
      } else if (texts.length) {
        const path = rng.pick(texts);
        await Deno.remove(`${repo}/${path}`);
        await Deno.symlink(rng.pick(["target.txt", "src/main.c"]), `${repo}/${path}`);
        model.files.set(path, "link");
      }
    } else if (op === 12) {
      const gitlinks = ofKind(model, "gitlink");
      const oid = Array.from({ length: 40 }, () => "0123456789abcdef"[rng.int(16)]).join("");
      const path = gitlinks.length && rng.chance(0.5) ? rng.pick(gitlinks) : newPath(rng, model, "");
      // An empty folder: a submodule that is not checked out, which git leaves alone.
      await Deno.mkdir(`${repo}/${path}`, { recursive: true });
      git(repo, "add", "-A");
      git(repo, "update-index", "--add", "--cacheinfo", `160000,${oid},${path}`);
      model.files.set(path, "gitlink");
    }
  }
  git(repo, "add", "-A");
}
