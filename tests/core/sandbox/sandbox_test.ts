/**
 * The second wall: command code runs in a worker with narrowed Deno permissions, so even a
 * command that skips pterm's own checks is refused by the runtime.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { CODE_DIRS, exec, execOk, makeRoot } from "../../_support/helpers.ts";
import { z } from "zod";
import { probeCommands } from "../../fixtures/probe_commands.ts";
import type { HandlerRef } from "../../../core/declaration.ts";
import type { AnyHandler } from "../../../core/context.ts";
import type { FromJob, SandboxJob } from "../../../core/sandbox/protocol.ts";
import { runJob } from "../../../core/sandbox/worker.ts";
import type { CommandLoaders } from "../../../core/registry.ts";
import { permissionsFor, Sandbox, workerEntryUrl } from "../../../core/sandbox/sandbox.ts";
import { DEFAULT_LIMITS } from "../../../core/limits.ts";
import { auditPath } from "../../../core/audit.ts";

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

Deno.test("a handler reference that does not resolve is an Internal error, and cannot inject code", async (t) => {
  await using dir = await makeRoot();
  const leafWith = (handler: HandlerRef): CommandLoaders => ({
    ...probeCommands,
    broken: () =>
      Promise.resolve({
        name: "broken",
        summary: "A command whose handler reference is wrong.",
        zone: "help-first",
        examples: [{ command: "broken", description: "fails" }],
        capabilities: [],
        result: () => Promise.resolve(z.looseObject({ ok: z.boolean() })),
        handler,
      }),
  });
  const probeModule = new URL("../../fixtures/probe/handler.ts", import.meta.url).href;

  await t.step("an export the module does not have", async () => {
    const envelope = await exec(dir.path, "broken", { commands: leafWith({ module: probeModule, export: "nope" }) });
    assert.equal(envelope.error_code, "Internal");
    assert.match(envelope.stderr, /probe\/handler\.ts exports no handler named nope/);
  });
  await t.step("a module that does not exist", async () => {
    const missing = new URL("../../fixtures/probe/missing.ts", import.meta.url).href;
    const envelope = await exec(dir.path, "broken", { commands: leafWith({ module: missing, export: "x" }) });
    assert.equal(envelope.error_code, "Internal");
    assert.match(envelope.stderr, /missing\.ts/);
  });
  await t.step("a module that fails to load before the job is sent is reported by run, not thrown", async () => {
    const missing = new URL("../../fixtures/probe/missing.ts", import.meta.url).href;
    const sandbox = new Sandbox(
      { module: missing, export: "x" },
      ["broken"],
      permissionsFor([], dir.path, [], CODE_DIRS),
    );
    await new Promise((resolve) => setTimeout(resolve, 300)); // the worker has failed by now
    const outcome = await sandbox.run({
      commandName: "broken",
      path: ["broken"],
      args: { flags: {}, positionals: {} },
      stdin: null,
      root: dir.path,
      runId: "20261122T000000000Z-00000000",
      session: "default",
      sessionDir: join(dir.path, "sessions", "default"),
      config: undefined,
      limits: DEFAULT_LIMITS,
      terminal: { color: false },
    }, Date.now() + 5000);
    assert.equal(outcome.kind, "failed");
    assert.ok(outcome.kind === "failed" && outcome.code === "Internal");
    assert.match(outcome.kind === "failed" ? outcome.message : "", /missing\.ts/);
  });
  await t.step("quotes and code in a reference stay data", async () => {
    const hostile = '"]); globalThis.postMessage({ type: "done", result: { ok: true, command: "pwned" } }); (["';
    const envelope = await exec(dir.path, "broken", { commands: leafWith({ module: probeModule, export: hostile }) });
    assert.equal(envelope.error_code, "Internal");
    assert.notEqual((envelope.result as { command?: string } | null)?.command, "pwned");
    const source = decodeURIComponent(workerEntryUrl({ module: probeModule, export: hostile }).split(",", 2)[1]);
    assert.ok(source.includes(`handlerModule[${JSON.stringify(hostile)}]`));
  });
});

Deno.test("a caller's cancellation stops the command and the record says Cancelled", async (t) => {
  await using dir = await makeRoot();
  const recordOf = async (runId: string) => JSON.parse(await Deno.readTextFile(auditPath(dir.path, runId)));
  await t.step("a loop that never yields is terminated", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    const envelope = await exec(dir.path, "probe busy", {
      ...probe,
      timeoutMs: 60_000,
      signal: controller.signal,
      origin: "mcp",
    });
    assert.equal(envelope.exit_code, 130);
    assert.equal(envelope.error_code, "Cancelled");
    assert.match(envelope.stderr, /cancelled by its caller/);
    assert.ok(Date.now() - started < 10_000, "the kernel came back long before the timeout");
    const record = await recordOf(envelope.run_id);
    assert.equal(record.state, "finished");
    assert.equal(record.error_code, "Cancelled");
    assert.equal(record.origin, "mcp");
  });
  await t.step("a cooperative command sees its signal abort with a Cancelled reason", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const envelope = await exec(dir.path, "probe sleep --ms 60000", { ...probe, signal: controller.signal });
    assert.equal(envelope.error_code, "Cancelled");
    assert.equal((await recordOf(envelope.run_id)).origin, "exec");
  });
  await t.step("a call cancelled before it starts runs nothing", async () => {
    const envelope = await exec(dir.path, "probe sleep --ms 60000", { ...probe, signal: AbortSignal.abort() });
    assert.equal(envelope.error_code, "Cancelled");
    assert.equal(envelope.exit_code, 130);
  });
});

Deno.test("a command that finishes before it can be stopped is reported as done, not cancelled", async () => {
  await using dir = await makeRoot();
  const controller = new AbortController();
  // Cancelled at its first report; it ignores its signal and finishes well within the grace.
  const envelope = await exec(dir.path, "probe stubborn --ms 100", {
    ...probe,
    signal: controller.signal,
    onProgress: () => controller.abort(),
  });
  assert.equal(envelope.error_code, null, envelope.stderr);
  assert.equal(envelope.exit_code, 0);
  assert.deepEqual(envelope.result, { ok: true, command: "probe stubborn", finished: true });
  const record = JSON.parse(await Deno.readTextFile(auditPath(dir.path, envelope.run_id)));
  assert.equal(record.error_code, null);
});

Deno.test("progress reports reach the caller in order", async () => {
  await using dir = await makeRoot();
  const reports: { progress: number; total?: number; message?: string }[] = [];
  const controller = new AbortController();
  const envelope = await exec(dir.path, "probe progress --steps 5", {
    ...probe,
    signal: controller.signal,
    onProgress: (report) => {
      reports.push(report);
      if (report.progress === 5) controller.abort();
    },
  });
  assert.equal(envelope.error_code, "Cancelled");
  assert.deepEqual(reports.map((r) => r.progress), [1, 2, 3, 4, 5]);
  assert.deepEqual(reports[4], { progress: 5, total: 5, message: "step 5" });
});

Deno.test("a job nobody listens to sends no progress messages; one with a listener sends each report", async () => {
  await using dir = await makeRoot();
  const reportThrice: AnyHandler = (ctx) => {
    for (let step = 1; step <= 3; step++) ctx.progress({ progress: step, total: 3 });
    return Promise.resolve({ steps: 3 });
  };
  const job: SandboxJob = {
    commandName: "probe",
    path: ["probe", "progress"],
    args: { flags: {}, positionals: {} },
    stdin: null,
    root: dir.path,
    runId: "test",
    session: "default",
    sessionDir: join(dir.path, "sessions", "default"),
    config: undefined,
    limits: DEFAULT_LIMITS,
    terminal: { color: false },
  };
  const sent = async (listening: boolean | undefined) => {
    const messages: FromJob[] = [];
    await runJob(
      Promise.resolve(reportThrice),
      { ...job, progress: listening },
      (m) => messages.push(m),
      new AbortController().signal,
    );
    assert.equal(messages.at(-1)?.type, "done", "the job still finishes with its result");
    return messages.filter((m) => m.type === "progress").map((m) => (m as { progress: number }).progress);
  };
  assert.deepEqual(await sent(undefined), []);
  assert.deepEqual(await sent(false), []);
  assert.deepEqual(await sent(true), [1, 2, 3]);
});
