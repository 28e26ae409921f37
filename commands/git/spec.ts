/**
 * `git`: the local and remote git workflow, reading and writing the repository's
 * files (index, objects, packs, refs) directly. Declaration only: nothing here imports an npm
 * package.
 */

import { GIT_ERROR_CODES } from "./error_codes.ts";
import { PATCH_OWN_ERROR_CODES } from "../patch/error_codes.ts";
import type { CommandSpec } from "../../core/declaration.ts";
import { grantedHosts } from "./remote/gate.ts";
import { gitSpellings } from "./spellings.ts";
import { HANDLER_EXPORTS, loadSchemas } from "./sub/common.ts";
import { initSpec } from "./sub/init.ts";
import { statusSpec } from "./sub/status.ts";
import { addSpec } from "./sub/add.ts";
import { commitSpec } from "./sub/commit.ts";
import { reflogSpec } from "./sub/reflog.ts";
import { shortlogSpec } from "./sub/shortlog.ts";
import { describeSpec } from "./sub/describe.ts";
import { configSpec } from "./sub/config.ts";
import { logSpec } from "./sub/log.ts";
import { branchSpec } from "./sub/branch.ts";
import { checkoutSpec } from "./sub/checkout.ts";
import { switchSpec } from "./sub/switch.ts";
import { restoreSpec } from "./sub/restore.ts";
import { diffSpec } from "./sub/diff.ts";
import { showSpec } from "./sub/show.ts";
import { resetSpec } from "./sub/reset.ts";
import { rmSpec } from "./sub/rm.ts";
import { mvSpec } from "./sub/mv.ts";
import { stashSpec } from "./sub/stash.ts";
import { tagSpec } from "./sub/tag.ts";
import { revertSpec } from "./sub/revert.ts";
import { mergeSpec } from "./sub/merge.ts";
import { cherryPickSpec } from "./sub/cherry_pick.ts";
import { rebaseSpec } from "./sub/rebase.ts";
import { cleanSpec } from "./sub/clean.ts";
import { blameSpec } from "./sub/blame.ts";
import { grepSpec } from "./sub/grep.ts";
import { revParseSpec } from "./sub/rev_parse.ts";
import { lsFilesSpec } from "./sub/ls_files.ts";
import { lsRemoteSpec } from "./sub/ls_remote.ts";
import { cloneSpec } from "./sub/clone.ts";
import { fetchSpec } from "./sub/fetch.ts";
import { pullSpec } from "./sub/pull.ts";
import { remoteSpec } from "./sub/remote.ts";
import { pushSpec } from "./sub/push.ts";
import { revListSpec } from "./sub/rev_list.ts";
import { lsTreeSpec } from "./sub/ls_tree.ts";
import { diffTreeSpec } from "./sub/diff_tree.ts";
import { catFileSpec } from "./sub/cat_file.ts";
import { forEachRefSpec } from "./sub/for_each_ref.ts";
import { mergeBaseSpec } from "./sub/merge_base.ts";
import { showRefSpec } from "./sub/show_ref.ts";
import { symbolicRefSpec } from "./sub/symbolic_ref.ts";
import { nameRevSpec } from "./sub/name_rev.ts";
import { hashObjectSpec } from "./sub/hash_object.ts";
import { varSpec } from "./sub/var.ts";
import { applySpec } from "./sub/apply.ts";

type HandlerModules = {
  basic: typeof import("./entries/basic.ts");
  history: typeof import("./entries/history.ts");
  change: typeof import("./entries/change.ts");
  remote: typeof import("./entries/remote.ts");
};
// Every listed name must be an export of its module; this line fails to type-check otherwise.
const _exportsExist: { [F in keyof HandlerModules]: readonly (keyof HandlerModules[F])[] } = HANDLER_EXPORTS;

export const gitSpec: CommandSpec = {
  name: "git",
  zone: "help-first",
  // `git apply` is patch's engine in its strict mode: it raises patch's codes as well.
  errorCodes: [...GIT_ERROR_CODES, ...PATCH_OWN_ERROR_CODES],
  summary: "Local git, spelled as real git (`git status`, `git add .`, `git commit -am msg`, `git log -5`; " +
    "--repo only when the workspace has several repositories): init, status, add, commit, log, branch, checkout, " +
    "switch, restore, diff, show, reset, rm, mv, stash, tag, revert, merge, cherry-pick, rebase, clean, blame, grep, apply, " +
    "rev-parse, ls-files, config; remotes: clone, fetch, pull, push, ls-remote, remote; read-only plumbing: rev-list, " +
    "ls-tree, diff-tree, cat-file, for-each-ref, merge-base, show-ref, symbolic-ref, name-rev, hash-object, var.",
  description: [
    "A git for the workspace, implemented inside pterm (no git program runs). Repositories are ordinary git",
    "repositories: the real git reads what pterm writes and the other way round. --repo names the repository's",
    "top folder relative to the workspace root; paths after --path are relative to the repository.",
    "",
    "Without --repo (or `git -C <dir>`), pterm uses the workspace root if it is a repository, else",
    "git.default_repo from pterm.json, else the only repository directly under the root or one level down;",
    "every result says which in repo_path. Real git's spellings work with git's meaning: positional paths",
    "(`git add a b`, `git diff HEAD~1 -- f`), short flags and clusters (`-am msg`, `-n3`, `-3`, `-U0`),",
    "`git -C dir`, `git --no-pager`, `--no-color`, `-c user.name=… -c user.email=…` (the author of that call).",
    "",
    "Mutating subcommands take git's own .git/index.lock; if another git holds it the call fails with",
    "RepoLocked (retry; if no git is running, delete .git/index.lock).",
    "",
    "Secrets: paths inside a secrets/ folder or named .env* are invisible to git in pterm. They are never",
    "staged, diffed or shown; one already tracked is listed as `withheld` and its content is never printed.",
    "A tracked one is still kept on disk as git would leave it (clone, checkout, switch, reset --hard), unless",
    "it holds a local change, which is never overwritten. When the repository is the workspace root, pterm's",
    "own audit/, artifacts/, sessions/ and pterm.json are never written nor read at all.",
    "",
    "Defaults: the author is the repository's user.name/user.email (its config, as git reads it), else",
    'git.author in pterm.json ({"git": {"author": {"name": ..., "email": ...}}}), else',
    "`pterm <pterm@localhost>`; times are UTC. Symbolic links are checked out as plain files holding",
    "the link target (pterm never creates links). .gitignore files and .git/info/exclude are honoured;",
    "core.excludesFile is not read. Line endings follow .gitattributes (text, eol, binary), core.autocrlf and",
    "core.eol as in git; a path with a filter (e.g. Git LFS) is never staged with its file content",
    "(UnsupportedFilter; LFS pointer files are left as they are). Untracked counts are files (as",
    "`git status -uall`); diff and show detect renames as git does (--no-renames to turn off); merges follow",
    "renames and build git's virtual base for criss-cross histories.",
    "",
    "Remotes (ls-remote, clone, fetch, pull, push) speak git's smart HTTP protocol (v2 for reading where the",
    "server offers it, else v0; push is v0 receive-pack).",
    "They reach only remotes git.remotes in pterm.json allows (URL prefixes; https, or http for a prefix that",
    'says http:// itself): {"git": {"remotes": {"allow": ["https://git.example.com/org/"]}}}. Every call that',
    "reaches the network needs --confirm. A token goes in skills/git/secrets/.env as GIT_<HOST>_TOKEN=...",
    "(GIT_<HOST>_USER=... for the user name, GIT_<HOST>_BEARER=... for a bearer token; HOST in capitals, other",
    "characters as _, a non-default port appended: GIT_GIT_EXAMPLE_COM_TOKEN, GIT_127_0_0_1_8080_TOKEN), never",
    "in the URL. A push that is not a fast-forward is Rejected unless --force-with-lease (and the remote is",
    "still where the last fetch saw it). A self-hosted server's CA: git.ca_file (a PEM file in the workspace); a proxy:",
    "git.proxy (http://host:port; its GIT_PROXY_USER and GIT_PROXY_PASSWORD in the same .env). Packs larger than",
    "git.max_fetch_bytes (default 2 GiB) are refused. push --tags sends the tags the remote lacks, push --delete",
    "removes a remote branch or tag; fetch --prune deletes remote-tracking branches gone from the remote.",
    "Not supported: ssh, git:// and file:// remotes, moving a remote tag.",
  ].join("\n"),
  config: async () => (await loadSchemas()).gitConfigSchema,
  // Imported with the declaration: the registry rewrites every git line with it, so loading it lazily only made
  // each call wait for one more module.
  spellings: () => Promise.resolve(gitSpellings),
  unavailable: {
    am: "Apply a diff with `patch apply` (the diff on stdin), then `git commit`.",
    "format-patch": "`git diff <a> <b>` prints the patch (the full text is an artifact when long).",
    bisect: "Not available. `git log` and `git show <rev>` help find the commit by hand.",
    submodule: "Not available; `git status` shows a submodule's commit and `git add <path>` stages its pointer.",
    worktree: "Not available; use another repository folder and `--repo`.",
    whatchanged: "Use `git log --stat`.",
    gc: "Not needed and not available.",
    fsck: "Not available; pterm checks every object it reads.",
    prune: "Not needed and not available.",
    repack: "Not needed and not available.",
    notes: "Not available.",
    archive: "Not available.",
  },
  netHosts: grantedHosts,
  examples: [
    { command: "git init --dir projects/demo", description: "Create a repository." },
    { command: "git status --repo projects/demo", description: "See what changed." },
    { command: 'git -C projects/demo commit -am "Fix"', description: "Real git's spelling: -C names the repository." },
  ],
  subcommands: [
    initSpec,
    statusSpec,
    addSpec,
    commitSpec,
    reflogSpec,
    configSpec,
    logSpec,
    shortlogSpec,
    describeSpec,
    branchSpec,
    checkoutSpec,
    switchSpec,
    restoreSpec,
    diffSpec,
    showSpec,
    resetSpec,
    rmSpec,
    mvSpec,
    stashSpec,
    tagSpec,
    revertSpec,
    mergeSpec,
    cherryPickSpec,
    rebaseSpec,
    cleanSpec,
    blameSpec,
    grepSpec,
    revParseSpec,
    lsFilesSpec,
    lsRemoteSpec,
    cloneSpec,
    fetchSpec,
    pullSpec,
    remoteSpec,
    pushSpec,
    revListSpec,
    lsTreeSpec,
    diffTreeSpec,
    catFileSpec,
    forEachRefSpec,
    mergeBaseSpec,
    showRefSpec,
    symbolicRefSpec,
    nameRevSpec,
    hashObjectSpec,
    varSpec,
    applySpec,
  ],
};
