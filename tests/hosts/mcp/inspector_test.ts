/**
 * `pterm mcp` driven by @modelcontextprotocol/inspector's CLI mode — the MCP project's own
 * debugging client, run as a separate process exactly as its README shows (`inspector --cli
 * <server command> --method …`), under Deno from the pinned npm package. The inspector has a config
 * and lock of its own (inspector.deno.json): in the main deno.json its 150-odd npm packages made every
 * `deno task pterm` process read a lock of 251 packages (~2 ms each) for a test-only tool.
 */

import assert from "node:assert/strict";
import { baseEnv, makeRoot, ptermArgs } from "../../_support/helpers.ts";

const options = { sanitizeOps: false, sanitizeResources: false };
const REPO = new URL("../../../", import.meta.url).pathname;

/**
 * What Deno needs to download the inspector from npm on a machine where it is not cached yet (it is
 * not in the main deno.json, so `deno install` does not fetch it): the certificate and proxy settings
 * of the machine, if any.
 */
function downloadEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  const names = ["NODE_EXTRA_CA_CERTS", "DENO_CERT", "DENO_TLS_CA_STORE", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY"];
  for (const name of [...names, ...names.map((n) => n.toLowerCase())]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

async function inspector(root: string, ...method: string[]): Promise<Record<string, unknown>> {
  const { code, json } = await inspectorRun(root, method);
  assert.equal(code, 0, JSON.stringify(json));
  return json;
}

async function inspectorRun(root: string, method: string[]): Promise<{ code: number; json: Record<string, unknown> }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--config",
      new URL("./inspector.deno.json", import.meta.url).pathname,
      "npm:@modelcontextprotocol/inspector@2.12.0",
      "--cli",
      ...method,
      "--",
      Deno.execPath(),
      ...ptermArgs(["mcp", "--root", root, "--session", "inspector"]),
    ],
    cwd: REPO,
    clearEnv: true,
    env: { ...baseEnv(), ...downloadEnv(), NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  try {
    return { code: output.code, json: JSON.parse(stdout) };
  } catch {
    throw new Error(
      `the inspector printed no JSON (exit ${output.code}):\n${stdout}\n${new TextDecoder().decode(output.stderr)}`,
    );
  }
}

Deno.test("pterm mcp under the MCP Inspector's CLI: tools, a call, resources, the prompt", options, async (t) => {
  await using dir = await makeRoot();
  await t.step("tools/list", async () => {
    const listed = await inspector(dir.path, "--method", "tools/list") as { tools: { name: string }[] };
    assert.deepEqual(listed.tools.map((tool) => tool.name), ["terminal_exec"]);
  });
  await t.step("tools/call hello, and a failing call", async () => {
    const hello = await inspector(
      dir.path,
      "--method",
      "tools/call",
      "--tool-name",
      "terminal_exec",
      "--tool-arg",
      "command=hello",
    ) as { structuredContent: { exit_code: number; run_id: string }; isError?: boolean };
    assert.equal(hello.structuredContent.exit_code, 0);
    assert.notEqual(hello.isError, true);
    const record = JSON.parse(
      await Deno.readTextFile(
        `${dir.path}/audit/${
          hello.structuredContent.run_id.replace(/^(\d{4})(\d{2})(\d{2}).*/, "$1-$2-$3")
        }/${hello.structuredContent.run_id}.json`,
      ),
    );
    assert.equal(record.origin, "mcp");
    // The inspector prints the result and exits 5 when the tool says isError.
    const failed = await inspectorRun(dir.path, [
      "--method",
      "tools/call",
      "--tool-name",
      "terminal_exec",
      "--tool-arg",
      "command=git comit",
    ]);
    assert.equal(failed.code, 5);
    const result = failed.json as { isError: boolean; content: { text: string }[] };
    assert.equal(result.isError, true);
    assert.match(result.content[0].text, /^\[Error\] git: 'comit' is not a git command[\s\S]*Hint: Run `git --help`/);
  });
  await t.step("resources/list and prompts/get", async () => {
    const resources = await inspector(dir.path, "--method", "resources/list") as { resources: { uri: string }[] };
    assert.ok(resources.resources.some((r) => r.uri === "pterm://skills/hello-world"));
    const prompt = await inspector(dir.path, "--method", "prompts/get", "--prompt-name", "terminal_exec_rules") as {
      messages: { content: { text: string } }[];
    };
    assert.match(prompt.messages[0].content.text, /Zone A/);
  });
});
