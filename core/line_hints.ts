/**
 * What to run instead of a line the grammar refused (issue 15): models trained on bash type
 * `cd proj && git diff`, `git log | head -5` or `git diff > out.patch`. The refusal stays; this
 * finds the pterm line that does what was meant, from the declarations (a flag marked `digits`
 * is the one `| head -N` means), so no command's knowledge lives here.
 */

import { type CommandNode, isGroup, type LeafSpec } from "./declaration.ts";
import { quoteWord } from "./grammar.ts";
import type { Registry } from "./registry.ts";

/** Splits a line on spaces outside quotes, keeping quotes (good enough for a hint, never for running). */
function roughWords(text: string): string[] {
  return text.match(/"(?:[^"\\]|\\.)*"|'[^']*'|\S+/g) ?? [];
}

function unquote(word: string): string {
  if (word.startsWith("'") && word.endsWith("'")) return word.slice(1, -1);
  if (word.startsWith('"') && word.endsWith('"')) return word.slice(1, -1).replace(/\\(["\\])/g, "$1");
  return word;
}

async function leafOf(registry: Registry, words: string[]): Promise<LeafSpec | null> {
  if (!words.length || !registry.has(words[0])) return null;
  let node: CommandNode = await registry.load(words[0]);
  for (let i = 1; isGroup(node); i++) {
    const group = node;
    const next: CommandNode | undefined = group.subcommands.find((s) => s.name === words[i]) ??
      group.subcommands.find((s) => s.name === group.defaultSubcommand);
    if (!next) return null;
    node = next;
  }
  return node;
}

function render(words: string[]): string {
  return words.map((w) => quoteWord(unquote(w))).join(" ");
}

/** A sentence naming the line to run instead, or `""` when nothing better is known. */
export async function hintForRefusedLine(line: string, registry: Registry): Promise<string> {
  const text = line.trim();

  // `cd dir && cmd …` / `cd dir; cmd …`: there is no working directory.
  const cd = text.match(/^cd\s+(\S+)\s*(?:&&|;)\s*(.+)$/);
  if (cd) {
    const dir = unquote(cd[1]);
    const rest = roughWords(cd[2]);
    if (rest[0] === "git" && registry.has("git")) {
      return ` There is no shell and no current folder: name the repository instead, e.g. \`${
        render(["git", "-C", dir, ...rest.slice(1)])
      }\` (or --repo ${quoteWord(dir)}).`;
    }
    return ` There is no shell and no current folder: paths are relative to the workspace root, so write ${
      quoteWord(dir)
    }/<path> in \`${render(rest)}\`.`;
  }

  // `cmd … | head -N` (or tail, grep, less, wc): output is bounded already.
  const pipe = text.match(/^([^|]+?)\s*\|\s*(\S+)(.*)$/);
  if (pipe) {
    const left = roughWords(pipe[1]);
    const tool = pipe[2];
    const count = (pipe[3].match(/-n\s*(\d+)|-(\d+)/) ?? []).slice(1).find(Boolean);
    if (tool === "head" || tool === "tail") {
      const leaf = await leafOf(registry, left);
      const limit = leaf?.flags?.find((f) => f.digits);
      if (limit && tool === "head") {
        return ` Drop \`| ${tool}\`: run \`${render([...left, `--${limit.name}`, count ?? "10"])}\`.`;
      }
      return ` Drop \`| ${tool}\`: run \`${render(left)}\`; long output keeps its head and tail in the envelope ` +
        "and the full text is saved as an artifact.";
    }
    return ` Drop \`| ${tool}${pipe[3]}\`: there is no shell to pipe into. Run \`${render(left)}\` and read ` +
      "its structured result (or the artifact holding the full output).";
  }

  // `cmd … 2>&1`, `cmd … 2>/dev/null`: stderr is in the envelope already.
  const stderrRedirect = text.match(/^(.+?)\s+2>(?:&1|\/dev\/null)\s*$/);
  if (stderrRedirect) {
    return ` Drop \`${text.slice(stderrRedirect[1].length).trim()}\`: stdout and stderr are separate fields of ` +
      `the envelope. Run \`${render(roughWords(stderrRedirect[1]))}\`.`;
  }

  // `cmd … > file`: no redirection; a command with an output-path flag writes the file itself.
  const redirect = text.match(/^(.+?)\s+>>?\s*(\S+)\s*$/);
  if (redirect) {
    const left = roughWords(redirect[1]);
    const leaf = await leafOf(registry, left);
    const out = leaf?.flags?.find((f) => f.path === "write" && f.type === "string" && !f.required);
    if (out) return ` There is no redirection: run \`${render([...left, `--${out.name}`, redirect[2]])}\`.`;
    return ` There is no redirection: run \`${render(left)}\`; its output is in the envelope, and long output ` +
      "is saved as an artifact.";
  }

  // `git add src/*.py`: nothing expands a glob here.
  const glob = text.match(/(?:^|\s)(\S*[*?]\S*)/);
  if (glob && !/[|;&<>`]/.test(text)) {
    return ` Nothing expands \`${glob[1]}\` here: name the files, or their folder (a folder means everything in it).`;
  }

  // `a && b`: one command per call.
  const chain = text.match(/^(.+?)\s*&&\s*(.+)$/);
  if (chain) {
    return ` Run one command per call: first \`${render(roughWords(chain[1]))}\`, then \`${
      render(roughWords(chain[2]))
    }\`.`;
  }
  return "";
}
