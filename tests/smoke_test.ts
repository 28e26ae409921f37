/**
 * scripts/smoke.ts, the check every release binary and the npm package must pass, passes on the
 * `pterm` task itself and fails on a pterm that reports success for something it did not do.
 */

import assert from "node:assert/strict";
import { smoke } from "../scripts/smoke.ts";
import { baseEnv, ptermArgs } from "./_support/helpers.ts";

Deno.test("the smoke check passes on the pterm task: hello, doc extract, git init/add/commit/log, mcp", async () => {
  const steps: string[] = [];
  await smoke({ command: Deno.execPath(), args: ptermArgs([]), env: baseEnv() }, undefined, (line) => steps.push(line));
  assert.deepEqual(steps, [
    "ok  exec hello",
    "ok  doc extract report.docx",
    "ok  git init / add / commit / log",
    "ok  mcp tools/list, terminal_exec hello",
  ]);
});

Deno.test("the smoke check fails on a program that answers every call with an empty success", async () => {
  const liar =
    `console.log(JSON.stringify({ exit_code: 0, stdout: "", stderr: "", error_code: null, result: { ok: true } }))`;
  await assert.rejects(
    smoke({ command: Deno.execPath(), args: ["eval", liar], env: baseEnv() }),
    /`exec hello` prints the banner/,
  );
});
