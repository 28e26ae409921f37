/** The kernel end to end, in-process: envelope, errors, help, limits, config, audit, artifacts. */

import assert from "node:assert/strict";
import { join } from "node:path";
import { readAuditRecord } from "../../../core/audit.ts";
import { TRUNCATION_MARKER } from "../../../core/truncate.ts";
import { cli, exec, execOk, makeRoot } from "../../_support/helpers.ts";
import { probeCommands } from "../../fixtures/probe_commands.ts";

const probe = { commands: probeCommands };
const HINT =
  /\n\nHint: Run `(.+?)(?: --help)?` (?:to learn the correct usage|to list the commands).* before retrying\.$/;

Deno.test("hello prints the banner and the lemonhall signature", async () => {
  await using dir = await makeRoot();
  const envelope = await execOk(dir.path, "hello");
  assert.equal(envelope.exit_code, 0);
  assert.equal(envelope.error_code, null);
  assert.equal(envelope.stderr, "");
  const lines = envelope.stdout.split("\n");
  assert.ok(lines.slice(0, 5).every((line) => line.includes("█")), envelope.stdout);
  assert.match(envelope.stdout, /-- lemonhall\n$/);
  assert.deepEqual(envelope.result, {
    ok: true,
    command: "hello",
    banner: "HELLO",
    banner_lines: 5,
    signature: "lemonhall",
    session: "default",
  });
});

Deno.test("failures carry their code, the [Error] text and the --help hint", async (t) => {
  await using dir = await makeRoot();
  const cases: [string, string, number, string][] = [
    ["helo", "UnknownCommand", 2, "help"],
    ["hello extra", "InvalidArgs", 2, "hello"],
    ["hello --loud", "InvalidArgs", 2, "hello"],
    ["hello | cat", "InvalidCommandLine", 2, "hello"],
    ["probe nope", "UnknownCommand", 2, "probe"],
    ["probe", "InvalidArgs", 2, "probe"],
    ["probe crash", "Internal", 1, "probe crash"],
  ];
  for (const [line, code, exitCode, helpFor] of cases) {
    await t.step(line, async () => {
      const envelope = await exec(dir.path, line, probe);
      assert.equal(envelope.error_code, code);
      assert.equal(envelope.exit_code, exitCode);
      assert.match(envelope.stderr, /^\[Error\] /);
      assert.equal(HINT.exec(envelope.stderr)?.[1], helpFor, envelope.stderr);
    });
  }
  await t.step("a mistyped command gets a suggestion", async () => {
    const envelope = await exec(dir.path, "helo");
    assert.match(envelope.stderr, /Did you mean hello\b/);
  });
  await t.step("a mistyped subcommand gets a suggestion", async () => {
    const envelope = await exec(dir.path, "probe slep --ms 1", probe);
    assert.match(envelope.stderr, /probe: 'slep' is not a probe command\. Did you mean sleep\?/);
  });
});

Deno.test("help and --help answer with usage and examples, exit 0", async (t) => {
  await using dir = await makeRoot();
  await t.step("help lists every command", async () => {
    const envelope = await execOk(dir.path, "help");
    assert.match(envelope.stdout, /hello\s+Print a HELLO banner/);
    assert.equal((envelope.result as { command: string }).command, "help");
  });
  for (
    const line of [
      "hello --help",
      "help hello",
      "probe --help",
      "probe sleep --help",
      "help probe sleep",
      "probe sleep -h",
    ]
  ) {
    await t.step(line, async () => {
      const envelope = await execOk(dir.path, line, probe);
      assert.match(envelope.stdout, /Examples:\n {2}\S/);
      assert.match(envelope.stdout, /Usage: |Subcommands:/);
    });
  }
});

Deno.test("stdout past its bound keeps head and tail, and the whole text becomes an artifact", async () => {
  await using dir = await makeRoot();
  await Deno.writeTextFile(
    join(dir.path, "pterm.json"),
    JSON.stringify({ limits: { stdout_bytes: 1000, stderr_bytes: 1000 } }),
  );
  const envelope = await execOk(dir.path, "probe print --bytes 50000", probe);
  assert.equal(envelope.truncated.stdout, true);
  assert.ok(new TextEncoder().encode(envelope.stdout).length <= 1000);
  assert.ok(envelope.stdout.startsWith("0123456789"));
  assert.ok(envelope.stdout.includes(TRUNCATION_MARKER));
  const artifact = envelope.artifacts.find((a) => a.path.endsWith("stdout.txt"));
  assert.ok(artifact, JSON.stringify(envelope.artifacts));
  assert.equal(artifact.path, `artifacts/${envelope.run_id}/stdout.txt`);
  assert.equal((await Deno.readTextFile(join(dir.path, artifact.path))).length, 50000);

  const err = await execOk(dir.path, "probe print --bytes 5000 --stderr", probe);
  assert.equal(err.truncated.stderr, true);
  assert.ok(err.artifacts.some((a) => a.path.endsWith("stderr.txt")));
});

Deno.test("stdin is given only to commands that read it, bounded by limits.stdin_bytes", async (t) => {
  await using dir = await makeRoot();
  await t.step("the command reads it and it is kept as an artifact", async () => {
    const envelope = await execOk(dir.path, "probe stdin", { ...probe, stdin: "line one\nline two\n" });
    assert.equal((envelope.result as { stdin: string }).stdin, "line one\nline two\n");
    const record = await readAuditRecord(dir.path, envelope.run_id);
    assert.equal(record.stdin?.path, `artifacts/${envelope.run_id}/stdin.txt`);
    assert.equal(await Deno.readTextFile(join(dir.path, record.stdin!.path)), "line one\nline two\n");
  });
  await t.step("a command that needs stdin and gets none says so", async () => {
    const envelope = await exec(dir.path, "probe stdin", probe);
    assert.equal(envelope.error_code, "InvalidArgs");
    assert.match(envelope.stderr, /reads its input from stdin/);
  });
  await t.step("too much stdin is InputTooLarge, and the command never runs", async () => {
    await Deno.writeTextFile(join(dir.path, "pterm.json"), JSON.stringify({ limits: { stdin_bytes: 10 } }));
    const envelope = await exec(dir.path, "probe stdin", { ...probe, stdin: "x".repeat(11) });
    assert.equal(envelope.error_code, "InputTooLarge");
    assert.equal(envelope.result, null);
    await Deno.remove(join(dir.path, "pterm.json"));
  });
});

Deno.test("pterm.json is validated, and a bad key is named", async (t) => {
  await using dir = await makeRoot();
  const config = join(dir.path, "pterm.json");
  for (
    const [content, pattern] of [
      ['{"limits": {"stdout_bytes": "big"}}', /`limits\.stdout_bytes`/],
      ['{"limits": {"stdout_byte": 1000}}', /unknown key `limits\.stdout_byte`/],
      ['{"limit": {}}', /unknown key `limit`/],
      ['{"limits": {"timeout_ms_default": 10, "timeout_ms_max": 5}}', /timeout_ms_default/],
      ["{not json", /not valid JSON/],
    ] as const
  ) {
    await t.step(content, async () => {
      await Deno.writeTextFile(config, content);
      const envelope = await exec(dir.path, "hello");
      assert.equal(envelope.error_code, "InvalidConfig");
      assert.match(envelope.stderr, pattern);
    });
  }
  await t.step("a command's own section is checked by its schema", async () => {
    await Deno.writeTextFile(config, '{"probe": {"hots": "x"}}');
    const envelope = await exec(dir.path, "probe env --name HOME", probe);
    assert.equal(envelope.error_code, "InvalidConfig");
    assert.match(envelope.stderr, /unknown key `probe\.hots`/);
  });
  await t.step("a valid file is used", async () => {
    await Deno.writeTextFile(config, '{"$schema": "x", "limits": {"timeout_ms_default": 100}}');
    const envelope = await exec(dir.path, "probe sleep --ms 5000", probe);
    assert.equal(envelope.error_code, "Timeout");
  });
});

Deno.test("every call leaves one complete audit record", async () => {
  await using dir = await makeRoot();
  const ok = await execOk(dir.path, "hello", { session: "s1" });
  const bad = await exec(dir.path, "hello --nope", { session: "s1" });
  const okRecord = await readAuditRecord(dir.path, ok.run_id);
  assert.equal(okRecord.state, "finished");
  assert.equal(okRecord.session, "s1");
  assert.equal(okRecord.command, "hello");
  assert.deepEqual(okRecord.argv, ["hello"]);
  assert.deepEqual(okRecord.parsed, { path: ["hello"], flags: {}, positionals: {} });
  assert.equal(okRecord.exit_code, 0);
  assert.equal(okRecord.error_code, null);
  assert.equal(typeof okRecord.duration_ms, "number");
  assert.deepEqual(okRecord.envelope, ok);
  const badRecord = await readAuditRecord(dir.path, bad.run_id);
  assert.equal(badRecord.error_code, "InvalidArgs");
  assert.match(badRecord.message ?? "", /unknown flag --nope/);
});

Deno.test("path-typed flags are confined before any command code runs", async (t) => {
  await using dir = await makeRoot();
  for (
    const [path, code] of [
      ["../escape.txt", "PathEscape"],
      ["/tmp/escape.txt", "PathEscape"],
      ["skills/irc-cli/secrets/.env", "SecretPathDenied"],
      ["audit/forged.json", "ReadOnlyPath"],
      ["a\\b", "InvalidPath"],
    ] as const
  ) {
    await t.step(`${path} → ${code}`, async () => {
      const envelope = await exec(dir.path, `probe touch --path '${path}'`, probe);
      assert.equal(envelope.error_code, code);
      assert.match(envelope.stderr, /--path/);
    });
  }
  const entries = [];
  for await (const entry of Deno.readDir(dir.path)) entries.push(entry.name);
  assert.deepEqual(entries.sort(), ["audit"], "nothing was written by a refused call");
  await t.step("a good path is created", async () => {
    const envelope = await execOk(dir.path, "probe touch --path notes/today.txt", probe);
    assert.equal((envelope.result as { path: string }).path, "notes/today.txt");
    assert.equal(await Deno.readTextFile(join(dir.path, "notes/today.txt")), "touched");
  });
});

Deno.test("a validated pterm.json is remembered, and any change validates it again", async (t) => {
  await using dir = await makeRoot();
  const config = join(dir.path, "pterm.json");
  const cache = join(dir.path, "cache/config.json");
  await Deno.writeTextFile(config, JSON.stringify({ limits: { stdout_bytes: 1000 } }));
  await t.step("the first call validates and remembers it", async () => {
    await execOk(dir.path, "hello");
    const entry = JSON.parse(await Deno.readTextFile(cache));
    assert.equal(entry.config.limits.stdout_bytes, 1000);
  });
  await t.step("an edit is seen at once, and a bad edit is refused (and not remembered)", async () => {
    await Deno.writeTextFile(config, JSON.stringify({ limits: { stdout_bytes: "big" } }));
    assert.equal((await exec(dir.path, "hello")).error_code, "InvalidConfig");
    assert.equal(JSON.parse(await Deno.readTextFile(cache)).config.limits.stdout_bytes, 1000);
  });
  await t.step("a remembered configuration of another pterm build is not used", async () => {
    const text = JSON.stringify({ limits: { stdout_bytes: 2000 } });
    await Deno.writeTextFile(config, text);
    const forged = { source: text, version: "another build", commands: "x", config: { limits: {}, sections: {} } };
    await Deno.writeTextFile(cache, JSON.stringify(forged));
    await execOk(dir.path, "hello");
    const entry = JSON.parse(await Deno.readTextFile(cache));
    assert.equal(entry.config.limits.stdout_bytes, 2000);
    assert.notEqual(entry.version, "another build");
  });
  await t.step("commands cannot write pterm's cache", async () => {
    const envelope = await exec(dir.path, "probe touch --path cache/config.json", probe);
    assert.equal(envelope.error_code, "ReadOnlyPath");
  });
});

/**
 * A library that writes to the console (PDF.js warns through console.warn) wrote past the envelope:
 * onto the process's stdout, which `pterm mcp` speaks its protocol on. The worker's console now
 * writes to the job's stderr. Checked in-process and in a real process, whose stdout must be the
 * envelope alone and whose stderr must be empty.
 */
Deno.test("what a command's code prints on the console lands in the envelope's stderr, nowhere else", async () => {
  await using dir = await makeRoot();
  const envelope = await execOk(dir.path, "probe chatter", probe);
  for (const line of ["chatter on console.log", "chatter on console.info { n: 1 }", "chatter on console.warn"]) {
    assert.ok(envelope.stderr.includes(line), envelope.stderr);
  }
  assert.equal(envelope.stdout, "");

  const run = await cli(["exec", "--root", dir.path, "probe chatter"], {
    entry: new URL("../../fixtures/probe_main.ts", import.meta.url).pathname,
  });
  assert.equal(run.stderr, "");
  assert.ok(run.envelope !== null, run.stdout);
  assert.match(run.envelope.stderr, /chatter on console\.error/);
});
