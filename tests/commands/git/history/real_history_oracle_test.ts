/**
 * History queries on real projects' whole histories (toml, kleur, linenoise: tests/fixtures), byte for byte as
 * real git prints them: `log` with `--stat`, `--name-status`, `--name-only`, the built-in formats, ranges, dates
 * and paths (a moved file's log stops at its move, as git's without `--follow`), and `shortlog` (HEAD spelled out:
 * git's shortlog reads stdin when it is not a terminal and no revision is given). Messages written by people —
 * a first paragraph over several lines, trailing spaces, tabs, no final newline — and merges of long branches are
 * what these histories bring that built ones do not.
 */

import assert from "node:assert/strict";
import { exec, makeRoot } from "../../../_support/helpers.ts";
import { gitRaw } from "../oracle.ts";
import { cloneRealRepo, fullStdout, type RealRepo } from "../real_repos.ts";

/** Asked of every history: `<subcommand> <arguments>`. */
const EVERY_HISTORY = [
  "log --stat",
  "log --name-status",
  "log --name-only",
  "log --oneline --stat",
  "log --stat --format=fuller",
  "log --format=short",
  "log --stat HEAD~40..HEAD",
  "log --stat --since=2020-01-01 --until=2021-12-31",
  "shortlog HEAD",
  "shortlog -sn HEAD",
  "shortlog -sne HEAD",
  "shortlog -n --no-merges HEAD",
  "shortlog -e HEAD~40..HEAD",
];

/** Asked of one history: paths of its own, moved files among them. */
const OWN_PATHS: Record<RealRepo, string[]> = {
  toml: [
    "log --stat -- decode.go",
    "log --stat -- type_toml.go",
    "log --name-status -- cmd",
    "shortlog -sn HEAD -- decode.go",
  ],
  kleur: ["log --stat -- index.mjs", "log --name-status -- test", "shortlog -sn HEAD -- index.mjs"],
  linenoise: ["log --stat -- linenoise.c", "shortlog -sn HEAD -- example.c"],
};

for (const name of ["toml", "kleur", "linenoise"] as const) {
  Deno.test({
    name: `${name}'s whole history: log --stat, --name-status, formats, ranges, paths and shortlog as git's`,
    sanitizeResources: false,
    sanitizeOps: false,
  }, async () => {
    await using root = await makeRoot(`pterm-real-history-${name}-`);
    const repo = await cloneRealRepo(name, `${root.path}/${name}`);
    for (const line of [...EVERY_HISTORY, ...OWN_PATHS[name]]) {
      const [subcommand, ...rest] = line.split(" ");
      const real = await gitRaw(repo, ["-c", "color.ui=never", "--no-pager", subcommand, ...rest]);
      assert.equal(real.code, 0, `git ${line}: ${real.stderr}`);
      assert.notEqual(real.stdout, "", `git ${line} printed nothing: the question asks nothing of this history`);
      const envelope = await exec(root.path, `git ${subcommand} --repo ${name} ${rest.join(" ")}`, {
        timeoutMs: 120_000,
      });
      assert.equal(envelope.exit_code, 0, `git ${line}: ${envelope.stderr}`);
      assert.equal(await fullStdout(root.path, envelope), real.stdout, `${name}: git ${line}`);
    }
  });
}
