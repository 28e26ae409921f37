/**
 * A patch is bytes: `git diff`, `git show` and `git log -p` of files that are not UTF-8 (Latin-1,
 * Shift_JIS, invalid UTF-8 among UTF-8, bytes above 0x7F without a NUL) keep git's bytes all the
 * way to the artifact. The artifact is byte for byte what the real `git diff` writes; the real
 * `git apply`, and pterm's `patch apply`, turn a copy of the old tree into the new files exactly;
 * stdout's text (each such byte shown as one character) is never passed off as the patch: the
 * result names those files (`not_utf8`) and stderr says which file holds the exact patch.
 */

import assert from "node:assert/strict";
import { makeRoot } from "../../../_support/helpers.ts";
import { git, GIT_ENV, gitInit, pterm, ptermTry, result } from "../oracle.ts";

const latin1 = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
const utf8 = (text: string) => new TextEncoder().encode(text);

/** Runs the real git; stdout as bytes (a patch is not text). */
async function gitBytes(cwd: string, ...args: string[]): Promise<Uint8Array> {
  const out = await new Deno.Command("git", {
    args,
    cwd,
    env: GIT_ENV,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  assert.equal(out.code, 0, `git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  return out.stdout;
}

/** Each file's old and new bytes: every shape of content that is text to git (no NUL) but not always UTF-8. */
const FILES: Record<string, [Uint8Array, Uint8Array]> = {
  "latin1.txt": [latin1("caf\xE9\nna\xEFve\nfin\n"), latin1("caf\xE9 cr\xE8me\nna\xEFve\nfin\n")],
  // Shift_JIS: 表 is 0x95 0x5C, its second byte a backslash; 日本語 0x93FA 0x967B 0x8CEA.
  "sjis.txt": [
    latin1("\x93\xFA\x96\x7B\x8C\xEA\n\x95\x5C\nend\n"),
    latin1("\x93\xFA\x96\x7B\n\x95\x5C\x95\x5C\nend\n"),
  ],
  "crlf.txt": [utf8("one\r\ntwo\r\nthree\r\n"), utf8("one\r\nzwei\r\nthree\r\n")],
  "bom.txt": [utf8("\uFEFFfirst\nsecond\n"), utf8("\uFEFFfirst\nsecond \u00E9\n")],
  "mixed.txt": [
    latin1("caf\xC3\xA9 utf8\nbad \xFF\xFE byte\nend\n"),
    latin1("caf\xC3\xA9 utf8\nbad \xFF\xFE\xC3 bytes\nend\n"),
  ],
  "noeol.txt": [latin1("l\xE9\nlast \xE9"), latin1("l\xE9\nlast \xE8")],
  "to_latin1.txt": [utf8("caf\u00E9\nsame\n"), latin1("caf\xE9\nsame\n")],
  "to_utf8.txt": [latin1("caf\xE9\nsame\n"), utf8("caf\u00E9\nsame\n")],
  "high.bin.txt": [
    Uint8Array.from({ length: 300 }, (_, i) => (i % 37 === 36 ? 10 : 0x80 + ((i * 7) % 128))),
    Uint8Array.from({ length: 300 }, (_, i) => (i % 37 === 36 ? 10 : 0x80 + ((i * 11) % 128))),
  ],
  "plain.txt": [utf8("caf\u00E9\nna\u00EFve\n"), utf8("caf\u00E9!\nna\u00EFve\n")],
};
const NOT_UTF8 = ["high.bin.txt", "latin1.txt", "mixed.txt", "noeol.txt", "sjis.txt", "to_latin1.txt", "to_utf8.txt"];

async function writeSide(dir: string, side: 0 | 1): Promise<void> {
  for (const [name, sides] of Object.entries(FILES)) await Deno.writeFile(`${dir}/${name}`, sides[side]);
}

/** A repository holding the old files (committed) with the new ones in the work tree. */
async function setUp(root: string): Promise<string> {
  const dir = `${root}/r`;
  await gitInit(dir);
  await writeSide(dir, 0);
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "old");
  await writeSide(dir, 1);
  return dir;
}

/** The real git applies `patch` to a clone of the old commit: every file becomes its new bytes. */
async function assertGitApplies(root: string, source: string, patch: Uint8Array, rev = "HEAD"): Promise<void> {
  const copy = `${root}/copy-${crypto.randomUUID()}`;
  await git(root, "clone", "-q", source, copy);
  await git(copy, "checkout", "-q", "--detach", rev);
  await Deno.writeFile(`${copy}/.patch`, patch);
  await git(copy, "apply", ".patch");
  for (const [name, [, after]] of Object.entries(FILES)) {
    assert.deepEqual(await Deno.readFile(`${copy}/${name}`), after, `git apply wrote ${name}`);
  }
  await Deno.remove(copy, { recursive: true });
}

Deno.test("git diff: the patch artifact of files that are not UTF-8 is git's bytes, and git apply gives the new files", async () => {
  await using root = await makeRoot();
  const dir = await setUp(root.path);
  const envelope = await pterm(root.path, "git diff --repo r");
  const r = result(envelope);
  assert.ok(r.patch_artifact, "a patch with bytes that are not UTF-8 is always an artifact");
  const artifact = await Deno.readFile(`${root.path}/${r.patch_artifact}`);
  const theirs = await gitBytes(dir, "diff", "--no-color");
  assert.deepEqual(artifact, theirs, "the artifact is git diff's output, byte for byte");
  assert.deepEqual(r.not_utf8, NOT_UTF8);
  assert.match(envelope.stderr, /not UTF-8/);
  assert.ok(envelope.stderr.includes(r.patch_artifact), "stderr names the exact patch");
  await assertGitApplies(root.path, dir, artifact);

  // pterm's own patch applies the artifact to the old tree just as exactly.
  await git(dir, "checkout", "--", ".");
  const applied = await pterm(root.path, `patch apply --file ${r.patch_artifact} --repo r --no-commit`);
  assert.equal(applied.exit_code, 0);
  for (const [name, [, after]] of Object.entries(FILES)) {
    assert.deepEqual(await Deno.readFile(`${dir}/${name}`), after, `pterm's patch wrote ${name}`);
  }
});

Deno.test("git diff: a UTF-8 patch stays on stdout, with no artifact and nothing listed", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInit(dir);
  await Deno.writeFile(`${dir}/a.txt`, utf8("\uFEFFcaf\u00E9\r\nx\n"));
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "old");
  await Deno.writeFile(`${dir}/a.txt`, utf8("\uFEFFcaf\u00E9\r\ny\n"));
  const envelope = await pterm(root.path, "git diff --repo r");
  assert.equal(result(envelope).patch_artifact, null);
  assert.deepEqual(result(envelope).not_utf8, []);
  assert.deepEqual(utf8(envelope.stdout), await gitBytes(dir, "diff", "--no-color"));
});

Deno.test("git diff: a Latin-1 patch too long for stdout is saved as git's bytes", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInit(dir);
  const lines = (mark: string) => Array.from({ length: 3000 }, (_, i) => `l\xE9${i % 7 ? i : mark + i}\n`).join("");
  await Deno.writeFile(`${dir}/big.txt`, latin1(lines("\xE8")));
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "old");
  await Deno.writeFile(`${dir}/big.txt`, latin1(lines("\xEA")));
  const envelope = await pterm(root.path, "git diff --repo r");
  const r = result(envelope);
  assert.match(envelope.stdout, /it is in the artifact/);
  const artifact = await Deno.readFile(`${root.path}/${r.patch_artifact}`);
  assert.deepEqual(artifact, await gitBytes(dir, "diff", "--no-color"));
  assert.deepEqual(r.not_utf8, ["big.txt"]);
});

Deno.test("git show and git log -p: their patches of files that are not UTF-8 keep git's bytes", async () => {
  await using root = await makeRoot();
  const dir = await setUp(root.path);
  await git(dir, "commit", "-qam", "new");
  const theirs = await gitBytes(dir, "diff", "--no-color", "HEAD~1", "HEAD");

  const shown = result(await pterm(root.path, "git show --repo r"));
  assert.deepEqual(await Deno.readFile(`${root.path}/${shown.patch_artifact}`), theirs);
  assert.deepEqual(shown.not_utf8, NOT_UTF8);
  await assertGitApplies(root.path, dir, theirs, "HEAD~1");

  const logged = await pterm(root.path, "git log --repo r -p --max 1");
  const saved = logged.artifacts.find((a) => a.path.endsWith("log.txt"));
  assert.ok(saved, "the log with a patch that is not UTF-8 is saved as bytes");
  assert.match(logged.stderr, /not UTF-8/);
  const log = await Deno.readFile(`${root.path}/${saved.path}`);
  const at = new TextDecoder("latin1").decode(log).indexOf(new TextDecoder("latin1").decode(theirs));
  assert.ok(at > 0, "the log holds git's patch byte for byte");
});

Deno.test("git show <rev>:<path>: a file that is not UTF-8 is never shown with U+FFFD; its bytes are the artifact, a BOM is kept", async () => {
  await using root = await makeRoot();
  const dir = await setUp(root.path);
  for (const [name, [before]] of Object.entries(FILES)) {
    const envelope = await pterm(root.path, `git show --repo r HEAD:${name}`);
    const r = result(envelope);
    assert.equal(await gitBytes(dir, "show", `HEAD:${name}`).then((b) => b.length), before.length);
    let isUtf8 = true;
    try {
      new TextDecoder("utf-8", { fatal: true }).decode(before);
    } catch {
      isUtf8 = false;
    }
    if (!isUtf8) {
      assert.equal(r.not_utf8, true, name);
      assert.deepEqual(await Deno.readFile(`${root.path}/${r.content_artifact}`), before, name);
      assert.equal(envelope.stdout, Array.from(before, (b) => String.fromCharCode(b)).join(""), name);
      assert.match(envelope.stderr, /not UTF-8/);
      assert.ok(!envelope.stdout.includes("\uFFFD"), name);
    } else {
      assert.equal(r.not_utf8, false, name);
      assert.deepEqual(utf8(envelope.stdout), before, `${name}: stdout is the file (a BOM kept)`);
    }
  }
});

Deno.test("the diff attribute decides binary as git's userdiff: `diff` shows NUL bytes as text, a driver's binary setting, textconv refused", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInit(dir);
  await Deno.writeTextFile(`${dir}/.gitattributes`, "*.bin diff\n*.dat diff=raw\n*.unk diff=nosuch\n");
  await git(dir, "config", "diff.raw.binary", "true");
  const files: Record<string, [Uint8Array, Uint8Array]> = {
    "nul.bin": [latin1("a\0b\nc\n"), latin1("a\0b\nd\xE9\n")],
    "text.dat": [utf8("plain\ntext\n"), utf8("plain\nchanged\n")],
    "nul.unk": [latin1("a\0b\nc\n"), latin1("a\0b\nd\n")],
    "text.unk": [utf8("x\n"), utf8("y\n")],
  };
  for (const [name, [before]] of Object.entries(files)) await Deno.writeFile(`${dir}/${name}`, before);
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "old");
  for (const [name, [, after]] of Object.entries(files)) await Deno.writeFile(`${dir}/${name}`, after);
  const envelope = await pterm(root.path, "git diff --repo r");
  const r = result(envelope);
  assert.ok(r.patch_artifact, "nul.bin's patch holds a byte that is not UTF-8");
  assert.deepEqual(await Deno.readFile(`${root.path}/${r.patch_artifact}`), await gitBytes(dir, "diff", "--no-color"));
  const stat = await pterm(root.path, "git diff --repo r --stat");
  assert.equal(stat.stdout, new TextDecoder().decode(await gitBytes(dir, "diff", "--stat")));

  await git(dir, "config", "diff.raw.textconv", "cat");
  const refused = await ptermTry(root.path, "git diff --repo r");
  assert.equal(refused.error_code, "UnsupportedFilter", refused.stderr);
  assert.match(refused.stderr, /text\.dat.*diff\.raw\.textconv/);
});

Deno.test("a diff driver's own function lines (diff=python) are not applied, and the diff says so; the lines are git's", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInit(dir);
  await Deno.writeTextFile(`${dir}/.gitattributes`, "*.py diff=python\n");
  const body = (value: string) =>
    `import os\n\nclass Thing:\n    x = 1\n\n    def method(self):\n        a = 1\n        b = 2\n        c = 3\n        return ${value}\n`;
  await Deno.writeTextFile(`${dir}/m.py`, body("a"));
  await Deno.writeTextFile(`${dir}/plain.txt`, "one\n");
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "old");
  await Deno.writeTextFile(`${dir}/m.py`, body("b"));
  await Deno.writeTextFile(`${dir}/plain.txt`, "two\n");
  const envelope = await pterm(root.path, "git diff --repo r");
  const theirs = new TextDecoder().decode(await gitBytes(dir, "diff", "--no-color"));
  assert.match(theirs, /@@ def method\(self\):/, "git takes python's function line");
  assert.match(envelope.stderr, /\[Note\].*m\.py \(diff=python\)/);
  assert.ok(!envelope.stderr.includes("plain.txt"));
  const strip = (patch: string) => patch.replace(/^(@@ [^@]* @@).*$/gm, "$1");
  assert.equal(strip(envelope.stdout), strip(theirs), "every line but the function names is git's");
});
