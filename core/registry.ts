/**
 * The whitelist. Top-level commands are loaded lazily: the registry holds one loader per
 * name, and only the declaration of the command being run is imported.
 */

import { type CommandNode, type CommandSpec, isGroup, type LeafSpec } from "./declaration.ts";
import { KERNEL_ERROR_CODES, PtermError } from "./errors.ts";
import { didYouMean, suggest } from "./suggest.ts";
import { quoteWord } from "./grammar.ts";

export type CommandLoaders = Readonly<Record<string, () => Promise<CommandSpec>>>;

/** The built-in `help` command is the kernel's own; it is always listed. */
export const HELP_COMMAND = "help";

export type Resolution =
  | {
    readonly kind: "leaf";
    readonly spec: CommandSpec;
    readonly leaf: LeafSpec;
    /** The command words, e.g. ["git", "status"]. */
    readonly path: readonly string[];
    /** The words after the command path: flags and positionals. */
    readonly rest: readonly string[];
  }
  | {
    readonly kind: "help";
    readonly spec: CommandSpec | null;
    readonly node: CommandNode | null;
    readonly path: readonly string[];
    /** `help --search <words>`: what to look for in every command's names, summaries, flags and examples. */
    readonly search?: string;
  };

/** Programs a model reaches for out of habit; none of them exists here, and pterm never runs one. */
const HOST_TOOLS = new Set([
  "cat",
  "ls",
  "grep",
  "rg",
  "find",
  "sed",
  "awk",
  "head",
  "tail",
  "less",
  "more",
  "wc",
  "echo",
  "printf",
  "mkdir",
  "rmdir",
  "rm",
  "cp",
  "mv",
  "touch",
  "chmod",
  "ln",
  "pwd",
  "cd",
  "tree",
  "diff",
  "sort",
  "uniq",
  "bash",
  "sh",
  "zsh",
  "python",
  "python3",
  "node",
  "deno",
  "npm",
  "npx",
  "pip",
  "curl",
  "wget",
  "make",
  "sudo",
  "vim",
  "vi",
  "nano",
  "code",
  "open",
  "stat",
  "file",
  "xargs",
  "tee",
  "jq",
]);

/** The kernel's codes, then the ones `specs` declare, each once. */
export function errorCodesOf(specs: readonly CommandSpec[]): string[] {
  return [...new Set<string>([...KERNEL_ERROR_CODES, ...specs.flatMap((spec) => spec.errorCodes ?? [])])];
}

export class Registry {
  readonly #loaders: CommandLoaders;
  readonly #cache = new Map<string, CommandSpec>();

  constructor(loaders: CommandLoaders) {
    this.#loaders = loaders;
  }

  /** Every command name, `help` included, sorted. */
  names(): string[] {
    return [HELP_COMMAND, ...Object.keys(this.#loaders)].sort();
  }

  has(name: string): boolean {
    return Object.hasOwn(this.#loaders, name);
  }

  async load(name: string): Promise<CommandSpec> {
    const cached = this.#cache.get(name);
    if (cached) return cached;
    const loader = this.#loaders[name];
    if (!loader) throw new Error(`no command ${name}`);
    const spec = await loader();
    this.#cache.set(name, spec);
    return spec;
  }

  async loadAll(): Promise<CommandSpec[]> {
    return await Promise.all(Object.keys(this.#loaders).sort().map((name) => this.load(name)));
  }

  /** Every code an envelope may carry: the kernel's, then each command's own, in command order. */
  async errorCodes(): Promise<string[]> {
    return errorCodesOf(await this.loadAll());
  }

  /** What to say about an unknown command name: a declared replacement, a host tool, or a near name. */
  async #insteadOf(name: string, args: readonly string[]): Promise<string> {
    const replacement = await this.replacement(name, args);
    if (replacement !== null) return ` ${replacement}`;
    if (HOST_TOOLS.has(name)) {
      // The reading command that does what the program was typed for, with the line's own words.
      const file = args.find((a) => !a.startsWith("-"));
      const line = name === "rg" && args.length
        ? `search ${args.map(quoteWord).join(" ")}`
        : file === undefined
        ? "ls"
        : `read ${quoteWord(file)}`;
      return " pterm has no shell and runs no other program; it reads, lists and searches files itself " +
        `(read, ls, glob, find, grep, search, wc): e.g. \`${line}\`.`;
    }
    return didYouMean(name, this.names());
  }

  /**
   * The sentence a command declares for another program's name (`replaces` keys are a name, or a
   * name and a file pattern such as `cat *.pdf`; `{1}` in the text is the first argument that is
   * not a flag), or null.
   */
  async replacement(name: string, args: readonly string[]): Promise<string | null> {
    const file = args.find((a) => !a.startsWith("-") || a === "-");
    const lower = name.toLowerCase();
    for (const spec of await this.loadAll()) {
      for (const [key, text] of Object.entries(spec.replaces ?? {})) {
        const [tool, pattern] = key.split(" ");
        if (tool !== lower) continue;
        if (pattern && !(file && pattern.startsWith("*") && file.toLowerCase().endsWith(pattern.slice(1)))) continue;
        if (text.includes("{1}") && (file === undefined || file === "-")) continue;
        return text.replaceAll("{1}", quoteWord(file ?? ""));
      }
    }
    return null;
  }

  /** The command words another program's name spells (`apply_patch` → patch apply), or null. */
  async spelledAs(name: string): Promise<string[] | null> {
    for (const spec of await this.loadAll()) {
      const words = spec.spelledAs?.[name];
      if (words) return [spec.name, ...words];
    }
    return null;
  }

  /**
   * Finds the command a word list names. `help [cmd...]`, `--help` and `-h` resolve to help;
   * an unknown name is `UnknownCommand` with suggestions.
   */
  async resolve(words: readonly string[]): Promise<Resolution> {
    const [first, ...rest] = words;
    if (first === HELP_COMMAND) {
      const search = rest[0] === "--search"
        ? rest.slice(1).join(" ")
        : rest[0]?.startsWith("--search=")
        ? [rest[0].slice("--search=".length), ...rest.slice(1)].join(" ")
        : undefined;
      if (search !== undefined) {
        if (search.trim() === "") {
          throw new PtermError("InvalidArgs", "help --search needs a word to look for, e.g. `help --search commit`.", {
            helpFor: HELP_COMMAND,
          });
        }
        return { kind: "help", spec: null, node: null, path: [], search };
      }
      if (rest.length === 0 || rest[0].startsWith("-")) return { kind: "help", spec: null, node: null, path: [] };
      // `help search <words>` looks for the words (`help search` alone is the `search` command's help).
      if (rest[0] === "search" && rest.length > 1 && !rest[1].startsWith("-")) {
        return { kind: "help", spec: null, node: null, path: [], search: rest.slice(1).join(" ") };
      }
      if (!this.has(rest[0])) {
        // `help search commit`, `help branch`: not a command name, so words to look for.
        const words = rest[0] === "search" && rest.length > 1 ? rest.slice(1) : rest;
        return { kind: "help", spec: null, node: null, path: [], search: words.join(" ") };
      }
      return await this.resolve([...rest, "--help"]);
    }
    if (!this.has(first)) {
      const spelled = await this.spelledAs(first);
      if (spelled) return await this.resolve([...spelled, ...rest]);
      throw new PtermError(
        "UnknownCommand",
        `\`${first}\` is not a pterm command.${await this.#insteadOf(first, rest)} ` +
          `The commands are: ${this.names().join(", ")}.`,
        { helpFor: HELP_COMMAND },
      );
    }
    const spec = await this.load(first);
    // The real tool's options before the subcommand (`git -C dir …`) become pterm's words first.
    if (spec.spellings) words = (await spec.spellings()).rewrite(words);
    let node: CommandNode = spec;
    const path = [first];
    let index = 1;
    while (isGroup(node)) {
      let word = words[index];
      const fallback = node.defaultSubcommand;
      if (fallback && (word === undefined || (word.startsWith("-") && word !== "--help" && word !== "-h"))) {
        // `git stash` and `git stash -m x` mean `git stash push …`, as in git.
        words = [...words.slice(0, index), fallback, ...words.slice(index)];
        word = fallback;
      }
      if (word === undefined || word === "--help" || word === "-h") {
        if (word === undefined) {
          throw new PtermError(
            "InvalidArgs",
            `\`${path.join(" ")}\` needs a subcommand: ${node.subcommands.map((s) => s.name).join(", ")}.`,
            { helpFor: path.join(" ") },
          );
        }
        return { kind: "help", spec, node, path };
      }
      const next: CommandNode | undefined = node.subcommands.find((s) => s.name === word) ??
        node.subcommands.find((s) => s.aliases?.includes(word));
      if (!next) {
        const names = node.subcommands.map((s) => s.name);
        const instead = node.unavailable?.[word];
        if (instead !== undefined) {
          throw new PtermError("UnknownCommand", `${path.join(" ")}: '${word}' is not available in pterm. ${instead}`, {
            helpFor: path.join(" "),
          });
        }
        // One close name: the corrected line, ready to run.
        const close = suggest(word, names);
        const at = index;
        const fixed = close.length === 1
          ? ` Run \`${words.map((w, k) => (k === at ? close[0] : quoteWord(w))).join(" ")}\`.`
          : "";
        throw new PtermError(
          "UnknownCommand",
          `${path.join(" ")}: '${word}' is not a ${path.join(" ")} command.${didYouMean(word, names)} ` +
            `Its subcommands are: ${names.join(", ")}.${fixed}`,
          { helpFor: path.join(" ") },
        );
      }
      node = next;
      path.push(next.name);
      index++;
    }
    // A leaf's own `--help` is found by the flag parser, which knows where `--` ends the flags.
    return { kind: "leaf", spec, leaf: node, path, rest: words.slice(index) };
  }
}
