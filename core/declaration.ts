/**
 * How a command is declared. One declaration per top-level command drives parsing,
 * `--help`, the registry, `pterm schema`, `pterm prompt` and the docs.
 *
 * A declaration is plain data plus lazy references: the handler, the result schema and the
 * config schema are imported only when needed, so that `pterm exec` starts fast.
 */

import type { SessionService } from "./session_service.ts";

/** What a command's code may touch; the sandbox grants exactly these Deno permissions. */
export type Capability =
  /** read files under the workspace root */
  | "fs.read"
  /** write files under the workspace root */
  | "fs.write"
  /** network, limited to the hosts the command declares for the call */
  | "net";

export interface FlagSpec {
  /** The long name without dashes: `repo` is written `--repo`. */
  readonly name: string;
  /** A one-letter alias: `m` is written `-m`. Short flags cluster as in getopt: `-am msg`, `-n3`, `-U0`. */
  readonly short?: string;
  /** Other long names the flag answers to (real git's spellings: `cached` for `staged`, `max-count` for `max`). */
  readonly aliases?: readonly string[];
  /**
   * Accepted for compatibility with the real tool's spelling and listed apart in `--help`
   * (e.g. `--oneline`: the result is structured already). The description says what it does in pterm.
   */
  readonly compat?: boolean;
  /** For a number flag: `-<digits>` sets it, as `git log -3` means `--max-count 3`. */
  readonly digits?: boolean;
  readonly type: "string" | "number" | "boolean";
  readonly description: string;
  /** May be given several times; the value is then an array. */
  readonly repeatable?: boolean;
  /**
   * The value a bare flag means (git's optional arguments: `tag -n` is `-n1`); a value must then
   * be attached, `-n3` or `--lines=3`, so the next word stays a positional.
   */
  readonly bareValue?: string;
  readonly required?: boolean;
  readonly default?: string | number | boolean;
  readonly choices?: readonly string[];
  /** Shown in usage: `--repo <path>`. */
  readonly valueName?: string;
  /** For numbers: inclusive bounds. Numbers are integers. */
  readonly min?: number;
  readonly max?: number;
  /** The value is a workspace path; it is confined under the workspace root before the command runs. */
  readonly path?: "read" | "write";
}

export interface PositionalSpec {
  readonly name: string;
  readonly description: string;
  readonly required?: boolean;
  /** Takes all remaining words (only the last positional may). */
  readonly variadic?: boolean;
  readonly path?: "read" | "write";
  /**
   * The words land in this (repeatable) flag instead, as if each had been given as `--<flag> word`:
   * `git add a.txt b.txt` means `git add --path a.txt --path b.txt`.
   */
  readonly into?: string;
}

export interface ExampleSpec {
  /** A complete command line, as an agent would pass it to `terminal_exec`. */
  readonly command: string;
  readonly description: string;
  readonly stdin?: string;
}

/**
 * When a command reads the tool call's stdin. Stdin is never read otherwise. With `bytes`, the
 * command takes stdin's bytes as they came (`CommandContext.stdinBytes`), UTF-8 or not; without
 * it, stdin that is not UTF-8 is refused (StdinNotUtf8) before the command runs.
 */
export type StdinUse =
  & ({ readonly mode: "always" } | {
    readonly mode: "whenFlag";
    readonly flag: string;
    /** Other flags that make the command read stdin too (`git cat-file --batch` and `--batch-check`). */
    readonly alsoFlags?: readonly string[];
  } | {
    readonly mode: "unlessFlag";
    readonly flag: string;
  })
  & { readonly bytes?: boolean };

export interface Limits {
  /** Default timeout for this command when the call gives none (still capped by the config maximum). */
  readonly timeoutMs?: number;
}

/** A lazily loaded zod schema; `unknown` here keeps zod out of the start-up path. */
export type LazySchema = () => Promise<unknown>;

interface NodeBase {
  readonly name: string;
  /** Other names this subcommand answers to, as the real tools spell it (`doc read` for `doc extract`). */
  readonly aliases?: readonly string[];
  readonly summary: string;
  /** Longer text for `--help`, after the summary. */
  readonly description?: string;
  readonly examples: readonly ExampleSpec[];
}

/**
 * Where a leaf's handler lives. A reference, not a loader function: the sandbox worker's entry
 * imports this module statically with the kernel's worker body, so the handler's code loads in
 * one module graph, in parallel, instead of through a chain of lazy imports (bench/startup.ts).
 */
export interface HandlerRef {
  /** The module's absolute URL: `new URL("./handler.ts", import.meta.url).href`. */
  readonly module: string;
  /** The name the handler is exported under. */
  readonly export: string;
}

/** A command that runs: it has flags, a handler and a result schema. */
export interface LeafSpec extends NodeBase {
  readonly flags?: readonly FlagSpec[];
  readonly positionals?: readonly PositionalSpec[];
  readonly capabilities: readonly Capability[];
  readonly stdin?: StdinUse;
  readonly limits?: Limits;
  /** Words after a `--` land in this repeatable flag (git's `<rev> -- <path>...`); default: positionals. */
  readonly afterDoubleDash?: string;
  /**
   * The real tool's flags this command does not take, each with what to do instead (`--patch` on
   * `git add` is interactive staging, not `--path`): refused by name, never answered with a
   * look-alike flag that means something else.
   */
  readonly refusedFlags?: Readonly<Record<string, string>>;
  readonly result: LazySchema;
  readonly handler: HandlerRef;
  readonly subcommands?: undefined;
}

/** A command that only groups subcommands, like `git`. */
export interface GroupSpec extends NodeBase {
  readonly subcommands: readonly CommandNode[];
  /** The subcommand run when none is named, or when the next word is a flag (`git stash` = `git stash push`). */
  readonly defaultSubcommand?: string;
  /**
   * Names the real tool has and pterm does not, each with what to run instead (or a plain "not
   * available"): an agent that types `git blame` learns the nearest route instead of a guess.
   */
  readonly unavailable?: Readonly<Record<string, string>>;
}

export type CommandNode = LeafSpec | GroupSpec;

/** How `pterm prompt` presents a command: full syntax inline, or "run --help first". */
export type PromptZone = "ready" | "help-first";

export type CommandSpec = CommandNode & {
  readonly zone: PromptZone;
  /**
   * The error codes this command raises besides the kernel's (core/errors.ts), declared once in the
   * command's `error_codes.ts`; the registry joins them into the envelope's list of codes.
   */
  readonly errorCodes?: readonly string[];
  /** The zod schema of this command's section in `pterm.json` (the section is named after the command). */
  readonly config?: LazySchema;
  /**
   * The network hosts (`host:port`) the command may reach in this call, from its config
   * section and the call's workspace. Only consulted for commands with the `net` capability.
   * Deno counts Unix sockets as network: a socket is `unix:<absolute path>` (it also needs
   * read and write permission on that path).
   */
  readonly netHosts?: (section: unknown, call: NetCall) => string[];
  /**
   * Rewrites the real tool's options that come before the subcommand (`git -C proj status`,
   * `git --no-pager log`) into pterm's words, before the line is resolved; loaded only for this command.
   */
  readonly spellings?: () => Promise<SpellingRewriter>;
  /**
   * Other programs' names an agent may type for what this command does (`pdftotext` for `doc
   * extract`), each with the sentence that names the pterm line to run instead.
   */
  readonly replaces?: Readonly<Record<string, string>>;
  /**
   * What this command needs running for the whole agent session (irc's daemon): `pterm mcp`
   * serves it for its session and `pterm shell` shows its light; loaded only by those hosts.
   */
  readonly sessionService?: () => Promise<SessionService>;
  /**
   * Other programs' names that are spellings of one of this command's subcommands, run as it
   * (`apply_patch` → `patch apply`): the name, then the words after this command's name.
   */
  readonly spelledAs?: Readonly<Record<string, readonly string[]>>;
};

export interface SpellingRewriter {
  /** `words` start with the command's name; the result does too. Throws `PtermError` for what it refuses. */
  rewrite(words: readonly string[]): string[];
}

/** What `netHosts` knows about the call besides the config section. */
export interface NetCall {
  /** Canonical workspace root. */
  readonly root: string;
  readonly session: { readonly id: string; readonly dir: string };
  /** The call's parsed flags and positionals (path arguments already confined): a remote's URL, say. */
  readonly args: {
    readonly flags: Readonly<Record<string, unknown>>;
    readonly positionals: Readonly<Record<string, unknown>>;
  };
}

export function isGroup(node: CommandNode): node is GroupSpec {
  return node.subcommands !== undefined;
}

// ---- typed flags for handlers -------------------------------------------------------------

type ScalarOf<F extends FlagSpec> = F["type"] extends "boolean" ? boolean
  : F["type"] extends "number" ? number
  : string;

type ValueOf<F extends FlagSpec> = F extends { repeatable: true } ? ScalarOf<F>[] : ScalarOf<F>;

type IsAlwaysPresent<F extends FlagSpec> = F extends { required: true } ? true
  : F extends { repeatable: true } ? true
  : F extends { type: "boolean" } ? true
  : F extends { default: string | number | boolean } ? true
  : false;

/** The parsed flags of a declaration, as a handler sees them. */
export type FlagsOf<Fs extends readonly FlagSpec[]> =
  & { [F in Fs[number] as IsAlwaysPresent<F> extends true ? F["name"] : never]: ValueOf<F> }
  & { [F in Fs[number] as IsAlwaysPresent<F> extends true ? never : F["name"]]?: ValueOf<F> };

type PositionalValue<P extends PositionalSpec> = P extends { variadic: true } ? string[] : string;

/** The parsed positionals of a declaration, by name. */
export type PositionalsOf<Ps extends readonly PositionalSpec[]> =
  & { [P in Ps[number] as P extends { required: true } | { variadic: true } ? P["name"] : never]: PositionalValue<P> }
  & { [P in Ps[number] as P extends { required: true } | { variadic: true } ? never : P["name"]]?: PositionalValue<P> };
