/** The outer CLI's dispatcher: `exec` takes the lean path; everything else goes to commander. */

import { lazyImport } from "../../core/lazy.ts";
import { runExec } from "./exec.ts";
import type { App } from "../../core/host/app.ts";
import type { CliIo } from "../../core/host/io.ts";

/**
 * `warmUnavailable`: why no session server took the call, when the process's first step already
 * asked one (main.ts, hosts/cli/warm_exec.ts).
 */
export async function main(io: CliIo, app: App, warmUnavailable?: string): Promise<number> {
  if (io.args[0] === "exec") {
    const code = await runExec(io, app, io.args.slice(1), warmUnavailable);
    if (code !== null) return code;
  }
  const { runProgram } = await lazyImport<typeof import("./program.ts")>(new URL("./program.ts", import.meta.url));
  return await runProgram(io, app);
}
