/**
 * `pterm mcp` driven by real MCP clients (the official SDK's, both generations) over stdio, as a
 * host drives it: discovery, calls and their audit records, failures, artifacts, progress,
 * cancellation, concurrency, bad input, and both protocol eras. Real git is the oracle of the git
 * workflow.
 */

import assert from "node:assert/strict";
import { makeRoot } from "../../_support/helpers.ts";
import { assertFsck, git } from "../../commands/git/oracle.ts";
import { connectLegacy, connectModern, MODERN_REVISION } from "./client.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

interface EnvelopeShape {
  run_id: string;
  exit_code: number;
  stdout: string;
  stderr: string;
  result: Record<string, unknown> | null;
  artifacts: { path: string; mime: string; description: string }[];
  error_code: string | null;
  truncated: { stdout: boolean; stderr: boolean };
}

type Connected = Awaited<ReturnType<typeof connectModern>>;

async function call(client: Connected["client"], command: string, extra: Record<string, unknown> = {}) {
  const result = await client.callTool({ name: "terminal_exec", arguments: { command, ...extra } });
  return {
    result,
    envelope: result.structuredContent as unknown as EnvelopeShape,
    text: (result.content as { type: string; text?: string }[])[0].text ?? "",
  };
}

async function record(client: Connected["client"], runId: string): Promise<Record<string, unknown>> {
  const read = await client.readResource({ uri: `pterm://runs/${runId}` });
  return JSON.parse((read.contents[0] as { text: string }).text);
}

async function auditFiles(root: string): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const day of Deno.readDir(`${root}/audit`)) {
    for await (const file of Deno.readDir(`${root}/audit/${day.name}`)) {
      if (file.name.endsWith(".json")) {
        out.push(JSON.parse(await Deno.readTextFile(`${root}/audit/${day.name}/${file.name}`)));
      }
    }
  }
  return out;
}

Deno.test(
  "pterm mcp (2026-07-28 client): discovery, calls, failures, artifacts, progress, cancellation",
  options,
  async (t) => {
    await using dir = await makeRoot();
    const root = dir.path;
    const server = await connectModern(root, "mcp-modern");
    const client = server.client;
    try {
      await t.step("the modern era was negotiated", () => {
        assert.equal(client.getNegotiatedProtocolVersion(), MODERN_REVISION);
        assert.equal(client.getProtocolEra(), "modern");
      });

      await t.step(
        "tools: terminal_exec with pterm schema's input, the envelope's outputSchema, truthful annotations",
        async () => {
          const { tools } = await client.listTools();
          assert.deepEqual(tools.map((tool) => tool.name), ["terminal_exec"]);
          const tool = tools[0];
          const schema = await new Deno.Command(Deno.execPath(), {
            args: ["task", "-q", "pterm", "schema", "--format", "anthropic"],
            cwd: new URL("../../../", import.meta.url).pathname,
            stdout: "piped",
            stderr: "null",
          }).output();
          const { $schema: _draft, ...input } = tool.inputSchema as Record<string, unknown>;
          assert.deepEqual(
            input,
            JSON.parse(new TextDecoder().decode(schema.stdout)).input_schema,
            "pterm schema's input",
          );
          const output = tool.outputSchema as { properties: Record<string, unknown>; required: string[] };
          assert.ok(output.required.includes("run_id") && output.required.includes("error_code"));
          assert.equal(tool.annotations?.destructiveHint, true);
          assert.equal(tool.annotations?.readOnlyHint, false);
          assert.equal(tool.annotations?.openWorldHint, false, "no IRC server configured: nothing leaves the machine");
          assert.match(tool.description ?? "", /## Zone A: Ready to use/);
          assert.match(tool.description ?? "", /## Zone B: Help first/);
        },
      );

      await t.step("resources: skills, the runs list; a skill reads as its SKILL.md", async () => {
        const { resources } = await client.listResources();
        const uris = resources.map((r) => r.uri);
        for (const skill of ["hello-world", "git", "doc", "patch", "irc-cli"]) {
          assert.ok(uris.includes(`pterm://skills/${skill}`), `${skill} in ${uris}`);
        }
        assert.ok(uris.includes("pterm://runs"));
        const { resourceTemplates } = await client.listResourceTemplates();
        const templates = resourceTemplates.map((r) => r.uriTemplate);
        assert.ok(
          templates.includes("pterm://runs/{run_id}") && templates.includes("pterm://artifacts/{run_id}/{name}"),
        );
        const skill = await client.readResource({ uri: "pterm://skills/git" });
        const text = (skill.contents[0] as { text: string }).text;
        assert.equal(text, await Deno.readTextFile(new URL("../../../skills/git/SKILL.md", import.meta.url)));
      });

      await t.step("prompts: the usage rules, exactly what `pterm prompt` prints", async () => {
        const { prompts } = await client.listPrompts();
        assert.deepEqual(prompts.map((p) => p.name), ["terminal_exec_rules"]);
        const prompt = await client.getPrompt({ name: "terminal_exec_rules" });
        const text = (prompt.messages[0].content as { text: string }).text;
        const cli = await new Deno.Command(Deno.execPath(), {
          args: ["task", "-q", "pterm", "prompt"],
          cwd: new URL("../../../", import.meta.url).pathname,
          stdout: "piped",
          stderr: "null",
        }).output();
        assert.equal(text, new TextDecoder().decode(cli.stdout));
      });

      await t.step(
        "hello: the envelope as structuredContent and as text; its audit record says origin mcp",
        async () => {
          const { result, envelope, text } = await call(client, "hello");
          assert.equal(result.isError, false);
          assert.equal(envelope.exit_code, 0);
          assert.match(envelope.stdout, /lemonhall/);
          assert.match(text, /lemonhall/);
          assert.match(text, new RegExp(`\\[exit 0 · \\d+ ms · run ${envelope.run_id}\\]`));
          const audit = await record(client, envelope.run_id);
          assert.equal(audit.origin, "mcp");
          assert.equal(audit.session, "mcp-modern");
          assert.equal(audit.state, "finished");
          assert.deepEqual(audit.envelope, envelope);
          const list = JSON.parse(
            ((await client.readResource({ uri: "pterm://runs" })).contents[0] as { text: string }).text,
          ) as { run_id: string; origin: string }[];
          assert.equal(list[0].run_id, envelope.run_id);
          assert.equal(list[0].origin, "mcp");
        },
      );

      await t.step("a failing call: isError, the [Error] … Hint: text, its code", async () => {
        const { result, envelope, text } = await call(client, "git comit --repo proj");
        assert.equal(result.isError, true);
        assert.equal(envelope.error_code, "UnknownCommand");
        assert.equal(envelope.exit_code, 2);
        assert.match(text, /^\[Error\] git: 'comit' is not a git command/m);
        assert.match(text, /Hint: Run `git --help`/);
        const escape = await call(client, "doc info --in ../etc/passwd");
        assert.equal(escape.envelope.error_code, "PathEscape");
        assert.equal(escape.result.isError, true);
      });

      await t.step("a git workflow; real git agrees and fsck is clean", async () => {
        assert.equal((await call(client, "git init --dir proj")).envelope.exit_code, 0);
        await Deno.writeTextFile(`${root}/proj/README.md`, "# proj\n");
        await Deno.mkdir(`${root}/proj/src`);
        await Deno.writeTextFile(`${root}/proj/src/main.ts`, "console.log(1);\n");
        const status = await call(client, "git status --repo proj");
        assert.equal(status.envelope.exit_code, 0, status.text);
        assert.equal((await call(client, "git add --repo proj --all")).envelope.exit_code, 0);
        const commit = await call(client, 'git commit --repo proj --message "first commit"');
        assert.equal(commit.envelope.exit_code, 0, commit.text);
        assert.equal((await git(`${root}/proj`, "log", "--format=%s")).trim(), "first commit");
        assert.equal(
          (await git(`${root}/proj`, "ls-files")).trim().split("\n").sort().join(","),
          "README.md,src/main.ts",
        );
        assert.equal((await git(`${root}/proj`, "status", "--porcelain")).trim(), "");
        await assertFsck(`${root}/proj`);
      });

      await t.step("a truncated stdout: its full text is a resource", async () => {
        await Deno.writeTextFile(`${root}/pterm.json`, JSON.stringify({ limits: { stdout_bytes: 256 } }));
        try {
          const { envelope, result } = await call(client, "hello");
          assert.equal(envelope.truncated.stdout, true);
          assert.match(envelope.stdout, /\[\.\.\.TRUNCATED\.\.\.\]/);
          const artifact = envelope.artifacts.find((a) => a.path.endsWith("/stdout.txt"));
          assert.ok(artifact, JSON.stringify(envelope.artifacts));
          const link = (result.content as { type: string; uri?: string }[]).find((c) => c.type === "resource_link");
          assert.equal(link?.uri, `pterm://${artifact.path}`);
          const read = await client.readResource({ uri: link!.uri! });
          const full = (read.contents[0] as { text: string }).text;
          assert.equal(full, await Deno.readTextFile(`${root}/${artifact.path}`));
          assert.ok(new TextEncoder().encode(full).length > 256 && full.endsWith("-- lemonhall\n"), full);
          await assert.rejects(client.readResource({ uri: `pterm://artifacts/${envelope.run_id}/..%2Fpterm.json` }));
        } finally {
          await Deno.remove(`${root}/pterm.json`);
        }
      });

      // A repository with many files: git add of all of them is long enough to watch and to cancel.
      await git(root, "init", "-q", "big");
      for (let d = 0; d < 40; d++) {
        await Deno.mkdir(`${root}/big/d${d}`);
        for (let f = 0; f < 100; f++) await Deno.writeTextFile(`${root}/big/d${d}/f${f}.txt`, `file ${d}/${f}\n`);
      }

      await t.step("progress: a long git add sends increasing progress notifications with a total", async () => {
        const reports: { progress: number; total?: number }[] = [];
        const result = await client.callTool(
          { name: "terminal_exec", arguments: { command: "git add --repo big --all" } },
          { onprogress: (p) => reports.push(p), timeout: 120_000 },
        );
        const envelope = result.structuredContent as unknown as EnvelopeShape;
        assert.equal(envelope.exit_code, 0, envelope.stderr);
        assert.ok(reports.length >= 1, "at least one progress notification");
        for (let i = 1; i < reports.length; i++) assert.ok(reports[i].progress > reports[i - 1].progress);
        assert.ok(reports.every((r) => r.total === 4000));
        assert.equal(reports.at(-1)!.progress, 4000, "the last report says all files are staged");
        // Real git sees the 4,000 staged files.
        assert.equal((await git(`${root}/big`, "ls-files")).trim().split("\n").length, 4000);
        await git(`${root}/big`, "reset", "-q");
      });

      await t.step(
        "cancellation: the busy call stops, its record says Cancelled (origin mcp), the index is untouched",
        async () => {
          const before = await auditFiles(root);
          const abort = new AbortController();
          const calling = client.callTool(
            { name: "terminal_exec", arguments: { command: "git add --repo big --all" } },
            { signal: abort.signal, onprogress: () => abort.abort(), timeout: 120_000 },
          );
          await assert.rejects(calling);
          // The server writes the record when the worker has stopped.
          let cancelled: Record<string, unknown> | undefined;
          for (let i = 0; i < 100 && !cancelled; i++) {
            const after = await auditFiles(root);
            cancelled = after.find((r) =>
              !before.some((b) => b.run_id === r.run_id) && r.state === "finished" && r.error_code === "Cancelled"
            );
            if (!cancelled) await new Promise((r) => setTimeout(r, 100));
          }
          assert.ok(cancelled, "a Cancelled record");
          assert.equal(cancelled.origin, "mcp");
          assert.equal(cancelled.exit_code, 130);
          // All-or-nothing: the index lock is gone and nothing was staged.
          assert.equal((await git(`${root}/big`, "ls-files")).trim(), "");
          await assertFsck(`${root}/big`);
          // The server goes on.
          assert.equal((await call(client, "hello")).envelope.exit_code, 0);
        },
      );

      await t.step("a timeout stops the worker, the next call runs", async () => {
        const { envelope, result } = await call(client, "git add --repo big --all", { timeout_ms: 5 });
        assert.equal(envelope.error_code, "Timeout");
        assert.equal(result.isError, true);
        assert.equal((await call(client, "hello")).envelope.exit_code, 0);
      });

      await t.step("20 concurrent calls: 20 answers, 20 distinct runs, 20 records", async () => {
        const before = (await auditFiles(root)).length;
        const calls = await Promise.all(
          Array.from({ length: 20 }, (_, i) => call(client, i % 2 ? "hello" : "git status --repo proj")),
        );
        assert.ok(calls.every((c) => c.envelope.exit_code === 0), calls.map((c) => c.text).join("\n"));
        assert.equal(new Set(calls.map((c) => c.envelope.run_id)).size, 20);
        assert.equal((await auditFiles(root)).length, before + 20);
      });

      await t.step("a huge stdin is refused with InputTooLarge; the server goes on", async () => {
        const { envelope } = await call(client, "hello", { stdin: "x".repeat(12 * 1024 * 1024) });
        assert.equal(envelope.error_code, "InputTooLarge");
        assert.equal((await call(client, "hello")).envelope.exit_code, 0);
      });

      await t.step("an unknown tool and bad arguments are errors, not crashes", async () => {
        const unknown = await client.callTool({ name: "no_such_tool", arguments: {} }).then(
          (r) => r.isError === true,
          () => true,
        );
        assert.ok(unknown);
        const bad = await client.callTool({ name: "terminal_exec", arguments: { cmd: "hello" } }).then(
          (r) => r.isError === true,
          () => true,
        );
        assert.ok(bad);
        assert.equal((await call(client, "hello")).envelope.exit_code, 0);
      });
    } finally {
      await client.close();
    }
  },
);

Deno.test(
  "pterm mcp (2025 client, SDK 1.x): the initialize handshake, a call, a resource, a prompt",
  options,
  async () => {
    await using dir = await makeRoot();
    const { client } = await connectLegacy(dir.path, "mcp-legacy");
    try {
      const { tools } = await client.listTools();
      assert.equal(tools[0].name, "terminal_exec");
      const result = await client.callTool({ name: "terminal_exec", arguments: { command: "hello" } });
      const envelope = result.structuredContent as unknown as EnvelopeShape;
      assert.equal(envelope.exit_code, 0);
      const failed = await client.callTool({ name: "terminal_exec", arguments: { command: "nope" } });
      assert.equal(failed.isError, true);
      const read = await client.readResource({ uri: `pterm://runs/${envelope.run_id}` });
      assert.equal(JSON.parse((read.contents[0] as { text: string }).text).origin, "mcp");
      const prompt = await client.getPrompt({ name: "terminal_exec_rules" });
      assert.match((prompt.messages[0].content as { text: string }).text, /Zone A/);

      // Progress and cancellation in this era too.
      await git(dir.path, "init", "-q", "big");
      for (let f = 0; f < 2000; f++) await Deno.writeTextFile(`${dir.path}/big/f${f}.txt`, `file ${f}\n`);
      const abort = new AbortController();
      const progressed: number[] = [];
      await assert.rejects(client.callTool(
        { name: "terminal_exec", arguments: { command: "git add --repo big --all" } },
        undefined,
        {
          signal: abort.signal,
          onprogress: (p: { progress: number }) => {
            progressed.push(p.progress);
            abort.abort();
          },
        },
      ));
      assert.ok(progressed.length >= 1);
      let cancelled: Record<string, unknown> | undefined;
      for (let i = 0; i < 100 && !cancelled; i++) {
        cancelled = (await auditFiles(dir.path)).find((r) => r.error_code === "Cancelled" && r.state === "finished");
        if (!cancelled) await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(cancelled?.origin, "mcp");
      assert.equal((await git(`${dir.path}/big`, "ls-files")).trim(), "", "nothing was staged");
    } finally {
      await client.close();
    }
  },
);

Deno.test("pterm mcp: the session is the host's when it passes one, else a fresh one", options, async () => {
  await using dir = await makeRoot();
  const sessionOf = async (env: Record<string, string>) => {
    const { client } = await connectLegacy(dir.path, null, env);
    try {
      const result = await client.callTool({ name: "terminal_exec", arguments: { command: "hello" } });
      const runId = (result.structuredContent as unknown as EnvelopeShape).run_id;
      return (await record(client as unknown as Connected["client"], runId)).session as string;
    } finally {
      await client.close();
    }
  };
  assert.equal(await sessionOf({ CLAUDE_CODE_SESSION_ID: "0b5f7c2e-claude-session" }), "0b5f7c2e-claude-session");
  assert.equal(await sessionOf({ PTERM_SESSION: "from-env" }), "from-env");
  const fresh = [await sessionOf({}), await sessionOf({})];
  assert.match(fresh[0], /^mcp-\d{8}T\d{9}Z-[0-9a-f]{8}$/);
  assert.notEqual(fresh[0], fresh[1]);
});

/** Raw lines on the server's stdin: what no SDK client would send. */
Deno.test(
  "pterm mcp: malformed lines are answered, the connection stays up; stdout holds only JSON-RPC",
  options,
  async () => {
    await using dir = await makeRoot();
    const { ptermArgs, baseEnv } = await import("../../_support/helpers.ts");
    const child = new Deno.Command(Deno.execPath(), {
      args: ptermArgs(["mcp", "--root", dir.path, "--session", "raw"]),
      clearEnv: true,
      env: { ...baseEnv(), NO_COLOR: "1" },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    const lines = [
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
      }),
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
      "this is not json",
      JSON.stringify({ id: 5, hello: "no jsonrpc field" }),
      "[1,2",
      JSON.stringify({ jsonrpc: "2.0", id: 6, method: "no/such/method" }),
      JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "terminal_exec", arguments: { command: "hello" } },
      }),
    ];
    await writer.write(new TextEncoder().encode(lines.join("\n") + "\n"));
    const output = await (async () => {
      let text = "";
      const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      while (!/"id":7/.test(text)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += value;
      }
      await writer.close(); // stdin EOF: the session ends
      while (true) {
        const { value, done } = await reader.read();
        if (done) break;
        text += value;
      }
      return text;
    })();
    const status = await child.status;
    const stderr = new TextDecoder().decode(await new Response(child.stderr).arrayBuffer());
    assert.equal(status.code, 0, stderr);
    const messages = output.trim().split("\n").map((line) => JSON.parse(line));
    assert.ok(messages.every((m) => m.jsonrpc === "2.0"), output);
    const byId = (id: unknown) => messages.filter((m) => m.id === id);
    assert.equal(byId(null).length, 2, "two parse errors");
    assert.ok(byId(null).every((m) => m.error.code === -32700));
    assert.equal(byId(5)[0].error.code, -32600);
    assert.equal(byId(6)[0].error.code, -32601);
    assert.equal(byId(7)[0].result.structuredContent.exit_code, 0);
    assert.match(stderr, /stopped/);
  },
);
