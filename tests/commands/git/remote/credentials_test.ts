/**
 * Tokens and failures: the token from skills/git/secrets/.env reaches the server and nothing
 * else — not the envelope, the audit log, .git/config, reflogs or any file pterm wrote — after a
 * success and after each failure (401, wrong token, 404, the server closing mid-pack, a pack too
 * large, a tree with a `.git` entry). Every failed clone leaves no folder behind.
 */

import assert from "node:assert/strict";
import type { Envelope } from "../../../../core/envelope.ts";
import { assertFsck, git } from "../oracle.ts";
import { exec, execOk, makeRoot } from "../../../_support/helpers.ts";
import { startGitHttpServer } from "./http_server.ts";
import { allowedWorkspace, servedRepository } from "./fixture.ts";

const USER = "agent";
const TOKEN = "glpat-Zq8vX2mN4pR7tY1w";

/** Every file under `dir`, with its bytes as latin1 text (so any byte sequence can be searched). */
async function allFiles(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (path: string) => {
    for await (const entry of Deno.readDir(path)) {
      const full = `${path}/${entry.name}`;
      if (entry.isDirectory) await walk(full);
      else if (entry.isFile) out.set(full, new TextDecoder("latin1").decode(await Deno.readFile(full)));
    }
  };
  await walk(dir);
  return out;
}

/** No spelling of the token anywhere pterm wrote or answered, except the .env it came from. */
async function assertNoToken(root: string, envelopes: Envelope[], secrets: string[]): Promise<void> {
  const spellings = secrets.flatMap((s) => [s, btoa(`${USER}:${s}`), encodeURIComponent(s)]);
  const files = await allFiles(root);
  assert.ok([...files.keys()].some((p) => p.includes("/audit/")), "the audit log was searched");
  for (const [path, text] of files) {
    if (path.endsWith("skills/git/secrets/.env")) continue;
    for (const s of spellings) assert.ok(!text.includes(s), `${path} holds the token`);
  }
  for (const envelope of envelopes) {
    const text = JSON.stringify(envelope);
    for (const s of spellings) assert.ok(!text.includes(s), `the envelope holds the token: ${text.slice(0, 300)}`);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("a token from skills/git/secrets/.env, and every failure, leave no trace of it", async (t) => {
  await using server = await startGitHttpServer({
    auth: { repos: ["private.git"], user: USER, token: TOKEN },
    forbidden: ["forbidden.git"],
  });
  await using work = await makeRoot();
  await servedRepository(server, "app.git", work.path);
  // The private repository is filled through the token too (the real git, userinfo on its command line).
  await server.createBare("private.git");
  const privateUrl = server.url("private.git");
  await git(
    `${work.path}/${server.port}-app-src`,
    "push",
    "--quiet",
    privateUrl.replace("http://", `http://${USER}:${TOKEN}@`),
    "main",
  );
  await using root = await allowedWorkspace(server);
  const envPath = `${root.path}/skills/git/secrets/.env`;
  const key = `GIT_127_0_0_1_${server.port}`;
  const envelopes: Envelope[] = [];
  const run = async (line: string) => {
    const envelope = await exec(root.path, line);
    envelopes.push(envelope);
    return envelope;
  };

  await t.step("no token: AuthFailed saying which key of which file to fill", async () => {
    const envelope = await run(`git clone --url ${privateUrl} --dir private --confirm`);
    assert.equal(envelope.error_code, "AuthFailed");
    assert.ok(envelope.stderr.includes(`skills/git/secrets/.env as ${key}_TOKEN=...`), envelope.stderr);
    assert.equal(await exists(`${root.path}/private`), false);
  });

  await t.step("a wrong token: AuthFailed, and the wrong token is not repeated either", async () => {
    await Deno.mkdir(`${root.path}/skills/git/secrets`, { recursive: true });
    await Deno.writeTextFile(envPath, `${key}_USER=${USER}\n${key}_TOKEN=wrong-${TOKEN}\n`);
    const envelope = await run(`git clone --url ${privateUrl} --dir private --confirm`);
    assert.equal(envelope.error_code, "AuthFailed");
    assert.match(envelope.stderr, /refused the ones pterm sent/);
    await assertNoToken(root.path, envelopes, [`wrong-${TOKEN}`]);
  });

  await t.step("the right token: the clone works; the token went only to the server", async () => {
    await Deno.writeTextFile(envPath, `# the git host of the tests\n${key}_USER=${USER}\n${key}_TOKEN="${TOKEN}"\n`);
    const envelope = await run(`git clone --url ${privateUrl} --dir private --confirm`);
    assert.equal(envelope.exit_code, 0, envelope.stderr);
    assert.ok(server.requests.some((r) => r.authorization === "Basic " + btoa(`${USER}:${TOKEN}`)));
    assert.equal(await git(`${root.path}/private`, "config", "remote.origin.url"), `${privateUrl}\n`);
    await assertFsck(`${root.path}/private`);
    await run("git log --repo private --max 1");
    await assertNoToken(root.path, envelopes, [TOKEN]);
  });

  await t.step("push and fetch with the token: accepted, and still no trace of it", async () => {
    await Deno.writeTextFile(`${root.path}/private/pushed.txt`, "pushed\n");
    await run("git add --repo private --path pushed.txt");
    await run('git commit --repo private -m "pushed with a token"');
    const pushed = await run("git push --repo private --confirm");
    assert.equal(pushed.exit_code, 0, pushed.stderr);
    assert.equal(
      await git(`${server.projectRoot}/private.git`, "rev-parse", "main"),
      await git(`${root.path}/private`, "rev-parse", "HEAD"),
    );
    const fetched = await run("git fetch --repo private --confirm");
    assert.equal(fetched.exit_code, 0, fetched.stderr);
    await assertNoToken(root.path, envelopes, [TOKEN]);
  });

  await t.step("403: AuthFailed naming the token's key; nothing created", async () => {
    await server.createBare("forbidden.git");
    const envelope = await run(`git clone --url ${server.url("forbidden.git")} --dir forbidden --confirm`);
    assert.equal(envelope.error_code, "AuthFailed");
    assert.match(envelope.stderr, new RegExp(`HTTP 403.*${key}_TOKEN`, "s"));
    assert.equal(await exists(`${root.path}/forbidden`), false);
    await assertNoToken(root.path, envelopes, [TOKEN]);
  });

  await t.step("404: NotFound, nothing created", async () => {
    const envelope = await run(`git clone --url ${server.url("missing.git")} --dir missing --confirm`);
    assert.equal(envelope.error_code, "NotFound");
    assert.equal(await exists(`${root.path}/missing`), false);
  });

  await t.step("the server closing mid-pack: RemoteError, no folder, no pack left anywhere", async () => {
    const full = envelopes.find((e) =>
      e.exit_code === 0 && (e.result as { command?: string })?.command === "git clone"
    )!;
    const packBytes = (full.result as { transfer: { bytes: number } }).transfer.bytes;
    // Inside the protocol's preamble, in the middle of the pack, and just before its checksum ends.
    for (const cut of [30, Math.floor(packBytes / 2), packBytes]) {
      server.cutNextFetchAfter = cut;
      const envelope = await run(`git clone --url ${privateUrl} --dir cut --confirm`);
      assert.equal(envelope.error_code, "RemoteError", `cut at ${cut}: ${envelope.stderr}`);
      assert.match(envelope.stderr, /broke off/);
      assert.equal(await exists(`${root.path}/cut`), false);
    }
    await assertNoToken(root.path, envelopes, [TOKEN]);
  });

  await t.step("a pack over git.max_fetch_bytes: InputTooLarge, nothing created", async () => {
    await using small = await allowedWorkspace(server, { max_fetch_bytes: 2000 });
    const envelope = await exec(small.path, `git clone --url ${server.url("app.git")} --dir app --confirm`);
    assert.equal(envelope.error_code, "InputTooLarge");
    assert.match(envelope.stderr, /git\.max_fetch_bytes/);
    assert.equal(await exists(`${small.path}/app`), false);
  });

  await t.step("a redirect within the same host is followed, as git's http.followRedirects=initial", async () => {
    server.redirectTo = server.origin;
    await execOk(root.path, `git clone --url ${server.origin}/redirect/app.git --dir via-redirect --confirm`);
    assert.equal(
      await git(`${root.path}/via-redirect`, "rev-parse", "HEAD"),
      await git(`${server.projectRoot}/app.git`, "rev-parse", "main"),
    );
  });
});

Deno.test("a tree with a .git entry served by a real git server is refused; nothing is created", async () => {
  await using server = await startGitHttpServer();
  await using root = await allowedWorkspace(server);
  const bare = await server.createBare("evil.git");
  // Built with the real git's plumbing, as a hostile or broken tool would write it.
  const blob = new TextEncoder().encode("#!/bin/sh\necho owned\n");
  const child = new Deno.Command("git", {
    args: ["hash-object", "-w", "--stdin"],
    cwd: bare,
    stdin: "piped",
    stdout: "piped",
  })
    .spawn();
  const writer = child.stdin.getWriter();
  await writer.write(blob);
  await writer.close();
  const blobOid = new TextDecoder().decode((await child.output()).stdout).trim();
  const mktree = async (lines: string) => {
    const p = new Deno.Command("git", { args: ["mktree"], cwd: bare, stdin: "piped", stdout: "piped" }).spawn();
    const w = p.stdin.getWriter();
    await w.write(new TextEncoder().encode(lines));
    await w.close();
    return new TextDecoder().decode((await p.output()).stdout).trim();
  };
  const hooks = await mktree(`100755 blob ${blobOid}\tpost-checkout\n`);
  const dotGit = await mktree(`040000 tree ${hooks}\thooks\n`);
  const top = await mktree(`040000 tree ${dotGit}\t.git\n100644 blob ${blobOid}\tREADME\n`);
  const commit = (await git(bare, "commit-tree", "-m", "evil", top)).trim();
  await git(bare, "update-ref", "refs/heads/main", commit);
  const envelope = await exec(root.path, `git clone --url ${server.url("evil.git")} --dir evil --confirm`);
  assert.equal(envelope.error_code, "InvalidPath", envelope.stderr);
  assert.match(envelope.stderr, /\.git/);
  assert.equal(await exists(`${root.path}/evil`), false);
});
