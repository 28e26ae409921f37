/**
 * The remote handlers as one module: a worker for any of them loads this module's bundle
 * (bundles/git-entries-remote/), so subcommands used together share one bundle and start-up stays one
 * module. The grouping is spec.ts's HANDLER_EXPORTS.
 */

export { lsRemote } from "../handlers/ls_remote.ts";
export { clone } from "../handlers/clone.ts";
export { fetch } from "../handlers/fetch.ts";
export { push } from "../handlers/push.ts";
export { pull } from "../handlers/pull.ts";
export { remotes } from "../handlers/remotes.ts";
