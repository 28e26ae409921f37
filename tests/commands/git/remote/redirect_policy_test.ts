/**
 * git.remotes on every URL the transport touches: a server on an allowed path answering 301 to a
 * path of the same host that pterm.json denies (or does not allow) is refused before anything is
 * sent there — for clone, fetch and push — with the target's policy named and no token echoed;
 * the denied path receives no request at all (the server's log says so), and real git afterwards
 * finds nothing half-made: no clone folder, the fetching repository's refs and files unchanged,
 * the denied repository untouched by the push. Credentials go only inside the allow prefix that
 * admitted the remote they were read for.
 */

import assert from "node:assert/strict";
import type { Envelope } from "../../../../core/envelope.ts";
import { assertFsck, git } from "../oracle.ts";
import { exec, execOk, makeRoot, type TempDir } from "../../../_support/helpers.ts";
import { type GitHttpServer, startGitHttpServer } from "./http_server.ts";
import { servedRepository } from "./fixture.ts";

const TOKEN = 'glpat-R3dir/ect"Tok3n';

/** A workspace whose pterm.json holds `remotes` and, with `token`, a token for the server's host. */
async function workspace(server: GitHttpServer, remotes: Record<string, string[]>, token: boolean): Promise<TempDir> {
  const root = await makeRoot();
  await Deno.writeTextFile(`${root.path}/pterm.json`, JSON.stringify({ git: { remotes } }, null, 2) + "\n");
  if (token) {
    await Deno.mkdir(`${root.path}/skills/git/secrets`, { recursive: true });
    await Deno.writeTextFile(
      `${root.path}/skills/git/secrets/.env`,
      `GIT_127_0_0_1_${server.port}_TOKEN='${TOKEN}'\n`,
    );
  }
  return root;
}

/** The requests the server received under `prefix` (path). */
function requestsUnder(server: GitHttpServer, prefix: string) {
  return server.requests.filter((r) => r.path.startsWith(prefix));
}

function assertNoTokenIn(envelope: Envelope): void {
  const text = JSON.stringify(envelope);
  for (const spelling of [TOKEN, btoa(`git:${TOKEN}`), encodeURIComponent(TOKEN), JSON.stringify(TOKEN).slice(1, -1)]) {
    assert.ok(!text.includes(spelling), `the envelope holds the token: ${text.slice(0, 400)}`);
  }
}

/** The names at the root of the workspace, pterm's own state and configuration left out. */
async function workspaceEntries(root: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(root)) names.push(entry.name);
  return names.filter((n) => !["pterm.json", "skills", "audit", "cache"].includes(n)).sort();
}

Deno.test("a same-host redirect to a denied path: clone, fetch and push refused before a request reaches it", async (t) => {
  await using server = await startGitHttpServer();
  await using work = await makeRoot();
  await servedRepository(server, "app.git", work.path);
  // The denied path serves a real repository: were the redirect followed, the clone would succeed from it.
  const deniedBare = `${server.projectRoot}/denied/app.git`;
  await servedRepository(server, "denied/app.git", work.path);
  const deniedRefs = await git(deniedBare, "for-each-ref", "--format=%(refname) %(objectname)");
  server.redirectTo = `${server.origin}/denied`;
  server.redirectStatus = 301;
  // From here on the server's log holds only what pterm sends (the setup pushed through it).
  server.requests.length = 0;
  await using root = await workspace(
    server,
    { allow: [`${server.origin}/`], deny: [`${server.origin}/denied/`] },
    true,
  );
  const redirecting = `${server.origin}/redirect/app.git`;
  const deniedUrl = `${server.origin}/denied/app.git`;

  const assertRefusedByDeny = (envelope: Envelope) => {
    assert.equal(envelope.error_code, "NetworkDenied", envelope.stderr);
    assert.ok(envelope.stderr.includes(`redirected to ${deniedUrl}`), envelope.stderr);
    assert.ok(envelope.stderr.includes(`git.remotes.deny ("${server.origin}/denied/")`), envelope.stderr);
    assert.match(envelope.stderr, /nothing was sent to it/);
    assertNoTokenIn(envelope);
    assert.deepEqual(requestsUnder(server, "/denied/"), [], "the denied path received a request");
  };

  await t.step("clone: refused, nothing reaches the denied path, no folder is left", async () => {
    const before = await workspaceEntries(root.path);
    const envelope = await exec(root.path, `git clone --url ${redirecting} --dir app --confirm`);
    assertRefusedByDeny(envelope);
    // The allowed front did get the token: the refusal is the redirect's, not a missing credential.
    const front = requestsUnder(server, "/redirect/");
    assert.ok(front.length > 0 && front.every((r) => r.status === 301 && r.authorization !== null));
    assert.deepEqual(await workspaceEntries(root.path), before, "a clone folder (or its hidden build) was left");
    // Retrying the same call is refused the same way.
    assertRefusedByDeny(await exec(root.path, `git clone --url ${redirecting} --dir app --confirm`));
  });

  // A repository cloned from the allowed path, whose origin the owner then points at the redirecting front.
  await execOk(root.path, `git clone --url ${server.url("app.git")} --dir proj --confirm`);
  const proj = `${root.path}/proj`;
  await git(proj, "config", "remote.origin.url", redirecting);
  const refsBefore = await git(proj, "for-each-ref", "--format=%(refname) %(objectname)");

  await t.step("fetch: refused, refs and work tree as they were", async () => {
    assertRefusedByDeny(await exec(root.path, "git fetch --repo proj --confirm"));
    assert.equal(await git(proj, "for-each-ref", "--format=%(refname) %(objectname)"), refsBefore);
    assert.equal(await git(proj, "status", "--porcelain"), "");
    await assertFsck(proj);
  });

  await t.step("push: refused, the denied repository untouched, the local one unchanged", async () => {
    await Deno.writeTextFile(`${proj}/pushed.txt`, "should not leave\n");
    await git(proj, "add", "pushed.txt");
    await git(proj, "commit", "--quiet", "-m", "not to be pushed");
    const localRefs = await git(proj, "for-each-ref", "--format=%(refname) %(objectname)");
    assertRefusedByDeny(await exec(root.path, "git push --repo proj --confirm"));
    assert.equal(await git(deniedBare, "for-each-ref", "--format=%(refname) %(objectname)"), deniedRefs);
    assert.equal(await git(proj, "for-each-ref", "--format=%(refname) %(objectname)"), localRefs);
    assert.equal(await git(proj, "status", "--porcelain"), "");
    await assertFsck(proj);
  });

  await t.step("another spelling of the denied path (another case, a doubled slash) is denied too", async () => {
    for (const spelling of [`${server.origin}/Denied`, `${server.origin}//denied`]) {
      server.redirectTo = spelling;
      const envelope = await exec(root.path, `git clone --url ${redirecting} --dir app --confirm`);
      assert.equal(envelope.error_code, "NetworkDenied", envelope.stderr);
      assert.match(envelope.stderr, /git\.remotes\.deny/);
      assert.deepEqual(
        server.requests.filter((r) => /^\/+denied\//i.test(r.path)),
        [],
        `${spelling} received a request`,
      );
    }
    server.redirectTo = `${server.origin}/denied`;
  });
});

Deno.test("a same-host redirect outside git.remotes.allow is refused, naming the allow list", async () => {
  await using server = await startGitHttpServer();
  await using work = await makeRoot();
  await servedRepository(server, "other/app.git", work.path);
  server.redirectTo = `${server.origin}/other`;
  server.redirectStatus = 301;
  server.requests.length = 0;
  await using root = await workspace(server, { allow: [`${server.origin}/redirect/`], deny: [] }, true);
  const envelope = await exec(root.path, `git clone --url ${server.origin}/redirect/app.git --dir app --confirm`);
  assert.equal(envelope.error_code, "NetworkDenied", envelope.stderr);
  assert.ok(
    envelope.stderr.includes(`redirected to ${server.origin}/other/app.git, which is not in git.remotes.allow`),
    envelope.stderr,
  );
  assertNoTokenIn(envelope);
  assert.deepEqual(requestsUnder(server, "/other/"), []);
  assert.deepEqual(await workspaceEntries(root.path), []);
});

Deno.test("credentials stay inside the allow prefix that admitted the remote; without any, an allowed redirect is followed", async (t) => {
  await using server = await startGitHttpServer();
  await using work = await makeRoot();
  await servedRepository(server, "public/app.git", work.path);
  server.redirectTo = `${server.origin}/public`;
  server.redirectStatus = 301;
  server.requests.length = 0;
  const remotes = { allow: [`${server.origin}/redirect/`, `${server.origin}/public/`], deny: [] };

  await t.step("with a token: refused before the other prefix sees a request", async () => {
    await using root = await workspace(server, remotes, true);
    const envelope = await exec(root.path, `git clone --url ${server.origin}/redirect/app.git --dir app --confirm`);
    assert.equal(envelope.error_code, "NetworkDenied", envelope.stderr);
    assert.match(envelope.stderr, /does not carry its credentials there/);
    assertNoTokenIn(envelope);
    assert.deepEqual(requestsUnder(server, "/public/"), []);
    assert.deepEqual(await workspaceEntries(root.path), []);
  });

  await t.step("without one: the redirect is followed and the clone is the real git's", async () => {
    await using root = await workspace(server, remotes, false);
    await execOk(root.path, `git clone --url ${server.origin}/redirect/app.git --dir app --confirm`);
    assert.ok(requestsUnder(server, "/public/").every((r) => r.authorization === null));
    assert.equal(
      await git(`${root.path}/app`, "rev-parse", "HEAD"),
      await git(`${server.projectRoot}/public/app.git`, "rev-parse", "main"),
    );
    await assertFsck(`${root.path}/app`);
  });
});
