/** The sandbox worker's entry: the kernel's worker body, serving pterm's commands. */

import { serveSandbox } from "../core/sandbox_worker.ts";
import { commands } from "./index.ts";

serveSandbox(commands);
