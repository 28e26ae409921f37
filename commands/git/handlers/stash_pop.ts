/**
 * `stashPop`: one git subcommand's handler (its declaration is under sub/).
 */

import { applyHandler } from "./change_shared.ts";

export const stashPop = applyHandler(true);
