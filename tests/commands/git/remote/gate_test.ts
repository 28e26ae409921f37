/**
 * What keeps git's network use to what the workspace's owner allowed: git.remotes, --confirm,
 * the schemes and URL shapes pterm refuses, redirects, and the host the kernel grants the worker.
 * Each refusal is checked to have sent nothing to the server.
 */

import assert from "node:assert/strict";
import { exec, makeRoot } from "../../../_support/helpers.ts";
import { grantedHosts, parseRemoteUrl, remoteVerdict } from "../../../../commands/git/remote/gate.ts";
import { startGitHttpServer } from "./http_server.ts";
import { allowedWorkspace, servedRepository } from "./fixture.ts";

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("git.remotes, --confirm and URL shapes: refused before anything is sent", async (t) => {
  await using server = await startGitHttpServer();
  await using work = await makeRoot();
  await servedRepository(server, "app.git", work.path);
  const url = server.url("app.git");

  await t.step("no git.remotes: NetworkDenied with the exact pterm.json lines", async () => {
    await using root = await makeRoot();
    const envelope = await exec(root.path, `git clone --url ${url} --dir app --confirm`);
    assert.equal(envelope.error_code, "NetworkDenied");
    assert.ok(envelope.stderr.includes(`"git": { "remotes": { "allow": ["${url}"] } }`), envelope.stderr);
    assert.equal(await exists(`${root.path}/app`), false);
    // The lines it prints do allow it.
    await Deno.writeTextFile(`${root.path}/pterm.json`, `{ "git": { "remotes": { "allow": ["${url}"] } } }\n`);
    const allowed = await exec(root.path, `git ls-remote --url ${url} --confirm`);
    assert.equal(allowed.exit_code, 0, allowed.stderr);
    // The prefix covers that repository only, not a sibling whose name starts the same.
    const sibling = await exec(root.path, `git ls-remote --url ${url.replace(/\.git$/, "")}-other.git --confirm`);
    assert.equal(sibling.error_code, "NetworkDenied");
  });

  const before = server.requests.length;
  await using root = await allowedWorkspace(server);

  await t.step("without --confirm: ConfirmRequired naming the remote and the action", async () => {
    const envelope = await exec(root.path, `git clone --url ${url} --dir app`);
    assert.equal(envelope.error_code, "ConfirmRequired");
    assert.match(
      envelope.stderr,
      /clone: copying http:\/\/127\.0\.0\.1:\d+\/app\.git into app: this reaches the network and needs --confirm/,
    );
    const listed = await exec(root.path, `git ls-remote --url ${url}`);
    assert.equal(listed.error_code, "ConfirmRequired");
  });

  await t.step("http needs a prefix that says http:// itself; deny wins", async () => {
    await using strict = await makeRoot();
    const httpsPrefix = server.origin.replace("http://", "https://");
    await Deno.writeTextFile(
      `${strict.path}/pterm.json`,
      `{ "git": { "remotes": { "allow": ["${httpsPrefix}/"] } } }\n`,
    );
    const envelope = await exec(strict.path, `git ls-remote --url ${url} --confirm`);
    assert.equal(envelope.error_code, "NetworkDenied");
    assert.match(envelope.stderr, /plain http is reachable only for hosts listed with http:\/\//);
    await Deno.writeTextFile(
      `${strict.path}/pterm.json`,
      JSON.stringify({ git: { remotes: { allow: [`${server.origin}/`], deny: [url] } } }),
    );
    const denied = await exec(strict.path, `git ls-remote --url ${url} --confirm`);
    assert.equal(denied.error_code, "NetworkDenied");
    assert.match(denied.stderr, /denied by git\.remotes\.deny/);
  });

  await t.step("file://, ssh://, git://, scp-like addresses: each refused with its own message", async () => {
    const cases: [string, RegExp][] = [
      [`file://${work.path}/x`, /file:\/\/ remotes are not supported/],
      ["ssh://git@127.0.0.1/app.git", /ssh:\/\/ remotes are not supported/],
      ["git://127.0.0.1/app.git", /git:\/\/ remotes are not supported/],
      ["git@127.0.0.1:org/app.git", /an ssh address/],
    ];
    for (const [remote, message] of cases) {
      const envelope = await exec(root.path, `git ls-remote --url ${remote} --confirm`);
      assert.equal(envelope.error_code, "NetworkDenied", remote);
      assert.match(envelope.stderr, message);
    }
  });

  await t.step("a URL with a user and token is refused and never repeated", async () => {
    const secret = "hunter2-token-value";
    const withToken = url.replace("http://", `http://agent:${secret}@`);
    const envelope = await exec(root.path, `git clone --url ${withToken} --dir app --confirm`);
    assert.equal(envelope.error_code, "InvalidArgs");
    assert.match(envelope.stderr, /skills\/git\/secrets\/\.env/);
    assert.ok(!JSON.stringify(envelope).includes(secret));
    // The command line is recorded in the audit log, with the URL's credentials blanked.
    let audit = "";
    for await (const day of Deno.readDir(`${root.path}/audit`)) {
      for await (const file of Deno.readDir(`${root.path}/audit/${day.name}`)) {
        if (file.name.startsWith(envelope.run_id)) {
          audit += await Deno.readTextFile(`${root.path}/audit/${day.name}/${file.name}`);
        }
      }
    }
    assert.ok(audit.includes("http://***@127.0.0.1"), audit.slice(0, 400));
    assert.ok(!audit.includes(secret));
  });

  await t.step("nothing reached the server", () => {
    assert.equal(server.requests.length, before);
  });

  await t.step("a redirect to another host is refused; the other host sees nothing", async () => {
    await using other = await startGitHttpServer();
    await servedRepository(other, "app.git", work.path);
    server.redirectTo = other.origin;
    const otherBefore = other.requests.length;
    const envelope = await exec(root.path, `git clone --url ${server.origin}/redirect/app.git --dir app --confirm`);
    assert.equal(envelope.error_code, "NetworkDenied");
    assert.match(envelope.stderr, /redirected to another host/);
    assert.equal(other.requests.length, otherBefore);
    assert.equal(server.requests.at(-1)?.status, 302);
    assert.equal(await exists(`${root.path}/app`), false);
  });

  await t.step("the kernel grants exactly the remote's host:port, and only with --confirm and an allowed URL", () => {
    const section = { remotes: { allow: [`${server.origin}/`], deny: [] } };
    const call = (flags: Record<string, unknown>) => ({ root: root.path, args: { flags } });
    assert.deepEqual(grantedHosts(section, call({ url, confirm: true })), [`127.0.0.1:${server.port}`]);
    assert.deepEqual(grantedHosts(section, call({ url })), []);
    assert.deepEqual(grantedHosts(section, call({ url: "https://example.com/x.git", confirm: true })), []);
    assert.deepEqual(grantedHosts({}, call({ url, confirm: true })), []);
    // With git.proxy, the proxy's host:port as well (the tunnel goes through it).
    assert.deepEqual(
      grantedHosts({ ...section, proxy: "http://127.0.0.1:3128" }, call({ url, confirm: true })),
      [`127.0.0.1:${server.port}`, "127.0.0.1:3128"],
    );
  });

  await t.step("an invalid git.remotes entry is InvalidConfig", async () => {
    await using bad = await makeRoot();
    await Deno.writeTextFile(`${bad.path}/pterm.json`, `{ "git": { "remotes": { "allow": ["ssh://host/x"] } } }\n`);
    const envelope = await exec(bad.path, `git ls-remote --url ${url} --confirm`);
    assert.equal(envelope.error_code, "InvalidConfig");
  });
});

Deno.test("git.remotes.deny matches every spelling a server takes for the same repository; allow stays literal", () => {
  const policy = { allow: ["https://git.example.com/"], deny: ["https://git.example.com/org/secret.git"] };
  for (
    const spelling of [
      "https://git.example.com/org/secret.git",
      "https://git.example.com/org/secret",
      "https://git.example.com/ORG/Secret.git",
      "https://git.example.com//org//secret.git",
      "https://git.example.com/org/%73ecret.git",
      "https://git.example.com/org/secret.git/",
    ]
  ) {
    assert.equal(remoteVerdict(parseRemoteUrl(spelling), policy).kind, "denied", spelling);
  }
  for (const other of ["https://git.example.com/org/secret-notes.git", "https://git.example.com/org/secretx"]) {
    assert.equal(remoteVerdict(parseRemoteUrl(other), policy).kind, "allowed", other);
  }
  // An allow prefix admits only its own spelling: another case is another path until the owner lists it.
  const narrow = { allow: ["https://git.example.com/org/"], deny: [] };
  assert.equal(remoteVerdict(parseRemoteUrl("https://git.example.com/ORG/app.git"), narrow).kind, "unlisted");
});
