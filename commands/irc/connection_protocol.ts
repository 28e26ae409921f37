/** Messages between the daemon and the worker that owns the IRC connection (see connection_worker.ts). */

import type { LastError } from "./daemon_protocol.ts";
import type { CaseMapping } from "./protocol.ts";

export interface ConnectionOptions {
  readonly server: string;
  readonly port: number;
  readonly tls: boolean;
  readonly caPem?: string;
  /** IRC_TLS_FINGERPRINT (64 lower-case hex digits): accept exactly the certificate with this SHA-256. */
  readonly tlsFingerprint?: string;
  readonly nick: string;
  readonly username: string;
  readonly realname: string;
  readonly channel: string;
  readonly channelKey?: string;
  readonly serverPassword?: string;
  readonly nickservPassword?: string;
  /**
   * IRC_NICKSERV_HOSTMASK: a `nick!user@host` glob the real NickServ matches. Without it NickServ
   * counts as verified only when WHOIS shows it is a network service or an IRC operator.
   */
  readonly nickservHostmask?: string;
  readonly sasl?: { readonly username: string; readonly password: string };
  readonly sendBurst: number;
  readonly sendIntervalMs: number;
  /** TCP connect plus TLS handshake. */
  readonly connectTimeoutMs: number;
  /**
   * Keepalive (IRC_KEEPALIVE_MS): PING after this much silence from the server, give up after
   * twice as long, checked every sixth of it — with the default 30 s a dead link (or a frozen
   * server) is noticed within about 65 s and the status turns red.
   */
  readonly keepaliveMs: number;
  /** From connected to the server's welcome (001). */
  readonly registerTimeoutMs: number;
}

export type ToConnection =
  | { readonly type: "start"; readonly options: ConnectionOptions }
  | {
    readonly type: "send";
    readonly id: number;
    readonly target: string;
    readonly texts: readonly string[];
    /** Join this channel first (and wait for the server's answer) unless already in it. */
    readonly join?: { readonly channel: string; readonly key?: string };
  }
  /** The caller is gone (timeout, client closed): write no more lines of this send. */
  | { readonly type: "cancel"; readonly id: number }
  | { readonly type: "quit"; readonly message: string };

export interface InboundMessage {
  /** The channel, or the sender's nick for a private message. */
  readonly conversation: string;
  readonly nick: string;
  /** As received: the daemon sanitises it before storing. */
  readonly text: string;
  readonly kind: "privmsg" | "notice" | "action";
  readonly serverTime?: string;
}

export type FromConnection =
  | { readonly type: "connecting" }
  | { readonly type: "registered"; readonly nick: string }
  | { readonly type: "nick"; readonly nick: string }
  /** Our own `nick!user@host`, as the server shows it to others (sizes the PRIVMSG split). */
  | { readonly type: "prefix"; readonly prefix: string }
  | { readonly type: "joined"; readonly channel: string }
  | { readonly type: "left"; readonly channel: string; readonly error: LastError }
  | { readonly type: "join_failed"; readonly channel: string; readonly error: LastError }
  | { readonly type: "inbound"; readonly messages: readonly InboundMessage[] }
  | { readonly type: "sent"; readonly id: number; readonly report: SendReport }
  /** The server's ISUPPORT CASEMAPPING. */
  | { readonly type: "casemapping"; readonly mapping: CaseMapping }
  /** Why NickServ IDENTIFY was or was not sent (shown by `irc status`). */
  | { readonly type: "nickserv"; readonly identified: boolean; readonly reason: string }
  /** The connection is over (error: why, null after our own QUIT). The worker can be terminated. */
  | { readonly type: "closed"; readonly error: LastError | null };

/**
 * What is known about one send. `delivered`: every line written and the server confirmed them
 * (its PONG came back with no refusal). `not_sent`: no line reached the socket. `rejected`: the
 * server refused the lines. `unknown`: some lines were written but not confirmed — they may have
 * been delivered.
 */
export type Delivery = "delivered" | "not_sent" | "rejected" | "unknown";

export interface SendReport {
  readonly delivery: Delivery;
  /** PRIVMSG lines this send consisted of. */
  readonly lines: number;
  /** Lines written whole to the socket. */
  readonly linesWritten: number;
  /** Lines the server confirmed (its PONG after them, no refusal). */
  readonly linesConfirmed: number;
  /** Members of the target channel other than us when the first line went out (channels only). */
  readonly channelMembers?: number;
  readonly failure?: SendFailure;
}

export interface SendFailure {
  /** NotConnected, NotJoined, NotFound (no such nick/channel), SendRejected, or Internal (a bug). */
  readonly code: "NotConnected" | "NotJoined" | "NotFound" | "SendRejected" | "Timeout" | "Internal";
  readonly message: string;
}
