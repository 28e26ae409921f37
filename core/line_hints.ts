/**
 * What to run instead of a line the grammar refused: models trained on bash type
 * `cd proj && git diff`, `git log | head -5` or `git diff > out.patch`. The refusal stays; this
 * finds the pterm line that does what was meant, from the declarations (a flag marked `digits`
 * is the one `| head -N` means), so no command's knowledge lives here.
 */

import { type CommandNode, isGroup, type LeafSpec } from "./declaration.ts";
import { parseArgs } from "./flags.ts";
import { quoteWord, tokenize } from "./grammar.ts";
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

/**
 * Whether a suggested line runs: it tokenizes, names a command (its spellings applied) and parses
 * against the declaration. Only such lines are offered: a hint never names a line pterm refuses.
 */
async function runs(registry: Registry, line: string): Promise<boolean> {
  try {
    const resolution = await registry.resolve(tokenize(line));
    if (resolution.kind === "help") return true;
    parseArgs(resolution.path.join(" "), resolution.leaf, resolution.rest);
    return true;
  } catch {
    return false;
  }
}

async function firstThatRuns(registry: Registry, lines: readonly string[]): Promise<string | null> {
  for (const line of lines) if (await runs(registry, line)) return line;
  return null;
}

/**
 * Another program's words as the pterm line its declared replacement names (`markitdown x` is
 * `doc extract --in x`); a pterm command's words unchanged.
 */
async function asPterm(registry: Registry, words: string[]): Promise<string[]> {
  if (!words.length || registry.has(words[0])) return words;
  const sentence = await registry.replacement(words[0], words.slice(1).map(unquote));
  const line = sentence?.match(/`([^`]+)`/)?.[1];
  if (!line) return words;
  try {
    return tokenize(line);
  } catch {
    return words;
  }
}

/** A line with a line break: the command's own way to read multi-line text from the call's stdin. */
async function stdinHint(text: string, registry: Registry): Promise<string> {
  const breakAt = text.search(/[\n\r\v\f\u0085\u2028\u2029]/);
  const words = roughWords(text.slice(0, breakAt));
  // The words before the one that opened the multi-line text, and before the flag that took it.
  let keep = words.length;
  const open = words.findIndex((w) => /^['"]/.test(w) && !(w.length > 1 && w.endsWith(w[0])));
  if (open >= 0) keep = open;
  if (keep > 0 && words[keep - 1].startsWith("-")) keep--;
  const head = words.slice(0, keep);
  const leaf = await leafOf(registry, head);
  const use = leaf?.stdin;
  if (!leaf || !use) return "";
  const candidates: string[] = [];
  if (use.mode === "always" || use.mode === "unlessFlag") candidates.push(render(head));
  if (use.mode === "whenFlag") {
    const flag = leaf.flags?.find((f) => f.name === use.flag);
    if (flag) {
      const spelled = flag.short ? `-${flag.short}` : `--${flag.name}`;
      candidates.push(render([...head, spelled, ...(flag.type === "boolean" ? [] : ["-"])]));
    }
  }
  const line = await firstThatRuns(registry, candidates);
  return line ? ` Run \`${line}\` with the text in the call's stdin field.` : "";
}

/** A sentence naming the line to run instead, or `""` when nothing better is known. */
export async function hintForRefusedLine(line: string, registry: Registry): Promise<string> {
  const text = line.trim();

  if (/[\n\r\v\f\u0085\u2028\u2029]/.test(text)) return await stdinHint(text, registry);

  // `cd dir && cmd …` / `cd dir; cmd …`: there is no working directory.
  const cd = text.match(/^cd\s+(\S+)\s*(?:&&|;)\s*(.+)$/);
  if (cd) {
    const dir = unquote(cd[1]);
    const rest = await asPterm(registry, roughWords(cd[2]));
    const leaf = await leafOf(registry, rest);
    // The folder as the command takes it: git's -C, a folder flag of the command (`git init --dir`),
    // or in front of each path argument (`cat dir/x`).
    const folderFlags = (leaf?.flags ?? []).filter((f) => f.path && f.type === "string" && /^(repo|dir)$/.test(f.name));
    const pathArgs = (leaf?.positionals ?? []).some((p) => p.path);
    const depth = rest[0] === "git" ? 2 : 1;
    const candidates = [
      ...(rest[0] === "git" ? [render(["git", "-C", dir, ...rest.slice(1)])] : []),
      ...folderFlags.map((f) => render([...rest, `--${f.name}`, dir])),
      ...(pathArgs
        ? [
          rest.slice(depth).some((w) => !w.startsWith("-"))
            ? render(rest.map((w, i) => (i >= depth && !w.startsWith("-") ? `${dir}/${unquote(w)}` : w)))
            : render([...rest, dir]),
        ]
        : []),
    ];
    const fixed = await firstThatRuns(registry, candidates);
    if (fixed) {
      return ` There is no shell and no current folder: name the folder in the line instead, e.g. \`${fixed}\`.`;
    }
    return ` There is no shell and no current folder: paths are relative to the workspace root, so name ${
      quoteWord(dir)
    } in the paths of \`${render(rest)}\`.`;
  }

  // `cmd … | head -N` (or tail, grep, less, wc): output is bounded already.
  const pipe = text.match(/^([^|]+?)\s*\|\s*(\S+)(.*)$/);
  if (pipe) {
    const left = await asPterm(registry, roughWords(pipe[1]));
    const tool = pipe[2];
    // `cat file | grep x` (or head, tail, wc): the reading command takes the file itself.
    if (left[0] === "cat" && registry.has(tool) && left.length > 1 && left.slice(1).every((w) => !w.startsWith("-"))) {
      const direct = render([tool, ...roughWords(pipe[3]), ...left.slice(1)]);
      if (!/[|;&<>]/.test(pipe[3]) && await runs(registry, direct)) {
        return ` Drop \`cat … |\`: ${tool} reads the file itself. Run \`${direct}\`.`;
      }
    }
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
      `the envelope. Run \`${render(await asPterm(registry, roughWords(stderrRedirect[1])))}\`.`;
  }

  // `cmd … > file`: no redirection; a command with an output-path flag writes the file itself.
  const redirect = text.match(/^(.+?)\s+>>?\s*(\S+)\s*$/);
  if (redirect) {
    const left = await asPterm(registry, roughWords(redirect[1]));
    const leaf = await leafOf(registry, left);
    const out = leaf?.flags?.find((f) => f.path === "write" && f.type === "string" && !f.required);
    if (out) return ` There is no redirection: run \`${render([...left, `--${out.name}`, redirect[2]])}\`.`;
    return ` There is no redirection: run \`${render(left)}\`; its output is in the envelope, and long output ` +
      "is saved as an artifact.";
  }

  // `git add src/*.py`: nothing expands a glob here.
  const glob = text.match(/(?:^|\s)(\S*[*?]\S*)/);
  if (glob && !/[|;&<>`]/.test(text)) {
    const list = `glob ${quoteWord(unquote(glob[1]))}`;
    const lister = (await runs(registry, list)) ? ` \`${list}\` lists the matching paths;` : "";
    // Not "or their folder": not every command takes a folder (`doc extract` reads one file).
    return ` Nothing expands \`${glob[1]}\` here:${lister} name the files one by one.`;
  }

  // `a && b`: one command per call.
  const chain = text.match(/^(.+?)\s*&&\s*(.+)$/);
  if (chain) {
    return ` Run one command per call: first \`${render(await asPterm(registry, roughWords(chain[1])))}\`, then \`${
      render(await asPterm(registry, roughWords(chain[2])))
    }\`.`;
  }
  return "";
}
