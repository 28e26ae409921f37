/**
 * A patch sets no permission a git checkout would not: 644, 755 or fewer bits. Never a file
 * that group or others may write (a script or hook anyone could change), whatever the patch asks.
 */

import assert from "node:assert/strict";
import { exec, makeRoot } from "../../_support/helpers.ts";
import { apply, block, patchOf, writeTree } from "../patch/helpers.ts";
import { git as oracleGit, GIT_ENV } from "../git/oracle.ts";
import { dirname } from "../../../core/fs/path.ts";
import { FIXTURES } from "../doc/helpers.ts";

const modeOf = async (path: string) => (await Deno.stat(path)).mode! & 0o7777;

Deno.test("file.chmod: modes beyond 755 are refused; 755, 644 and fewer bits apply", async () => {
  await using root = await makeRoot();
  await writeTree(root.path, { "run.sh": "echo hi\n" });
  const before = await modeOf(`${root.path}/run.sh`);
  for (const mode of ["777", "666", "775", "757", "0777", "677"]) {
    const envelope = await apply(root.path, patchOf(`=== file.chmod: "run.sh" ===\nmode=${mode}\n=== end ===\n`));
    assert.equal(envelope.error_code, "PatchApplyError", `mode=${mode}: ${envelope.stderr}`);
    assert.match(envelope.stderr, /644 or 755/);
    assert.equal(await modeOf(`${root.path}/run.sh`), before, `mode=${mode} changed nothing`);
  }
  for (const mode of ["755", "700", "600", "644"]) {
    const envelope = await apply(root.path, patchOf(`=== file.chmod: "run.sh" ===\nmode=${mode}\n=== end ===\n`));
    assert.equal(envelope.exit_code, 0, envelope.stderr);
    assert.equal(await modeOf(`${root.path}/run.sh`), parseInt(mode, 8));
  }
});

Deno.test("a diff's new mode is taken as git takes it: executable means 755, anything else 644", async () => {
  await using root = await makeRoot();
  await writeTree(root.path, { "a.sh": "one\n", "b.txt": "two\n" });
  const diff = (path: string, mode: string) =>
    block("git.diff", path, [
      `diff --git a/${path} b/${path}`,
      "old mode 100644",
      `new mode ${mode}`,
    ]);
  const envelope = await apply(root.path, patchOf(diff("a.sh", "100777"), diff("b.txt", "100666")));
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  assert.equal(await modeOf(`${root.path}/a.sh`), 0o755);
  assert.equal(await modeOf(`${root.path}/b.txt`), 0o644);
});

/** What a person runs with their own git in `dir`; hooks and config programs run as they would for them. */
async function personGit(dir: string, ...args: string[]): Promise<number> {
  const out = await new Deno.Command("git", {
    args,
    cwd: dir,
    env: { ...GIT_ENV, GIT_CEILING_DIRECTORIES: dirname(dir) },
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).output();
  return out.code;
}

async function present(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

/** A repository `proj` whose hooks are in the work tree (core.hooksPath=.githooks) and whose core.fsmonitor is a script of it. */
async function projectWithInTreeHooks(root: string): Promise<string> {
  const proj = `${root}/proj`;
  await writeTree(proj, {
    "a.txt": "a\n",
    ".githooks/README.md": "hooks of this project\n",
    "tools/fsmonitor.sh": "#!/bin/sh\nexit 1\n",
  });
  await oracleGit(proj, "init", "-q", "-b", "main");
  await oracleGit(proj, "config", "core.hooksPath", ".githooks");
  await oracleGit(proj, "add", "-A");
  await oracleGit(proj, "commit", "-qm", "base");
  await Deno.chmod(`${proj}/tools/fsmonitor.sh`, 0o755);
  await oracleGit(proj, "config", "core.fsmonitor", "tools/fsmonitor.sh");
  return proj;
}

Deno.test("control: an executable pre-commit in an in-tree core.hooksPath runs on a person's git commit", async () => {
  await using root = await makeRoot();
  const proj = await projectWithInTreeHooks(root.path);
  const marker = `${root.path}/hook-ran`;
  await Deno.writeTextFile(`${proj}/.githooks/pre-commit`, `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
  await Deno.chmod(`${proj}/.githooks/pre-commit`, 0o755);
  await personGit(proj, "commit", "-qm", "person", "--allow-empty");
  assert.equal(await present(marker), true, "git ran the hook");
});

Deno.test("folders and programs a person's git executes (core.hooksPath, core.fsmonitor) are never written", async (t) => {
  await using root = await makeRoot();
  const proj = await projectWithInTreeHooks(root.path);
  const marker = `${root.path}/hook-ran`;
  const hook = `#!/bin/sh\ntouch ${marker}\n`;
  const newHook = [
    "diff --git a/.githooks/pre-commit b/.githooks/pre-commit",
    "new file mode 100755",
    "--- /dev/null",
    "+++ b/.githooks/pre-commit",
    "@@ -0,0 +1,2 @@",
    "+#!/bin/sh",
    `+touch ${marker}`,
  ];
  const refusals: [string, string, string | undefined][] = [
    [
      "patch creating an executable .githooks/pre-commit",
      "patch apply --repo proj",
      patchOf(block("git.diff", ".githooks/pre-commit", newHook)),
    ],
    [
      "patch writing a plain file there",
      "patch apply --repo proj",
      patchOf(block("file.write", ".githooks/commit-msg", ["x"])),
    ],
    [
      "patch changing the README's mode there",
      "patch apply --repo proj",
      patchOf(`=== file.chmod: ".githooks/README.md" ===\nmode=755\n=== end ===\n`),
    ],
    ["patch check says the same", "patch check --repo proj", patchOf(block("file.write", ".githooks/pre-push", ["x"]))],
    [
      "patch from the root into the repository's hooks",
      "patch apply --repo .",
      patchOf(block("file.write", "proj/.githooks/pre-commit", ["x"])),
    ],
    [
      "patch editing the script core.fsmonitor runs",
      "patch apply --repo proj",
      patchOf(block("file.write", "tools/fsmonitor.sh", ["#!/bin/sh", `touch ${marker}`])),
    ],
    ["doc --out into the hooks folder", "doc extract proj/a.docx --out proj/.githooks/pre-commit", undefined],
  ];
  await Deno.copyFile(`${FIXTURES}mammoth/tables.docx`, `${proj}/a.docx`);
  for (const [label, line, stdin] of refusals) {
    await t.step(label, async () => {
      const envelope = await exec(root.path, line, stdin === undefined ? {} : { stdin });
      assert.notEqual(envelope.exit_code, 0, envelope.stdout);
      assert.match(envelope.stderr, /core\.(?:hooksPath|fsmonitor)/, envelope.stderr);
      assert.match(envelope.stderr, /a person's real git runs what is there/);
    });
  }

  await t.step("the same patch without --repo: its root-relative path is not nested under proj", async () => {
    const envelope = await exec(root.path, "patch apply", {
      stdin: patchOf(block("file.write", "proj/.githooks/pre-commit", ["x"])),
    });
    assert.equal(envelope.error_code, "AmbiguousRepository", envelope.stderr);
    assert.match(envelope.stderr, /`patch apply --repo \.`/);
    await assert.rejects(Deno.lstat(`${proj}/proj`));
  });

  await t.step("git checkout of a branch that adds a hook is refused", async () => {
    await oracleGit(proj, "checkout", "-q", "-b", "hooked");
    await Deno.writeTextFile(`${proj}/.githooks/pre-commit`, hook);
    await Deno.chmod(`${proj}/.githooks/pre-commit`, 0o755);
    await oracleGit(proj, "add", ".githooks/pre-commit");
    await oracleGit(proj, "-c", "core.hooksPath=/nonexistent", "commit", "-qm", "hook", "--no-verify");
    await oracleGit(proj, "checkout", "-q", "main");
    assert.equal(await present(`${proj}/.githooks/pre-commit`), false);
    const statusBefore = await oracleGit(proj, "status", "--porcelain");
    const envelope = await exec(root.path, "git checkout hooked --repo proj");
    assert.equal(envelope.error_code, "GitDirDenied", envelope.stderr);
    assert.equal(await present(`${proj}/.githooks/pre-commit`), false, "nothing written");
    assert.equal((await oracleGit(proj, "rev-parse", "--abbrev-ref", "HEAD")).trim(), "main", "still on main");
    assert.equal(await oracleGit(proj, "status", "--porcelain"), statusBefore, "index and work tree as they were");
  });

  await t.step("ordinary work is unaffected: an executable script elsewhere, a plain file", async () => {
    const script = patchOf(
      block(
        "git.diff",
        "scripts/build.sh",
        newHook.map((l) => l.replaceAll(".githooks/pre-commit", "scripts/build.sh")),
      ),
      block("file.write", "notes.md", ["x"]),
    );
    const envelope = await exec(root.path, "patch apply --repo proj", { stdin: script });
    assert.equal(envelope.exit_code, 0, envelope.stderr);
    assert.equal((await Deno.stat(`${proj}/scripts/build.sh`)).mode! & 0o111, 0o111);
  });

  // The person's own git: status (core.fsmonitor) and commit (the hooks folder) run nothing the agent wrote.
  await personGit(proj, "status");
  await personGit(proj, "commit", "-qm", "person", "--allow-empty");
  assert.equal(await present(marker), false, "no hook or fsmonitor of the agent's ran");
});

Deno.test("husky's core.hooksPath (.husky/_) protects .husky/, whose files its scripts run", async () => {
  await using root = await makeRoot();
  const proj = `${root.path}/proj`;
  const marker = `${root.path}/hook-ran`;
  // As `husky` 9 installs itself: .husky/_/pre-commit runs .husky/_/h, which runs `.husky/pre-commit` with sh.
  await writeTree(proj, {
    "a.txt": "a\n",
    ".husky/_/h":
      '#!/bin/sh\nn=$(basename "$0")\ns=$(dirname "$(dirname "$0")")/$n\n[ -f "$s" ] || exit 0\nsh -e "$s"\n',
    ".husky/_/pre-commit": '#!/bin/sh\n. "$(dirname "$0")/h"\n',
  });
  await Deno.chmod(`${proj}/.husky/_/h`, 0o755);
  await Deno.chmod(`${proj}/.husky/_/pre-commit`, 0o755);
  await oracleGit(proj, "init", "-q", "-b", "main");
  await oracleGit(proj, "config", "core.hooksPath", ".husky/_");
  const envelope = await exec(root.path, "patch apply --repo proj", {
    stdin: patchOf(block("file.write", ".husky/pre-commit", [`touch ${marker}`])),
  });
  assert.equal(envelope.error_code, "GitDirDenied", envelope.stderr);
  assert.match(envelope.stderr, /husky/);
  await personGit(proj, "add", "a.txt");
  await personGit(proj, "commit", "-qm", "person");
  assert.equal(await present(marker), false, "the agent's husky hook never ran");
  // The control: the same file written by the person runs on their commit.
  await Deno.writeTextFile(`${proj}/.husky/pre-commit`, `touch ${marker}\n`);
  await personGit(proj, "commit", "-qm", "again", "--allow-empty");
  assert.equal(await present(marker), true, "husky runs .husky/pre-commit");
});
