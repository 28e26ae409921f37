/**
 * The handler table of `git`: each entry loads its module on first use, so a `git status`
 * does not load the diff or merge code.
 */

import type { AnyHandler } from "../../core/declaration.ts";
import { lazyImport } from "../../core/lazy.ts";

const lazy = (load: () => Promise<Record<string, unknown>>, name: string): AnyHandler => async (ctx) =>
  await ((await load())[name] as AnyHandler)(ctx);

// lazyImport, not import("..."): a literal import() would put all three groups (and their
// libraries) into the module graph Deno builds when this table loads (see core/lazy.ts).
const group = (file: string) => () =>
  lazyImport<Record<string, unknown>>(new URL(`./handlers/${file}`, import.meta.url));
const basic = group("basic.ts");
const history = group("history.ts");
const change = group("change.ts");

export const handlers: Record<string, AnyHandler> = {
  init: lazy(basic, "init"),
  status: lazy(basic, "status"),
  add: lazy(basic, "add"),
  commit: lazy(basic, "commit"),
  log: lazy(basic, "log"),
  diff: lazy(history, "diff"),
  show: lazy(history, "show"),
  branch: lazy(change, "branch"),
  checkout: lazy(change, "checkout"),
  reset: lazy(change, "reset"),
  rm: lazy(change, "rm"),
  mv: lazy(change, "mv"),
  tag: lazy(change, "tag"),
  revert: lazy(change, "revert"),
  merge: lazy(change, "merge"),
  "stash push": lazy(change, "stashPushHandler"),
  "stash pop": lazy(change, "stashPop"),
  "stash apply": lazy(change, "stashApplyHandler"),
  "stash list": lazy(change, "stashList"),
  "stash drop": lazy(change, "stashDropHandler"),
  "stash clear": lazy(change, "stashClearHandler"),
};
