/**
 * The IRC connection, in a Worker whose Deno permissions allow only `net` to the configured
 * `IRC_SERVER:IRC_PORT` (no files, no env, no processes): a bug in this code, or a hostile
 * server, cannot reach anything else. The daemon starts one worker per connection and
 * terminates it when the connection ends.
 *
 * A small client of our own over Deno.connect / Deno.connectTls (see README.md for why not
 * irc-framework): registration with PASS, CAP (sasl, server-time), SASL PLAIN, NickServ
 * IDENTIFY, JOIN with a key, PING/PONG, inbound PRIVMSG/NOTICE, and throttled sends confirmed
 * by a PING round trip so that the server's refusals (401, 404, ...) reach the caller.
 */

import type {
  ConnectionOptions,
  FromConnection,
  InboundMessage,
  SendFailure,
  ToConnection,
} from "./connection_protocol.ts";
import type { LastError } from "./daemon_protocol.ts";
import { foldName, formatLine, type IrcMessage, isChannelName, nickOf, parseLine } from "./protocol.ts";
import { LineThrottle } from "./throttle.ts";
import { concatBytes } from "../../core/bytes.ts";

/** Longest inbound line kept (IRCv3 allows 8191 bytes of tags plus 512 of message). */
const MAX_INBOUND_LINE_BYTES = 16 * 1024;
/**
 * How long after our last line the server has to answer a send's PING: a base, plus time per
 * line, because servers process a client's lines at their own pace (ngIRCd: a few per second).
 */
const SEND_CONFIRM_BASE_MS = 15_000;
const SEND_CONFIRM_PER_LINE_MS = 2_000;
const JOIN_TIMEOUT_MS = 10_000;
const QUIT_GRACE_MS = 1_000;
/** Keepalive: PING after this much silence, give up after twice as long. */
const IDLE_PING_MS = 90_000;

const JOIN_ERRORS: Readonly<Record<string, string>> = {
  "403": "NoSuchChannel",
  "405": "TooManyChannels",
  "471": "ChannelFull",
  "473": "InviteOnly",
  "474": "Banned",
  "475": "BadChannelKey",
  "476": "BadChannelMask",
  "477": "RegistrationRequired",
  "489": "SecureOnly",
};

/** Replies that mean a PRIVMSG was not delivered. */
const SEND_ERRORS: Readonly<Record<string, SendFailure["code"]>> = {
  "401": "NotFound",
  "403": "NotFound",
  "404": "SendRejected",
  "407": "SendRejected",
  "411": "SendRejected",
  "412": "SendRejected",
  "413": "SendRejected",
  "414": "SendRejected",
  "437": "SendRejected",
  "486": "SendRejected",
  "489": "SendRejected",
};

const scope = globalThis as unknown as {
  postMessage(message: FromConnection): void;
  onmessage: ((event: MessageEvent<ToConnection>) => void) | null;
};

function post(message: FromConnection): void {
  scope.postMessage(message);
}

const encoder = new TextEncoder();

class Connection {
  readonly #options: ConnectionOptions;
  #conn: Deno.Conn | null = null;
  #nick: string;
  #nickAttempt = 0;
  #registered = false;
  #closed = false;
  #quitting = false;
  #fatal: LastError | null = null;
  #capBuffer: string[] = [];
  #saslDone = false;
  readonly #joined = new Set<string>();
  readonly #joinWaiters = new Map<string, (error: LastError | null) => void>();
  readonly #throttle: LineThrottle;
  #writeChain: Promise<void> = Promise.resolve();
  #sendChain: Promise<void> = Promise.resolve();
  #inFlight: { errors: SendFailure[]; token: string; resolve: () => void } | null = null;
  #lastReceived = Date.now();
  #keepalive: ReturnType<typeof setInterval> | undefined;
  #registerTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(options: ConnectionOptions) {
    this.#options = options;
    this.#nick = options.nick;
    this.#throttle = new LineThrottle({ burst: options.sendBurst, intervalMs: options.sendIntervalMs });
  }

  async run(): Promise<void> {
    post({ type: "connecting" });
    try {
      this.#conn = await this.#connect();
    } catch (error) {
      this.#finish(describeConnectError(error, this.#options));
      return;
    }
    this.#registerTimer = setTimeout(() => {
      if (!this.#registered) {
        this.#fail({
          error_code: "RegisterTimeout",
          message: `the IRC server did not complete registration within ${this.#options.registerTimeoutMs} ms`,
        });
      }
    }, this.#options.registerTimeoutMs);
    this.#keepalive = setInterval(() => this.#checkAlive(), IDLE_PING_MS / 3);
    const o = this.#options;
    this.#write(formatLine("CAP", ["LS", "302"]));
    if (o.serverPassword) this.#write(formatLine("PASS", [o.serverPassword]));
    this.#write(formatLine("NICK", [this.#nick]));
    this.#write(formatLine("USER", [o.username, "0", "*", o.realname]));
    await this.#readLoop(this.#conn);
  }

  async #connect(): Promise<Deno.Conn> {
    const o = this.#options;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let timedOut = false;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        reject(new ConnectTimeout());
      }, o.connectTimeoutMs);
    });
    const connecting = (async (): Promise<Deno.Conn> => {
      if (!o.tls) return await Deno.connect({ hostname: o.server, port: o.port });
      const tls = await Deno.connectTls({
        hostname: o.server,
        port: o.port,
        caCerts: o.caPem ? [o.caPem] : undefined,
      });
      try {
        await tls.handshake();
      } catch (error) {
        tls.close();
        throw error;
      }
      return tls;
    })();
    try {
      return await Promise.race([connecting, timeout]);
    } finally {
      clearTimeout(timer);
      connecting.then((conn) => {
        if (timedOut) conn.close(); // it connected after we gave up
      }, () => {});
    }
  }

  async #readLoop(conn: Deno.Conn): Promise<void> {
    const buffer = new Uint8Array(64 * 1024);
    const decoder = new TextDecoder();
    let pending = new Uint8Array(0);
    let discarding = false;
    try {
      while (true) {
        const n = await conn.read(buffer);
        if (n === null) break;
        this.#lastReceived = Date.now();
        let data = concatBytes([pending, buffer.subarray(0, n)]);
        const inbound: InboundMessage[] = [];
        let start = 0;
        for (let i = 0; i < data.length; i++) {
          if (data[i] !== 0x0a) continue;
          const end = i > start && data[i - 1] === 0x0d ? i - 1 : i;
          if (!discarding) this.#handle(decoder.decode(data.subarray(start, end)), inbound);
          discarding = false;
          start = i + 1;
        }
        data = data.subarray(start);
        if (data.length > MAX_INBOUND_LINE_BYTES) {
          // A line this long is not IRC; drop it up to its end instead of buffering without bound.
          discarding = true;
          data = new Uint8Array(0);
        }
        pending = data.slice();
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
      this.#dispatch(line, inbound);
    } catch {
      // A line this client cannot make sense of is skipped; it must not end the connection.
    }
  }

  #dispatch(line: string, inbound: InboundMessage[]): void {
    const message = parseLine(line);
    if (!message) return;
    const p = message.params;
    switch (message.command) {
      case "PING":
        this.#write(formatLine("PONG", p.length ? [p[p.length - 1].replace(/[\0\r\n]/g, "")] : []));
        return;
      case "PONG": {
        const token = p[p.length - 1];
        if (this.#inFlight && token === this.#inFlight.token) this.#inFlight.resolve();
        return;
      }
      case "CAP":
        this.#onCap(message);
        return;
      case "AUTHENTICATE":
        if (p[0] === "+" && this.#options.sasl) this.#sendSaslPlain();
        return;
      case "903":
        this.#saslDone = true;
        this.#write(formatLine("CAP", ["END"]));
        return;
      case "902":
      case "904":
      case "905":
      case "906":
        this.#fail({
          error_code: "SaslFailed",
          message: "SASL PLAIN authentication failed; check IRC_SASL_USERNAME / IRC_SASL_PASSWORD (or " +
            "IRC_NICKSERV_PASSWORD) in the .env",
        });
        return;
      case "001":
        this.#onWelcome(p[0] ?? this.#nick);
        return;
      case "433":
      case "436":
        if (!this.#registered) this.#nextNick();
        return;
      case "432":
        if (!this.#registered) {
          this.#fail({ error_code: "NickRejected", message: "the IRC server rejected IRC_NICK as an invalid nick" });
        }
        return;
      case "464":
        this.#fail({
          error_code: "ServerPasswordRejected",
          message: "the IRC server rejected the connection password; check IRC_SERVER_PASSWORD in the .env",
        });
        return;
      case "465":
        this.#fail({ error_code: "Banned", message: "the IRC server says this client is banned" });
        return;
      case "ERROR": {
        const reason = p[0] ?? "";
        // Some servers (ngIRCd) refuse a bad PASS with only `ERROR :Access denied: Bad password?`.
        this.#fatal ??= !this.#registered && /password/i.test(reason)
          ? {
            error_code: "ServerPasswordRejected",
            message:
              `the IRC server rejected the connection password (${reason}); check IRC_SERVER_PASSWORD in the .env`,
          }
          : { error_code: "ServerClosed", message: `the IRC server closed the link: ${reason}` };
        return;
      }
      case "JOIN":
        this.#onJoin(message);
        return;
      case "PART":
      case "KICK":
        this.#onLeave(message);
        return;
      case "NICK":
        if (foldName(nickOf(message.prefix)) === foldName(this.#nick) && p[0]) {
          this.#nick = p[0];
          post({ type: "nick", nick: this.#nick });
        }
        return;
      case "PRIVMSG":
      case "NOTICE":
        this.#onText(message, inbound);
        return;
    }
    const joinError = JOIN_ERRORS[message.command];
    if (joinError && p[1] && this.#joinWaiters.has(foldName(p[1]))) {
      this.#settleJoin(p[1], { error_code: joinError, message: `joining ${p[1]} failed: ${p[p.length - 1]}` });
      return;
    }
    const sendError = SEND_ERRORS[message.command];
    if (sendError && this.#inFlight) {
      this.#inFlight.errors.push({ code: sendError, message: `${p.slice(1).join(": ")}` });
    }
  }

  #onCap(message: IrcMessage): void {
    const p = message.params;
    const sub = (p[1] ?? "").toUpperCase();
    if (sub === "LS") {
      const more = p[2] === "*";
      this.#capBuffer.push(...(p[p.length - 1] ?? "").split(" ").filter(Boolean));
      if (more) return;
      const offered = new Map(this.#capBuffer.map((c) => {
        const eq = c.indexOf("=");
        return eq < 0 ? [c, ""] as const : [c.slice(0, eq), c.slice(eq + 1)] as const;
      }));
      this.#capBuffer = [];
      const wanted: string[] = [];
      const sasl = offered.get("sasl");
      if (this.#options.sasl && sasl !== undefined && (sasl === "" || sasl.split(",").includes("PLAIN"))) {
        wanted.push("sasl");
      }
      if (offered.has("server-time")) wanted.push("server-time");
      if (wanted.length === 0) this.#write(formatLine("CAP", ["END"]));
      else this.#write(formatLine("CAP", ["REQ", wanted.join(" ")]));
    } else if (sub === "ACK") {
      const acked = (p[p.length - 1] ?? "").split(" ");
      if (acked.includes("sasl") && this.#options.sasl) this.#write(formatLine("AUTHENTICATE", ["PLAIN"]));
      else this.#write(formatLine("CAP", ["END"]));
    } else if (sub === "NAK") {
      this.#write(formatLine("CAP", ["END"]));
    }
  }

  #sendSaslPlain(): void {
    const sasl = this.#options.sasl!;
    const payload = btoa(
      String.fromCharCode(...encoder.encode(`${sasl.username}\0${sasl.username}\0${sasl.password}`)),
    );
    // AUTHENTICATE carries at most 400 bytes; a payload of exactly a multiple of 400 ends with "+".
    for (let i = 0; i < payload.length; i += 400) this.#write(formatLine("AUTHENTICATE", [payload.slice(i, i + 400)]));
    if (payload.length % 400 === 0) this.#write(formatLine("AUTHENTICATE", ["+"]));
  }

  #nextNick(): void {
    this.#nickAttempt++;
    if (this.#nickAttempt > 9) {
      this.#fail({ error_code: "NickInUse", message: "IRC_NICK and its 9 variants are all in use on the server" });
      return;
    }
    this.#nick = `${this.#options.nick.slice(0, 8)}${this.#nickAttempt}`;
    this.#write(formatLine("NICK", [this.#nick]));
  }

  #onWelcome(nick: string): void {
    if (this.#registered) return;
    this.#registered = true;
    clearTimeout(this.#registerTimer);
    this.#nick = nick;
    post({ type: "registered", nick });
    const o = this.#options;
    if (o.nickservPassword && !this.#saslDone) {
      this.#write(formatLine("PRIVMSG", ["NickServ", `IDENTIFY ${o.nickservPassword}`]));
    }
    this.#joinChannel(o.channel, o.channelKey);
  }

  #joinChannel(channel: string, key?: string): Promise<LastError | null> {
    const folded = foldName(channel);
    if (this.#joined.has(folded)) return Promise.resolve(null);
    const waiting = new Promise<LastError | null>((resolve) => {
      const previous = this.#joinWaiters.get(folded);
      this.#joinWaiters.set(folded, (error) => {
        previous?.(error);
        resolve(error);
      });
    });
    const timer = setTimeout(() => {
      this.#settleJoin(channel, {
        error_code: "JoinTimeout",
        message: `the server did not answer the JOIN of ${channel} within ${JOIN_TIMEOUT_MS} ms`,
      });
    }, JOIN_TIMEOUT_MS);
    waiting.finally(() => clearTimeout(timer));
    this.#write(formatLine("JOIN", key ? [channel, key] : [channel]));
    return waiting;
  }

  #settleJoin(channel: string, error: LastError | null): void {
    const folded = foldName(channel);
    const waiter = this.#joinWaiters.get(folded);
    this.#joinWaiters.delete(folded);
    if (error) post({ type: "join_failed", channel, error });
    waiter?.(error);
  }

  #onJoin(message: IrcMessage): void {
    const channel = message.params[0];
    if (!channel || foldName(nickOf(message.prefix)) !== foldName(this.#nick)) return;
    if (message.prefix) post({ type: "prefix", prefix: message.prefix });
    this.#joined.add(foldName(channel));
    post({ type: "joined", channel });
    this.#settleJoin(channel, null);
  }

  #onLeave(message: IrcMessage): void {
    const p = message.params;
    const channel = p[0];
    if (!channel) return;
    const kicked = message.command === "KICK";
    const who = kicked ? p[1] : nickOf(message.prefix);
    if (!who || foldName(who) !== foldName(this.#nick)) return;
    this.#joined.delete(foldName(channel));
    post({
      type: "left",
      channel,
      error: kicked
        ? { error_code: "Kicked", message: `kicked from ${channel} by ${nickOf(message.prefix)}: ${p[2] ?? ""}` }
        : { error_code: "Parted", message: `left ${channel}` },
    });
  }

  #onText(message: IrcMessage, inbound: InboundMessage[]): void {
    const [target, rawText] = message.params;
    if (!target || rawText === undefined || !message.prefix?.includes("!")) return; // server notices
    const nick = nickOf(message.prefix);
    let text = rawText;
    let kind: InboundMessage["kind"] = message.command === "NOTICE" ? "notice" : "privmsg";
    if (text.startsWith("\x01")) {
      // deno-lint-ignore no-control-regex
      const body = text.slice(1).replace(/\x01$/, "");
      const space = body.indexOf(" ");
      const ctcp = (space < 0 ? body : body.slice(0, space)).toUpperCase();
      // Only /me is conversation; other CTCP (VERSION, DCC, ...) is a non-goal and is dropped.
      if (ctcp !== "ACTION" || message.command !== "PRIVMSG") return;
      kind = "action";
      text = space < 0 ? "" : body.slice(space + 1);
    }
    const conversation = isChannelName(target) ? target : nick;
    const serverTime = message.tags["time"];
    inbound.push({ conversation, nick, text, kind, ...(serverTime ? { serverTime } : {}) });
  }

  /** Sends one agent message (its PRIVMSG lines), serialised after earlier sends. */
  send(id: number, target: string, texts: readonly string[], join?: { channel: string; key?: string }): void {
    this.#sendChain = this.#sendChain.then(async () => {
      let failure: SendFailure | undefined;
      try {
        failure = await this.#sendNow(target, texts, id, join);
      } catch (error) {
        failure = { code: "Internal", message: `the connection worker failed (a bug): ${(error as Error).message}` };
      }
      post({ type: "sent", id, ...(failure ? { failure } : {}) });
    });
  }

  async #sendNow(
    target: string,
    texts: readonly string[],
    id: number,
    join?: { channel: string; key?: string },
  ): Promise<SendFailure | undefined> {
    if (!this.#registered || this.#closed) return { code: "NotConnected", message: "not connected to the IRC server" };
    if (join) {
      const error = await this.#joinChannel(join.channel, join.key);
      if (error) return { code: "NotJoined", message: error.message };
    }
    const token = `pterm-${id}`;
    const confirmed = new Promise<void>((resolve) => {
      this.#inFlight = { errors: [], token, resolve };
    });
    for (const text of texts) await this.#writeThrottled(formatLine("PRIVMSG", [target, text]));
    await this.#writeThrottled(formatLine("PING", [token]));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const confirmWithin = SEND_CONFIRM_BASE_MS + SEND_CONFIRM_PER_LINE_MS * texts.length;
    const outcome = await Promise.race([
      confirmed.then(() => "confirmed" as const),
      new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), confirmWithin);
      }),
      this.#closedSignal.then(() => "closed" as const),
    ]);
    clearTimeout(timer);
    const errors = this.#inFlight?.errors ?? [];
    this.#inFlight = null;
    if (outcome === "closed") {
      return { code: "NotConnected", message: "the connection closed before the server confirmed the message" };
    }
    if (outcome === "timeout") {
      this.#fail({
        error_code: "PingTimeout",
        message: `the IRC server did not confirm a message within ${confirmWithin} ms`,
      });
      return { code: "NotConnected", message: "the server stopped answering; the connection was closed" };
    }
    return errors[0];
  }

  #resolveClosed!: () => void;
  readonly #closedSignal = new Promise<void>((resolve) => {
    this.#resolveClosed = resolve;
  });

  async #writeThrottled(line: string): Promise<void> {
    let delay = this.#throttle.delayMs();
    while (delay > 0) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = this.#throttle.delayMs();
    }
    this.#throttle.take();
    await this.#write(line);
  }

  /** Writes one line; writes are queued so lines never interleave. */
  #write(line: string): Promise<void> {
    const conn = this.#conn;
    const bytes = encoder.encode(`${line}\r\n`);
    this.#writeChain = this.#writeChain.then(async () => {
      if (!conn || this.#closed) return;
      let written = 0;
      while (written < bytes.length) written += await conn.write(bytes.subarray(written));
    }).catch(() => {/* the read loop reports the broken connection */});
    return this.#writeChain;
  }

  #checkAlive(): void {
    const silent = Date.now() - this.#lastReceived;
    if (silent > IDLE_PING_MS * 2) {
      this.#fail({
        error_code: "PingTimeout",
        message: `no data from the IRC server for ${Math.round(silent / 1000)} s`,
      });
    } else if (silent > IDLE_PING_MS) {
      this.#write(formatLine("PING", ["keepalive"]));
    }
  }

  /** Ends the connection because of `error`. */
  #fail(error: LastError): void {
    if (this.#closed) return;
    this.#fatal ??= error;
    this.#write(formatLine("QUIT", ["pterm: " + error.error_code]));
    this.#finish(this.#fatal);
  }

  async quit(message: string): Promise<void> {
    if (this.#closed) {
      post({ type: "closed", error: null });
      return;
    }
    this.#quitting = true;
    await this.#write(formatLine("QUIT", [message]));
    // The server answers QUIT by closing; the read loop then finishes. Do not wait for ever.
    setTimeout(() => this.#finish(null), QUIT_GRACE_MS);
  }

  #finish(error: LastError | null): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#registerTimer);
    clearInterval(this.#keepalive);
    for (const channel of [...this.#joinWaiters.keys()]) {
      this.#settleJoin(channel, error ?? { error_code: "ConnectionLost", message: "the connection closed" });
    }
    this.#resolveClosed();
    const conn = this.#conn;
    // Let queued writes (a QUIT) go out before the socket closes.
    this.#writeChain.finally(() => {
      try {
        conn?.close();
      } catch { /* already closed */ }
    });
    post({ type: "closed", error });
  }
}

class ConnectTimeout extends Error {}

function describeConnectError(error: unknown, o: ConnectionOptions): LastError {
  const where = `${o.server}:${o.port}`;
  if (error instanceof ConnectTimeout) {
    return {
      error_code: "ConnectTimeout",
      message: `connecting to ${where} took longer than ${o.connectTimeoutMs} ms`,
    };
  }
  const message = error instanceof Error ? error.message : String(error);
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
        post({ type: "sent", id: message.id, failure: { code: "NotConnected", message: "not connected" } });
      } else connection.send(message.id, message.target, message.texts, message.join);
      break;
    case "quit":
      if (connection) void connection.quit(message.message);
      else post({ type: "closed", error: null });
      break;
  }
};
