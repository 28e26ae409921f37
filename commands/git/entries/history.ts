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
export { revList } from "../handlers/rev_list.ts";
export { lsTree } from "../handlers/ls_tree.ts";
export { diffTree } from "../handlers/diff_tree.ts";
export { catFile } from "../handlers/cat_file.ts";
export { forEachRef } from "../handlers/for_each_ref.ts";
export { mergeBase } from "../handlers/merge_base.ts";
export { showRef } from "../handlers/show_ref.ts";
export { symbolicRef } from "../handlers/symbolic_ref.ts";
export { nameRev } from "../handlers/name_rev.ts";
export { hashObject } from "../handlers/hash_object.ts";
export { gitVar } from "../handlers/var.ts";
export { shortlog } from "../handlers/shortlog.ts";
export { describe } from "../handlers/describe.ts";
