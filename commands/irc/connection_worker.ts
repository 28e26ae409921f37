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
  Delivery,
  FromConnection,
  InboundMessage,
  SendFailure,
  SendReport,
  ToConnection,
} from "./connection_protocol.ts";
import type { LastError } from "./daemon_protocol.ts";
import {
  type CaseMapping,
  foldName,
  formatLine,
  globMatches,
  type IrcMessage,
  isChannelName,
  isNickName,
  nickOf,
  parseCaseMapping,
  parseLine,
} from "./protocol.ts";
import { LineThrottle } from "./throttle.ts";
import { type ByteConn, connectPinned, FingerprintMismatch } from "./pinned_tls.ts";
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

/** While on a fallback nick, how often (at most; or every keepalive period) to ask ISON whether IRC_NICK is free. */
const NICK_RECLAIM_MS = 15_000;
/** How long NickServ has to answer the WHOIS that verifies it before identification is skipped. */
const NICKSERV_WHOIS_TIMEOUT_MS = 10_000;

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

/**
 * Replies that mean a PRIVMSG was not delivered, with their own codes. Any other error numeric
 * (400-599) that arrives while a send is in flight also fails it (SendRejected, with the
 * server's reason): 477 on a +M channel, InspIRCd's 716/717 (callerid), and refusals no list
 * can anticipate. A client does not get unsolicited error numerics, so one that arrives between
 * our PRIVMSGs and the PONG that confirms them is about them.
 */
const SEND_ERRORS: Readonly<Record<string, SendFailure["code"]>> = {
  "716": "SendRejected",
  "717": "SendRejected",
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

/**
 * Error numerics that answer something other than a PRIVMSG (our NICK, MODE, JOIN, PART); an
 * error numeric that is not here, or that names the send's target, fails the send in flight.
 */
const UNRELATED_ERRORS: ReadonlySet<string> = new Set([
  "432", // erroneous nickname
  "433", // nickname in use (reclaiming IRC_NICK)
  "436", // nickname collision
  "438", // nick change too fast
  "442", // not on that channel (PART)
  "443", // already on that channel (JOIN)
  "467", // channel key already set
  "472", // unknown mode character
  "478", // ban list full
  "482", // not a channel operator
  "501", // unknown user mode
  "502", // cannot change mode for other users
]);

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
  #conn: ByteConn | null = null;
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
  #inFlight: { errors: SendFailure[]; token: string; target: string; resolve: () => void } | null = null;
  /**
   * The send being written. When the connection ends, its report goes out before "closed" (the
   * daemon ends this worker on "closed"), saying how many of its lines reached the socket.
   */
  #current: {
    id: number;
    lines: number;
    progress: { written: number; members: number | undefined };
    reported: boolean;
  } | null = null;
  /** Sends whose caller is gone: no more of their lines are written. */
  readonly #cancelled = new Set<number>();
  #caseMapping: CaseMapping = "rfc1459";
  /** Members (folded nicks) of each channel we are in, from NAMES and JOIN/PART/QUIT/KICK/NICK. */
  readonly #members = new Map<string, Set<string>>();
  #reclaimTimer: ReturnType<typeof setInterval> | undefined;
  /** Set while we wait for the WHOIS of NickServ that decides whether to identify. */
  #nickservCheck: { service: boolean; userhost: string | null; settle: () => void } | null = null;
  #lastReceived = Date.now();
  #keepalivePingSent = false;
  #keepalive: ReturnType<typeof setInterval> | undefined;
  #registerTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(options: ConnectionOptions) {
    this.#options = options;
    this.#nick = options.nick;
    this.#throttle = new LineThrottle({ burst: options.sendBurst, intervalMs: options.sendIntervalMs });
  }

  #fold(name: string): string {
    return foldName(name, this.#caseMapping);
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
    this.#keepalive = setInterval(() => this.#checkAlive(), this.#options.keepaliveMs / 6);
    const o = this.#options;
    this.#write(formatLine("CAP", ["LS", "302"]));
    if (o.serverPassword) this.#write(formatLine("PASS", [o.serverPassword]));
    this.#write(formatLine("NICK", [this.#nick]));
    this.#write(formatLine("USER", [o.username, "0", "*", o.realname]));
    await this.#readLoop(this.#conn);
  }

  async #connect(): Promise<ByteConn> {
    const o = this.#options;
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

  async #readLoop(conn: ByteConn): Promise<void> {
    const buffer = new Uint8Array(64 * 1024);
    const decoder = new TextDecoder();
    let pending = new Uint8Array(0);
    let discarding = false;
    try {
      while (true) {
        const n = await conn.read(buffer);
        if (n === null) break;
        this.#lastReceived = Date.now();
        this.#keepalivePingSent = false;
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
      case "005":
        this.#onIsupport(p);
        return;
      case "303": // ISON: which of the nicks asked about are online
        this.#onIson(p[p.length - 1] ?? "");
        return;
      case "353": // NAMES: params me, symbol, channel, names
        this.#onNames(p[2], p[3] ?? "");
        return;
      case "311": // WHOIS user: me, nick, user, host, *, realname
      case "313": // WHOIS: is an IRC operator / a network service
      case "320": // WHOIS: extra information (some servers say "is a network service" here)
      case "318": // end of WHOIS
        this.#onWhois(message);
        return;
      case "QUIT":
        for (const members of this.#members.values()) members.delete(this.#fold(nickOf(message.prefix)));
        this.#reclaimIfFreed(nickOf(message.prefix));
        return;
      case "433":
      case "436":
        if (!this.#registered) this.#nextNick();
        return; // after registration: our attempt to reclaim IRC_NICK lost a race; the next check retries
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
        // InspIRCd says `Access denied by configuration` (its connect class wants a password).
        this.#fatal ??= !this.#registered &&
            (/password/i.test(reason) || (this.#options.serverPassword && /access denied/i.test(reason)))
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
      case "NICK": {
        const from = this.#fold(nickOf(message.prefix));
        if (p[0]) {
          for (const members of this.#members.values()) {
            if (members.delete(from)) members.add(this.#fold(p[0]));
          }
        }
        if (from === this.#fold(this.#nick) && p[0]) {
          this.#nick = p[0];
          post({ type: "nick", nick: this.#nick });
        } else this.#reclaimIfFreed(nickOf(message.prefix));
        return;
      }
      case "PRIVMSG":
      case "NOTICE":
        this.#onText(message, inbound);
        return;
    }
    const joinError = JOIN_ERRORS[message.command];
    if (joinError && p[1] && this.#joinWaiters.has(this.#fold(p[1]))) {
      this.#settleJoin(p[1], { error_code: joinError, message: `joining ${p[1]} failed: ${p[p.length - 1]}` });
      return;
    }
    if (this.#nickservCheck && message.command === "401" && p[1] && this.#fold(p[1]) === this.#fold("NickServ")) {
      this.#nickservCheck.settle(); // no NickServ at all: the WHOIS's answer, not a send's refusal
      return;
    }
    if (!this.#inFlight || !(/^[45]\d\d$/.test(message.command) || SEND_ERRORS[message.command])) return;
    const namesTarget = p[1] !== undefined && this.#fold(p[1]) === this.#fold(this.#inFlight.target);
    if (!namesTarget && UNRELATED_ERRORS.has(message.command)) return;
    // An error about another channel or nick (a late JOIN refusal, ...) is not about this send:
    // failing it would report "not sent" for lines that may well have been delivered.
    const namesOther = !namesTarget && p.length > 2 && p[1] !== undefined &&
      (isChannelName(p[1]) || (isNickName(p[1]) && !/\s/.test(p[1])));
    if (namesOther) return;
    const reason = p.slice(1).join(": ");
    this.#inFlight.errors.push({
      code: SEND_ERRORS[message.command] ?? "SendRejected",
      message: `the server refused it (${message.command} ${reason})`,
    });
  }

  #onIsupport(params: readonly string[]): void {
    for (const token of params.slice(1, -1)) {
      if (!token.toUpperCase().startsWith("CASEMAPPING=")) continue;
      const mapping = parseCaseMapping(token.slice("CASEMAPPING=".length));
      if (!mapping || mapping === this.#caseMapping) continue;
      // Names folded under the old mapping (joined channels, member lists) are folded again.
      this.#caseMapping = mapping;
      const joined = [...this.#joined];
      this.#joined.clear();
      for (const name of joined) this.#joined.add(this.#fold(name));
      post({ type: "casemapping", mapping });
    }
  }

  /** While on a fallback nick, asks whether IRC_NICK is online; takes it back once it is free. */
  #checkNickFree(): void {
    if (!this.#registered || this.#closed) return;
    if (this.#fold(this.#nick) === this.#fold(this.#options.nick)) return;
    this.#write(formatLine("ISON", [this.#options.nick]));
  }

  /** Someone we share a channel with quit or changed nick: if it was IRC_NICK's holder, take it now. */
  #reclaimIfFreed(nick: string): void {
    if (!this.#registered || this.#fold(nick) !== this.#fold(this.#options.nick)) return;
    if (this.#fold(this.#nick) !== this.#fold(this.#options.nick)) {
      this.#write(formatLine("NICK", [this.#options.nick]));
    }
  }

  #onIson(online: string): void {
    if (this.#fold(this.#nick) === this.#fold(this.#options.nick)) return;
    const taken = online.split(" ").some((nick) => nick && this.#fold(nick) === this.#fold(this.#options.nick));
    if (!taken) this.#write(formatLine("NICK", [this.#options.nick]));
  }

  #onNames(channel: string | undefined, names: string): void {
    if (!channel) return;
    const members = this.#members.get(this.#fold(channel));
    if (!members) return;
    for (const name of names.split(" ")) {
      // Status prefixes (@ + % & ~ and multi-prefix) stand before the nick.
      const nick = name.replace(/^[~&@%+!.]+/, "");
      if (nick) members.add(this.#fold(nick));
    }
  }

  /** Members of `channel` other than us, or undefined when we are not in it. */
  #otherMembers(channel: string): number | undefined {
    const members = this.#members.get(this.#fold(channel));
    if (!members) return undefined;
    return [...members].filter((nick) => nick !== this.#fold(this.#nick)).length;
  }

  #onWhois(message: IrcMessage): void {
    const check = this.#nickservCheck;
    const p = message.params;
    if (!check || !p[1] || this.#fold(p[1]) !== this.#fold("NickServ")) return;
    if (message.command === "311") check.userhost = `${p[1]}!${p[2]}@${p[3]}`;
    else if (message.command === "313") check.service = true;
    else if (message.command === "320" && /service/i.test(p[p.length - 1] ?? "")) check.service = true;
    else if (message.command === "318") check.settle();
  }

  /**
   * Sends NickServ IDENTIFY only to a NickServ that is verified as the network's service: SASL
   * is preferred (no password goes to a nick at all); otherwise WHOIS must show a service or an
   * IRC operator, or its nick!user@host must match IRC_NICKSERV_HOSTMASK. On a server without
   * services any user can take the nick NickServ, and would receive the password.
   */
  async #identifyToNickServ(): Promise<void> {
    const o = this.#options;
    if (!o.nickservPassword) return;
    if (this.#saslDone) {
      post({ type: "nickserv", identified: true, reason: "logged in with SASL; NickServ IDENTIFY was not needed" });
      return;
    }
    const check = { service: false, userhost: null as string | null, settle: () => {} };
    const answered = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), NICKSERV_WHOIS_TIMEOUT_MS);
      check.settle = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.#nickservCheck = check;
      this.#write(formatLine("WHOIS", ["NickServ"]));
    });
    this.#nickservCheck = null;
    if (this.#closed) return;
    let verified = false;
    let reason: string;
    if (!answered) reason = "NickServ IDENTIFY skipped: the server did not answer WHOIS NickServ";
    else if (check.userhost === null) reason = "NickServ IDENTIFY skipped: no user named NickServ is on this server";
    else if (o.nickservHostmask) {
      verified = globMatches(o.nickservHostmask, check.userhost, (t) => this.#fold(t));
      reason = verified
        ? `identified to NickServ (${check.userhost} matches IRC_NICKSERV_HOSTMASK)`
        : `NickServ IDENTIFY skipped: NickServ is ${check.userhost}, which does not match IRC_NICKSERV_HOSTMASK`;
    } else {
      verified = check.service;
      reason = verified
        ? "identified to NickServ (WHOIS shows it is a network service or operator)"
        : `NickServ IDENTIFY skipped: NickServ (${check.userhost}) is an ordinary user, not a network service — ` +
          "an impostor could take that nick; set IRC_NICKSERV_HOSTMASK to the services' mask or use SASL";
    }
    if (verified) this.#write(formatLine("PRIVMSG", ["NickServ", `IDENTIFY ${o.nickservPassword}`]));
    post({ type: "nickserv", identified: verified, reason });
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
    this.#reclaimTimer = setInterval(() => this.#checkNickFree(), Math.min(NICK_RECLAIM_MS, this.#options.keepaliveMs));
    this.#checkNickFree();
    // Identify (when NickServ is verified) before joining: a +R channel admits identified users only.
    void this.#identifyToNickServ().finally(() => {
      if (!this.#closed) this.#joinChannel(o.channel, o.channelKey);
    });
  }

  #joinChannel(channel: string, key?: string): Promise<LastError | null> {
    const folded = this.#fold(channel);
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
    const folded = this.#fold(channel);
    const waiter = this.#joinWaiters.get(folded);
    this.#joinWaiters.delete(folded);
    if (error) post({ type: "join_failed", channel, error });
    waiter?.(error);
  }

  #onJoin(message: IrcMessage): void {
    const channel = message.params[0];
    if (!channel) return;
    if (this.#fold(nickOf(message.prefix)) !== this.#fold(this.#nick)) {
      this.#members.get(this.#fold(channel))?.add(this.#fold(nickOf(message.prefix)));
      return;
    }
    // NAMES (353) follows our JOIN and fills the list.
    this.#members.set(this.#fold(channel), new Set([this.#fold(this.#nick)]));
    if (message.prefix) post({ type: "prefix", prefix: message.prefix });
    this.#joined.add(this.#fold(channel));
    post({ type: "joined", channel });
    this.#settleJoin(channel, null);
  }

  #onLeave(message: IrcMessage): void {
    const p = message.params;
    const channel = p[0];
    if (!channel) return;
    const kicked = message.command === "KICK";
    const who = kicked ? p[1] : nickOf(message.prefix);
    if (!who) return;
    if (this.#fold(who) !== this.#fold(this.#nick)) {
      this.#members.get(this.#fold(channel))?.delete(this.#fold(who));
      return;
    }
    this.#joined.delete(this.#fold(channel));
    this.#members.delete(this.#fold(channel));
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
      const progress = { written: 0, members: undefined as number | undefined };
      const current = { id, lines: texts.length, progress, reported: false };
      this.#current = current;
      let report: SendReport;
      try {
        report = await this.#sendNow(target, texts, id, progress, join);
      } catch (error) {
        report = this.#report(texts.length, progress, {
          code: "Internal",
          message: `the connection worker failed (a bug): ${(error as Error).message}`,
        });
      }
      this.#cancelled.delete(id);
      this.#current = null;
      if (!current.reported) post({ type: "sent", id, report });
    });
  }

  cancel(id: number): void {
    this.#cancelled.add(id);
  }

  /** A failed send's report: what was written decides between "not sent" and "unknown". */
  #report(
    lines: number,
    progress: { written: number; members: number | undefined },
    failure: SendFailure,
    delivery: Delivery = progress.written === 0 ? "not_sent" : "unknown",
  ): SendReport {
    return {
      delivery,
      lines,
      linesWritten: progress.written,
      linesConfirmed: 0,
      ...(progress.members !== undefined ? { channelMembers: progress.members } : {}),
      failure,
    };
  }

  async #sendNow(
    target: string,
    texts: readonly string[],
    id: number,
    progress: { written: number; members: number | undefined },
    join?: { channel: string; key?: string },
  ): Promise<SendReport> {
    const lines = texts.length;
    if (!this.#registered || this.#closed) {
      return this.#report(lines, progress, { code: "NotConnected", message: "not connected to the IRC server" });
    }
    if (join) {
      const error = await this.#joinChannel(join.channel, join.key);
      if (error) return this.#report(lines, progress, { code: "NotJoined", message: error.message });
    }
    if (isChannelName(target)) progress.members = this.#otherMembers(target);
    const token = `pterm-${id}`;
    const confirmed = new Promise<void>((resolve) => {
      this.#inFlight = { errors: [], token, target, resolve };
    });
    const settle = () => {
      const errors = this.#inFlight?.errors ?? [];
      this.#inFlight = null;
      return errors;
    };
    for (const text of texts) {
      await this.#waitForPace();
      if (this.#cancelled.has(id)) {
        settle();
        return this.#report(lines, progress, {
          code: "Timeout",
          message: "the call ended (timeout or the client went away) before every line was written; " +
            "the rest was cancelled",
        });
      }
      if (this.#closed || !await this.#write(formatLine("PRIVMSG", [target, text]))) break;
      this.#throttle.take();
      progress.written++;
    }
    if (progress.written < lines) {
      settle();
      return this.#report(lines, progress, {
        code: "NotConnected",
        message: "the connection closed before every line was written",
      });
    }
    // The confirming PING is not a message: it does not take a pacing slot.
    await this.#write(formatLine("PING", [token]));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const confirmWithin = SEND_CONFIRM_BASE_MS + SEND_CONFIRM_PER_LINE_MS * lines;
    const outcome = await Promise.race([
      confirmed.then(() => "confirmed" as const),
      new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), confirmWithin);
      }),
      this.#closedSignal.then(() => "closed" as const),
    ]);
    clearTimeout(timer);
    const errors = settle();
    if (errors.length > 0) {
      // A refusal per line is the usual shape; fewer refusals than lines leave the rest unknown.
      return this.#report(lines, progress, errors[0], errors.length >= lines ? "rejected" : "unknown");
    }
    if (outcome === "closed") {
      return this.#report(lines, progress, {
        code: "NotConnected",
        message: "the connection closed before the server confirmed the lines",
      });
    }
    if (outcome === "timeout") {
      this.#fail({
        error_code: "PingTimeout",
        message: `the IRC server did not confirm a message within ${confirmWithin} ms`,
      });
      return this.#report(lines, progress, {
        code: "NotConnected",
        message: `the server did not confirm the lines within ${confirmWithin} ms; the connection was closed`,
      });
    }
    return {
      delivery: "delivered",
      lines,
      linesWritten: lines,
      linesConfirmed: lines,
      ...(progress.members !== undefined ? { channelMembers: progress.members } : {}),
    };
  }

  #resolveClosed!: () => void;
  readonly #closedSignal = new Promise<void>((resolve) => {
    this.#resolveClosed = resolve;
  });

  /** Waits until the throttle allows one more line. */
  async #waitForPace(): Promise<void> {
    let delay = this.#throttle.delayMs();
    while (delay > 0) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = this.#throttle.delayMs();
    }
  }

  /**
   * Writes one line; writes are queued so lines never interleave. Resolves true once the whole
   * line is in the socket, false when it was not written (closed, or the write failed).
   */
  #write(line: string): Promise<boolean> {
    const conn = this.#conn;
    const bytes = encoder.encode(`${line}\r\n`);
    const done = this.#writeChain.then(async () => {
      if (!conn || this.#closed) return false;
      let written = 0;
      while (written < bytes.length) written += await conn.write(bytes.subarray(written));
      return true;
    }).catch(() => false /* the read loop reports the broken connection */);
    this.#writeChain = done.then(() => {});
    return done;
  }

  #checkAlive(): void {
    const silent = Date.now() - this.#lastReceived;
    if (silent > this.#options.keepaliveMs * 2) {
      this.#fail({
        error_code: "PingTimeout",
        message: `no data from the IRC server for ${Math.round(silent / 1000)} s (keepalive PING unanswered)`,
      });
    } else if (silent > this.#options.keepaliveMs && !this.#keepalivePingSent) {
      this.#keepalivePingSent = true;
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
    clearInterval(this.#reclaimTimer);
    this.#nickservCheck?.settle();
    for (const channel of [...this.#joinWaiters.keys()]) {
      this.#settleJoin(channel, error ?? { error_code: "ConnectionLost", message: "the connection closed" });
    }
    this.#resolveClosed();
    const current = this.#current;
    if (current && !current.reported) {
      current.reported = true;
      const why = error ? `${error.error_code}: ${error.message}` : "the connection was closed";
      post({
        type: "sent",
        id: current.id,
        report: this.#report(current.lines, current.progress, {
          code: "NotConnected",
          message: `the connection ended before the server confirmed the lines (${why})`,
        }),
      });
    }
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

function describeConnectError(error: unknown, o: ConnectionOptions): LastError {
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
