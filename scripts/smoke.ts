// deno-lint-ignore-file no-console -- a script: printing is its output
/**
 * Proves that a built pterm runs: the release workflow runs it on each compiled binary, on that
 * binary's own platform, and tests/npm_package_test.ts on the npm package. Each step is what a user
 * does first; any step that does not do what it reports fails the whole check.
 *
 * - `exec hello` prints the banner in a successful envelope;
 * - `doc extract` of a real document (tests/fixtures/doc/report.docx) prints its text;
 * - `git init`, `git add`, `git commit`, `git log` in a fresh workspace record the commit, and real
 *   git (when on PATH) reads the same commit afterwards;
 * - `mcp`, driven by the official MCP SDK client over stdio, lists `terminal_exec` and runs `hello`.
 *
 *   deno run -A scripts/smoke.ts <pterm program> [its leading arguments…]
 *   e.g. deno run -A scripts/smoke.ts dist/pterm-x86_64-unknown-linux-gnu
 */

import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { join } from "node:path";

/** How to start pterm: a program, the arguments before pterm's own, and the environment it gets. */
export interface PtermLauncher {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Record<string, string>;
}

/** The document the check extracts, and a line its text must contain. */
export const SMOKE_DOCUMENT = new URL(
  "../tests/fixtures/doc/report.docx",
  import.meta.url,
);
const SMOKE_DOCUMENT_LINE = "# Quarterly Field Report";
const COMMIT_SUBJECT = "smoke: first commit";

interface Envelope {
  exit_code: number;
  stdout: string;
  stderr: string;
  error_code: string | null;
  result: Record<string, unknown> | null;
}

async function execOk(
  launcher: PtermLauncher,
  root: string,
  line: string,
): Promise<Envelope> {
  const output = await new Deno.Command(launcher.command, {
    args: [...launcher.args, "exec", "--root", root, line],
    env: launcher.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  const stderr = new TextDecoder().decode(output.stderr);
  let envelope: Envelope;
  try {
    envelope = JSON.parse(stdout);
  } catch {
    throw new Error(
      `\`pterm exec "${line}"\` printed no envelope (exit ${output.code}):\n${stdout}\n${stderr}`,
    );
  }
  if (output.code !== 0 || envelope.exit_code !== 0) {
    throw new Error(
      `\`pterm exec "${line}"\` failed (exit ${output.code}, ${envelope.error_code}):\n${envelope.stderr}\n${stderr}`,
    );
  }
  return envelope;
}

function expect(condition: boolean, what: string, shown: unknown): void {
  if (!condition) {
    throw new Error(
      `${what}; got: ${typeof shown === "string" ? shown : JSON.stringify(shown)}`,
    );
  }
}

async function gitOnPath(): Promise<boolean> {
  try {
    return (await new Deno.Command("git", {
      args: ["--version"],
      stdout: "null",
      stderr: "null",
    }).output()).success;
  } catch {
    return false;
  }
}

/** Runs every step against `launcher` in a fresh workspace under `base`; throws on the first failure. */
export async function smoke(
  launcher: PtermLauncher,
  base?: string,
  log: (line: string) => void = () => {},
) {
  const root = await Deno.makeTempDir({ prefix: "pterm-smoke-", dir: base });
  try {
    const hello = await execOk(launcher, root, "hello");
    expect(
      hello.result?.ok === true && hello.stdout.includes("█"),
      "`exec hello` prints the banner",
      hello,
    );
    log("ok  exec hello");

    await Deno.copyFile(SMOKE_DOCUMENT, join(root, "report.docx"));
    const extracted = await execOk(launcher, root, "doc extract report.docx");
    expect(
      extracted.stdout.includes(SMOKE_DOCUMENT_LINE),
      "`doc extract` prints the document's text",
      extracted,
    );
    log("ok  doc extract report.docx");

    await execOk(launcher, root, "git init");
    await Deno.writeTextFile(
      join(root, "notes.txt"),
      "written by the smoke check\n",
    );
    await execOk(launcher, root, "git add notes.txt");
    const commit = await execOk(
      launcher,
      root,
      `git commit -m "${COMMIT_SUBJECT}"`,
    );
    const commitId = commit.result?.commit_id;
    expect(
      typeof commitId === "string",
      "`git commit` reports the commit id",
      commit,
    );
    const history = await execOk(launcher, root, "git log");
    const commits = history.result?.commits as
      | { id: string; subject: string }[]
      | undefined;
    expect(
      commits?.length === 1 && commits[0].id === commitId &&
        commits[0].subject === COMMIT_SUBJECT,
      "`git log` lists exactly the commit just made",
      history.result,
    );
    if (await gitOnPath()) {
      const real = await new Deno.Command("git", {
        args: ["-C", root, "log", "--format=%H %s"],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const line = new TextDecoder().decode(real.stdout).trim();
      expect(
        real.success && line === `${commitId} ${COMMIT_SUBJECT}`,
        "real git reads the same commit",
        line,
      );
    }
    log("ok  git init / add / commit / log");

    const transport = new StdioClientTransport({
      command: launcher.command,
      args: [...launcher.args, "mcp", "--root", root, "--session", "smoke"],
      env: launcher.env,
      stderr: "pipe",
    });
    let stderr = "";
    (transport.stderr as {
      on(event: "data", f: (chunk: Uint8Array | string) => void): void;
    } | null)?.on(
      "data",
      (chunk) => stderr += typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk),
    );
    const client = new Client({ name: "pterm-smoke", version: "1.0.0" });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      expect(
        tools.some((tool) => tool.name === "terminal_exec"),
        "`mcp` lists terminal_exec",
        tools,
      );
      const called = await client.callTool({
        name: "terminal_exec",
        arguments: { command: "hello" },
      });
      const envelope = called.structuredContent as Envelope | undefined;
      expect(
        envelope?.exit_code === 0 && called.isError !== true,
        "`mcp` runs hello",
        called,
      );
    } catch (error) {
      throw new Error(
        `pterm mcp: ${error instanceof Error ? error.message : error}\n${stderr}`,
      );
    } finally {
      await client.close();
    }
    log("ok  mcp tools/list, terminal_exec hello");
  } finally {
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) {
  const [command, ...args] = Deno.args;
  if (command === undefined) {
    console.error(
      "usage: deno run -A scripts/smoke.ts <pterm program> [its leading arguments…]",
    );
    Deno.exit(2);
  }
  try {
    await smoke(
      { command, args, env: Deno.env.toObject() },
      undefined,
      (line) => console.log(line),
    );
  } catch (error) {
    console.error(
      `smoke check failed: ${error instanceof Error ? error.message : error}`,
    );
    Deno.exit(1);
  }
  console.log("pterm runs: every smoke step passed");
}
