/** main.ts with the probe command (a slow command to stop with Ctrl-C): the shell tests run this. */

import { main } from "../../../hosts/cli/main.ts";
import { processIo } from "../../../core/host/io.ts";
import { ircDaemonCommand } from "../../../commands/irc/host.ts";
import { shellCommand } from "../../../hosts/shell/host.ts";
import { probeCommands } from "../../fixtures/probe_commands.ts";

const code = await main(processIo(), {
  version: "test",
  commands: probeCommands,
  codeDirs: ["../../../core/", "../../../commands/", "../../../lib/", "../../fixtures/"].map((p) =>
    new URL(p, import.meta.url).pathname.replace(/\/$/, "")
  ),
  skillsDir: new URL("../../../skills/", import.meta.url),
  hostCommands: [ircDaemonCommand, shellCommand],
});
Deno.exit(code);
