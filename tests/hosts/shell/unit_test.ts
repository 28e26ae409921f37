/** The shell's pure parts: escaping, rendering, completion's confinement, the history's secret filter. */

import assert from "node:assert/strict";
import fc from "fast-check";
import { commands } from "../../../commands/index.ts";
import { Registry } from "../../../core/registry.ts";
import { join } from "../../../core/fs/path.ts";
import { complete, completePath, splitWords } from "../../../hosts/shell/complete.ts";
import { appendHistory, HISTORY_REL_PATH, loadHistory, workspaceSecrets } from "../../../hosts/shell/history.ts";
import { escapeControls, outputText, renderEnvelope, renderPrompt } from "../../../hosts/shell/render.ts";
import { makeRoot } from "../../_support/helpers.ts";
import { writeEnv } from "../../commands/irc/harness.ts";

// deno-lint-ignore no-control-regex
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

Deno.test("escapeControls leaves no code point that drives a terminal, and changes nothing else", () => {
  fc.assert(fc.property(fc.string({ unit: "binary" }), (text) => assert.ok(!UNSAFE.test(escapeControls(text)))));
  fc.assert(
    fc.property(fc.string({ unit: "binary" }).filter((t) => !UNSAFE.test(t)), (text) => {
      assert.equal(escapeControls(text), text);
    }),
  );
  assert.equal(escapeControls("a\x1b[2Jb\r\nc\rd\u202ee\tf\x9b"), "a\\x1b[2Jb\nc\\x0dd\\u202ee\tf\\x9b");
});

Deno.test("renderEnvelope: stdout, stderr, artifacts as paths, the footer; colour only when asked", () => {
  const envelope = {
    run_id: "20261122T035255063Z-c0baba14",
    exit_code: 1,
    stdout: "out\n",
    stderr: "[Error] bad\n",
    result: null,
    artifacts: [{ path: "artifacts/x/stdout.txt", mime: "text/plain", description: "full stdout" }],
    error_code: "NotFound" as const,
    duration_ms: 12,
    truncated: { stdout: false, stderr: false },
  };
  assert.equal(
    renderEnvelope(envelope, false),
    "out\n[Error] bad\nartifact artifacts/x/stdout.txt (text/plain) full stdout\n" +
      "exit 1 NotFound · 12 ms · run 20261122T035255063Z-c0baba14\n",
  );
  assert.ok(renderEnvelope(envelope, true).includes("\x1b[31m[Error] bad\x1b[0m"));
  assert.equal(outputText(envelope), "out\n[Error] bad\n");
  const irc = (value: "green" | "off") => [{ label: "IRC", value }];
  assert.equal(renderPrompt("agent-7", irc("green"), false), "agent-7 ● IRC:green › ");
  assert.equal(renderPrompt("agent-7", irc("off"), true), "\x1b[1magent-7\x1b[0m \x1b[90m●\x1b[0m IRC › ");
  assert.equal(renderPrompt("agent-7", [], false), "agent-7 › ", "no session service declared: no light");
});

Deno.test("completion lists only confined, non-secret workspace paths", async () => {
  await using root = await makeRoot();
  await using outside = await makeRoot("pterm-outside-");
  await Deno.mkdir(join(root.path, "docs/secrets"), { recursive: true });
  await Deno.mkdir(join(root.path, "docs/sub"));
  await Deno.writeTextFile(join(root.path, "docs/a.pdf"), "");
  await Deno.writeTextFile(join(root.path, "docs/.env"), "");
  await Deno.symlink(outside.path, join(root.path, "docs/away"));
  await Deno.symlink("sub", join(root.path, "docs/inside"));
  assert.deepEqual(completePath(root.path, "docs/"), ["docs/a.pdf ", "docs/inside/", "docs/sub/"]);
  assert.deepEqual(completePath(root.path, "docs/.e"), []);
  assert.deepEqual(completePath(root.path, "../"), []);
  assert.deepEqual(completePath(root.path, "docs/away/"), []);
  assert.deepEqual(completePath(root.path, "/etc/"), []);
  const registry = new Registry(commands);
  assert.deepEqual(await complete(registry, root.path, "gi"), [["git "], "gi"]);
  assert.deepEqual((await complete(registry, root.path, "git com"))[0], ["commit "]);
  assert.deepEqual((await complete(registry, root.path, "doc info --in docs/a"))[0], ["docs/a.pdf "]);
  assert.deepEqual((await complete(registry, root.path, "git commit --repo x --mess"))[0], ["--message "]);
  assert.deepEqual((await complete(registry, root.path, "nope --"))[0], []);
  assert.deepEqual(splitWords(`irc send --text "two words" --t`), ["irc", "send", "--text", "two words", "--t"]);
});

Deno.test("history: a line holding a workspace secret is never written, also when the settings do not validate", async () => {
  await using root = await makeRoot();
  assert.deepEqual(await workspaceSecrets(root.path), []);
  await writeEnv(root.path, {
    IRC_SERVER: "127.0.0.1",
    IRC_PORT: 6667,
    IRC_CHANNEL: "#lemon",
    IRC_NICK: "ptermbot",
    IRC_SERVER_PASSWORD: "pa#ss-1",
    IRC_CHANNEL_KEY: "key-2",
  });
  const secrets = await workspaceSecrets(root.path);
  assert.deepEqual(secrets.sort(), ["key-2", "pa#ss-1"]);
  assert.equal(await appendHistory(root.path, "hello", secrets), true);
  assert.equal(await appendHistory(root.path, "irc send --text pa#ss-1", secrets), false);
  assert.equal(await appendHistory(root.path, "two\nlines", secrets), false);
  assert.deepEqual(await loadHistory(root.path), ["hello"]);
  // A nick too long: the file is invalid, its credentials are still secrets.
  await writeEnv(root.path, { IRC_NICK: "muchtoolongnick", IRC_SASL_PASSWORD: "sasl-3" });
  assert.deepEqual(await workspaceSecrets(root.path), ["sasl-3"]);
  assert.equal((await Deno.stat(join(root.path, HISTORY_REL_PATH))).mode! & 0o777, 0o600);
});
