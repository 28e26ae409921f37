/**
 * The JSON-lines protocol between the `irc` commands and `pterm irc-daemon`, over the Unix
 * socket `<root>/sessions/<session>/irc.sock` (owner-only). One request per connection: the
 * client writes one JSON object and a newline, the daemon answers with one JSON object and a
 * newline and closes. Every message carries `v` (the protocol version); a daemon answers a
 * version it does not speak with an error instead of guessing. See commands/irc/README.md.
 *
 *   → {"v":1,"op":"status"}
 *   → {"v":1,"op":"send","to":null|"#chan"|"nick","text":"…","confirm":false}
 *   → {"v":1,"op":"pull","from":null|"#chan"|"nick","limit":100}
 *   → {"v":1,"op":"commit","from":"#chan","cursor_after":"15"}
 *   ← {"v":1,"ok":true,"result":{…}}
 *   ← {"v":1,"ok":false,"error":{"code":"NotConnected","message":"…","result":{…}?}}
 *
 * Nothing secret ever crosses this socket: the daemon holds the credentials.
 */

import type { ErrorCode } from "../../core/errors.ts";

export const PROTOCOL_VERSION = 1;

/** The socket's file name inside the session folder. */
export const SOCKET_NAME = "irc.sock";
/** Held (flock) for the daemon's whole life: a second daemon for the session cannot take it. */
export const LOCK_NAME = "irc.lock";
/** The daemon's own files (message logs, cursors) inside the session folder. */
export const STATE_DIR = "irc";

/** Largest request or response line, in bytes. */
export const MAX_FRAME_BYTES = 4 * 1024 * 1024;

/** The longest text one `irc send` may carry (a few dozen IRC lines). */
export const MAX_SEND_TEXT_BYTES = 16 * 1024;

export type IrcState = "not_initialized" | "connecting" | "connected" | "joined" | "error";
export type Indicator = "red" | "yellow" | "green";

/** The Chat-tab light of a state: red idle/error, yellow on the way, green joined. */
export function indicatorFor(state: IrcState): Indicator {
  if (state === "joined") return "green";
  if (state === "connecting") return "yellow";
  return "red";
}

export interface LastError {
  readonly error_code: string;
  readonly message: string;
}

export type DaemonRequest =
  | { readonly v: 1; readonly op: "status" }
  | { readonly v: 1; readonly op: "send"; readonly to: string | null; readonly text: string; readonly confirm: boolean }
  | { readonly v: 1; readonly op: "pull"; readonly from: string | null; readonly limit: number }
  | { readonly v: 1; readonly op: "commit"; readonly from: string; readonly cursor_after: string };

export interface StatusFields {
  state: IrcState;
  indicator: Indicator;
  server: string;
  port: number;
  tls: boolean;
  /** The nick in use; a fallback (IRC_NICK1...) while IRC_NICK is taken, reclaimed when it frees. */
  nick: string;
  configured_nick: string;
  channel: string;
  case_mapping: string;
  /** Whether NickServ IDENTIFY was sent, and why (or why it was skipped). */
  nickserv?: { identified: boolean; reason: string };
  last_error?: LastError;
  /** Connections made since the daemon started (1 while one connection is reused). */
  connection_count: number;
  auto_forward: boolean;
}

export interface SendFields {
  to: string;
  message_len: number;
  lines: number;
  delivery: "delivered";
  lines_written: number;
  lines_confirmed: number;
  /** Members of the target channel other than us when the message went out. */
  channel_members?: number;
  session_bound: true;
  connected: boolean;
  joined_default_channel: boolean;
  reconnected: boolean;
}

export type MessageKind = "privmsg" | "notice" | "action";

/** One stored inbound message (also one line of the conversation's JSONL log). */
export interface StoredMessage {
  /** Position in its conversation, counting from 1; the cursor of `irc pull` is such an id. */
  id: string;
  /** When the daemon received it (ISO 8601). */
  ts: string;
  /** The server's `time` tag, when the server offers IRCv3 server-time. */
  server_time?: string;
  nick: string;
  text: string;
  kind: MessageKind;
}

export interface PullFields {
  from: string;
  messages: StoredMessage[];
  cursor_before: string | null;
  /** Messages past the cursor that the ring buffer lost before this pull. */
  dropped_count: number;
  /** New messages left for the next pull (beyond --limit). */
  remaining: number;
  state: IrcState;
}

export type DaemonResponse =
  | { readonly v: 1; readonly ok: true; readonly result: Record<string, unknown> }
  | {
    readonly v: 1;
    readonly ok: false;
    readonly error: { readonly code: ErrorCode; readonly message: string; readonly result?: Record<string, unknown> };
  };
