/**
 * `pterm server run|start|stop|status`: the warm session server of a workspace root as a host
 * subcommand. This module stays tiny (main.ts imports it on start-up); the server loads only when
 * `run` runs.
 *
 * - `run`: the server in the foreground (what `start` runs in the background);
 * - `start`: starts it in the background unless one of this version already serves the root, and
 *   waits until it answers; prints its status;
 * - `stop`: asks it to stop and waits until its socket is gone;
 * - `status`: prints its status as JSON (`"running": false` and exit code 1 when none answers).
 */

import type { App, HostCommand } from "../../core/host/app.ts";
import { rootFlag } from "../../core/host/options.ts";
import { resolveWorkspace } from "../../core/host/workspace.ts";
import { serverSocketPath } from "../cli/warm_client.ts";
import { PtermError } from "../../core/errors.ts";
import { lazyImport } from "../../core/lazy.ts";

const START_WAIT_MS = 20_000;
const STOP_WAIT_MS = 20_000;

const loadSpawn = () => lazyImport<typeof import("./spawn.ts")>(new URL("./spawn.ts", import.meta.url));

async function waitFor(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

function socketExists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

export function serverCommand(app: Omit<App, "hostCommands">): HostCommand {
  return {
    name: "server",
    description: "The workspace's warm session server, which `pterm exec` uses when it is up (run | start | " +
      "stop | status). `server.autostart` in pterm.json (or $PTERM_SERVER=auto) makes `pterm exec` start it; " +
      "$PTERM_SERVER=off keeps exec cold.",
    action: { name: "action", choices: ["run", "start", "stop", "status"] },
    flags: [
      rootFlag,
      {
        name: "idle-ms",
        type: "number",
        valueName: "ms",
        description: "run/start: the server leaves after this long without calls (default 900000, 15 minutes).",
      },
    ],
    async run(io, options) {
      const { root } = resolveWorkspace(io, typeof options.root === "string" ? options.root : undefined);
      const idleRaw = options.idleMs;
      const idleMs = idleRaw === undefined ? undefined : Number(idleRaw);
      if (idleMs !== undefined && !(Number.isInteger(idleMs) && idleMs > 0)) {
        throw new PtermError("InvalidArgs", "--idle-ms takes a positive whole number of milliseconds, e.g. 900000.", {
          helpFor: "pterm server",
        });
      }
      const { askServer, spawnServer } = await loadSpawn();
      const print = (value: unknown) => io.writeOut(JSON.stringify(value) + "\n");
      switch (options.action) {
        case "run": {
          const { runSessionServer } = await lazyImport<typeof import("./session_server.ts")>(
            new URL("./session_server.ts", import.meta.url),
          );
          return await runSessionServer(io, app, { root, idleMs });
        }
        case "start": {
          let status = await askServer(root, app.version, "status");
          if (status === null) {
            spawnServer(root, idleMs);
            await waitFor(async () => (status = await askServer(root, app.version, "status")) !== null, START_WAIT_MS);
          }
          if (status === null) {
            throw new PtermError(
              "DaemonNotRunning",
              `the session server for ${root} did not answer within ${START_WAIT_MS} ms of starting; run it in the ` +
                `foreground to see why: \`pterm server run --root ${root}\`.`,
              { helpFor: "pterm server" },
            );
          }
          await print({ running: true, ...status, t: undefined });
          return 0;
        }
        case "stop": {
          const answer = await askServer(root, app.version, "stop");
          if (answer === null) {
            await print({ running: false, root });
            return 0;
          }
          const socket = serverSocketPath(root, app.version);
          const gone = await waitFor(() => Promise.resolve(!socketExists(socket)), STOP_WAIT_MS);
          await print({ running: !gone, stopped: gone, root, pid: answer.pid });
          return gone ? 0 : 1;
        }
        default: {
          const status = await askServer(root, app.version, "status");
          await print(
            status === null
              ? { running: false, root, version: app.version }
              : { running: true, ...status, t: undefined },
          );
          return status === null ? 1 : 0;
        }
      }
    },
  };
}
