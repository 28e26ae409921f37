/**
 * Docs cannot rot: every `terminal_exec` example in every built-in SKILL.md runs, in order, in
 * a fresh workspace, and must exit 0.
 */

import assert from "node:assert/strict";
import { listSkills } from "../core/skills.ts";
import { exec, makeRoot } from "./_support/helpers.ts";
import { skillSetups } from "./_support/skill_setups.ts";

const skillsDir = new URL("../skills/", import.meta.url);
const skills = await listSkills(skillsDir);

Deno.test("every skill has front matter and at least one example", () => {
  assert.ok(skills.length >= 1);
  for (const skill of skills) {
    assert.ok(skill.name.length > 0, skill.path);
    assert.ok(skill.description.length > 10, `${skill.path} has a description`);
    assert.ok(skill.examples.length >= 1, `${skill.path} has a terminal_exec example`);
  }
});

for (const skill of skills) {
  Deno.test(`every example of skills/${skill.name} exits 0`, async (t) => {
    await using dir = await makeRoot();
    const cleanup = await (skillSetups[skill.name]?.(dir.path) ?? Promise.resolve(async () => {}));
    try {
      for (const [index, example] of skill.examples.entries()) {
        await t.step(`#${index + 1} ${example.command}`, async () => {
          const envelope = await exec(dir.path, example.command, {
            stdin: example.stdin,
            timeoutMs: example.timeout_ms,
          });
          assert.equal(envelope.exit_code, 0, `${example.command}\n${envelope.stderr}`);
        });
      }
    } finally {
      await cleanup();
    }
  });
}
