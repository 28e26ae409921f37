/**
 * pterm: a pseudo terminal for AI agents. The only module that touches the process: it runs the
 * CLI and exits with its code.
 *
 * A `pterm exec` call goes first to the root's session server, if one is up (hosts/cli/warm_exec.ts):
 * this module imports nothing else, so a warm call's process loads only the hand-over. The rest of
 * pterm (hosts/cli/app.ts) loads when no server took the call.
 */

import { processIo } from "./core/host/io.ts";
import { lazyImport } from "./core/lazy.ts";
import { tryWarmExec } from "./hosts/cli/warm_exec.ts";
import { VERSION } from "./version.ts";

const io = processIo();
const warm = await tryWarmExec(io, VERSION);
let code: number;
if (warm.kind === "answered") code = warm.exitCode;
else {
  const { runCli } = await lazyImport<typeof import("./hosts/cli/app.ts")>(
    new URL("./hosts/cli/app.ts", import.meta.url),
  );
  code = await runCli(io, warm.unavailable);
}
Deno.exit(code);
