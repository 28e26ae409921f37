/**
 * The MCP server's pieces on their own: the artifact resource reads what a real run left behind
 * and nothing else; the session services start once, with the first tool call, and stop with the
 * server; one that cannot run here is logged and does not hold up the call.
 */

import assert from "node:assert/strict";
import { exec, makeRoot } from "../../_support/helpers.ts";
import { type McpSession, readArtifact, sessionServices } from "../../../hosts/mcp/server.ts";
import type { CliIo } from "../../../core/host/io.ts";
import type { SessionService } from "../../../core/session_service.ts";

Deno.test("the artifact resource: a run's saved stdin as text, non-UTF-8 bytes as base64, other names refused", async () => {
  await using dir = await makeRoot();
  const text = await exec(dir.path, "hello", { stdin: "some input\n" });
  const binary = await exec(dir.path, "hello", { stdin: new Uint8Array([0xff, 0x00, 0x41]) });
  const uri = (runId: string, name: string) => new URL(`pterm://artifacts/${runId}/${name}`);

  const read = await readArtifact(dir.path, uri(text.run_id, "stdin.txt"), text.run_id, "stdin.txt");
  assert.deepEqual(read.contents, [{
    uri: uri(text.run_id, "stdin.txt").href,
    mimeType: "text/plain",
    text: "some input\n",
  }]);
  const bytes = await readArtifact(dir.path, uri(binary.run_id, "stdin.txt"), binary.run_id, "stdin.txt");
  assert.deepEqual(bytes.contents, [{
    uri: uri(binary.run_id, "stdin.txt").href,
    mimeType: "application/octet-stream",
    blob: btoa("\xff\x00A"),
  }]);

  await Deno.writeTextFile(`${dir.path}/secret.txt`, "not an artifact");
  for (const [runId, name] of [[text.run_id, "../../secret.txt"], ["../..", "secret.txt"], [text.run_id, "missing"]]) {
    await assert.rejects(() => readArtifact(dir.path, uri(text.run_id, "x"), runId, name), /no artifact/);
  }
});

Deno.test("session services: started by the first call only, once; a failing one is logged; stop aborts the rest", async () => {
  await using dir = await makeRoot();
  const logged: string[] = [];
  const mcp: McpSession = { root: dir.path, session: "parts", log: (line) => logged.push(line) };
  let serves = 0;
  let stoppedBy: AbortSignal | null = null;
  const running: SessionService = {
    label: "Running",
    configured: () => false,
    serve: (_io, { signal, ready }) => {
      serves++;
      ready();
      return new Promise((resolve) => signal.addEventListener("abort", () => (stoppedBy = signal, resolve())));
    },
    read: () => Promise.reject(new Error("not read here")),
  };
  const elsewhere: SessionService = {
    label: "Elsewhere",
    configured: () => false,
    serve: () => Promise.reject(new Error("another process serves this session")),
    read: () => Promise.reject(new Error("not read here")),
  };
  const services = sessionServices({} as CliIo, mcp, [running, elsewhere]);
  assert.equal(serves, 0, "nothing starts before the first call");
  await services.ensure();
  await services.ensure();
  assert.equal(serves, 1);
  assert.deepEqual(logged, [
    "the session's Elsewhere service is not running here: another process serves this session",
  ]);
  await services.stop();
  assert.equal((stoppedBy as AbortSignal | null)?.aborted, true);
});
