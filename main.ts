/**
 * pterm: a pseudo terminal for AI agents. The only module that touches the process: it wires
 * the command table into the kernel, runs the CLI and exits with its code.
 */

import { main } from "./hosts/cli/main.ts";
import { processIo } from "./core/host/io.ts";
import { commands } from "./commands/index.ts";
import { ircDaemonCommand } from "./commands/irc/host.ts";
import { mcpCommand } from "./hosts/mcp/host.ts";
import { serverCommand } from "./hosts/server/host.ts";
import { shellCommand } from "./hosts/shell/host.ts";
import { VERSION } from "./version.ts";

const app = { version: VERSION, commands, skillsDir: new URL("./skills/", import.meta.url) };
const code = await main(processIo(), {
  ...app,
  hostCommands: [ircDaemonCommand, mcpCommand(app), serverCommand(app), shellCommand],
});
Deno.exit(code);
