/**
 * The real tools as the oracle of the read-only file commands: the same line run by pterm and by
 * GNU coreutils/findutils/grep or ripgrep (C locale) in the same workspace.
 */

import { join } from "node:path";
import { exec } from "../../_support/helpers.ts";
import { tokenize } from "../../../core/grammar.ts";

export interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `words` as a real program in `root` (no shell), in the C locale. */
export async function real(root: string, words: readonly string[]): Promise<Outcome> {
  const [program, ...args] = words;
  const out = await new Deno.Command(program, {
    args,
    cwd: root,
    // The C locale; the time zone the test process has (pterm's ls -l writes local times too).
    env: { LC_ALL: "C", ...(Deno.env.get("TZ") ? { TZ: Deno.env.get("TZ")! } : {}) },
    clearEnv: true,
    stdin: "null",
  }).output();
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

/** Runs a pterm line; stdout is the envelope's (never truncated in these small trees). */
export async function pterm(root: string, line: string): Promise<Outcome & { errorCode?: string | null }> {
  const envelope = await exec(root, line);
  return { code: envelope.exit_code, stdout: envelope.stdout, stderr: envelope.stderr, errorCode: envelope.error_code };
}

/** The real tool's words for a pterm line (pterm's `search` is `rg -n --sort path`). */
export function realWords(line: string): string[] {
  const words = tokenize(line);
  if (words[0] === "search") {
    return ["rg", "-n", "--sort", "path", "--no-heading", "--color", "never", ...words.slice(1)];
  }
  if (words[0] === "ls" && words.slice(1).some((w) => /^-[a-zA-Z]*l/.test(w))) return ["ls", "-n", ...words.slice(1)];
  return words;
}

/** A file tree: path → contents (a string), or null for a folder. */
export type Tree = Readonly<Record<string, string | Uint8Array | null>>;

export async function writeTree(root: string, tree: Tree): Promise<void> {
  for (const [path, content] of Object.entries(tree)) {
    const abs = join(root, path);
    if (content === null) {
      await Deno.mkdir(abs, { recursive: true });
      continue;
    }
    await Deno.mkdir(join(abs, ".."), { recursive: true });
    if (typeof content === "string") await Deno.writeTextFile(abs, content);
    else await Deno.writeFile(abs, content);
  }
}

/** Lines as a sorted list: for tools whose order is the file system's (find, grep -r). */
export function sortedLines(text: string): string[] {
  return text.split("\n").filter((l) => l !== "").sort();
}

/**
 * A copy of `root` for the real tool, made before pterm runs there (pterm's audit records then
 * appear only in `root`); `cp -a` keeps modes and times, so `ls -l` sees the same entries.
 */
export async function twin(root: string): Promise<string> {
  const copy = await Deno.realPath(await Deno.makeTempDir({ prefix: "pterm-oracle-" }));
  const out = await new Deno.Command("cp", { args: ["-a", `${root}/.`, copy] }).output();
  if (out.code !== 0) throw new Error(new TextDecoder().decode(out.stderr));
  return copy;
}

/**
 * What a pterm line and the real tool agree on: the same stdout (sorted lines for tools that print
 * in the file system's order) and the same exit code.
 */
export async function compare(
  root: string,
  realRoot: string,
  line: string,
  options: { sort?: boolean; realLine?: string } = {},
): Promise<{ pterm: Outcome; real: Outcome; same: boolean }> {
  const ours = await pterm(root, line);
  const theirs = await real(realRoot, realWords(options.realLine ?? line));
  const out = (text: string) => options.sort ? sortedLines(text).join("\n") : text;
  return { pterm: ours, real: theirs, same: out(ours.stdout) === out(theirs.stdout) && ours.code === theirs.code };
}
