/**
 * The history handlers as one module: a worker for any of them loads this module's bundle
 * (bundles/git-entries-history/), so subcommands used together share one bundle and start-up stays one
 * module. The grouping is spec.ts's HANDLER_EXPORTS.
 */

export { diff } from "../handlers/diff.ts";
export { show } from "../handlers/show.ts";
export { log } from "../handlers/log.ts";
export { grep } from "../handlers/grep.ts";
export { blame } from "../handlers/blame.ts";
export { stashShow } from "../handlers/stash_show.ts";
export { reflog } from "../handlers/reflog.ts";
export { shortlog } from "../handlers/shortlog.ts";
export { describe } from "../handlers/describe.ts";
