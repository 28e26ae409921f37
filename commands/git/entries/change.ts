/**
 * The change handlers as one module: a worker for any of them loads this module's bundle
 * (bundles/git-entries-change/), so subcommands used together share one bundle and start-up stays one
 * module. The grouping is spec.ts's HANDLER_EXPORTS.
 */

export { branch } from "../handlers/branch.ts";
export { checkout } from "../handlers/checkout.ts";
export { switchHandler } from "../handlers/switch.ts";
export { restore } from "../handlers/restore.ts";
export { cherryPick } from "../handlers/cherry_pick.ts";
export { clean } from "../handlers/clean.ts";
export { reset } from "../handlers/reset.ts";
export { rm } from "../handlers/rm.ts";
export { mv } from "../handlers/mv.ts";
export { tag } from "../handlers/tag.ts";
export { revert } from "../handlers/revert.ts";
export { merge } from "../handlers/merge.ts";
export { stashPushHandler } from "../handlers/stash_push.ts";
export { stashPop } from "../handlers/stash_pop.ts";
export { stashApplyHandler } from "../handlers/stash_apply.ts";
export { stashList } from "../handlers/stash_list.ts";
export { stashDropHandler } from "../handlers/stash_drop.ts";
export { stashClearHandler } from "../handlers/stash_clear.ts";
export { gitApply } from "../handlers/apply.ts";
export { rebase } from "../handlers/rebase.ts";
