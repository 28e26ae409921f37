/** The real `pterm` process, as a user or an agent host runs it. */

import assert from "node:assert/strict";
import { join } from "node:path";
import { z } from "zod";
import { cli, makeRoot } from "../../_support/helpers.ts";
import { VERSION } from "../../../version.ts";

Deno.test("pterm exec prints one JSON envelope and exits with its exit_code", async (t) => {
  await using dir = await makeRoot();
  await t.step("hello", async () => {
    const run = await cli(["exec", "--root", dir.path, "hello"]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout.trim().split("\n").length, 1, "one line of JSON");
    assert.ok(run.envelope);
    assert.match(run.envelope.stdout, /█/);
    assert.match(run.envelope.stdout, /lemonhall/);
  });
  await t.step("usage error exits 2", async () => {
    const run = await cli(["exec", "--root", dir.path, "hello --nope"]);
    assert.equal(run.code, 2);
    assert.equal(run.envelope?.error_code, "InvalidArgs");
  });
  await t.step("unknown command exits 2 with a suggestion", async () => {
    const run = await cli(["exec", "--root", dir.path, "helo"]);
    assert.equal(run.code, 2);
    assert.equal(run.envelope?.error_code, "UnknownCommand");
    assert.match(run.envelope?.stderr ?? "", /Did you mean hello/);
  });
  await t.step("--text renders for people", async () => {
    const run = await cli(["exec", "--text", "--root", dir.path, "hello"]);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /lemonhall\n\[exit 0 · \d+ ms · run \d{8}T\d{9}Z-[0-9a-f]{8}\]\n$/);
  });
  await t.step("PTERM_ROOT and PTERM_SESSION are honoured", async () => {
    const run = await cli(["exec", "hello"], { env: { PTERM_ROOT: dir.path, PTERM_SESSION: "agent-7" } });
    assert.equal((run.envelope?.result as { session: string }).session, "agent-7");
  });
  await t.step("the default root is ./.agents, created if missing", async () => {
    await using cwd = await makeRoot("pterm-cwd-");
    const run = await cli(["exec", "hello"], { cwd: cwd.path });
    assert.equal(run.code, 0, run.stderr);
    assert.ok((await Deno.stat(join(cwd.path, ".agents/audit"))).isDirectory);
  });
  await t.step("a bad session id is refused", async () => {
    const run = await cli(["exec", "--root", dir.path, "--session", "../x", "hello"]);
    assert.equal(run.code, 2);
    assert.equal(run.envelope?.error_code, "InvalidArgs");
  });
  await t.step("a missing --stdin-file is NotFound, exit 1 like any failed command", async () => {
    const run = await cli(["exec", "--root", dir.path, "--stdin-file", `${dir.path}/no-such-file.txt`, "hello"]);
    assert.equal(run.code, 1);
    assert.equal(run.envelope?.error_code, "NotFound");
    assert.match(run.envelope?.stderr ?? "", /no-such-file\.txt[\s\S]*Hint: Run `pterm exec --help`/);
  });
  await t.step("a missing command line is a usage error with the hint", async () => {
    const run = await cli(["exec", "--root", dir.path]);
    assert.equal(run.code, 2);
    assert.match(run.envelope?.stderr ?? "", /Hint: Run `pterm exec --help`/);
  });
  await t.step("stdin left open is never read by a command that does not need it", async () => {
    const command = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--config",
        new URL("../../../deno.json", import.meta.url).pathname,
        new URL("../../../main.ts", import.meta.url).pathname,
        "exec",
        "--root",
        dir.path,
        "hello",
      ],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    });
    const child = command.spawn();
    const output = await child.output(); // stdin is never closed by us
    assert.equal(output.code, 0);
    await child.stdin.close().catch(() => {});
  });
});

Deno.test("pterm exec --request - reads a terminal_exec tool call", async (t) => {
  await using dir = await makeRoot();
  await t.step("a valid call", async () => {
    const run = await cli(["exec", "--root", dir.path, "--request", "-"], {
      stdin: JSON.stringify({ command: "hello", timeout_ms: 5000 }),
    });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.equal(run.envelope?.result?.command, "hello");
  });
  await t.step("stdin in the call is recorded as an artifact", async () => {
    const run = await cli(["exec", "--root", dir.path, "--request", "-"], {
      stdin: JSON.stringify({ command: "hello", stdin: "some input" }),
    });
    const stdinArtifact = run.envelope?.artifacts.find((a) => a.path.endsWith("stdin.txt"));
    assert.ok(stdinArtifact);
    assert.equal(await Deno.readTextFile(join(dir.path, stdinArtifact.path)), "some input");
  });
  for (
    const [name, body, pattern] of [
      ["not JSON", "{", /not valid JSON/],
      ["not an object", "[1]", /must be a JSON object/],
      ["unknown key", '{"command":"hello","cmd":"x"}', /unknown key `cmd`/],
      ["empty command", '{"command":""}', /non-empty string/],
      ["bad timeout", '{"command":"hello","timeout_ms":-1}', /positive whole number/],
    ] as const
  ) {
    await t.step(name, async () => {
      const run = await cli(["exec", "--root", dir.path, "--request", "-"], { stdin: body });
      assert.equal(run.code, 2);
      assert.equal(run.envelope?.error_code, "InvalidArgs");
      assert.match(run.envelope?.stderr ?? "", pattern);
    });
  }
});

Deno.test("50 parallel execs leave 50 complete, distinct audit records", async () => {
  await using dir = await makeRoot();
  const runs = await Promise.all(
    Array.from({ length: 50 }, (_, i) => cli(["exec", "--root", dir.path, "--session", `s${i % 5}`, "hello"])),
  );
  assert.ok(runs.every((r) => r.code === 0), runs.map((r) => r.stderr).join("\n"));
  const ids = new Set(runs.map((r) => r.envelope!.run_id));
  assert.equal(ids.size, 50);
  const list = await cli(["runs", "list", "--root", dir.path, "--limit", "100"]);
  const records = JSON.parse(list.stdout) as { run_id: string; state: string; exit_code: number }[];
  assert.equal(records.length, 50);
  assert.deepEqual(new Set(records.map((r) => r.run_id)), ids);
  assert.ok(records.every((r) => r.state === "finished" && r.exit_code === 0));
  const leftovers: string[] = [];
  for await (const day of Deno.readDir(join(dir.path, "audit"))) {
    for await (const file of Deno.readDir(join(dir.path, "audit", day.name))) {
      if (!file.name.endsWith(".json") || file.name.startsWith(".")) leftovers.push(file.name);
      else JSON.parse(await Deno.readTextFile(join(dir.path, "audit", day.name, file.name)));
    }
  }
  assert.deepEqual(leftovers, [], "no temporary files are left behind");
  const sessions = await cli(["runs", "list", "--root", dir.path, "--session", "s3"]);
  assert.equal(JSON.parse(sessions.stdout).length, 10);
});

Deno.test("kill -9 mid-run leaves a whole record, reported as running then interrupted", async () => {
  await using dir = await makeRoot();
  const entry = new URL("../../fixtures/probe_main.ts", import.meta.url).pathname;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--config",
      new URL("../../../deno.json", import.meta.url).pathname,
      entry,
      "exec",
      "--root",
      dir.path,
      "--timeout-ms",
      "1000",
      "probe sleep --ms 60000",
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // Wait until the run's start record exists, then kill the process without warning.
  let recordPath = "";
  for (let i = 0; i < 200 && !recordPath; i++) {
    await new Promise((r) => setTimeout(r, 25));
    try {
      for await (const day of Deno.readDir(join(dir.path, "audit"))) {
        for await (const file of Deno.readDir(join(dir.path, "audit", day.name))) {
          if (file.name.endsWith(".json") && !file.name.startsWith(".")) {
            recordPath = join(dir.path, "audit", day.name, file.name);
          }
        }
      }
    } catch { /* not yet */ }
  }
  assert.ok(recordPath, "the start record appeared");
  child.kill("SIGKILL");
  const status = await child.status;
  assert.equal(status.signal, "SIGKILL");
  await child.stdout.cancel();
  await child.stderr.cancel();

  const record = JSON.parse(await Deno.readTextFile(recordPath));
  assert.equal(record.state, "running");
  assert.equal(record.command, "probe sleep --ms 60000");
  assert.equal(record.exit_code, null);
  const listed = await cli(["runs", "list", "--root", dir.path]);
  assert.equal(JSON.parse(listed.stdout)[0].state, "running");

  // Pretend the run started long ago: past its timeout and the grace period it is "interrupted".
  record.timestamp = new Date(Date.now() - 3_600_000).toISOString();
  await Deno.writeTextFile(recordPath, JSON.stringify(record));
  const later = await cli(["runs", "list", "--root", dir.path, "--failed"]);
  assert.equal(JSON.parse(later.stdout)[0].state, "interrupted");
});

Deno.test("runs show and runs replay", async () => {
  await using dir = await makeRoot();
  const first = await cli(["exec", "--root", dir.path, "--session", "a", "--request", "-"], {
    stdin: JSON.stringify({ command: "hello", stdin: "ignored input" }),
  });
  const id = first.envelope!.run_id;
  const shown = await cli(["runs", "show", id, "--root", dir.path]);
  assert.equal(shown.code, 0, shown.stderr);
  const record = JSON.parse(shown.stdout);
  assert.equal(record.run_id, id);
  assert.equal(record.command, "hello");
  assert.deepEqual(record.envelope, first.envelope);

  const replay = await cli(["runs", "replay", id, "--root", dir.path]);
  assert.equal(replay.code, 0, replay.stderr);
  assert.notEqual(replay.envelope!.run_id, id);
  assert.equal(replay.envelope!.stdout, first.envelope!.stdout);
  const replayRecord = JSON.parse((await cli(["runs", "show", replay.envelope!.run_id, "--root", dir.path])).stdout);
  assert.equal(replayRecord.replay_of, id);
  assert.equal(replayRecord.session, "a");
  assert.equal(await Deno.readTextFile(join(dir.path, replayRecord.stdin.path)), "ignored input");

  const text = await cli(["runs", "show", id, "--root", dir.path, "--text"]);
  assert.match(text.stdout, /^run {7}\S+/);
  const missing = await cli(["runs", "show", "20200101T000000000Z-00000000", "--root", dir.path]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /NotFound|no run/);
  const failedOnly = await cli(["runs", "list", "--root", dir.path, "--failed"]);
  assert.deepEqual(JSON.parse(failedOnly.stdout), []);
  const since = await cli(["runs", "list", "--root", dir.path, "--since", "1h", "--text"]);
  assert.match(since.stdout, /^RUN\s+SESSION\s+EXIT/);
});

Deno.test("schema, prompt, skills, --version and --help", async (t) => {
  await t.step("schema is an OpenAI function definition with the three inputs", async () => {
    const run = await cli(["schema"]);
    const tool = JSON.parse(run.stdout);
    assert.equal(tool.type, "function");
    assert.equal(tool.function.name, "terminal_exec");
    assert.deepEqual(Object.keys(tool.function.parameters.properties), ["command", "stdin", "timeout_ms"]);
    assert.deepEqual(tool.function.parameters.required, ["command"]);
    assert.match(tool.function.description, /hello/);
  });
  await t.step("schema --format anthropic, --envelope, --config, --result", async () => {
    assert.equal(JSON.parse((await cli(["schema", "--format", "anthropic"])).stdout).name, "terminal_exec");
    const envelope = JSON.parse((await cli(["schema", "--envelope"])).stdout);
    assert.ok(envelope.properties.run_id && envelope.properties.truncated);
    const config = JSON.parse((await cli(["schema", "--config"])).stdout);
    assert.ok(config.properties.limits);
    const result = JSON.parse((await cli(["schema", "--result", "hello"])).stdout);
    assert.equal(result.properties.signature.const, "lemonhall");
  });
  await t.step("prompt has Zone A and Zone B generated from the registry", async () => {
    const run = await cli(["prompt"]);
    assert.match(run.stdout, /## Zone A: Ready to use[\s\S]*`hello`[\s\S]*## Zone B: Help first/);
    assert.match(run.stdout, /--help/);
  });
  await t.step("skills list and show", async () => {
    const list = JSON.parse((await cli(["skills", "list"])).stdout);
    assert.ok(list.some((s: { name: string }) => s.name === "hello-world"));
    const shown = await cli(["skills", "show", "hello-world"]);
    assert.match(shown.stdout, /^---\nname: hello-world/);
    const missing = await cli(["skills", "show", "nope"]);
    assert.equal(missing.code, 1);
  });
  await t.step("--version and --help", async () => {
    assert.equal((await cli(["--version"])).stdout.trim(), VERSION);
    const help = await cli(["--help"]);
    assert.equal(help.code, 0);
    for (const name of ["exec", "runs", "skills", "schema", "prompt"]) {
      assert.match(help.stdout, new RegExp(`\\b${name}\\b`));
    }
    const execHelp = await cli(["exec", "--help"]);
    assert.equal(execHelp.code, 0);
    assert.match(execHelp.stdout, /--request/);
    assert.match(execHelp.stdout, /Examples:/);
    const unknown = await cli(["nope"]);
    assert.equal(unknown.code, 2);
  });
  await t.step("the envelope the process prints matches the published schema", async () => {
    await using dir = await makeRoot();
    const schema = JSON.parse((await cli(["schema", "--envelope"])).stdout);
    const run = await cli(["exec", "--root", dir.path, "hello"]);
    const envelope = JSON.parse(run.stdout);
    assert.deepEqual(Object.keys(envelope).sort(), Object.keys(schema.properties).sort());
    assert.ok(z.object({}).loose().safeParse(envelope).success);
  });
});

Deno.test("runs show --text prints the run's stdout and stderr; show and replay take a unique id ending", async () => {
  await using dir = await makeRoot();
  const ok = await cli(["exec", "--root", dir.path, "hello"]);
  const failed = await cli(["exec", "--root", dir.path, "git log"]);
  assert.equal(failed.code, 1);
  const failedText = await cli(["runs", "show", failed.envelope!.run_id, "--root", dir.path, "--text"]);
  assert.equal(failedText.code, 0, failedText.stderr);
  assert.match(failedText.stdout, /exit {6}1 NotARepository/);
  assert.ok(failedText.stdout.includes("stderr:\n[Error] git log: no --repo given"), failedText.stdout);
  const okText = await cli(["runs", "show", ok.envelope!.run_id.slice(-8), "--root", dir.path, "--text"]);
  assert.equal(okText.code, 0, okText.stderr);
  assert.ok(okText.stdout.includes(ok.envelope!.stdout.trimEnd()), okText.stdout);
  assert.ok(!okText.stdout.includes("stderr:"), "a run without stderr has no stderr section");

  // The ending as `runs list` shows it, and a longer one; replay resolves the same way.
  const byEnding = JSON.parse(
    (await cli(["runs", "show", failed.envelope!.run_id.slice(-12), "--root", dir.path])).stdout,
  );
  assert.equal(byEnding.run_id, failed.envelope!.run_id);
  const replay = await cli(["runs", "replay", ok.envelope!.run_id.slice(-6), "--root", dir.path]);
  assert.equal(replay.code, 0, replay.stderr);
  assert.equal(
    JSON.parse((await cli(["runs", "show", replay.envelope!.run_id, "--root", dir.path])).stdout).replay_of,
    ok.envelope!.run_id,
  );

  // An ending shared by several runs names every candidate; the suggested line itself runs. Two
  // runs share their last eight hex digits here by a copy of a record under a later time.
  const original = ok.envelope!.run_id;
  const twin = original.replace(/^(\d{8})T\d{9}Z/, "$1T235959999Z");
  const day = `${original.slice(0, 4)}-${original.slice(4, 6)}-${original.slice(6, 8)}`;
  const recordText = await Deno.readTextFile(join(dir.path, "audit", day, `${original}.json`));
  await Deno.writeTextFile(join(dir.path, "audit", day, `${twin}.json`), recordText.replaceAll(original, twin));
  const many = await cli(["runs", "show", original.slice(-8), "--root", dir.path]);
  assert.equal(many.code, 1);
  assert.match(many.stderr, /exit 1 AmbiguousMatch/);
  for (const id of [original, twin]) assert.ok(many.stderr.includes(id), `${id} is listed: ${many.stderr}`);
  const suggested = /`pterm (runs show \S+)`/.exec(many.stderr)![1].split(" ");
  assert.equal((await cli([...suggested, "--root", dir.path])).code, 0);
  const longer = await cli(["runs", "show", original.slice(-14), "--root", dir.path]);
  assert.equal(JSON.parse(longer.stdout).run_id, original, "more of the id picks one");

  const none = await cli(["runs", "show", "ffffffffff", "--root", dir.path]);
  assert.match(none.stderr, /exit 1 NotFound/);
  const notAnId = await cli(["runs", "show", "../etc", "--root", dir.path]);
  assert.match(notAnId.stderr, /exit 2 InvalidArgs/);
});
