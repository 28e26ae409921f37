/**
 * The basic handlers as one module: a worker for any of them loads this module's bundle
 * (bundles/git-entries-basic/), so subcommands used together share one bundle and start-up stays one
 * module. The grouping is spec.ts's HANDLER_EXPORTS.
 */

export { init } from "../handlers/init.ts";
export { status } from "../handlers/status.ts";
export { add } from "../handlers/add.ts";
export { commit } from "../handlers/commit.ts";
export { revParse } from "../handlers/rev_parse.ts";
export { lsFiles } from "../handlers/ls_files.ts";
export { config } from "../handlers/config.ts";
