/**
 * The IRC connection, in a Worker whose Deno permissions allow only `net` to the configured
 * `IRC_SERVER:IRC_PORT` (no files, no env, no processes): a bug in this code, or a hostile
 * server, cannot reach anything else. The daemon starts one worker per connection and
 * terminates it when the connection ends.
 *
 * A small client of our own over Deno.connect / Deno.connectTls (see README.md for why not
 * irc-framework). This file is the worker's message loop and the `Connection` that composes the
 * parts, routing each line from the server to the part it concerns:
 *
 * - connection_dial.ts: opening the socket (TCP, TLS, pinned TLS) and naming its failures;
 * - connection_link.ts: the socket as lines (queued writes, framed reads) and the keepalive;
 * - connection_registration.ts: PASS, CAP (sasl, server-time), SASL PLAIN, NICK/USER, our nick;
 * - connection_nickserv.ts: NickServ IDENTIFY, to a verified NickServ only;
 * - connection_channels.ts: the case mapping, JOIN with a key, channels and their members;
 * - connection_sends.ts: throttled sends confirmed by a PING round trip, so that the server's
 *   refusals (401, 404, ...) reach the caller.
 *
 * Reconnecting (with its back-off) is the daemon's (session.ts): a worker holds one connection.
 */

import type { ConnectionOptions, FromConnection, InboundMessage, ToConnection } from "./connection_protocol.ts";
import type { LastError } from "./daemon_protocol.ts";
import { formatLine, type IrcMessage, isChannelName, nickOf, parseLine } from "./protocol.ts";
import type { ByteConn } from "./pinned_tls.ts";
import { describeConnectError, dial } from "./connection_dial.ts";
import { type ConnectionLink, Keepalive, LineFramer, LineWriter } from "./connection_link.ts";
import { Registration } from "./connection_registration.ts";
import { NickServ } from "./connection_nickserv.ts";
import { Channels } from "./connection_channels.ts";
import { Sends } from "./connection_sends.ts";

const QUIT_GRACE_MS = 1_000;

const scope = globalThis as unknown as {
  postMessage(message: FromConnection): void;
  onmessage: ((event: MessageEvent<ToConnection>) => void) | null;
};

function post(message: FromConnection): void {
  scope.postMessage(message);
}

class Connection {
  readonly #options: ConnectionOptions;
  readonly #writer: LineWriter;
  readonly #keepalive: Keepalive;
  readonly #channels: Channels;
  readonly #registration: Registration;
  readonly #nickserv: NickServ;
  readonly #sends: Sends;
  #closed = false;
  #quitting = false;
  #fatal: LastError | null = null;

  constructor(options: ConnectionOptions) {
    this.#options = options;
    const link: ConnectionLink = {
      options,
      write: (line) => this.#writer.write(line),
      post,
      fail: (error) => this.#fail(error),
      isClosed: () => this.#closed,
    };
    this.#writer = new LineWriter(link.isClosed);
    this.#keepalive = new Keepalive(link);
    this.#channels = new Channels(link, () => this.#registration.nick);
    const fold = (name: string) => this.#channels.fold(name);
    this.#registration = new Registration(link, fold, () => this.#identifyAndJoin());
    this.#nickserv = new NickServ(link, fold);
    this.#sends = new Sends(link, this.#channels, () => this.#registration.registered);
  }

  async run(): Promise<void> {
    post({ type: "connecting" });
    let conn: ByteConn;
    try {
      conn = await dial(this.#options);
    } catch (error) {
      this.#finish(describeConnectError(error, this.#options));
      return;
    }
    this.#writer.attach(conn);
    this.#registration.start();
    this.#keepalive.start();
    await this.#readLoop(conn);
  }

  /** Once registered: identify (when NickServ is verified) before joining, as a +R channel admits identified users only. */
  #identifyAndJoin(): void {
    const o = this.#options;
    void this.#nickserv.identify(this.#registration.saslDone).finally(() => {
      if (!this.#closed) this.#channels.join(o.channel, o.channelKey);
    });
  }

  async #readLoop(conn: ByteConn): Promise<void> {
    const buffer = new Uint8Array(64 * 1024);
    const framer = new LineFramer();
    try {
      while (true) {
        const n = await conn.read(buffer);
        if (n === null) break;
        this.#keepalive.heard();
        const inbound: InboundMessage[] = [];
        for (const line of framer.lines(buffer.subarray(0, n))) this.#handle(line, inbound);
        if (inbound.length > 0) post({ type: "inbound", messages: inbound });
        if (this.#closed) return;
      }
      this.#finish(
        this.#quitting
          ? null
          : this.#fatal ?? { error_code: "ConnectionLost", message: "the IRC server closed the connection" },
      );
    } catch (error) {
      if (this.#closed) return;
      this.#finish(
        this.#fatal ?? {
          error_code: "ConnectionLost",
          message: `the connection to the IRC server broke: ${(error as Error).message}`,
        },
      );
    }
  }

  #handle(line: string, inbound: InboundMessage[]): void {
    try {
      const message = parseLine(line);
      if (message) this.#route(message, inbound);
    } catch {
      // A line this client cannot make sense of is skipped; it must not end the connection.
    }
  }

  /** One line from the server, to the part it concerns; conversation text is added to `inbound`. */
  #route(message: IrcMessage, inbound: InboundMessage[]): void {
    const p = message.params;
    switch (message.command) {
      case "PING":
        this.#writer.write(formatLine("PONG", p.length ? [p[p.length - 1].replace(/[\0\r\n]/g, "")] : []));
        return;
      case "PONG":
        this.#sends.onPong(p[p.length - 1]);
        return;
      case "CAP":
        this.#registration.onCap(message);
        return;
      case "AUTHENTICATE":
        this.#registration.onAuthenticate(p);
        return;
      case "903":
        this.#registration.onSaslSuccess();
        return;
      case "902":
      case "904":
      case "905":
      case "906":
        this.#registration.onSaslFailure();
        return;
      case "001":
        this.#registration.onWelcome(p[0] ?? this.#registration.nick);
        return;
      case "005":
        this.#channels.onIsupport(p);
        return;
      case "303": // ISON: which of the nicks asked about are online
        this.#registration.onIson(p[p.length - 1] ?? "");
        return;
      case "353": // NAMES: params me, symbol, channel, names
        this.#channels.onNames(p[2], p[3] ?? "");
        return;
      case "311": // WHOIS user: me, nick, user, host, *, realname
      case "313": // WHOIS: is an IRC operator / a network service
      case "320": // WHOIS: extra information (some servers say "is a network service" here)
      case "318": // end of WHOIS
        this.#nickserv.onWhois(message);
        return;
      case "QUIT":
        this.#channels.onQuit(nickOf(message.prefix));
        this.#registration.reclaimIfFreed(nickOf(message.prefix));
        return;
      case "433":
      case "436":
        this.#registration.onNickInUse();
        return;
      case "432":
        this.#registration.onNickRejected();
        return;
      case "464":
        this.#registration.onPasswordRejected();
        return;
      case "465":
        this.#fail({ error_code: "Banned", message: "the IRC server says this client is banned" });
        return;
      case "ERROR":
        this.#fatal ??= this.#registration.closingError(p[0] ?? "");
        return;
      case "JOIN":
        this.#channels.onJoin(message);
        return;
      case "PART":
      case "KICK":
        this.#channels.onLeave(message);
        return;
      case "NICK":
        if (p[0]) this.#channels.onRename(nickOf(message.prefix), p[0]);
        this.#registration.onNickChange(nickOf(message.prefix), p[0]);
        return;
      case "PRIVMSG":
      case "NOTICE": {
        const text = conversationText(message);
        if (text) inbound.push(text);
        return;
      }
    }
    if (this.#channels.onJoinError(message)) return;
    if (this.#nickserv.onNoSuchNick(message)) return;
    this.#sends.onErrorNumeric(message);
  }

  send(id: number, target: string, texts: readonly string[], join?: { channel: string; key?: string }): void {
    this.#sends.send(id, target, texts, join);
  }

  cancel(id: number): void {
    this.#sends.cancel(id);
  }

  /** Ends the connection because of `error`. */
  #fail(error: LastError): void {
    if (this.#closed) return;
    this.#fatal ??= error;
    this.#writer.write(formatLine("QUIT", ["pterm: " + error.error_code]));
    this.#finish(this.#fatal);
  }

  async quit(message: string): Promise<void> {
    if (this.#closed) {
      post({ type: "closed", error: null });
      return;
    }
    this.#quitting = true;
    await this.#writer.write(formatLine("QUIT", [message]));
    // The server answers QUIT by closing; the read loop then finishes. Do not wait for ever.
    setTimeout(() => this.#finish(null), QUIT_GRACE_MS);
  }

  #finish(error: LastError | null): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#registration.stop();
    this.#keepalive.stop();
    this.#nickserv.stop();
    this.#channels.abandonJoins(error ?? { error_code: "ConnectionLost", message: "the connection closed" });
    this.#sends.connectionEnded(error);
    // Let queued writes (a QUIT) go out before the socket closes.
    this.#writer.closeWhenWritten();
    post({ type: "closed", error });
  }
}

/** PRIVMSG or NOTICE from a user as the conversation's text (a /me as an action); nothing for other CTCP or a server's notice. */
function conversationText(message: IrcMessage): InboundMessage | null {
  const [target, rawText] = message.params;
  if (!target || rawText === undefined || !message.prefix?.includes("!")) return null; // server notices
  const nick = nickOf(message.prefix);
  let text = rawText;
  let kind: InboundMessage["kind"] = message.command === "NOTICE" ? "notice" : "privmsg";
  if (text.startsWith("\x01")) {
    // deno-lint-ignore no-control-regex
    const body = text.slice(1).replace(/\x01$/, "");
    const space = body.indexOf(" ");
    const ctcp = (space < 0 ? body : body.slice(0, space)).toUpperCase();
    // Only /me is conversation; other CTCP (VERSION, DCC, ...) is a non-goal and is dropped.
    if (ctcp !== "ACTION" || message.command !== "PRIVMSG") return null;
    kind = "action";
    text = space < 0 ? "" : body.slice(space + 1);
  }
  const conversation = isChannelName(target) ? target : nick;
  const serverTime = message.tags["time"];
  return { conversation, nick, text, kind, ...(serverTime ? { serverTime } : {}) };
}

let connection: Connection | null = null;

scope.onmessage = (event) => {
  const message = event.data;
  switch (message.type) {
    case "start":
      if (connection) return;
      connection = new Connection(message.options);
      void connection.run();
      break;
    case "send":
      if (!connection) {
        post({
          type: "sent",
          id: message.id,
          report: {
            delivery: "not_sent",
            lines: message.texts.length,
            linesWritten: 0,
            linesConfirmed: 0,
            failure: { code: "NotConnected", message: "not connected" },
          },
        });
      } else connection.send(message.id, message.target, message.texts, message.join);
      break;
    case "cancel":
      connection?.cancel(message.id);
      break;
    case "quit":
      if (connection) void connection.quit(message.message);
      else post({ type: "closed", error: null });
      break;
  }
};
