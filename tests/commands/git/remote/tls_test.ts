/**
 * https with a certificate authority of the server's own: refused until git.ca_file names it
 * (with a message saying so, and the token not sent), then clone, fetch and push work and agree
 * with the real git given the same CA.
 */

import assert from "node:assert/strict";
import { assertFsck, git, gitRaw } from "../oracle.ts";
import { exec, execOk, makeRoot } from "../../../_support/helpers.ts";
import { startGitHttpServer } from "./http_server.ts";
import { makeCertificates } from "./tls.ts";
import { startConnectProxy } from "./connect_proxy.ts";

Deno.test("https with a self-signed CA: refused without git.ca_file, then clone and push work", async () => {
  const certificates = await makeCertificates();
  const token = "tls-token-8d7f6e5a";
  await using server = await startGitHttpServer({
    tls: { cert: certificates.cert, key: certificates.key },
    auth: { repos: ["app.git"], user: "agent", token },
  });
  await using work = await makeRoot();
  await Deno.writeTextFile(`${work.path}/ca.pem`, certificates.ca);
  await server.createBare("app.git");
  const src = `${work.path}/src`;
  await git(work.path, "init", "--quiet", "--initial-branch=main", src);
  await Deno.writeTextFile(`${src}/a.txt`, "over tls\n");
  await git(src, "add", "-A");
  await git(src, "commit", "--quiet", "-m", "first");
  const url = server.url("app.git");
  const withToken = url.replace("https://", `https://agent:${token}@`);
  await git(src, "-c", `http.sslCAInfo=${work.path}/ca.pem`, "push", "--quiet", withToken, "main");

  await using root = await makeRoot();
  await Deno.mkdir(`${root.path}/certs`);
  await Deno.writeTextFile(`${root.path}/certs/ca.pem`, certificates.ca);
  await Deno.mkdir(`${root.path}/skills/git/secrets`, { recursive: true });
  await Deno.writeTextFile(
    `${root.path}/skills/git/secrets/.env`,
    `GIT_127_0_0_1_${server.port}_USER=agent\nGIT_127_0_0_1_${server.port}_TOKEN=${token}\n`,
  );
  const config = (extra: Record<string, unknown>) =>
    Deno.writeTextFile(
      `${root.path}/pterm.json`,
      JSON.stringify({ git: { remotes: { allow: [`${server.origin}/`] }, ...extra } }),
    );

  await config({});
  const before = server.requests.length;
  const refused = await exec(root.path, `git clone --url ${url} --dir app --confirm`);
  assert.equal(refused.error_code, "RemoteError");
  assert.match(refused.stderr, /certificate is not trusted/);
  assert.match(refused.stderr, /git\.ca_file/);
  assert.ok(!JSON.stringify(refused).includes(token));
  assert.equal(server.requests.length, before); // the handshake failed: no request, no token sent

  await config({ ca_file: "certs/ca.pem" });
  await execOk(root.path, `git clone --url ${url} --dir app --confirm`);
  const mine = `${root.path}/app`;
  assert.equal(await Deno.readTextFile(`${mine}/a.txt`), "over tls\n");
  await assertFsck(mine);
  await Deno.writeTextFile(`${mine}/b.txt`, "pushed over tls\n");
  await execOk(root.path, "git add --repo app --path b.txt");
  await execOk(root.path, 'git commit --repo app -m "second"');
  await execOk(root.path, "git push --repo app --confirm");
  const back = await gitRaw(work.path, [
    "-c",
    `http.sslCAInfo=${work.path}/ca.pem`,
    "clone",
    "--quiet",
    withToken,
    "back",
  ]);
  assert.equal(back.code, 0, back.stderr);
  assert.equal(await Deno.readTextFile(`${work.path}/back/b.txt`), "pushed over tls\n");

  await config({ ca_file: "certs/missing.pem" });
  const missing = await exec(root.path, "git fetch --repo app --confirm");
  assert.equal(missing.error_code, "InvalidConfig");
});

Deno.test("git.proxy: https through a CONNECT proxy with its credentials from the .env", async () => {
  const certificates = await makeCertificates();
  await using server = await startGitHttpServer({ tls: { cert: certificates.cert, key: certificates.key } });
  await using proxy = startConnectProxy({ user: "proxyuser", password: "proxy-pass-5c4b3a" });
  await using work = await makeRoot();
  await server.createBare("app.git");
  const src = `${work.path}/src`;
  await git(work.path, "init", "--quiet", "--initial-branch=main", src);
  await Deno.writeTextFile(`${src}/a.txt`, "through a proxy\n");
  await git(src, "add", "-A");
  await git(src, "commit", "--quiet", "-m", "first");
  await Deno.writeTextFile(`${work.path}/ca.pem`, certificates.ca);
  await git(src, "-c", `http.sslCAInfo=${work.path}/ca.pem`, "push", "--quiet", server.url("app.git"), "main");

  await using root = await makeRoot();
  await Deno.mkdir(`${root.path}/certs`);
  await Deno.writeTextFile(`${root.path}/certs/ca.pem`, certificates.ca);
  await Deno.writeTextFile(
    `${root.path}/pterm.json`,
    JSON.stringify({ git: { remotes: { allow: [`${server.origin}/`] }, ca_file: "certs/ca.pem", proxy: proxy.url } }),
  );
  const url = server.url("app.git");
  const without = await exec(root.path, `git ls-remote --url ${url} --confirm`);
  assert.equal(without.error_code, "RemoteError", without.stderr);
  assert.match(without.stderr, /the proxy \(git\.proxy\) refused .*GIT_PROXY_USER/s);
  assert.equal(proxy.tunnels.at(-1)?.allowed, false);

  await Deno.mkdir(`${root.path}/skills/git/secrets`, { recursive: true });
  await Deno.writeTextFile(
    `${root.path}/skills/git/secrets/.env`,
    "GIT_PROXY_USER=proxyuser\nGIT_PROXY_PASSWORD=proxy-pass-5c4b3a\n",
  );
  const envelope = await execOk(root.path, `git clone --url ${url} --dir app --confirm`);
  assert.equal(await Deno.readTextFile(`${root.path}/app/a.txt`), "through a proxy\n");
  assert.ok(proxy.tunnels.some((t) => t.allowed && t.target === `127.0.0.1:${server.port}`));
  await assertFsck(`${root.path}/app`);
  assert.ok(!JSON.stringify([without, envelope]).includes("proxy-pass-5c4b3a"));
  const config = await Deno.readTextFile(`${root.path}/app/.git/config`);
  assert.ok(!config.includes("proxy-pass") && !config.includes(proxy.url));
});
