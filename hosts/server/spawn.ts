/**
 * Starting the session server in the background: the same pterm (the same Deno or compiled
 * binary, the same entry module, configuration and permissions the `pterm` task gives it), running
 * `pterm server run` for one root, detached from the caller, its output discarded.
 */

import { dirname, join } from "../../core/fs/path.ts";
import { connectServer, LineReader, writeMessage } from "../cli/warm_client.ts";

/** The permissions and V8 flags pterm runs with (deno.json's `pterm` task). */
const RUN_FLAGS = [
  "--allow-read",
  "--allow-write",
  "--allow-net",
  "--allow-env",
  "--allow-sys=uid",
  "--allow-run=sh",
  "--unstable-worker-options",
  "--v8-flags=--no-lazy,--max-semi-space-size=2",
];

/** The command that runs this pterm again with `args`. */
export function selfCommand(args: readonly string[]): { program: string; args: string[] } {
  if (Deno.build.standalone) return { program: Deno.execPath(), args: [...args] };
  const entry = new URL(Deno.mainModule);
  const config = join(dirname(entry.pathname), "runtime.deno.json");
  let configFlags: string[] = [];
  try {
    if (Deno.statSync(config).isFile) configFlags = [`--config=${config}`];
  } catch {
    // Run from elsewhere (a test's own entry): the default configuration.
  }
  return { program: Deno.execPath(), args: ["run", ...RUN_FLAGS, ...configFlags, entry.href, ...args] };
}

/** Starts `pterm server run` for `root` in the background; does not wait for it. */
export function spawnServer(root: string, idleMs?: number): void {
  const command = selfCommand(["server", "run", "--root", root, ...(idleMs ? ["--idle-ms", String(idleMs)] : [])]);
  // Through `sh`, the one program pterm may start (its permissions: `--allow-run=sh`); the words
  // go to `exec` as arguments, never into the script.
  const child = new Deno.Command("sh", {
    args: ["-c", 'exec "$@"', "sh", command.program, ...command.args],
    stdin: "null",
    stdout: "null",
    stderr: "null",
    detached: true,
  }).spawn();
  child.unref();
}

export interface ServerStatus {
  readonly running: boolean;
  readonly [key: string]: unknown;
}

/** Asks the server of `root` and `version` one thing (`status` or `stop`); null when none answers. */
export async function askServer(
  root: string,
  version: string,
  what: "status" | "stop",
): Promise<Record<string, unknown> | null> {
  const connected = await connectServer(root, version);
  if ("reason" in connected) return null;
  try {
    await writeMessage(connected.conn, { t: what });
    return await new LineReader(connected.conn).next(64 * 1024);
  } catch {
    return null;
  } finally {
    try {
      connected.conn.close();
    } catch {
      // already closed
    }
  }
}
