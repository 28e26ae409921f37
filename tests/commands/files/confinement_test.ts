/**
 * What the read-only file commands never show or read: secret paths, `.git` and git directories
 * by other names, symlinks leading out of the root, FIFOs, and pterm's state other than
 * artifacts — neither when named nor while walking. And they write nothing.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { exec, makeRoot } from "../../_support/helpers.ts";
import { git } from "../git/oracle.ts";
import { writeTree } from "./oracle.ts";

const SECRET = "TOPSECRET";

async function hostileWorkspace(root: string, outside: string): Promise<void> {
  await writeTree(root, {
    "visible.txt": "hello visible\n",
    "secrets/key": `${SECRET}-1\n`,
    ".env": `${SECRET}-2\n`,
    "sub/.env.local": `${SECRET}-3\n`,
    "sub/ok.txt": "fine\n",
    "proj/src.txt": "tracked\n",
    "sessions/abc/note": `${SECRET}-8\n`,
    "cache/x": `${SECRET}-9\n`,
    "artifacts/run1/out.txt": "ARTIFACT-TEXT\n",
    "pterm.json": "{}\n",
  });
  await git(join(root, "proj"), "init", "-q", "-b", "main");
  await Deno.writeTextFile(join(root, "proj/.git/description"), `${SECRET}-4\n`);
  await git(join(root, "proj"), "add", "-A");
  await git(join(root, "proj"), "-c", "user.name=T", "-c", "user.email=t@e", "commit", "-q", "-m", "init");
  // A git directory by another name: a bare repository.
  await git(root, "init", "-q", "--bare", "store");
  await Deno.writeTextFile(join(root, "store/hooks/post-update"), `${SECRET}-5\n`);
  await Deno.writeTextFile(join(outside, "outside.txt"), `${SECRET}-6\n`);
  await Deno.symlink(join(outside, "outside.txt"), join(root, "out_file"));
  await Deno.symlink(outside, join(root, "out_dir"));
  await Deno.symlink("visible.txt", join(root, "in_link"));
  const fifo = await new Deno.Command("mkfifo", { args: [join(root, "pipe")] }).output();
  assert.equal(fifo.code, 0);
}

/**
 * Every file's path, size, modification time and mode — the kernel's own records aside (audit/,
 * cache/, and the root's time, which their creation changes).
 */
async function fingerprint(root: string): Promise<string> {
  const out = await new Deno.Command("find", {
    args: [
      ".",
      "-mindepth",
      "1",
      "(",
      "-path",
      "./audit",
      "-o",
      "-path",
      "./cache",
      ")",
      "-prune",
      "-o",
      "-printf",
      "%p %s %T@ %m\\n",
    ],
    cwd: root,
  }).output();
  return new TextDecoder().decode(out.stdout).split("\n").sort().join("\n");
}

const HIDDEN_NAMES = [
  SECRET,
  "secrets",
  ".env",
  ".git",
  "store",
  "out_file",
  "out_dir",
  "pipe",
  "audit",
  "sessions",
  "cache",
  "pterm.json",
];

const WALKS = [
  "ls",
  "ls -la",
  "ls -la sub proj",
  "find .",
  "find . -name '*'",
  "find . -type l",
  "glob '**'",
  "glob '**/.*'",
  "grep -rn TOPSECRET",
  "grep -rn -i topsecret .",
  "grep -rl hello",
  "search TOPSECRET",
  "search --hidden --no-ignore TOPSECRET",
  "search --hidden --no-ignore -l .",
];

const REFUSED: readonly [string, string][] = [
  ["cat secrets/key", "SecretPathDenied"],
  ["read .env", "SecretPathDenied"],
  ["grep TOPSECRET sub/.env.local", "SecretPathDenied"],
  ["ls secrets", "SecretPathDenied"],
  ["cat proj/.git/description", "GitDirDenied"],
  ["ls proj/.git", "GitDirDenied"],
  ["find proj/.git", "GitDirDenied"],
  ["cat store/hooks/post-update", "GitDirDenied"],
  ["ls store", "GitDirDenied"],
  ["grep -r TOPSECRET store", "GitDirDenied"],
  ["cat out_file", "PathEscape"],
  ["ls out_dir", "PathEscape"],
  ["grep -r TOPSECRET out_dir", "PathEscape"],
  ["cat pipe", "InvalidPath"],
  ["head -n 1 pipe", "InvalidPath"],
  ["wc -l pipe", "InvalidPath"],
  ["grep x pipe", "InvalidPath"],
  ["read sessions/abc/note", "ReadOnlyPath"],
  ["read cache/x", "ReadOnlyPath"],
  ["read pterm.json", "ReadOnlyPath"],
  ["ls audit", "ReadOnlyPath"],
  ["cat ../etc/passwd", "PathEscape"],
  ["read /etc/passwd", "PathEscape"],
  ["glob '/etc/*'", "PathEscape"],
  ["glob '../*'", "PathEscape"],
  ["find /etc -name passwd", "PathEscape"],
  ["grep -r root /etc", "PathEscape"],
  ["search root ..", "PathEscape"],
  ["ls ..", "PathEscape"],
  ["wc -l /etc/passwd", "PathEscape"],
];

Deno.test("walks never show secrets, git directories, links out, FIFOs or pterm's state", async (t) => {
  await using dir = await makeRoot();
  await using outside = await makeRoot("pterm-outside-");
  await hostileWorkspace(dir.path, outside.path);
  const before = await fingerprint(dir.path);
  for (const line of WALKS) {
    await t.step(line, async () => {
      const envelope = await exec(dir.path, line, { timeoutMs: 20_000 });
      assert.ok([0, 1].includes(envelope.exit_code), `${line}: ${envelope.stderr}`);
      for (const name of HIDDEN_NAMES) {
        assert.ok(!envelope.stdout.includes(name), `${line} shows ${name}:\n${envelope.stdout}`);
      }
      if (/TOPSECRET/i.test(line)) assert.equal(envelope.error_code, "NoMatch", envelope.stdout);
    });
  }
  await t.step("named paths are refused with the confinement's code", async () => {
    for (const [line, code] of REFUSED) {
      const envelope = await exec(dir.path, line, { timeoutMs: 20_000 });
      assert.equal(envelope.error_code, code, `${line}: ${envelope.stderr}`);
      assert.ok(!envelope.stdout.includes(SECRET) && !envelope.stderr.includes(SECRET), line);
    }
  });
  await t.step("a symlink inside the root reads its target; artifacts read", async () => {
    assert.equal((await exec(dir.path, "cat in_link")).stdout, "hello visible\n");
    assert.equal((await exec(dir.path, "read artifacts/run1/out.txt")).stdout, "ARTIFACT-TEXT\n");
    assert.equal((await exec(dir.path, "ls artifacts")).stdout, "run1\n");
    assert.equal(
      (await exec(dir.path, "grep -rn ARTIFACT artifacts")).stdout,
      "artifacts/run1/out.txt:1:ARTIFACT-TEXT\n",
    );
  });
  await t.step("nothing was written; real git sees a clean repository", async () => {
    assert.equal(await fingerprint(dir.path), before);
    assert.equal(await git(join(dir.path, "proj"), "status", "--porcelain"), "");
  });
});

Deno.test("a truncated listing keeps head and tail and its full text is a readable artifact", async () => {
  await using dir = await makeRoot();
  const text = Array.from({ length: 5000 }, (_, i) => `row ${i + 1}\n`).join("");
  await Deno.writeTextFile(join(dir.path, "long.txt"), text);
  const envelope = await exec(dir.path, "cat long.txt");
  assert.equal(envelope.truncated.stdout, true);
  assert.ok(envelope.stdout.startsWith("row 1\n") && envelope.stdout.endsWith("row 5000\n"));
  const artifact = envelope.artifacts.find((a) => a.path.endsWith("stdout.txt"));
  assert.ok(artifact, "the full stdout is an artifact");
  // The envelope names the line that reads it.
  assert.ok(artifact.description.includes(`\`read ${artifact.path} --lines 1:200\``), artifact.description);
  const again = await exec(dir.path, `read ${artifact.path} --lines 2500:2501`);
  assert.equal(again.stdout, "row 2500\nrow 2501\n");
  const whole = await exec(dir.path, `wc -l ${artifact.path}`);
  assert.equal(whole.stdout, `5000 ${artifact.path}\n`);
});
