/**
 * pterm's command line with everything it serves: the command table wired into the kernel, the host
 * subcommands (irc-daemon, mcp, server, shell). main.ts loads it once the call is not one a session
 * server answered (hosts/cli/warm_exec.ts); when pterm runs bundled, it loads as a bundle of its own
 * (scripts/bundle.ts).
 */

import { main } from "./main.ts";
import type { CliIo } from "../../core/host/io.ts";
import { commands } from "../../commands/index.ts";
import { ircDaemonCommand } from "../../commands/irc/host.ts";
import { mcpCommand } from "../mcp/host.ts";
import { serverCommand } from "../server/host.ts";
import { shellCommand } from "../shell/host.ts";
import { VERSION } from "../../version.ts";

/** Runs the command line of `io`; its exit code. `warmUnavailable`: as hosts/cli/main.ts takes it. */
export async function runCli(io: CliIo, warmUnavailable?: string): Promise<number> {
  const app = { version: VERSION, commands, skillsDir: new URL("../../skills/", import.meta.url) };
  return await main(io, {
    ...app,
    hostCommands: [ircDaemonCommand, mcpCommand(app), serverCommand(app), shellCommand],
  }, warmUnavailable);
}
