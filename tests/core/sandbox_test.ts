/**
 * The second wall: command code runs in a worker with narrowed Deno permissions, so even a
 * command that skips pterm's own checks is refused by the runtime.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { exec, execOk, makeRoot } from "../helpers.ts";
import { probeCommands } from "../fixtures/probe_commands.ts";

const probe = { commands: probeCommands };

Deno.test("the runtime refuses what a command did not declare", async (t) => {
  await using dir = await makeRoot();
  await using outsideDir = await makeRoot("pterm-outside-");
  await Deno.writeTextFile(join(dir.path, "inside.txt"), "inside");

  await t.step("reading /etc/hostname (read is limited to the root)", async () => {
    const envelope = await exec(dir.path, "probe read --path /etc/hostname", probe);
    assert.equal(envelope.error_code, "SandboxDenied");
    assert.match(envelope.stderr, /NotCapable|Requires read access|read access/i);
  });
  await t.step("reading inside the root works", async () => {
    const envelope = await execOk(dir.path, `probe read --path ${join(dir.path, "inside.txt")}`, probe);
    assert.equal((envelope.result as { content: string }).content, "inside");
  });
  await t.step("writing outside the root", async () => {
    const target = join(outsideDir.path, "escaped.txt");
    const envelope = await exec(dir.path, `probe write --path ${target}`, probe);
    assert.equal(envelope.error_code, "SandboxDenied");
    await assert.rejects(Deno.stat(target), Deno.errors.NotFound);
  });
  await t.step("reading an environment variable", async () => {
    const envelope = await exec(dir.path, "probe env --name HOME", probe);
    assert.equal(envelope.error_code, "SandboxDenied");
  });
  await t.step("starting a process", async () => {
    const envelope = await exec(dir.path, "probe run", probe);
    assert.equal(envelope.error_code, "SandboxDenied");
  });
  await t.step("a fetch with no declared host", async () => {
    const envelope = await exec(dir.path, "probe fetch --url http://127.0.0.1:8/", probe);
    assert.equal(envelope.error_code, "NetworkDenied");
  });
});

Deno.test("network is granted only to the hosts a command declares for the call", async () => {
  await using dir = await makeRoot();
  await using allowed = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response("allowed host"),
  );
  await using other = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response("other host"),
  );
  const host = `127.0.0.1:${allowed.addr.port}`;
  await Deno.writeTextFile(join(dir.path, "pterm.json"), JSON.stringify({ probe: { host } }));
  const ok = await execOk(dir.path, `probe fetch --url http://${host}/`, probe);
  assert.equal((ok.result as { body: string }).body, "allowed host");
  const refused = await exec(dir.path, `probe fetch --url http://127.0.0.1:${other.addr.port}/`, probe);
  assert.equal(refused.error_code, "NetworkDenied");
});

Deno.test("a timeout stops the command, even a loop that never yields", async (t) => {
  await using dir = await makeRoot();
  await t.step("busy loop", async () => {
    const started = Date.now();
    const envelope = await exec(dir.path, "probe busy", { ...probe, timeoutMs: 300 });
    assert.equal(envelope.exit_code, 124);
    assert.equal(envelope.error_code, "Timeout");
    assert.match(envelope.stderr, /did not finish within 300 ms/);
    assert.ok(Date.now() - started < 10_000, "the kernel came back");
  });
  await t.step("a cooperative command sees its signal abort", async () => {
    const envelope = await exec(dir.path, "probe sleep --ms 60000", { ...probe, timeoutMs: 200 });
    assert.equal(envelope.error_code, "Timeout");
  });
  await t.step("the requested timeout is clipped to limits.timeout_ms_max", async () => {
    await Deno.writeTextFile(
      join(dir.path, "pterm.json"),
      JSON.stringify({ limits: { timeout_ms_default: 100, timeout_ms_max: 200 } }),
    );
    const envelope = await exec(dir.path, "probe sleep --ms 60000", { ...probe, timeoutMs: 3_600_000 });
    assert.equal(envelope.error_code, "Timeout");
    assert.match(envelope.stderr, /within 200 ms/);
  });
});

Deno.test("artifacts a command saves are listed with paths relative to the root", async () => {
  await using dir = await makeRoot();
  const envelope = await execOk(dir.path, "probe artifact", probe);
  assert.deepEqual(envelope.artifacts, [{
    path: `artifacts/${envelope.run_id}/report.txt`,
    mime: "text/plain",
    description: "a probe file",
  }]);
  assert.equal(await Deno.readTextFile(join(dir.path, envelope.artifacts[0].path)), "probe artifact");
});
