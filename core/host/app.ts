/** What a face (cli, mcp, shell, server) is given: the app — its commands, version, skills — and host subcommands. */

import type { FlagSpec } from "../declaration.ts";
import type { CommandLoaders } from "../registry.ts";
import type { CliIo } from "./io.ts";

export interface App {
  readonly version: string;
  readonly commands: CommandLoaders;
  /** Code folders workers may read (default: core/ and commands/); see core/sandbox/sandbox.ts. */
  readonly codeDirs?: readonly string[];
  /** Where the built-in SKILL.md documents live. */
  readonly skillsDir: URL;
  /** Long-running host-side subcommands a command contributes (e.g. `pterm irc-daemon`). */
  readonly hostCommands?: readonly HostCommand[];
}

/**
 * A subcommand of the outer CLI that is not a `terminal_exec` command: it runs on the host,
 * for the host (e.g. a session daemon). Its implementation should be imported lazily in `run`.
 */
export interface HostCommand {
  readonly name: string;
  readonly description: string;
  readonly flags: readonly FlagSpec[];
  /** Its one positional word, if it takes one (e.g. `pterm server start`): passed to `run` as `options.action`. */
  readonly action?: { readonly name: string; readonly choices: readonly string[] };
  /** `options` are keyed as commander names them (`--timeout-ms` is `timeoutMs`). */
  run(io: CliIo, options: Record<string, string | boolean | undefined>, app: App): Promise<number>;
}
