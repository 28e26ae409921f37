/**
 * The documentation teaches by running: every example of `patch --help` and of
 * skills/patch/SKILL.md runs here in order in a fresh root and does what the text says, and the
 * failure shown in SKILL.md is the failure pterm gives.
 */

import assert from "node:assert/strict";
import { commands } from "../../../commands/index.ts";
import { type CommandNode, isGroup } from "../../../core/declaration.ts";
import { extractExamples } from "../../../core/skills.ts";
import { exec, makeRoot } from "../../_support/helpers.ts";
import { block, git, patchOf, writeTree } from "./helpers.ts";

function* examplesOf(node: CommandNode): Generator<{ command: string; stdin?: string }> {
  yield* node.examples;
  if (isGroup(node)) { for (const sub of node.subcommands) yield* examplesOf(sub); }
}

Deno.test("every example of `patch --help` runs, in order, in a fresh root", async () => {
  await using dir = await makeRoot();
  // What the examples that name files expect to find.
  await Deno.mkdir(`${dir.path}/projects/xgit/notes`, { recursive: true });
  await writeTree(dir.path, {
    "projects/xgit/notes/todo.md": "# TODO\n",
    "patches/fix.patch": patchOf(block("file.append", "notes/todo.md", ["- fixed"])),
  });
  const spec = await commands.patch();
  let ran = 0;
  for (const example of examplesOf(spec)) {
    const env = await exec(dir.path, example.command, { stdin: example.stdin });
    assert.equal(env.exit_code, 0, `${example.command}\n${example.stdin ?? ""}\n${env.stderr}`);
    ran++;
  }
  assert.ok(ran >= 8);
  assert.equal(
    await Deno.readTextFile(`${dir.path}/notes/todo.md`),
    "# TODO\n- write the parser\n- test the parser\n- timeout is 60 seconds\n",
  );
  assert.equal(await Deno.readTextFile(`${dir.path}/projects/xgit/notes/todo.md`), "# TODO\n- fixed\n");
  assert.equal(
    await Deno.readTextFile(`${dir.path}/notes/plan.md`),
    "## Parser\n- status: todo\n\n## Tests\n- status: done\n",
  );
  const help = await exec(dir.path, "patch --help");
  for (
    const needle of [
      "=== PATCH EOF ===",
      "nthl",
      "start-keys",
      "git.diff",
      "file.chmod",
      "All or nothing",
      "line.insert puts the body BEFORE the found line",
      "*** Begin Patch",
    ]
  ) {
    assert.ok(help.stdout.includes(needle), needle);
  }
});

const squash = (text: string) => text.replace(/\s+/g, " ").trim();

Deno.test("skills/patch/SKILL.md: every example does what the text says; the failure shown is the real one", async () => {
  const markdown = await Deno.readTextFile(new URL("../../../skills/patch/SKILL.md", import.meta.url));
  const examples = extractExamples(markdown);
  // A fence the extractor would not see (e.g. rewritten to four backticks by a formatter) must not hide an example.
  assert.equal(examples.length, [...markdown.matchAll(/^`{3,}terminal_exec/gm)].length);
  const textBlocks = [...markdown.matchAll(/^```text\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  const failingPatch = textBlocks.find((t) => t.startsWith("=== line.replace"))!;
  const failingOutput = textBlocks.find((t) => t.startsWith("[Error]"))!;
  await using dir = await makeRoot();
  for (const [i, example] of examples.entries()) {
    const env = await exec(dir.path, example.command, { stdin: example.stdin });
    assert.equal(env.exit_code, 0, `#${i + 1} ${example.command}\n${env.stderr}`);
    if (example.command === "patch check") {
      const failing = await exec(dir.path, "patch check", { stdin: failingPatch });
      assert.equal(failing.exit_code, 1);
      assert.equal(squash(failing.stderr.split("\n\nHint:")[0]), squash(failingOutput));
    }
  }
  assert.equal(
    await Deno.readTextFile(`${dir.path}/app/settings.py`),
    [
      "TIMEOUT = 60",
      "RETRIES = 5",
      "BACKOFF = 2",
      "",
      "# Opens a connection with the configured timeout.",
      "def connect(host, port=443):",
      "    return open_socket(host, port, TIMEOUT)",
      "DEBUG = False",
    ].join("\n") + "\n",
  );
  assert.equal(((await Deno.stat(`${dir.path}/scripts/run.sh`)).mode ?? 0) & 0o777, 0o755);
  assert.equal(await git(`${dir.path}/proj`, "log", "--format=%an|%s", "v0.1"), "Ada Lovelace|Add the readme\n");
  assert.equal(
    await Deno.readTextFile(`${dir.path}/proj/README.md`),
    "# Project\nStatus: alpha.\n\nRun `python -m app`.\n",
  );
  assert.equal(await Deno.readTextFile(`${dir.path}/proj/docs/usage.md`), "# Usage\n");
  // The XGit patch and the unified diff given -m committed; the codex patch only edited the work tree.
  assert.equal((await git(`${dir.path}/proj`, "rev-list", "--count", "HEAD")).trim(), "2");
  assert.equal(await git(`${dir.path}/proj`, "log", "-1", "--format=%s"), "Say how to run\n");
  assert.equal(await git(`${dir.path}/proj`, "status", "--porcelain"), " M README.md\n?? docs/\n");
  assert.equal(await git(`${dir.path}/proj`, "show", "v0.1:README.md"), "# Project\n");
});
