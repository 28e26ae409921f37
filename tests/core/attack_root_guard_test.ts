/**
 * pterm's own code is never workspace data: a root that holds pterm (vendored in a project,
 * `--root` a parent folder) or Deno's module cache, or lies inside pterm's code, is refused by
 * every face before anything runs — so no `patch` can rewrite what the next call executes.
 */

import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { assertRootHoldsNoPtermCode, ptermCodeLocations } from "../../core/root_guard.ts";
import { PtermError } from "../../core/errors.ts";
import { cli, makeRoot } from "../_support/helpers.ts";

const REPO = new URL("../../", import.meta.url).pathname;
/** What a project vendoring pterm copies: the bundled kernel and everything it loads. */
const VENDORED = [
  "main.bundle.js",
  "bundles",
  "core",
  "commands",
  "hosts",
  "lib",
  "skills",
  "version.ts",
  "deno.json",
  "deno.lock",
  "runtime.deno.json",
  "runtime.deno.lock",
];

async function vendorPterm(into: string): Promise<string> {
  await Deno.mkdir(into, { recursive: true });
  for (const entry of VENDORED) {
    const out = await new Deno.Command("cp", { args: ["-R", join(REPO, entry), into] }).output();
    assert.equal(out.code, 0, `copying ${entry}`);
  }
  return into;
}

function refusal(root: string): PtermError {
  try {
    assertRootHoldsNoPtermCode(root);
  } catch (error) {
    if (error instanceof PtermError) return error;
    throw error;
  }
  assert.fail(`the root ${root} was accepted`);
}

Deno.test("a project that vendors pterm cannot be the root of that pterm; its .agents folder can", async () => {
  await using project = await makeRoot();
  const vendored = await vendorPterm(join(project.path, "vendor", "pterm"));
  const entry = join(vendored, "main.bundle.js");
  const before = await Deno.readTextFile(entry);
  // The agent's first move would be `patch` over the kernel the next call loads.
  // (Before this rule, it applied: "1 file(s) changed", and the next call ran the agent's line.)
  const attack = "patch apply";
  const stdin = '=== file.append: "vendor/pterm/main.bundle.js" ===\n\nglobalThis.owned = 1;\n=== end ===\n\n' +
    "=== PATCH EOF ===\n";
  for (const face of [["exec", "--root", project.path, attack], ["runs", "list", "--root", project.path]]) {
    const run = await cli(face, { entry, stdin, cwd: project.path });
    const said = run.envelope?.stderr ?? run.stderr;
    assert.notEqual(run.code, 0, `${face.join(" ")} started on a root holding its own code`);
    assert.match(run.envelope?.error_code ?? said, /UnsafeRoot/, said);
    assert.ok(said.includes(`contains ${vendored} (pterm's own code)`), `the message names the folder: ${said}`);
  }
  assert.equal(await Deno.readTextFile(entry), before, "the vendored kernel is unchanged");
  await assert.rejects(Deno.stat(join(project.path, "audit")), "nothing was written under the refused root");

  // A code entry this copy lacks (it carries no main.ts) is still pterm's: a root there is refused,
  // and not created.
  const lacking = join(vendored, "main.ts");
  const there = await cli(["exec", "--root", join(lacking, "work"), "hello"], { entry, cwd: project.path });
  assert.equal(there.envelope?.error_code, "UnsafeRoot", there.stderr + there.envelope?.stderr);
  assert.match(there.envelope?.stderr ?? "", /is inside .*main\.ts \(pterm's own code\)/);
  await assert.rejects(Deno.stat(lacking), "the refused root was not created");

  // What the person does next: the suggested root, the project's .agents folder, works.
  const next = await cli(["exec", "--root", join(project.path, ".agents"), "hello"], { entry, cwd: project.path });
  assert.equal(next.envelope?.exit_code, 0, next.stderr + next.envelope?.stderr);
  assert.equal(await Deno.readTextFile(entry), before);
});

Deno.test("a root inside pterm's code folders or over Deno's module cache is refused, naming the folder", () => {
  const locations = ptermCodeLocations();
  const core = locations.find((l) => l.path.endsWith(join("", "core")))!;
  assert.ok(core, "the kernel folder is among the code locations");
  const inside = refusal(join(core.path, "sub", "not-created-yet"));
  assert.equal(inside.code, "UnsafeRoot");
  assert.match(inside.message, /is inside .*core/);
  assert.rejects(Deno.stat(join(core.path, "sub")), "the refused root was not created");
  // The faces and shared code load into the kernel's process too.
  for (const folder of ["hosts", "lib"]) {
    const code = locations.find((l) => l.path.endsWith(join("", folder)));
    assert.ok(code, `${folder}/ is among the code locations`);
    assert.equal(refusal(join(code.path, "x")).code, "UnsafeRoot");
  }

  const cache = locations.find((l) => l.what.includes("module cache"));
  assert.ok(cache, "Deno's module cache is among the code locations");
  const parent = refusal(dirname(cache.path));
  assert.match(parent.message, new RegExp(`contains ${cache.path.replaceAll("/", "\\/")}.*module cache`));

  const repoParent = refusal(dirname(REPO.replace(/\/$/, "")));
  assert.match(repoParent.message, /contains .*pterm's own code/);
});

Deno.test("the repository's own .agents folder and a temp folder stay usable roots", async () => {
  assertRootHoldsNoPtermCode(join(REPO, ".agents"));
  await using root = await makeRoot();
  assertRootHoldsNoPtermCode(root.path);
});
