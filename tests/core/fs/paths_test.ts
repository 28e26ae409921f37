import assert from "node:assert/strict";
import { join } from "node:path";
import { PtermError } from "../../../core/errors.ts";
import { type Access, confinePath, isSecretPath } from "../../../core/fs/paths.ts";
import { makeRoot } from "../../_support/helpers.ts";
import { createWorkspace } from "../../../core/context.ts";

async function codeOf(root: string, input: string, access: Access = "read"): Promise<string> {
  try {
    await confinePath(root, input, access);
    return "ok";
  } catch (error) {
    if (error instanceof PtermError) return error.code;
    throw error;
  }
}

Deno.test("confinePath keeps every path inside the workspace root", async (t) => {
  await using rootDir = await makeRoot();
  await using outsideDir = await makeRoot("pterm-outside-");
  const root = rootDir.path;
  const outside = outsideDir.path;
  await Deno.writeTextFile(join(outside, "secret.txt"), "outside");
  await Deno.mkdir(join(root, "docs/sub"), { recursive: true });
  await Deno.writeTextFile(join(root, "docs/a.txt"), "inside");

  await t.step("plain relative paths resolve under the root, existing or not", async () => {
    const existing = await confinePath(root, "docs/a.txt", "read");
    assert.deepEqual(existing, { abs: join(root, "docs/a.txt"), rel: "docs/a.txt", exists: true });
    const missing = await confinePath(root, "new/dir/b.txt", "write");
    assert.deepEqual(missing, { abs: join(root, "new/dir/b.txt"), rel: "new/dir/b.txt", exists: false });
    assert.equal((await confinePath(root, "./docs//sub/", "read")).rel, "docs/sub");
    assert.equal((await confinePath(root, ".", "write")).rel, ".");
  });

  await t.step(".. anywhere is PathEscape, even when it would stay inside", async () => {
    assert.equal(await codeOf(root, "../x"), "PathEscape");
    assert.equal(await codeOf(root, "docs/../docs/a.txt"), "PathEscape");
    assert.equal(await codeOf(root, "docs/.."), "PathEscape");
  });

  await t.step("absolute paths are PathEscape", async () => {
    assert.equal(await codeOf(root, "/etc/passwd"), "PathEscape");
    assert.equal(await codeOf(root, join(root, "docs/a.txt")), "PathEscape");
    assert.equal(await codeOf(root, "C:\\Windows"), "PathEscape");
    assert.equal(await codeOf(root, "\\\\server\\share"), "PathEscape");
  });

  await t.step("a symlinked file leading outside is PathEscape", async () => {
    await Deno.symlink(join(outside, "secret.txt"), join(root, "link.txt"));
    assert.equal(await codeOf(root, "link.txt"), "PathEscape");
    assert.equal(await codeOf(root, "link.txt", "write"), "PathEscape");
  });

  await t.step("a symlinked directory in the middle leading outside is PathEscape", async () => {
    await Deno.symlink(outside, join(root, "docs/out"));
    assert.equal(await codeOf(root, "docs/out/secret.txt"), "PathEscape");
    assert.equal(await codeOf(root, "docs/out/new-file.txt", "write"), "PathEscape");
  });

  await t.step("a relative symlink climbing out is PathEscape", async () => {
    await Deno.symlink("../../..", join(root, "docs/sub/up"));
    assert.equal(await codeOf(root, "docs/sub/up/etc/passwd"), "PathEscape");
  });

  await t.step("a dangling symlink pointing outside is PathEscape (a write would create the target)", async () => {
    await Deno.symlink(join(outside, "not-yet.txt"), join(root, "dangling.txt"));
    assert.equal(await codeOf(root, "dangling.txt", "write"), "PathEscape");
  });

  await t.step("symlinks that stay inside are followed to the real location", async () => {
    await Deno.symlink("docs", join(root, "alias"));
    const through = await confinePath(root, "alias/a.txt", "read");
    assert.equal(through.rel, "docs/a.txt");
    await Deno.symlink("docs/missing.txt", join(root, "dangling-inside.txt"));
    const dangling = await confinePath(root, "dangling-inside.txt", "write");
    assert.deepEqual([dangling.rel, dangling.exists], ["docs/missing.txt", false]);
  });

  await t.step("a symlink loop is refused, not followed forever", async () => {
    await Deno.symlink("loop-b", join(root, "loop-a"));
    await Deno.symlink("loop-a", join(root, "loop-b"));
    assert.notEqual(await codeOf(root, "loop-a/x", "write"), "ok");
  });

  await t.step("NUL, empty, backslash and over-long paths are InvalidPath", async () => {
    assert.equal(await codeOf(root, "docs/a\0.txt"), "InvalidPath");
    assert.equal(await codeOf(root, ""), "InvalidPath");
    assert.equal(await codeOf(root, "docs\\a.txt"), "InvalidPath");
    assert.equal(await codeOf(root, "x".repeat(256)), "InvalidPath");
    assert.equal(await codeOf(root, Array(1000).fill("abcd").join("/")), "InvalidPath");
    assert.equal(await codeOf(root, "x".repeat(255)), "ok");
  });

  await t.step("secrets/ folders and .env* files are SecretPathDenied, for reading too", async () => {
    assert.equal(await codeOf(root, "skills/irc-cli/secrets/.env"), "SecretPathDenied");
    assert.equal(await codeOf(root, "skills/irc-cli/secrets"), "SecretPathDenied");
    assert.equal(await codeOf(root, "app/.env.local"), "SecretPathDenied");
    assert.equal(await codeOf(root, "Secrets/x", "write"), "SecretPathDenied");
    assert.equal(await codeOf(root, "app/environment.ts"), "ok");
  });

  await t.step("an innocent name that is a symlink to a secret is SecretPathDenied", async () => {
    await Deno.mkdir(join(root, "skills/irc-cli/secrets"), { recursive: true });
    await Deno.writeTextFile(join(root, "skills/irc-cli/secrets/.env"), "IRC_SERVER_PASSWORD=x");
    await Deno.symlink("skills/irc-cli/secrets/.env", join(root, "notes.txt"));
    assert.equal(await codeOf(root, "notes.txt"), "SecretPathDenied");
  });

  await t.step("pterm's state is readable but not writable", async () => {
    for (
      const state of [
        "audit/2026-11-22/x.json",
        "artifacts/r/stdout.txt",
        "sessions/default/irc.sock",
        "cache/config.json",
        "pterm.json",
      ]
    ) {
      assert.equal(await codeOf(root, state, "read"), "ok", state);
      assert.equal(await codeOf(root, state, "write"), "ReadOnlyPath", state);
    }
    await Deno.symlink("audit", join(root, "audit-alias"));
    assert.equal(await codeOf(root, "audit-alias/x.json", "write"), "ReadOnlyPath");
    assert.equal(await codeOf(root, "auditing/x", "write"), "ok");
  });
});

Deno.test("isSecretPath matches every segment, case-insensitively", () => {
  assert.equal(isSecretPath(".env"), true);
  assert.equal(isSecretPath("a/.ENV.production"), true);
  assert.equal(isSecretPath("a/secrets/b/c"), true);
  assert.equal(isSecretPath("a/secretsauce/b"), false);
  assert.equal(isSecretPath("a/my.env"), false);
});

/** Runs `fn`, counting the lstat calls it makes on each path. */
async function countingLstat<T>(fn: () => Promise<T>): Promise<{ value: T; calls: Map<string, number> }> {
  const calls = new Map<string, number>();
  const original = Deno.lstatSync;
  Deno.lstatSync = (path: string | URL) => {
    calls.set(String(path), (calls.get(String(path)) ?? 0) + 1);
    return original(path);
  };
  try {
    return { value: await fn(), calls };
  } finally {
    Deno.lstatSync = original;
  }
}

Deno.test("one call's resolves look at each folder on the way once, not once per path", async () => {
  await using rootDir = await makeRoot();
  const root = rootDir.path;
  const paths: string[] = [];
  for (let i = 0; i < 100; i++) {
    const path = `src/m${i % 2}/file${i}.py`;
    await Deno.mkdir(join(root, `src/m${i % 2}`), { recursive: true });
    await Deno.writeTextFile(join(root, path), "x\n");
    paths.push(path);
  }
  const workspace = createWorkspace(root);
  const { value, calls } = await countingLstat(() =>
    Promise.all(paths.map((path) => workspace.resolve(path, "write", { label: "the path" })))
  );
  assert.deepEqual(value.map((c) => c.rel), paths);
  for (const folder of ["src", "src/m0", "src/m1"]) {
    assert.equal(calls.get(join(root, folder)), 1, `${folder} looked at once`);
    assert.equal(calls.get(join(root, folder, "HEAD")), 1, `${folder}/HEAD looked for once`);
  }
  for (const path of paths) assert.equal(calls.get(join(root, path)), 1, path);
});

Deno.test("what one call learnt of a folder is not the next call's: a folder swapped for a symlink is refused then", async () => {
  await using rootDir = await makeRoot();
  await using outsideDir = await makeRoot("pterm-outside-");
  const root = rootDir.path;
  await Deno.mkdir(join(root, "src"));
  await Deno.writeTextFile(join(root, "src/a.txt"), "inside\n");
  await Deno.writeTextFile(join(outsideDir.path, "a.txt"), "outside\n");
  const first = createWorkspace(root);
  assert.equal((await first.resolve("src/a.txt", "write")).abs, join(root, "src/a.txt"));
  await Deno.rename(join(root, "src"), join(root, "src-real"));
  await Deno.symlink(outsideDir.path, join(root, "src"));
  const next = createWorkspace(root);
  await assert.rejects(
    next.resolve("src/a.txt", "write"),
    (error) => error instanceof PtermError && error.code === "PathEscape",
  );
  // A folder turned into a git directory since is refused by the next call too.
  await Deno.remove(join(root, "src"));
  await Deno.rename(join(root, "src-real"), join(root, "src"));
  assert.equal((await createWorkspace(root).resolve("src/a.txt", "read")).exists, true);
  await Deno.writeTextFile(join(root, "src/HEAD"), "ref: refs/heads/main\n");
  await Deno.mkdir(join(root, "src/objects"));
  await Deno.mkdir(join(root, "src/refs"));
  await assert.rejects(
    createWorkspace(root).resolve("src/a.txt", "read"),
    (error) => error instanceof PtermError && error.code === "GitDirDenied",
  );
});
