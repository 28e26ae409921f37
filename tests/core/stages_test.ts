/**
 * A call that stops at any stage (parse, prepare, run) still ends in one envelope and one
 * finished audit record, and the record keeps what was known when the call stopped: the words,
 * the parsed arguments, the configured timeout, the saved stdin.
 */

import assert from "node:assert/strict";
import { exec, execOk, makeRoot } from "../_support/helpers.ts";
import { listAuditRecords, readAuditRecord } from "../../core/audit.ts";

async function recordOf(root: string, runId: string) {
  const record = await readAuditRecord(root, runId);
  assert.equal(record.state, "finished");
  return record;
}

Deno.test("a line that does not tokenize: no words, and the hint points at the command it starts with", async () => {
  await using dir = await makeRoot();
  const envelope = await exec(dir.path, 'read "unterminated');
  assert.equal(envelope.error_code, "InvalidCommandLine");
  assert.match(envelope.stderr, /read --help/);
  const record = await recordOf(dir.path, envelope.run_id);
  assert.equal(record.argv, null);
  assert.equal(record.parsed, null);
});

Deno.test("a flag the command does not have: the words are recorded, the arguments are not", async () => {
  await using dir = await makeRoot();
  const envelope = await exec(dir.path, "read --no-such-flag a.txt");
  assert.equal(envelope.error_code, "InvalidArgs");
  assert.match(envelope.stderr, /read --help/);
  const record = await recordOf(dir.path, envelope.run_id);
  assert.deepEqual(record.argv, ["read", "--no-such-flag", "a.txt"]);
  assert.equal(record.parsed, null);
});

Deno.test("a path outside the root, refused after the config is read: the record has the configured timeout", async () => {
  await using dir = await makeRoot();
  await Deno.writeTextFile(`${dir.path}/pterm.json`, JSON.stringify({ limits: { timeout_ms_default: 12345 } }));
  const envelope = await exec(dir.path, "read ../outside.txt");
  assert.notEqual(envelope.exit_code, 0);
  const record = await recordOf(dir.path, envelope.run_id);
  assert.equal(record.timeout_ms, 12345);
  assert.deepEqual(record.parsed?.path, ["read"]);
  assert.equal(record.error_code, envelope.error_code);

  // The caller fixes the path and retries: the retry runs, and each call has exactly one record.
  await Deno.writeTextFile(`${dir.path}/inside.txt`, "hello\n");
  const retry = await execOk(dir.path, "read inside.txt");
  assert.match(retry.stdout, /hello/);
  const runs = await listAuditRecords(dir.path);
  assert.deepEqual(runs.map((r) => r.run_id).sort(), [envelope.run_id, retry.run_id].sort());
  assert.ok(runs.every((r) => r.state === "finished"));
});

Deno.test("stdin that is not UTF-8, refused after it is saved: the record points at the saved bytes", async () => {
  await using dir = await makeRoot();
  const envelope = await exec(dir.path, "git commit -F -", { stdin: new Uint8Array([0x66, 0xff, 0x0a]) });
  assert.equal(envelope.error_code, "StdinNotUtf8");
  const record = await recordOf(dir.path, envelope.run_id);
  assert.ok(record.stdin, "the stdin artifact is recorded");
  const saved = await Deno.readFile(`${dir.path}/${record.stdin.path}`);
  assert.deepEqual([...saved], [0x66, 0xff, 0x0a]);
  assert.deepEqual(record.parsed?.path, ["git", "commit"]);
});

Deno.test("help ends the call without running a command: the record says what help was asked for", async () => {
  await using dir = await makeRoot();
  const envelope = await execOk(dir.path, "read --help");
  const record = await recordOf(dir.path, envelope.run_id);
  assert.deepEqual(record.parsed, { path: ["read"], flags: { help: true }, positionals: {} });
  assert.equal((envelope.result as { command: string }).command, "read --help");
});
