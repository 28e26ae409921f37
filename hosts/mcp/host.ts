/**
 * `pterm mcp` as a host subcommand of the outer CLI. This module stays tiny (main.ts imports it
 * on start-up); the server and the MCP SDK load only when the subcommand runs.
 */

import type { App, HostCommand } from "../../core/host/app.ts";
import { rootFlag } from "../../core/host/options.ts";
import { lazyImport } from "../../core/lazy.ts";

export function mcpCommand(app: Omit<App, "hostCommands">): HostCommand {
  return {
    name: "mcp",
    description: "Serve terminal_exec, the skills, the audit log and the usage rules over MCP on stdio " +
      "(one agent session: it owns the session's IRC connection until the client disconnects).",
    flags: [
      rootFlag,
      {
        name: "session",
        type: "string",
        valueName: "id",
        description: "The agent session this server is (else $CLAUDE_CODE_SESSION_ID, else $PTERM_SESSION, " +
          "else a fresh id).",
      },
    ],
    async run(io, options) {
      const { runMcpServer } = await lazyImport<typeof import("./server.ts")>(
        new URL("./server.ts", import.meta.url),
      );
      return await runMcpServer(io, app, {
        root: typeof options.root === "string" ? options.root : undefined,
        session: typeof options.session === "string" ? options.session : undefined,
      });
    },
  };
}
