/**
 * `pterm irc-daemon` as a host subcommand of the outer CLI. This module stays tiny (it is
 * imported on start-up by main.ts); the daemon itself loads only when the subcommand runs.
 */

import type { HostCommand } from "../../core/host/app.ts";
import { rootFlag } from "../../core/host/options.ts";
import { lazyImport } from "../../core/lazy.ts";

export const ircDaemonCommand: HostCommand = {
  name: "irc-daemon",
  description: "Run the IRC connection of one agent session (foreground; the host starts it, SIGTERM stops it). " +
    "Reads <root>/skills/irc-cli/secrets/.env; the `irc` commands reach it over <root>/sessions/<id>/irc.sock. " +
    "Linux and macOS only (Unix sockets).",
  flags: [
    rootFlag,
    {
      name: "session",
      type: "string",
      valueName: "id",
      description: "The agent session this daemon serves (else $PTERM_SESSION, else default).",
    },
  ],
  async run(io, options) {
    const { runDaemon } = await lazyImport<typeof import("./daemon.ts")>(new URL("./daemon.ts", import.meta.url));
    return await runDaemon(io, {
      root: typeof options.root === "string" ? options.root : undefined,
      session: typeof options.session === "string" ? options.session : undefined,
    });
  },
};
