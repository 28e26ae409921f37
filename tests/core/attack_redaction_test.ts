/**
 * A token an agent puts in a URL never reaches the call's error, its result or the audit record —
 * whatever it holds: a `/` (which makes the URL unparsable and used to be echoed whole), a `"`
 * or `\` (escaped in the record's JSON, where a text rule missed it) or a space. And the refused
 * URL changes nothing a person's real git then reads.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { exec, makeRoot } from "../_support/helpers.ts";
import { tokenize } from "../../core/grammar.ts";
import { redactCommandLine, redactCredentials, redactSecrets } from "../../core/redact.ts";

const TOKENS = ["to/ken-slash", 'to"ken-quote', "to\\ken-backslash", "to ken-space", "ghp_plain-token"];

async function git(cwd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", { args, cwd, stdout: "piped", stderr: "piped" }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout);
}

/** Every file under `dir`, read whole. */
async function allText(dir: string): Promise<string> {
  let text = "";
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    text += entry.isDirectory ? await allText(path) : await Deno.readTextFile(path);
  }
  return text;
}

/** The word as the agent types it: double-quoted, `"` and `\` escaped. */
function quoted(word: string): string {
  return `"${word.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

Deno.test('a URL token with / " \\ or a space is in no error, result or audit record, and real git sees nothing', async () => {
  await using root = await makeRoot();
  const repo = join(root.path, "app");
  await Deno.mkdir(repo);
  await git(repo, "init", "-q");
  const configBefore = await git(repo, "config", "--list", "--local");

  for (const token of TOKENS) {
    const secret = token.slice(0, token.lastIndexOf("-"));
    const url = `https://bob:${token}@127.0.0.1:9/org/app.git`;
    for (const line of [`git clone ${quoted(url)} copy`, `git remote --repo app add origin ${quoted(url)}`]) {
      assert.ok(tokenize(line).includes(url), "the agent's word is the URL, token and all");
      const envelope = await exec(root.path, line);
      assert.notEqual(envelope.exit_code, 0, `${line} was accepted`);
      const shown = JSON.stringify(envelope);
      assert.ok(!shown.includes(secret) && !shown.includes(JSON.stringify(secret).slice(1, -1)), shown);
      assert.ok(!envelope.stderr.includes("ken-"), `the error echoes the token: ${envelope.stderr}`);
    }
  }
  const audit = await allText(join(root.path, "audit"));
  for (const token of TOKENS) {
    assert.ok(!audit.includes(token.slice(3)), `the audit record keeps ${token}`);
    assert.ok(!audit.includes(JSON.stringify(token).slice(4, -1)), `the audit record keeps ${token} (escaped)`);
  }
  assert.match(audit, /https:\/\/\*\*\*@127\.0\.0\.1:9\/org\/app\.git/, "the record still says which URL was refused");

  // What the person does next: their git sees no remote, no token, nothing new.
  assert.equal(await git(repo, "config", "--list", "--local"), configBefore);
  assert.equal(await git(repo, "remote", "-v"), "");
  assert.equal(await git(repo, "status", "--porcelain"), "");
  await assert.rejects(Deno.stat(join(root.path, "copy")));
});

Deno.test("redaction keeps what is not a credential: a scoped path, a plain URL, other words", () => {
  const words = ["git", "clone", "https://registry.example/@scope/pkg", "https://git.example.com/org/a.git"];
  assert.deepEqual(redactCredentials({ argv: words }, words), { argv: words });
  const line = 'git clone "https://u:a b@h.example/x.git" d';
  assert.equal(redactCommandLine(line, tokenize(line)), "git clone 'https://***@h.example/x.git' d");
  // A line that did not split keeps nothing after `scheme://` up to its last `@`.
  assert.equal(redactCommandLine('git clone "https://u:a b@h/x', null), 'git clone "https://***@h/x');
  // Credentials of well-formed URLs in any text (an output, a message) go too.
  assert.equal(redactCredentials("fetch https://u:p@h.example/x failed", []), "fetch https://***@h.example/x failed");
});

Deno.test("a known secret (an IRC password, an Authorization token) is redacted in every spelling a text gives it", () => {
  const secrets = ["p@ss w/rd", 'q"uote', "pass"];
  const text = 'server said: bad password p@ss w/rd; json {"pw":"q\\"uote"}; url irc://u:p%40ss%20w%2Frd@host; pass';
  const shown = redactSecrets(text, secrets);
  for (const secret of secrets) {
    for (const spelling of [secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)]) {
      assert.ok(!shown.includes(spelling), `${spelling} in ${shown}`);
    }
  }
  // The longest first: a secret holding another goes whole, not as a leftover around `***`.
  assert.equal(redactSecrets("xx password xx", ["pass", "password"]), "xx *** xx");
  assert.equal(redactSecrets("nothing here", []), "nothing here");
});

Deno.test("redaction reaches every string of a large result, and returns one holding no credential as it is", () => {
  for (const token of TOKENS) {
    const words = ["git", "clone", `https://${token}@h.example/x.git`];
    // A result shaped like a patch's: thousands of entries, the token deep in one of them.
    const hunks = Array.from({ length: 2000 }, (_, i) => ({ hunk: i + 1, file: `src/f${i}.py`, strategy: "exact" }));
    hunks[1234] = { ...hunks[1234], file: `from https://${token}@h.example/x.git` };
    const result = { ok: true, blocks: [{ index: 1, files: ["a", "b"], hunks }], warnings: [] as string[] };
    const redacted = redactCredentials(result, words);
    assert.equal(redacted.blocks[0].hunks[1234].file, "from https://***@h.example/x.git");
    assert.ok(!JSON.stringify(redacted).includes(token), token);
    assert.equal(result.blocks[0].hunks[1234].file, `from https://${token}@h.example/x.git`, "the value given is kept");
    assert.equal(redacted.blocks[0].hunks[0], result.blocks[0].hunks[0], "what held nothing is not copied");
    // Without the token anywhere, nothing is copied at all.
    hunks[1234] = { hunk: 1235, file: "src/f1234.py", strategy: "exact" };
    assert.equal(redactCredentials(result, words), result);
    // A value JSON cannot write is still looked at string by string.
    const unwritable: Record<string, unknown> = { text: `https://${token}@h.example/x.git`, n: 1n };
    assert.equal((redactCredentials(unwritable, words) as { text: string }).text, "https://***@h.example/x.git");
  }
});
