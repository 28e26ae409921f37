/**
 * A newcomer with Node and npm and nothing else follows the README: a copy of the checkout, a
 * fresh HOME (so a fresh npm cache) and a fresh DENO_DIR, a PATH holding node, npm, npx and sh but
 * no deno. The README's own lines run as written: `npx -y deno@2.9.6 install`, then
 * `npx -y deno@2.9.6 task pterm exec "hello"`; its Claude Desktop/Cursor snippet (the `npx` one)
 * starts `pterm mcp` for the official SDK client (tools/list and a call); its `pterm shell` line
 * (with `npx -y deno@2.9.6` for `deno`, as the README says) runs in a real terminal (tmux), where
 * `:watch` with the session id `pterm mcp` printed shows the agent's run as it lands.
 *
 * Nothing is shared with this machine's caches: npx downloads Deno and `deno install` every npm
 * package from the registry (about 20 s here), so this test needs the npm registry, as CI has.
 * tests/readme_test.ts runs the README's other lines from this checkout with the Deno that runs
 * the tests; this one covers what it leaves out — a machine without Deno.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { fromFileUrl } from "../core/fs/path.ts";
import { makeRoot, REPO_ROOT } from "./_support/helpers.ts";
import { TerminalShell } from "./hosts/shell/tmux.ts";

const CHECKOUT = fromFileUrl(REPO_ROOT).replace(/\/$/, "");
const README = await Deno.readTextFile(`${CHECKOUT}/README.md`);
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const RUNTIME = ["npx", "-y", "deno@2.9.6"];

/** A line of the README's `sh` blocks that starts with `start`, as written (its comment dropped). */
function readmeLine(start: string): string {
  for (const [, body] of README.matchAll(/^```sh\n([\s\S]*?)^```$/gm)) {
    for (const raw of body.split("\n")) {
      const line = raw.replace(/\s{2,}#.*$/, "").trim();
      if (line.startsWith(start)) return line;
    }
  }
  throw new Error(`the README has no line starting with \`${start}\``);
}

/** The README's MCP snippet that starts pterm through npx (Claude Desktop and Cursor). */
function npxSnippet(): { command: string; args: string[] } {
  for (const [, body] of README.matchAll(/^```json\n([\s\S]*?)^```$/gm)) {
    const entry = JSON.parse(body).mcpServers?.pterm;
    if (entry?.command === "npx") return entry;
  }
  throw new Error("the README has no MCP snippet started with npx");
}

async function which(program: string): Promise<string> {
  const output = await new Deno.Command("sh", { args: ["-c", `command -v ${program}`], stdout: "piped" }).output();
  assert.ok(output.success, `${program} is on this machine's PATH`);
  return decode(output.stdout).trim();
}

/** What a process needs to reach the npm registry here: the proxy and certificate settings, if any. */
function networkEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ["NODE_EXTRA_CA_CERTS", "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** The checkout's files as a clone would have them (tracked and new, not ignored ones). */
async function copyCheckout(to: string): Promise<void> {
  const listed = await new Deno.Command("git", {
    args: ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
    cwd: CHECKOUT,
    stdout: "piped",
  }).output();
  assert.ok(listed.success);
  for (const rel of decode(listed.stdout).split("\0").filter((p) => p !== "")) {
    let data: Uint8Array;
    try {
      data = await Deno.readFile(join(CHECKOUT, rel));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) continue; // deleted in the work tree
      throw error;
    }
    await Deno.mkdir(join(to, rel, ".."), { recursive: true });
    await Deno.writeFile(join(to, rel), data);
  }
}

Deno.test({
  name: "a newcomer with only Node follows the README: install, hello, MCP tools/list, a run watched in the shell",
  ignore: Deno.build.os === "windows",
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  await using dir = await makeRoot("pterm-newcomer-");
  const checkout = join(dir.path, "pterm");
  await copyCheckout(checkout);
  const bin = join(dir.path, "bin");
  const home = join(dir.path, "home");
  const workspace = join(dir.path, "workspace");
  await Deno.mkdir(bin);
  await Deno.mkdir(home);
  // npm runs packages' install scripts with sh.
  for (const program of ["node", "npm", "npx", "sh"]) await Deno.symlink(await which(program), join(bin, program));
  const env = {
    PATH: bin,
    HOME: home,
    DENO_DIR: join(dir.path, "deno-cache"),
    PTERM_ROOT: workspace,
    NO_COLOR: "1",
    ...networkEnv(),
  };
  const sh = async (line: string) => {
    const output = await new Deno.Command("/bin/sh", {
      args: ["-c", line],
      cwd: checkout,
      env,
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
  };
  const noDeno = await sh("command -v deno");
  assert.notEqual(noDeno.code, 0, `deno is not on the newcomer's PATH: ${noDeno.stdout}`);

  const install = await sh(readmeLine(`${RUNTIME.join(" ")} install`));
  assert.equal(install.code, 0, install.stderr);
  const hello = await sh(readmeLine(`${RUNTIME.join(" ")} task pterm exec`));
  assert.equal(hello.code, 0, hello.stderr);
  const envelope = JSON.parse(hello.stdout);
  assert.equal(envelope.exit_code, 0);
  assert.match(envelope.stdout, /-- lemonhall/);

  // The MCP snippet, with this copy and a workspace for the README's placeholders.
  const snippet = npxSnippet();
  const args = snippet.args.map((a) =>
    a.replace("/path/to/pterm/", `${checkout}/`).replace("/path/to/workspace/.agents", workspace)
  );
  const transport = new StdioClientTransport({ command: snippet.command, args, env, cwd: home, stderr: "pipe" });
  const client = new Client({ name: "pterm-newcomer-test", version: "1.0.0" });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t: { name: string }) => t.name), ["terminal_exec"]);
    // The session the host never named: pterm mcp says which it is.
    const session = /This is pterm session (\S+);/.exec(client.getInstructions() ?? "")?.[1];
    assert.ok(session, client.getInstructions());

    // The README's shell line, `deno` spelled as the README allows without Deno installed.
    const shellLine = readmeLine("deno task -q pterm shell").split(" ");
    await using shell = await TerminalShell.start({
      root: workspace,
      env,
      launch: { argv: [...RUNTIME, ...shellLine.slice(1)], cwd: checkout },
    });
    await shell.waitForPrompt(1, shellLine.at(-1));
    await shell.line(`:watch ${session}`);
    await shell.waitFor(`watching session ${session}`);
    const call = await client.callTool({ name: "terminal_exec", arguments: { command: "hello" } });
    const runId = (call.structuredContent as { run_id: string }).run_id;
    const screen = await shell.waitFor(`run ${runId}`, { timeoutMs: 20_000 });
    assert.match(screen, /mcp hello/);
    assert.match(screen, /-- lemonhall/);
  } finally {
    await client.close();
  }
});
