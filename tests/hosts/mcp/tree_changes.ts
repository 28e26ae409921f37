/**
 * Changes to a small repository's work tree made the way the world makes them — real git, `sh`,
 * `ln`, `mv`, `cp`, `touch`, plain Deno writes, same-second rewrites of the same size — for the
 * tests of the warm `git status` cache (commands/git/worktree/fsmonitor.ts).
 */

import fc from "fast-check";
import { git } from "../../commands/git/oracle.ts";

export async function sh(cwd: string, script: string): Promise<void> {
  const out = await new Deno.Command("sh", { args: ["-c", script], cwd, stdout: "null", stderr: "piped" }).output();
  if (!out.success) throw new Error(`sh -c ${script}: ${new TextDecoder().decode(out.stderr)}`);
}

export const FILES = ["a.txt", "b.txt", "src/c.ts", "src/d.ts", "src/deep/e.md", "lib/f.js", "lib/g.js"];

export async function freshRepo(repo: string): Promise<void> {
  await Deno.mkdir(repo, { recursive: true });
  await git(repo, "init", "-q", "-b", "main");
  for (const file of FILES) {
    await Deno.mkdir(`${repo}/${file}`.replace(/\/[^/]+$/, ""), { recursive: true });
    await Deno.writeTextFile(`${repo}/${file}`, `${file}\n`);
  }
  await Deno.writeTextFile(`${repo}/.gitignore`, "*.log\nbuild/\n");
  await git(repo, "add", "-A");
  await git(repo, "commit", "-qm", "base");
}

export type Action =
  | { kind: "sameSize"; file: number }
  | { kind: "append"; file: number }
  | { kind: "renameOver"; file: number }
  | { kind: "remove"; file: number }
  | { kind: "chmodX"; file: number }
  | { kind: "touch"; file: number }
  | { kind: "symlink"; file: number }
  | { kind: "untracked"; name: number; dir: number }
  | { kind: "ignored"; name: number }
  | { kind: "dirRecreate"; dir: number }
  | { kind: "gitAdd" }
  | { kind: "gitCommit" }
  | { kind: "gitCheckout" }
  | { kind: "gitRmCached"; file: number }
  | { kind: "gitignore" }
  | { kind: "moveAway"; file: number }
  | { kind: "gitRm"; file: number }
  | { kind: "attributes" }
  | { kind: "newFolder"; name: number }
  | { kind: "realStatus" }
  | { kind: "nothing" };

export const DIRS = ["", "src", "src/deep", "lib", "new"];

export const actionArb: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ kind: fc.constant("sameSize" as const), file: fc.nat(FILES.length - 1) }),
  fc.record({ kind: fc.constant("append" as const), file: fc.nat(FILES.length - 1) }),
  fc.record({ kind: fc.constant("renameOver" as const), file: fc.nat(FILES.length - 1) }),
  fc.record({ kind: fc.constant("remove" as const), file: fc.nat(FILES.length - 1) }),
  fc.record({ kind: fc.constant("chmodX" as const), file: fc.nat(FILES.length - 1) }),
  fc.record({ kind: fc.constant("touch" as const), file: fc.nat(FILES.length - 1) }),
  fc.record({ kind: fc.constant("symlink" as const), file: fc.nat(FILES.length - 1) }),
  fc.record({ kind: fc.constant("untracked" as const), name: fc.nat(3), dir: fc.nat(DIRS.length - 1) }),
  fc.record({ kind: fc.constant("ignored" as const), name: fc.nat(3) }),
  fc.record({ kind: fc.constant("dirRecreate" as const), dir: fc.nat(3) }),
  fc.constant({ kind: "gitAdd" as const }),
  fc.constant({ kind: "gitCommit" as const }),
  fc.constant({ kind: "gitCheckout" as const }),
  fc.record({ kind: fc.constant("gitRmCached" as const), file: fc.nat(FILES.length - 1) }),
  fc.constant({ kind: "gitignore" as const }),
  fc.record({ kind: fc.constant("moveAway" as const), file: fc.nat(FILES.length - 1) }),
  fc.record({ kind: fc.constant("gitRm" as const), file: fc.nat(FILES.length - 1) }),
  fc.constant({ kind: "attributes" as const }),
  fc.record({ kind: fc.constant("newFolder" as const), name: fc.nat(2) }),
  fc.constant({ kind: "realStatus" as const }),
  fc.constant({ kind: "nothing" as const }),
);

/** Applies one change with real processes or plain writes; never fails on a missing file. */
export async function apply(repo: string, action: Action, outside: string): Promise<void> {
  const file = "file" in action ? FILES[action.file] : "";
  const abs = `${repo}/${file}`;
  const exists = async (path: string) => await Deno.lstat(path).then(() => true, () => false);
  switch (action.kind) {
    case "sameSize": {
      // Same size, same second: only the content tells (racy git).
      if (!(await exists(abs)) || (await Deno.lstat(abs)).isSymlink) return;
      const text = await Deno.readTextFile(abs);
      await Deno.writeTextFile(abs, text.replace(/[a-z]/, (c) => c === "x" ? "y" : "x"));
      return;
    }
    case "append":
      await sh(repo, `mkdir -p "$(dirname '${file}')" && echo more >> '${file}'`);
      return;
    case "renameOver":
      // As editors save: a new file renamed over the old one.
      await sh(
        repo,
        `mkdir -p "$(dirname '${file}')" && printf 'saved\\n' > '${file}.tmp' && mv -f '${file}.tmp' '${file}'`,
      );
      return;
    case "remove":
      await sh(repo, `rm -f '${file}'`);
      return;
    case "chmodX":
      if (await exists(abs) && !(await Deno.lstat(abs)).isSymlink) await Deno.chmod(abs, 0o755);
      return;
    case "touch":
      if (await exists(abs)) await sh(repo, `touch '${file}'`);
      return;
    case "symlink":
      // A link to a file outside the work tree swapped in (Deno reports no event for such a path).
      await sh(repo, `mkdir -p "$(dirname '${file}')" && ln -sfn '${outside}' '${file}'`);
      return;
    case "untracked":
      await sh(
        repo,
        `mkdir -p '${DIRS[action.dir] || "."}' && echo u > '${DIRS[action.dir] || "."}/u${action.name}.txt'`,
      );
      return;
    case "ignored":
      await sh(repo, `mkdir -p build && echo log >> 'x${action.name}.log' && echo o > build/o${action.name}`);
      return;
    case "dirRecreate": {
      const dir = ["src", "src/deep", "lib", "new"][action.dir];
      await sh(
        repo,
        `if [ -d '${dir}' ]; then cp -a '${dir}' '${dir}.keep' && rm -rf '${dir}' && mv '${dir}.keep' '${dir}'; fi`,
      );
      return;
    }
    case "gitAdd":
      await git(repo, "add", "-A");
      return;
    case "gitCommit":
      await git(repo, "commit", "-qam", "step", "--allow-empty");
      return;
    case "gitCheckout":
      await git(repo, "checkout", "-q", "--", ".");
      return;
    case "gitRmCached":
      // -f: git refuses --cached alone when the staged content differs from both HEAD and the file, a state
      // the random steps can reach (a flaky failure of the real git's command, not of pterm).
      await git(repo, "rm", "-q", "--cached", "-f", "--ignore-unmatch", file);
      return;
    case "gitignore":
      await sh(repo, `echo '*.txt' >> .gitignore`);
      return;
    case "moveAway":
      // A tracked file renamed to a new (untracked) name in the same folder.
      await sh(repo, `if [ -e '${file}' ]; then mv -f '${file}' '${file}.moved'; fi`);
      return;
    case "gitRm":
      await git(repo, "rm", "-q", "-f", "--ignore-unmatch", file);
      return;
    case "attributes":
      await sh(repo, `echo '*.md text eol=crlf' >> .gitattributes`);
      return;
    case "newFolder":
      await sh(repo, `mkdir -p 'lib/n${action.name}/deeper' && echo n > 'lib/n${action.name}/deeper/x.txt'`);
      return;
    case "realStatus":
      await git(repo, "status", "--porcelain");
      return;
    case "nothing":
      return;
  }
}
