/** Messages between the daemon and the worker that owns the IRC connection (see connection_worker.ts). */

import type { LastError } from "./daemon_protocol.ts";

export interface ConnectionOptions {
  readonly server: string;
  readonly port: number;
  readonly tls: boolean;
  readonly caPem?: string;
  readonly nick: string;
  readonly username: string;
  readonly realname: string;
  readonly channel: string;
  readonly channelKey?: string;
  readonly serverPassword?: string;
  readonly nickservPassword?: string;
  readonly sasl?: { readonly username: string; readonly password: string };
  readonly sendBurst: number;
  readonly sendIntervalMs: number;
  /** TCP connect plus TLS handshake. */
  readonly connectTimeoutMs: number;
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
  | { readonly type: "sent"; readonly id: number; readonly failure?: SendFailure }
  /** The connection is over (error: why, null after our own QUIT). The worker can be terminated. */
  | { readonly type: "closed"; readonly error: LastError | null };

export interface SendFailure {
  /** NotConnected, NotJoined, NotFound (no such nick/channel), SendRejected, or Internal (a bug). */
  readonly code: "NotConnected" | "NotJoined" | "NotFound" | "SendRejected" | "Internal";
  readonly message: string;
}
