/**
 * Connection set-up against ngIRCd: TLS trusted through IRC_TLS_CA_FILE, a clear error (not
 * a hang) for an untrusted certificate, a wrong server password, and a channel key.
 */

import assert from "node:assert/strict";
import { join } from "../../../core/fs/path.ts";
import { exec, execOk, makeRoot } from "../../_support/helpers.ts";
import { plainEnv, startDaemon, writeEnv } from "./harness.ts";
import { startNgircd } from "./ngircd.ts";
import { Peer } from "./peer.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

interface LastError {
  error_code: string;
  message: string;
}

Deno.test("irc over TLS: trusted through IRC_TLS_CA_FILE; untrusted fails fast and clearly", options, async (t) => {
  await using server = await startNgircd();

  await t.step("with the CA: connected over TLS, messages flow", async () => {
    await using dir = await makeRoot();
    const envPath = await writeEnv(
      dir.path,
      plainEnv(server, {
        IRC_PORT: server.tlsPort,
        IRC_TLS: 1,
        IRC_TLS_CA_FILE: "ca.pem",
      }),
    );
    await Deno.writeTextFile(join(envPath, "..", "ca.pem"), server.caPem);
    await using _daemon = await startDaemon(dir.path);
    const peer = await Peer.connect(server.plainPort, "alice", server.password);
    try {
      await peer.join("#lemon");
      const status = await execOk(dir.path, "irc status");
      assert.equal(status.result?.state, "joined");
      assert.equal(status.result?.tls, true);
      assert.equal(status.result?.port, server.tlsPort);
      assert.match(status.stdout, /\(TLS\)/);
      await execOk(dir.path, 'irc send --text "over tls"');
      await peer.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "over tls");
    } finally {
      await peer.close();
    }
  });

  await t.step("without the CA: TlsCertificateInvalid in last_error, send fails", async () => {
    await using dir = await makeRoot();
    await writeEnv(dir.path, plainEnv(server, { IRC_PORT: server.tlsPort, IRC_TLS: 1 }));
    await using _daemon = await startDaemon(dir.path);
    const started = Date.now();
    const status = await execOk(dir.path, "irc status");
    assert.equal(status.result?.state, "error");
    assert.equal(status.result?.indicator, "red");
    const error = status.result?.last_error as LastError;
    assert.equal(error.error_code, "TlsCertificateInvalid");
    assert.match(error.message, /not trusted .*UnknownIssuer.*IRC_TLS_CA_FILE/);
    const send = await exec(dir.path, 'irc send --text "x"');
    assert.equal(send.error_code, "NotConnected");
    assert.match(send.stderr, /TlsCertificateInvalid/);
    assert.ok(Date.now() - started < 20_000, "no hang");
  });

  await t.step("IRC_TLS_CA_FILE that cannot be read: InvalidConfig naming the key", async () => {
    await using dir = await makeRoot();
    await writeEnv(
      dir.path,
      plainEnv(server, { IRC_PORT: server.tlsPort, IRC_TLS: 1, IRC_TLS_CA_FILE: "missing.pem" }),
    );
    await using _daemon = await startDaemon(dir.path);
    const envelope = await exec(dir.path, "irc status");
    assert.equal(envelope.error_code, "InvalidConfig");
    assert.match(envelope.stderr, /IRC_TLS_CA_FILE/);
  });
});

Deno.test("irc: wrong server password and channel keys", options, async (t) => {
  await using server = await startNgircd();

  await t.step("a wrong IRC_SERVER_PASSWORD: ServerPasswordRejected", async () => {
    await using dir = await makeRoot();
    await writeEnv(dir.path, plainEnv(server, { IRC_SERVER_PASSWORD: "not-the-password" }));
    await using daemon = await startDaemon(dir.path);
    const status = await execOk(dir.path, "irc status");
    assert.equal(status.result?.state, "error");
    assert.equal((status.result?.last_error as LastError).error_code, "ServerPasswordRejected");
    assert.ok(!JSON.stringify(status).includes("not-the-password"));
    assert.ok(!daemon.stderr().includes("not-the-password"));
  });

  const peer = await Peer.connect(server.plainPort, "keeper", server.password);
  try {
    await peer.join("#locked");
    await peer.raw("MODE #locked +k s3cret-key");
    await peer.sync();

    await t.step("a keyed channel without IRC_CHANNEL_KEY: connected, BadChannelKey, send NotJoined", async () => {
      await using dir = await makeRoot();
      await writeEnv(dir.path, plainEnv(server, { IRC_CHANNEL: "#locked", IRC_NICK: "nokey" }));
      await using _daemon = await startDaemon(dir.path);
      const status = await execOk(dir.path, "irc status");
      assert.equal(status.result?.state, "connected");
      assert.equal(status.result?.indicator, "red");
      assert.equal((status.result?.last_error as LastError).error_code, "BadChannelKey");
      const send = await exec(dir.path, 'irc send --text "let me in"');
      assert.equal(send.error_code, "NotJoined");
    });

    await t.step("with IRC_CHANNEL_KEY: joined", async () => {
      await using dir = await makeRoot();
      await writeEnv(dir.path, plainEnv(server, { IRC_CHANNEL: "#locked", IRC_CHANNEL_KEY: "s3cret-key" }));
      await using _daemon = await startDaemon(dir.path);
      assert.equal((await execOk(dir.path, "irc status")).result?.state, "joined");
      await execOk(dir.path, 'irc send --text "in"');
      await peer.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "in");
    });
  } finally {
    await peer.close();
  }
});

Deno.test("irc TLS: a self-signed certificate, TLS against a plaintext port", options, async (t) => {
  for (const kind of ["ca", "leaf"] as const) {
    await t.step(`a self-signed ${kind === "ca" ? "CA:TRUE" : "CA:FALSE"} certificate in IRC_TLS_CA_FILE`, async () => {
      await using server = await startNgircd({ selfSigned: kind });
      await using dir = await makeRoot();
      const envPath = await writeEnv(
        dir.path,
        plainEnv(server, { IRC_PORT: server.tlsPort, IRC_TLS: 1, IRC_TLS_CA_FILE: "self.pem" }),
      );
      await Deno.writeTextFile(join(envPath, "..", "self.pem"), server.caPem);
      await using _daemon = await startDaemon(dir.path);
      const status = await execOk(dir.path, "irc status");
      if (kind === "leaf") {
        // Pinning by file: the certificate itself is the one trust anchor.
        assert.equal(status.result?.state, "joined", JSON.stringify(status.result));
        return;
      }
      const error = status.result?.last_error as LastError;
      assert.equal(error.error_code, "TlsCertificateInvalid");
      // Not "set IRC_TLS_CA_FILE" (it is set): what is wrong with the certificate, and what to do.
      assert.match(error.message, /is itself a CA certificate .*CA:FALSE/);
      assert.doesNotMatch(error.message, /if the server uses a private CA/);
    });
  }

  await t.step("IRC_TLS_FINGERPRINT pins a self-signed CA:TRUE certificate; a wrong pin sends nothing", async () => {
    await using server = await startNgircd({ selfSigned: "ca" });
    const fingerprint = await sha256Fingerprint(server.caPem);
    for (const pin of [fingerprint, "00".repeat(32)]) {
      const logBefore = server.log().length;
      await using dir = await makeRoot();
      await writeEnv(dir.path, plainEnv(server, { IRC_PORT: server.tlsPort, IRC_TLS: 1, IRC_TLS_FINGERPRINT: pin }));
      await using _daemon = await startDaemon(dir.path);
      const status = await execOk(dir.path, "irc status");
      if (pin === fingerprint) {
        assert.equal(status.result?.state, "joined", JSON.stringify(status.result));
        continue;
      }
      const error = status.result?.last_error as LastError;
      assert.equal(error.error_code, "TlsCertificateInvalid");
      assert.match(error.message, /not the one IRC_TLS_FINGERPRINT pins/);
      // The server never saw a registration from this client (nothing is written before the check).
      // (The first client's disconnect may still be logged after logBefore: only a registration counts.)
      assert.doesNotMatch(server.log().slice(logBefore), /User "ptermbot![^"]*" registered/);
    }
  });

  await t.step("IRC_TLS=1 against the plaintext port: TlsHandshakeFailed in seconds, not retried", async () => {
    await using server = await startNgircd();
    await using dir = await makeRoot();
    await writeEnv(dir.path, plainEnv(server, { IRC_TLS: 1 }));
    await using _daemon = await startDaemon(dir.path);
    const status = await execOk(dir.path, "irc status");
    const error = status.result?.last_error as LastError;
    assert.equal(error.error_code, "TlsHandshakeFailed");
    assert.match(error.message, /plaintext port/);
    const send = await exec(dir.path, 'irc send --text "x"');
    assert.equal(send.error_code, "NotConnected");
    assert.match(send.stderr, /\(1 attempt; not retried: another attempt cannot fix this\): TlsHandshakeFailed/);
  });
});

/** The SHA-256 fingerprint of a PEM certificate, as `openssl x509 -fingerprint -sha256` prints it. */
async function sha256Fingerprint(pem: string): Promise<string> {
  const child = new Deno.Command("openssl", {
    args: ["x509", "-noout", "-fingerprint", "-sha256"],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(pem));
  await writer.close();
  const out = new TextDecoder().decode((await child.output()).stdout);
  return out.trim().split("=")[1];
}
