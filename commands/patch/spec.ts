/** `patch`: the XGit patch protocol (its text format is FORMAT below). Declaration only: no npm imports here. */

import { PATCH_ERROR_CODES } from "./error_codes.ts";
import type { CommandSpec, LeafSpec } from "../../core/declaration.ts";
import { applyFlags, checkFlags, recoverFlags } from "./flags.ts";
import { lazyImport } from "../../core/lazy.ts";

const schema = () => lazyImport<typeof import("./schema.ts")>(new URL("./schema.ts", import.meta.url));
const HANDLERS = new URL("./handler.ts", import.meta.url).href;
type Handlers = typeof import("./handler.ts");

const FORMAT = `
A patch is text on stdin (or --file). Header lines first, then blocks, then the end marker:

  repo: <name>                  optional: a name from pterm.json "patch.repos"
  commitmsg: <message>          optional (default: chore: apply file ops patch)
  author: Name <email>          optional (default: XGit Bot <bot@xgit.local>)

  === <op>: "<path>" ===        path in double quotes, relative to the repository
  key=value                     parameters (keys case-insensitive); multi-line: key< / one-space-indented lines / >key
                                one optional blank line, then the body (a second blank line is body)
  body text
  === end ===

  === PATCH EOF ===             required: a patch without it is refused as cut off

Ops:
  file.write / file.append / file.prepend   body = text (LF, final newline added)
  file.delete (file or folder)   file.move to=<path>   file.chmod mode=755   file.eol style=lf|crlf ensure_nl=true
  file.binary / file.image       body = Base64
  line.insert / line.append / line.replace / line.delete
                                 line.insert puts the body BEFORE the found line, line.append AFTER it;
                                 line.replace replaces it, line.delete removes it.
                                 which line: keys=<text in it> (alternatives a|b or a,b; case and indentation
                                 ignored) or lineno=<N>; nthl=<N> picks among several matches; offset=+N/-N;
                                 start-keys= / end-keys= narrow the search to a scope (nthb picks the start)
  block.delete / block.replace   the lines from start-keys to end-keys (the first line after the start holding
                                 end-keys as written, else its parts), inclusive
  git.diff                       body = a unified diff (fences, wrong @@ counts, shifted or fuzzy context tolerated;
                                 git diff --binary, links and submodules too; a non-UTF-8 diff: send it with --file)
  git.reset ref= mode=hard|mixed|soft   git.revert ref= no_commit=   git.tag name= [ref=] [message=] [force=]
  git.commit                     alone in its patch: commits what the work tree holds

keys rules, in order: one key matching exactly one line; else a pair of keys on one line; else all keys on one
line; else nthl=N among the matches; else AmbiguousMatch listing each line with the nthl that picks it.

All or nothing: when any block fails, nothing is written (NoMatch shows the closest lines and the first that
differs). In a git repository an XGit patch ends with one commit (commitmsg/-m, author/--author) unless --no-commit;
in a folder that is not one, nothing is committed and the result's warnings say so. While a merge, cherry-pick or
revert is stopped, a patch that would commit is refused (Conflict): resolve with --no-commit, then git --continue.

Which folder: --repo, else the header repo:, else the one git uses (the root if it is a repository, else
patch.default_repo, else the only repository under the root or one level down; several: AmbiguousRepository),
else the root as a plain folder. Paths in the patch are relative to it.

Diff hunks are anchored as git apply anchors them: a hunk without trailing context must end the file, one stated
at line 1 must start it. A hunk whose old lines are gone and whose result already stands there is AlreadyApplied
(the patch ran before: a retry, a replay); nothing is written; --reapply applies it anyway. Fuzzy and whitespace
matches are named in the result's warnings.

Other formats on stdin run as the equivalent blocks, all or nothing (result.input_format says which). They edit
the work tree only, as git apply and codex's apply_patch do: no commit unless -m <message>, --author or --commit.
  a unified diff (git diff, diff -u, diff -ruN as patch -p1 reads it; fenced or not)   one git.diff block
  a codex patch:  *** Begin Patch                                        git.diff / file.delete blocks
                  *** Add File: <path>      then +lines (an existing file is replaced, with a warning)
                  *** Delete File: <path>
                  *** Update File: <path>   [*** Move to: <path>] then chunks:
                  @@ [<anchor line>]        the chunk's lines are found below the anchor and the previous chunk;
                   context / -old / +new    only +lines under @@ <anchor> go right below the anchor;
                  *** End of File           the chunk ends the file
                  *** End Patch
                  A first chunk without an anchor whose lines occur twice is AmbiguousMatch (add @@ <line>);
                  a unified-diff header @@ -N,M +N,M @@ there counts as a bare @@.

Example (stdin of \`patch apply\`):
  commitmsg: Extend the login timeout
  === line.replace: "src/auth.py" ===
  start-keys=def login
  keys=timeout =
      timeout = 60
  === end ===
  === PATCH EOF ===`;

const WRITE_EXAMPLE = `=== file.write: "notes/todo.md" ===
# TODO
- write the parser
- timeout is 30 seconds
=== end ===
=== PATCH EOF ===
`;

const LINE_EXAMPLE = `commitmsg: Extend the timeout
=== line.replace: "notes/todo.md" ===
keys=timeout is 30
- timeout is 60 seconds
=== end ===
=== line.append: "notes/todo.md" ===
keys=write the parser
- test the parser
=== end ===
=== PATCH EOF ===
`;

const DIFF_EXAMPLE = `=== git.diff: "notes/todo.md" ===
--- a/notes/todo.md
+++ b/notes/todo.md
@@ -1,3 +1,3 @@
 # TODO
-- write the parser
+- write the parser (done)
 - test the parser
=== end ===
=== PATCH EOF ===
`;

const CODEX_ADD_EXAMPLE = `*** Begin Patch
*** Add File: notes/plan.md
+## Parser
+- status: todo
+
+## Tests
+- status: todo
*** End Patch
`;

const CODEX_UPDATE_EXAMPLE = `*** Begin Patch
*** Update File: notes/plan.md
@@ ## Tests
-- status: todo
+- status: done
*** End Patch
`;

const PLAIN_DIFF_EXAMPLE = `--- a/notes/plan.md
+++ b/notes/plan.md
@@ -1,3 +1,3 @@
 ## Parser
-- status: todo
+- status: started
 
`;

const apply: LeafSpec = {
  name: "apply",
  summary:
    "Apply a patch, every block or none: an XGit patch commits, a unified diff or codex patch edits the work tree.",
  description: "The patch comes on stdin (or --file). Blocks apply in order, each seeing the previous ones' result; " +
    "nothing is written unless all succeed. If pterm is killed mid-apply, the next `patch apply` rolls the tree " +
    "back first (result.recovered says so).\n" + FORMAT,
  capabilities: ["fs.read", "fs.write"],
  stdin: { mode: "unlessFlag", flag: "file", bytes: true },
  flags: applyFlags,
  examples: [
    { command: "patch apply", description: "Create a file", stdin: WRITE_EXAMPLE },
    { command: "patch apply", description: "Replace and add lines located by keywords", stdin: LINE_EXAMPLE },
    {
      command: "patch apply --dry-run",
      description: "Apply a unified diff, reporting without writing",
      stdin: DIFF_EXAMPLE,
    },
    {
      command: "patch apply --file patches/fix.patch --repo projects/xgit",
      description: "Apply a patch file to a repository",
    },
    {
      command: "patch apply",
      description: "A codex patch: create a file (in the work tree only; no commit)",
      stdin: CODEX_ADD_EXAMPLE,
    },
    {
      command: "patch apply -m 'Tests done'",
      description:
        "A codex patch: change the `- status: todo` below `## Tests` (the anchor picks which one), and commit",
      stdin: CODEX_UPDATE_EXAMPLE,
    },
  ],
  result: async () => (await schema()).applyResultSchema,
  handler: { module: HANDLERS, export: "applyHandler" satisfies keyof Handlers },
};

const check: LeafSpec = {
  name: "check",
  summary: "Parse and pre-check a patch; report every problem found, write nothing.",
  description: "Runs every block against an in-memory copy of the files and lists all problems (parse errors with " +
    "their line, NoMatch with the closest lines, AmbiguousMatch with the nthl/nthb choices), not only the first. " +
    "Exit code 1 when there is any.\n" + FORMAT,
  capabilities: ["fs.read"],
  stdin: { mode: "unlessFlag", flag: "file", bytes: true },
  flags: checkFlags,
  examples: [
    { command: "patch check", description: "Check a patch before applying it", stdin: DIFF_EXAMPLE },
    { command: "patch check --file patches/fix.patch", description: "Check a patch file" },
    { command: "patch check", description: "Check a plain unified diff (no XGit blocks)", stdin: PLAIN_DIFF_EXAMPLE },
  ],
  result: async () => (await schema()).checkResultSchema,
  handler: { module: HANDLERS, export: "checkHandler" satisfies keyof Handlers },
};

const recover: LeafSpec = {
  name: "recover",
  summary: "Finish what a killed `patch apply` left: roll it back, or --discard its journal.",
  description: "A `patch apply` killed mid-way (a tool timeout, kill -9) leaves a journal; the next `patch apply` " +
    "rolls the tree back to exactly what it was before that run, first. It does so only while the files and the " +
    "repository are exactly as the killed run left them. If anything changed since (someone edited, committed, or " +
    "removed the run's lock), it touches nothing and fails with StaleJournal, naming what changed: then look at " +
    "the tree (`git status`) and run `patch recover --discard`, which drops the journal and keeps the tree as it " +
    "is now. `patch recover` without --discard does the rollback on its own, as `patch apply` would.",
  capabilities: ["fs.read", "fs.write"],
  flags: recoverFlags,
  examples: [
    { command: "patch recover", description: "Roll back what a killed patch run left, if nothing changed since" },
    { command: "patch recover --discard", description: "After StaleJournal: drop the journal, keep the tree as it is" },
  ],
  result: async () => (await schema()).recoverResultSchema,
  handler: { module: HANDLERS, export: "recoverHandler" satisfies keyof Handlers },
};

export const patchSpec: CommandSpec = {
  name: "patch",
  summary: "Edit many files at once, all or nothing: XGit patches (file, line, block, git blocks) commit; unified " +
    "diffs and codex patches edit the work tree unless -m.",
  description: FORMAT.trim(),
  zone: "help-first",
  errorCodes: PATCH_ERROR_CODES,
  config: async () => (await schema()).patchConfigSchema,
  examples: [
    { command: "patch apply", description: "Apply a patch given on stdin", stdin: WRITE_EXAMPLE },
    { command: "patch check", description: "Report every problem of a patch without writing", stdin: LINE_EXAMPLE },
  ],
  subcommands: [apply, check, recover],
  // Other tools' names for applying a patch: the error names patch apply instead (the patch goes in stdin).
  replaces: {
    applypatch: "Patches are applied with `patch apply` (the patch in the call's stdin; patch check only tries it).",
  },
  // codex's tool name for its `*** Begin Patch` format: the same call as `patch apply`.
  spelledAs: { apply_patch: ["apply"] },
};
