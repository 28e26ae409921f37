/**
 * `pterm shell` as a host subcommand of the outer CLI. This module stays tiny (main.ts imports
 * it on start-up); the shell itself loads only when the subcommand runs.
 */

import type { HostCommand } from "../../core/host/app.ts";
import { rootFlag, sessionFlag } from "../../core/host/options.ts";
import { lazyImport } from "../../core/lazy.ts";

export const shellCommand: HostCommand = {
  name: "shell",
  description: "An interactive terminal for people in the pterm grammar: each line runs as terminal_exec does " +
    "(audited as origin shell); the prompt shows the session and its IRC light. :help inside lists the rest.",
  flags: [
    rootFlag,
    sessionFlag,
    {
      name: "timeout-ms",
      type: "string",
      valueName: "n",
      description: "Stop each command after this many milliseconds (clipped to limits.timeout_ms_max).",
    },
  ],
  async run(io, options, app) {
    const { runShell } = await lazyImport<typeof import("./main.ts")>(new URL("./main.ts", import.meta.url));
    const timeout = options.timeoutMs;
    return await runShell(io, app, {
      root: typeof options.root === "string" ? options.root : undefined,
      session: typeof options.session === "string" ? options.session : undefined,
      timeoutMs: typeof timeout === "string" ? timeout : undefined,
    });
  },
};
