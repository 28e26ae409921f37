/**
 * The README is the front door: short, and every command in it runs as shown. Each line of its
 * `sh` blocks runs through a real shell from the checkout, in order, in one fresh workspace root
 * (`$PTERM_ROOT`), and must exit 0 or the code its `# exit N` comment gives; the install and test
 * commands are the ones `.ci/run` runs; every MCP host snippet (Claude Code, Claude Desktop/Cursor,
 * VS Code, Codex CLI) is started as the host would start it and answers tools/list and a call with
 * the official SDK client. Relative links in README.md and docs/ must lead to a file and heading.
 */

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { fromFileUrl } from "../core/fs/path.ts";
import { makeRoot, REPO_ROOT } from "./_support/helpers.ts";

const CHECKOUT = fromFileUrl(REPO_ROOT).replace(/\/$/, "");
const README = await Deno.readTextFile(`${CHECKOUT}/README.md`);
/** The install step and the test command: `.ci/run` runs them on a fresh machine, so the tests do not. */
const CI_LINES = ["npx -y deno@2.9.6 install", "npx -y deno@2.9.6 task test"];

interface CodeBlock {
  lang: string;
  body: string;
}

function codeBlocks(markdown: string): CodeBlock[] {
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1], body: m[2] }));
}

interface ShellLine {
  command: string;
  expectedExit: number;
}

/** A line of an `sh` block: the command, and the exit code its trailing `# exit N` comment states (else 0). */
function shellLines(): ShellLine[] {
  const lines: ShellLine[] = [];
  for (const block of codeBlocks(README).filter((b) => b.lang === "sh")) {
    for (const raw of block.body.split("\n")) {
      if (raw.trim() === "" || raw.trimStart().startsWith("#")) continue;
      const comment = raw.match(/\s{2,}#\s*(.*)$/);
      const command = comment ? raw.slice(0, comment.index).trimEnd() : raw.trim();
      const exit = comment?.[1].match(/^exit (\d+)$/);
      lines.push({ command, expectedExit: exit ? Number(exit[1]) : 0 });
    }
  }
  return lines;
}

function shellEnv(root: string): Record<string, string> {
  const denoDir = Deno.execPath().replace(/\/[^/]*$/, "");
  return { ...Deno.env.toObject(), PATH: `${denoDir}:${Deno.env.get("PATH") ?? ""}`, PTERM_ROOT: root, NO_COLOR: "1" };
}

Deno.test("the README is at most 200 lines", () => {
  const lines = README.split("\n").length - (README.endsWith("\n") ? 1 : 0);
  assert.ok(lines <= 200, `README.md has ${lines} lines`);
});

Deno.test("the README's install and test commands are the ones .ci/run runs", async () => {
  const ci = (await Deno.readTextFile(`${CHECKOUT}/.ci/run`)).split("\n").map((l) => l.trim());
  const commands = shellLines().map((l) => l.command);
  for (const line of CI_LINES) {
    assert.ok(commands.includes(line), `README shows \`${line}\``);
    assert.ok(ci.includes(line), `.ci/run runs \`${line}\``);
  }
  assert.ok(commands.includes('npx -y deno@2.9.6 task pterm exec "hello"'));
});

Deno.test("every command in the README's sh blocks runs as shown, with the exit code it states", async () => {
  await using root = await makeRoot("pterm-readme-");
  const lines = shellLines().filter((l) => !CI_LINES.includes(l.command) && !l.command.startsWith("claude mcp add "));
  assert.ok(lines.length >= 10, `found ${lines.length} commands`);
  for (const { command, expectedExit } of lines) {
    const out = await new Deno.Command("sh", {
      args: ["-c", command],
      cwd: CHECKOUT,
      env: shellEnv(root.path),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    assert.equal(out.code, expectedExit, `\`${command}\` exited ${out.code}:\n${text}`);
  }
  // The tour's patch really committed, and pterm did not write into the checkout.
  const log = await new Deno.Command("git", { args: ["-C", `${root.path}/demo`, "log", "--format=%s"] }).output();
  assert.equal(log.code, 0);
  assert.ok(new TextDecoder().decode(log.stdout).trim().length > 0);
  assert.equal((await Deno.stat(`${root.path}/demo/hello.txt`)).isFile, true);
});

interface HostSnippet {
  host: string;
  command: string;
  args: string[];
}

/** The MCP server command of each host snippet in the README, as the host would read it. */
function hostSnippets(): HostSnippet[] {
  const snippets: HostSnippet[] = [];
  for (const { command } of shellLines().filter((l) => l.command.startsWith("claude mcp add "))) {
    const [, server] = command.split(" -- ");
    const [cmd, ...args] = server.split(/\s+/);
    snippets.push({ host: "Claude Code", command: cmd, args });
  }
  for (const block of codeBlocks(README)) {
    if (block.lang === "json") {
      const config = JSON.parse(block.body);
      const entry = config.mcpServers?.pterm ?? config.servers?.pterm;
      assert.ok(entry, `a JSON block without a pterm server:\n${block.body}`);
      if (config.servers) assert.equal(entry.type, "stdio");
      snippets.push({ host: config.mcpServers ? "mcpServers" : "VS Code", command: entry.command, args: entry.args });
    } else if (block.lang === "toml") {
      assert.match(block.body, /^\[mcp_servers\.pterm\]$/m);
      const command = JSON.parse(block.body.match(/^command = (.*)$/m)![1]);
      const args = JSON.parse(block.body.match(/^args = (.*)$/m)![1]);
      snippets.push({ host: "Codex CLI", command, args });
    }
  }
  return snippets;
}

Deno.test("every MCP host snippet in the README starts a pterm mcp that lists and runs terminal_exec", async () => {
  const snippets = hostSnippets();
  assert.deepEqual(snippets.map((s) => s.host).sort(), ["Claude Code", "Codex CLI", "VS Code", "mcpServers"]);
  // All of them start the same task; only the runtime in front of it (deno or npx -y deno@2.9.6) differs.
  const taskArgs = (s: HostSnippet) => {
    const argv = [s.command, ...s.args];
    return argv.slice(argv.indexOf("task")).map((a) => a.replace("${workspaceFolder}", "/path/to/workspace"));
  };
  for (const s of snippets) assert.deepEqual(taskArgs(s), taskArgs(snippets[0]), s.host);
  for (const s of snippets) {
    assert.ok(
      s.command === "deno" || (s.command === "npx" && s.args.slice(0, 2).join(" ") === "-y deno@2.9.6"),
      s.host,
    );
  }

  for (const snippet of snippets) {
    await using workspace = await makeRoot("pterm-readme-host-");
    const args = snippet.args.map((a) =>
      a.replace("/path/to/pterm/", `${CHECKOUT}/`).replace("/path/to/workspace", workspace.path)
        .replace("${workspaceFolder}", workspace.path)
    );
    const env = shellEnv(workspace.path);
    delete env.PTERM_ROOT;
    delete env.PTERM_SESSION;
    delete env.CLAUDE_CODE_SESSION_ID;
    const transport = new StdioClientTransport({ command: snippet.command, args, env, cwd: "/", stderr: "pipe" });
    const client = new Client({ name: "pterm-readme-test", version: "1.0.0" });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t: { name: string }) => t.name), ["terminal_exec"], snippet.host);
      const result = await client.callTool({ name: "terminal_exec", arguments: { command: "hello" } });
      assert.notEqual(result.isError, true, snippet.host);
      assert.equal((result.structuredContent as { exit_code: number }).exit_code, 0, snippet.host);
    } finally {
      await client.close();
    }
    // The snippet's --root is where the call was recorded.
    assert.ok((await Array.fromAsync(Deno.readDir(`${workspace.path}/.agents/audit`))).length > 0, snippet.host);
  }
});

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of markdown.replace(FENCED, "").matchAll(/^#{1,6} (.*)$/gm)) {
    const base = m[1].trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

const FENCED = /^```[\s\S]*?^```$/gm;

/** The text outside code, where a `[text](target)` is a link. */
function stripCode(markdown: string): string {
  return markdown.replace(FENCED, "").replace(/`[^`\n]*`/g, "");
}

async function markdownFiles(): Promise<string[]> {
  const files = ["README.md"];
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(`${CHECKOUT}/${dir}`)) {
      if (entry.isDirectory) await walk(`${dir}/${entry.name}`);
      else if (entry.name.endsWith(".md")) files.push(`${dir}/${entry.name}`);
    }
  };
  await walk("docs");
  return files.sort();
}

Deno.test("every relative link in README.md and docs/ leads to an existing file and heading", async () => {
  const files = await markdownFiles();
  assert.ok(files.includes("docs/safety.md") && files.includes("docs/commands/git.md"));
  const broken: string[] = [];
  for (const file of files) {
    const text = stripCode(await Deno.readTextFile(`${CHECKOUT}/${file}`));
    const dir = file.includes("/") ? file.slice(0, file.lastIndexOf("/")) : ".";
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target)) continue;
      const [path, anchor] = target.split("#");
      const resolved = path === "" ? `${CHECKOUT}/${file}` : new URL(path, `file://${CHECKOUT}/${dir}/`).pathname;
      let exists = true;
      try {
        await Deno.stat(resolved);
      } catch {
        exists = false;
      }
      if (!exists) {
        broken.push(`${file}: ${target} (no such file)`);
      } else if (anchor !== undefined && !headingAnchors(await Deno.readTextFile(resolved)).has(anchor)) {
        broken.push(`${file}: ${target} (no such heading)`);
      }
    }
  }
  assert.deepEqual(broken, []);
});
