/**
 * `server.autostart` in pterm.json: a workspace that says so has `pterm exec` start its session
 * server by itself (that call cold, the next ones warm); $PTERM_SERVER overrides the file for one
 * process; without either, no server is started and the call runs cold as before; a value that is
 * not a boolean is InvalidConfig naming the key. Real `pterm exec` processes, a real server.
 */

import assert from "node:assert/strict";
import { cli, makeRoot } from "../../_support/helpers.ts";
import { askServer } from "../../../hosts/server/spawn.ts";
import { VERSION } from "../../../version.ts";

function writeConfig(root: string, config: unknown): void {
  Deno.writeTextFileSync(`${root}/pterm.json`, JSON.stringify(config));
}

/** Waits for the root's server to answer (it was started in the background); its status, or null past `ms`. */
async function serverUp(root: string, ms: number): Promise<Record<string, unknown> | null> {
  const until = Date.now() + ms;
  for (;;) {
    const status = await askServer(root, VERSION, "status");
    if (status !== null || Date.now() > until) return status;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Stops whatever server a test started, whichever way it ended. */
function stopping(root: string): AsyncDisposable {
  return { [Symbol.asyncDispose]: async () => void await askServer(root, VERSION, "stop") };
}

Deno.test("server.autostart: exec starts the server by itself, and the next exec is served by it", async () => {
  await using root = await makeRoot();
  await using _stop = stopping(root.path);
  writeConfig(root.path, { server: { autostart: true } });
  const first = await cli(["exec", "--root", root.path, "hello"]);
  assert.equal(first.code, 0, first.stderr);
  const status = await serverUp(root.path, 30_000);
  assert.ok(status, "the first exec started the root's server");
  assert.equal(status.root, root.path);
  assert.equal(status.calls, 0, "the first call ran cold");

  const second = await cli(["exec", "--root", root.path, "hello"]);
  assert.equal(second.code, 0, second.stderr);
  assert.deepEqual(second.envelope?.result, first.envelope?.result);
  assert.equal((await askServer(root.path, VERSION, "status"))?.calls, 1, "the second exec joined the server");
});

Deno.test("server.autostart: PTERM_SERVER=off wins over the file — no server is asked or started", async () => {
  await using root = await makeRoot();
  await using _stop = stopping(root.path);
  writeConfig(root.path, { server: { autostart: true } });
  const call = await cli(["exec", "--root", root.path, "hello"], { env: { PTERM_SERVER: "off" } });
  assert.equal(call.code, 0, call.stderr);
  assert.equal(await serverUp(root.path, 2_000), null, "nothing was started");
});

Deno.test("server.autostart: off, or no setting, starts nothing and the calls run cold; PTERM_SERVER=auto still starts one", async () => {
  await using root = await makeRoot();
  await using _stop = stopping(root.path);
  for (const config of [{ server: { autostart: false } }, { server: {} }, {}]) {
    writeConfig(root.path, config);
    const call = await cli(["exec", "--root", root.path, "hello"]);
    assert.equal(call.code, 0, call.stderr);
    assert.equal(call.envelope?.exit_code, 0);
  }
  assert.equal(await serverUp(root.path, 2_000), null, "no exec started a server");

  // The environment wins the other way too: the file says off, the process says auto.
  writeConfig(root.path, { server: { autostart: false } });
  assert.equal((await cli(["exec", "--root", root.path, "hello"], { env: { PTERM_SERVER: "auto" } })).code, 0);
  assert.ok(await serverUp(root.path, 30_000), "PTERM_SERVER=auto started the server");
});

Deno.test("server.autostart: a value that is not a boolean is InvalidConfig naming the key, and nothing starts", async () => {
  await using root = await makeRoot();
  await using _stop = stopping(root.path);
  for (const server of [{ autostart: "yes" }, { autostart: true, idle: 5 }, "on"]) {
    writeConfig(root.path, { server });
    const call = await cli(["exec", "--root", root.path, "hello"]);
    assert.equal(call.envelope?.error_code, "InvalidConfig", JSON.stringify(server));
    const named = typeof server === "string"
      ? "`server`"
      : "autostart" in server && server.autostart === "yes"
      ? "`server.autostart`"
      : "`server.idle`";
    assert.ok(call.envelope?.stderr.includes(named), `${named} in ${call.envelope?.stderr}`);
  }
  assert.equal(await serverUp(root.path, 2_000), null, "a bad file started nothing");
  // Fixed, the same root starts its server again as configured.
  writeConfig(root.path, { server: { autostart: true } });
  assert.equal((await cli(["exec", "--root", root.path, "hello"])).code, 0);
  assert.ok(await serverUp(root.path, 30_000));
});
