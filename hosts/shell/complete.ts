/**
 * Tab completion from the declarations: command names, subcommands, flags (and a flag's
 * choices), and workspace paths for path-typed flags and positionals. Paths are listed through
 * the kernel's confinement: nothing outside the root, no secret paths, no symlink that leads out.
 */

import { type CommandNode, type FlagSpec, isGroup, type LeafSpec } from "../../core/declaration.ts";
import { confinePathSync, isSecretPath } from "../../core/fs/paths.ts";
import type { Registry } from "../../core/registry.ts";
import { NAME_CONTROL } from "../../core/controls.ts";

/** The shell's own commands, completed at the start of a line. */
export const META_COMMANDS = [":copy", ":save", ":runs", ":show", ":watch", ":help", ":quit"] as const;

/** The words of a line being typed; the last one is the word under the cursor (possibly empty). */
export function splitWords(line: string): string[] {
  const words: string[] = [];
  let current = "";
  let quote: string | null = null;
  let inWord = false;
  for (const ch of line) {
    if (quote) {
      if (ch === quote) quote = null;
      else current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (ch === " " || ch === "\t") {
      if (inWord) words.push(current);
      current = "";
      inWord = false;
    } else {
      current += ch;
      inWord = true;
    }
  }
  words.push(current);
  return words;
}

/** The candidates that extend `prefix`, each with the space that ends a completed word. */
function startingWith(candidates: Iterable<string>, prefix: string): string[] {
  return [...new Set(candidates)].filter((c) => c.startsWith(prefix)).sort().map((c) => `${c} `);
}

/** Entries of the workspace folder `prefix` names, as completions of `prefix` (folders end in `/`). */
export function completePath(root: string, prefix: string): string[] {
  const slash = prefix.lastIndexOf("/");
  const dirPart = slash >= 0 ? prefix.slice(0, slash + 1) : "";
  const namePart = slash >= 0 ? prefix.slice(slash + 1) : prefix;
  let dir: string;
  try {
    dir = confinePathSync(root, dirPart === "" ? "." : dirPart, "read").abs;
  } catch {
    return [];
  }
  const out: string[] = [];
  try {
    for (const entry of Deno.readDirSync(dir)) {
      if (!entry.name.startsWith(namePart)) continue;
      if (namePart === "" && entry.name.startsWith(".")) continue;
      // A name holding a control character is never put on the line: the terminal would draw it as
      // the person did not type it (listings show it escaped; core/fs/paths.ts refuses new ones).
      if (NAME_CONTROL.test(entry.name)) continue;
      const rel = dirPart + entry.name;
      if (isSecretPath(rel)) continue;
      let isDir = entry.isDirectory;
      if (entry.isSymlink) {
        try {
          const confined = confinePathSync(root, rel, "read");
          isDir = confined.exists && Deno.statSync(confined.abs).isDirectory;
        } catch {
          continue;
        }
      }
      out.push(isDir ? `${rel}/` : `${rel} `);
    }
  } catch {
    return [];
  }
  return out.sort();
}

function flagByWord(leaf: LeafSpec, word: string): FlagSpec | undefined {
  if (word.startsWith("--")) return leaf.flags?.find((f) => f.name === word.slice(2));
  if (/^-[A-Za-z]$/.test(word)) return leaf.flags?.find((f) => f.short === word.slice(1));
  return undefined;
}

/** What the word under the cursor may become, given the words before it. */
export async function complete(registry: Registry, root: string, line: string): Promise<[string[], string]> {
  const words = splitWords(line);
  const partial = words.pop()!;
  // A word with quotes in it is left alone: readline replaces the typed text, not the parsed word.
  if (!line.endsWith(partial)) return [[], partial];
  if (words.length === 0) {
    const names = partial.startsWith(":") ? META_COMMANDS : registry.names();
    return [startingWith(names, partial), partial];
  }
  if (words[0] === ":save" && words.length === 1) return [completePath(root, partial), partial];
  if (words[0].startsWith(":")) return [[], partial];
  if (!registry.has(words[0])) return [[], partial];
  let node: CommandNode = await registry.load(words[0]);
  let index = 1;
  while (isGroup(node) && index < words.length) {
    const next: CommandNode | undefined = node.subcommands.find((s) => s.name === words[index]);
    if (!next) return [[], partial];
    node = next;
    index++;
  }
  if (isGroup(node)) return [startingWith([...node.subcommands.map((s) => s.name), "--help"], partial), partial];
  const leaf = node;
  const previous = words.length > index ? flagByWord(leaf, words[words.length - 1]) : undefined;
  if (previous && previous.type !== "boolean") {
    if (previous.choices) return [startingWith(previous.choices, partial), partial];
    if (previous.path) return [completePath(root, partial), partial];
    return [[], partial];
  }
  if (partial.startsWith("-")) {
    const used = new Set(words.slice(index));
    const flags = (leaf.flags ?? []).filter((f) => f.repeatable || !used.has(`--${f.name}`)).map((f) => `--${f.name}`);
    return [startingWith([...flags, "--help"], partial), partial];
  }
  if (leaf.positionals?.some((p) => p.path)) return [completePath(root, partial), partial];
  return [[], partial];
}
