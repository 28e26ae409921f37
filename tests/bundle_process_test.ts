/**
 * The bundled process (main.bundle.js, its declaration and worker bundles under bundles/) does
 * what the kernel does from source: the same lines, run on two copies of the same workspace — one
 * through `exec` (source, in this process), one through the real `pterm` process — give the same
 * envelope and leave the same files. The lines take the paths that load code lazily inside a
 * worker: a three-way content merge (git's diff3 and jsdiff), the DOCX and PDF readers (and the
 * PDF reader's CMaps, found through its rewritten import.meta.url), a saved artifact
 * (core's safe_fs), `patch apply` of a unified diff on a repository (git's object layer), `--help`
 * and git's real-tool spellings (the declaration bundle's lazy parts). The repository is made by the real git,
 * which is also the oracle of the merge.
 */

import assert from "node:assert/strict";
import { cli, exec, makeRoot } from "./_support/helpers.ts";
import { cjkPdf } from "./commands/doc/pdf_builder.ts";
import { startGitHttpServer } from "./commands/git/remote/http_server.ts";

const GIT_ENV = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "A",
  GIT_AUTHOR_EMAIL: "a@example.com",
  GIT_COMMITTER_NAME: "A",
  GIT_COMMITTER_EMAIL: "a@example.com",
  GIT_AUTHOR_DATE: "1700000000 +0000",
  GIT_COMMITTER_DATE: "1700000000 +0000",
};

async function git(cwd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", { args, cwd, env: GIT_ENV, stdout: "piped", stderr: "piped" }).output();
  if (!out.success) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}

/** A repository on `main` with a branch `side`: each changed different lines of file.txt since their base. */
async function divergedRepository(root: string): Promise<void> {
  const repo = `${root}/repo`;
  await Deno.mkdir(repo);
  await git(repo, "init", "-q", "-b", "main");
  const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
  await Deno.writeTextFile(`${repo}/file.txt`, lines.join("\n") + "\n");
  await Deno.writeTextFile(`${repo}/notes.md`, "# Notes\n\nfirst\n");
  await git(repo, "add", ".");
  await git(repo, "commit", "-q", "-m", "base");
  await git(repo, "checkout", "-q", "-b", "side");
  await Deno.writeTextFile(
    `${repo}/file.txt`,
    lines.map((l, i) => (i === 24 ? "side's line 25" : l)).join("\n") + "\n",
  );
  await git(repo, "commit", "-q", "-am", "side");
  await git(repo, "checkout", "-q", "main");
  await Deno.writeTextFile(`${repo}/file.txt`, lines.map((l, i) => (i === 2 ? "main's line 3" : l)).join("\n") + "\n");
  await git(repo, "commit", "-q", "-am", "main");
  await Deno.copyFile(new URL("./fixtures/doc/report.docx", import.meta.url), `${root}/report.docx`);
  await Deno.copyFile(new URL("./fixtures/doc/report.pdf", import.meta.url), `${root}/report.pdf`);
  // Text only through a predefined CMap, which the PDF reader reads from commands/doc/pdf/cmaps/ (its
  // import.meta.url, rewritten in the bundle): 中文汉字.
  await Deno.writeFile(`${root}/cjk.pdf`, cjkPdf("STSong-Light", "UniGB-UCS2-H", "Adobe", "GB1", "4E2D65876C495B57"));
  await Deno.writeTextFile(
    `${root}/fix.patch`,
    "--- a/notes.md\n+++ b/notes.md\n@@ -1,3 +1,3 @@\n # Notes\n \n-first\n+second\n",
  );
}

/**
 * An envelope without what differs between two runs of the same call: its run id and duration,
 * and the times and ids of commits made at another second (the trees are compared separately).
 */
function comparable(envelope: unknown): unknown {
  return JSON.parse(JSON.stringify(envelope), (key, value) => {
    if (["run_id", "duration_ms", "time", "timestamp"].includes(key)) return undefined;
    if (typeof value !== "string") return value;
    return value.replace(/\d{8}T\d{9}Z-[0-9a-f]{8}/g, "<run>").replace(/\b[0-9a-f]{7,40}\b/g, "<id>")
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d/g, "<time>");
  });
}

async function treeOf(dir: string, base = dir): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    const rel = path.slice(base.length + 1);
    // pterm's own state (audit records, run ids) and git's object store differ by run; the work tree must not.
    if (["audit", "artifacts", "cache", "sessions", ".git"].includes(entry.name)) continue;
    if (entry.isDirectory) Object.assign(files, await treeOf(path, base));
    else files[rel] = await Deno.readTextFile(path).catch(() => "<binary>");
  }
  return files;
}

const LINES = [
  "hello",
  "git status --repo repo",
  "git -C repo log --oneline",
  "git diff --repo repo side main",
  "git merge --repo repo side --author 'A <a@example.com>'",
  "git status --repo repo",
  "doc extract report.docx",
  "doc info report.docx",
  "doc extract report.docx --format json --out report.json",
  "doc info report.pdf",
  "doc extract --in cjk.pdf --mode text",
  "patch apply --repo repo --file fix.patch",
  "git log --repo repo --oneline",
  "git --help",
  "patch --help",
];

Deno.test("the bundled process gives the envelopes the source kernel gives, lazily loaded paths included", async () => {
  await using fromSource = await makeRoot();
  await using bundled = await makeRoot();
  await divergedRepository(fromSource.path);
  await divergedRepository(bundled.path);
  for (const line of LINES) {
    const expected = await exec(fromSource.path, line);
    const actual = await cli(["exec", "--root", bundled.path, line]);
    assert.ok(actual.envelope, `${line}: an envelope (${actual.stderr})`);
    assert.equal(expected.exit_code, 0, `${line}: ${expected.stderr}`);
    assert.deepEqual(comparable(actual.envelope), comparable(expected), line);
    if (line.includes("cjk.pdf")) {
      const output = (actual.envelope!.result as { output: string }).output;
      assert.equal((await Deno.readTextFile(`${bundled.path}/${output}`)).trim(), "中文汉字");
    }
  }
  assert.deepEqual(await treeOf(bundled.path), await treeOf(fromSource.path));
});

Deno.test("the bundled process merges as the real git does (the three-way merge loads lazily in its worker)", async () => {
  await using root = await makeRoot();
  await divergedRepository(root.path);
  const real = `${root.path}/real`;
  await git(root.path, "clone", "-q", "repo", "real");
  await git(real, "fetch", "-q", "origin", "side:side");
  await git(real, "merge", "-q", "--no-edit", "side");
  const merged = await cli(["exec", "--root", root.path, "git merge --repo repo side --author 'A <a@example.com>'"]);
  assert.equal(merged.envelope?.exit_code, 0, merged.stdout);
  assert.equal(await Deno.readTextFile(`${root.path}/repo/file.txt`), await Deno.readTextFile(`${real}/file.txt`));
  assert.equal(
    await git(`${root.path}/repo`, "rev-parse", "HEAD^{tree}"),
    await git(real, "rev-parse", "HEAD^{tree}"),
  );
  await git(`${root.path}/repo`, "fsck", "--strict");
});

Deno.test("the bundled process reads a remote's token from the secrets .env (dotenv, imported only then)", async () => {
  await using server = await startGitHttpServer({
    auth: { repos: ["private.git"], user: "bot", token: "s3cr3t-token" },
  });
  const bare = await server.createBare("private.git");
  await using root = await makeRoot();
  const seed = `${root.path}/seed`;
  await Deno.mkdir(seed);
  await git(seed, "init", "-q", "-b", "main");
  await Deno.writeTextFile(`${seed}/a.txt`, "private\n");
  await git(seed, "add", ".");
  await git(seed, "commit", "-q", "-m", "first");
  await git(seed, "push", "-q", bare, "main");
  await Deno.writeTextFile(
    `${root.path}/pterm.json`,
    JSON.stringify({ git: { remotes: { allow: [`${server.origin}/`] } } }),
  );
  const line = `git clone --url ${server.url("private.git")} --dir clone --confirm`;
  const refused = await cli(["exec", "--root", root.path, line]);
  assert.notEqual(refused.envelope?.exit_code, 0, "no token: refused");
  await Deno.mkdir(`${root.path}/skills/git/secrets`, { recursive: true });
  const key = `GIT_127_0_0_1_${server.port}`;
  await Deno.writeTextFile(`${root.path}/skills/git/secrets/.env`, `${key}_USER=bot\n${key}_TOKEN=s3cr3t-token\n`);
  const cloned = await cli(["exec", "--root", root.path, line]);
  assert.equal(cloned.envelope?.exit_code, 0, cloned.stdout);
  assert.equal(await Deno.readTextFile(`${root.path}/clone/a.txt`), "private\n");
  assert.doesNotMatch(cloned.stdout + cloned.stderr, /s3cr3t-token/);
  assert.ok(server.requests.some((r) => r.authorization === `Basic ${btoa("bot:s3cr3t-token")}`));
});
