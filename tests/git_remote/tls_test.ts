/**
 * https with a certificate authority of the server's own: refused until git.ca_file names it
 * (with a message saying so, and the token not sent), then clone, fetch and push work and agree
 * with the real git given the same CA.
 */

import assert from "node:assert/strict";
import { assertFsck, git, gitRaw } from "../git/oracle.ts";
import { exec, execOk, makeRoot } from "../helpers.ts";
import { startGitHttpServer } from "./http_server.ts";
import { makeCertificates } from "./tls.ts";

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
