/**
 * Opening the socket to the IRC server (TCP, TLS against the system's or IRC_TLS_CA_FILE's
 * roots, or TLS pinned to IRC_TLS_FINGERPRINT), each step within its time limit, and what a
 * failure to connect is called in `irc status`.
 */

import type { ConnectionOptions } from "./connection_protocol.ts";
import type { LastError } from "./daemon_protocol.ts";
import { type ByteConn, connectPinned, FingerprintMismatch } from "./pinned_tls.ts";

/** The socket to the server named by `o`, or a ConnectTimeout, TlsNoAnswer or the platform's error. */
export async function dial(o: ConnectionOptions): Promise<ByteConn> {
  if (o.tls && o.tlsFingerprint) {
    return await withTimeout(
      connectPinned(o.server, o.port, o.tlsFingerprint),
      o.connectTimeoutMs,
      () => new TlsNoAnswer(),
      (late) => late.close(),
    );
  }
  if (!o.tls) {
    return await withTimeout(
      Deno.connect({ hostname: o.server, port: o.port }),
      o.connectTimeoutMs,
      () => new ConnectTimeout(),
      (late) => late.close(),
    );
  }
  const conn = await withTimeout(
    Deno.connectTls({ hostname: o.server, port: o.port, caCerts: o.caPem ? [o.caPem] : undefined }),
    o.connectTimeoutMs,
    () => new ConnectTimeout(),
    (late) => late.close(),
  );
  try {
    // A TLS server answers a ClientHello at once; a plaintext IRC port waits for a line that
    // never comes. So the handshake gets its own, shorter limit and a precise message.
    await withTimeout(
      conn.handshake(),
      Math.min(TLS_HANDSHAKE_TIMEOUT_MS, o.connectTimeoutMs),
      () => new TlsNoAnswer(),
    );
  } catch (error) {
    conn.close();
    throw error;
  }
  return conn;
}

class ConnectTimeout extends Error {}
class TlsNoAnswer extends Error {}

/** How long the server has to answer our TLS ClientHello. */
const TLS_HANDSHAKE_TIMEOUT_MS = 3_000;

/** `promise`, or the error `onTimeout` makes after `ms`; a value that arrives late goes to `discard`. */
async function withTimeout<T>(
  promise: Promise<T>,
  ms: number,
  onTimeout: () => Error,
  discard: (late: T) => void = () => {},
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timedOut = false;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      reject(onTimeout());
    }, ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
    promise.then((value) => {
      if (timedOut) discard(value);
    }, () => {});
  }
}

export function describeConnectError(error: unknown, o: ConnectionOptions): LastError {
  const where = `${o.server}:${o.port}`;
  if (error instanceof ConnectTimeout) {
    return {
      error_code: "ConnectTimeout",
      message: `connecting to ${where} took longer than ${o.connectTimeoutMs} ms`,
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof FingerprintMismatch) {
    return {
      error_code: "TlsCertificateInvalid",
      message: `${error.message}, not the one IRC_TLS_FINGERPRINT pins: the server's certificate changed, or ` +
        "this is not the server you meant; nothing was sent to it",
    };
  }
  if (error instanceof TlsNoAnswer) {
    return {
      error_code: "TlsHandshakeFailed",
      message: `${where} accepted the connection but did not answer the TLS handshake within ` +
        `${TLS_HANDSHAKE_TIMEOUT_MS} ms: IRC_PORT is probably a plaintext port (use the server's TLS port, or IRC_TLS=0)`,
    };
  }
  if (/InvalidContentType|corrupt message|wrong version number|record overflow/i.test(message)) {
    return {
      error_code: "TlsHandshakeFailed",
      message: `${where} answered the TLS handshake with something that is not TLS (${message}): IRC_PORT is ` +
        "probably a plaintext port (use the server's TLS port, or IRC_TLS=0)",
    };
  }
  if (/CaUsedAsEndEntity/i.test(message)) {
    return {
      error_code: "TlsCertificateInvalid",
      message: `the TLS certificate of ${where} is itself a CA certificate (basicConstraints CA:TRUE, as a bare ` +
        "`openssl req -x509` makes), and a CA certificate is refused as a server's own certificate even when " +
        "it is in IRC_TLS_CA_FILE. Give the server a certificate with CA:FALSE (e.g. signed by that CA, or " +
        "`openssl req -x509 -addext basicConstraints=critical,CA:FALSE ...`) and set IRC_TLS_CA_FILE to it, or " +
        "pin this certificate with IRC_TLS_FINGERPRINT (its SHA-256: " +
        "`openssl x509 -in cert.pem -noout -fingerprint -sha256`)",
    };
  }
  if (error instanceof Deno.errors.ConnectionRefused) {
    return { error_code: "ConnectionRefused", message: `${where} refused the connection (is the IRC server up?)` };
  }
  if (/certificate|UnknownIssuer|CaUsedAsEndEntity|NotValidForName|Expired/i.test(message)) {
    return {
      error_code: "TlsCertificateInvalid",
      message: `the TLS certificate of ${where} is not trusted (${message}); if the server uses a private CA, ` +
        "set IRC_TLS_CA_FILE to its PEM file in the .env",
    };
  }
  if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
    return { error_code: "NetworkDenied", message: `the connection worker may not reach ${where}: ${message}` };
  }
  if (/tls|handshake|alert/i.test(message)) {
    return { error_code: "TlsHandshakeFailed", message: `the TLS handshake with ${where} failed (${message})` };
  }
  return { error_code: "ConnectFailed", message: `connecting to ${where} failed: ${message}` };
}
