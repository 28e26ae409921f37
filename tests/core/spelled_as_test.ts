/**
 * Other programs' names and verbs that are spellings of a pterm command run as it: `apply_patch` (codex's
 * tool) is `patch apply`, `doc read` and `doc show` are `doc extract`.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { exec, makeRoot } from "../_support/helpers.ts";

const CODEX =
  "*** Begin Patch\n*** Update File: app.py\n@@\n import sys\n-FEATURE = True\n+FEATURE = False\n*** End Patch\n";

Deno.test("apply_patch applies a codex patch as patch apply does, and a retry is AlreadyApplied", async () => {
  await using root = await makeRoot("pterm-apply-patch-");
  await using twin = await makeRoot("pterm-apply-patch-twin-");
  for (const dir of [root.path, twin.path]) {
    await Deno.writeTextFile(join(dir, "app.py"), "import sys\nFEATURE = True\n");
  }
  const spelled = await exec(root.path, "apply_patch", { stdin: CODEX });
  assert.equal(spelled.exit_code, 0, spelled.stderr);
  const original = await exec(twin.path, "patch apply", { stdin: CODEX });
  assert.equal(original.exit_code, 0, original.stderr);
  assert.equal(await Deno.readTextFile(join(root.path, "app.py")), "import sys\nFEATURE = False\n");
  assert.equal(await Deno.readTextFile(join(root.path, "app.py")), await Deno.readTextFile(join(twin.path, "app.py")));
  assert.equal(spelled.stdout, original.stdout);
  // What the agent does next when unsure it ran: the same call again changes nothing.
  const again = await exec(root.path, "apply_patch", { stdin: CODEX });
  assert.equal(again.error_code, "AlreadyApplied", again.stderr);
  assert.equal(await Deno.readTextFile(join(root.path, "app.py")), "import sys\nFEATURE = False\n");
});

Deno.test("doc read and doc show print what doc extract prints", async () => {
  await using root = await makeRoot("pterm-doc-read-");
  await Deno.copyFile(
    new URL("../fixtures/doc/mammoth/tables.docx", import.meta.url).pathname,
    join(root.path, "tables.docx"),
  );
  const extracted = await exec(root.path, "doc extract tables.docx");
  assert.equal(extracted.exit_code, 0, extracted.stderr);
  const text = (stdout: string) => stdout.replace(/artifacts\/[^\s]+/g, "<artifact>");
  for (const verb of ["read", "show"]) {
    const envelope = await exec(root.path, `doc ${verb} tables.docx`);
    assert.equal(envelope.exit_code, 0, envelope.stderr);
    assert.equal(text(envelope.stdout), text(extracted.stdout));
  }
});
