/**
 * Registration with the server and our nick: PASS, CAP negotiation (sasl, server-time), SASL
 * PLAIN, NICK and USER; a fallback nick while IRC_NICK is taken, and IRC_NICK taken back once it
 * is free; the registration's own failures (password, nick, SASL) named for `irc status`.
 */

import type { LastError } from "./daemon_protocol.ts";
import { formatLine, type IrcMessage } from "./protocol.ts";
import type { ConnectionLink } from "./connection_link.ts";

/** While on a fallback nick, how often (at most; or every keepalive period) to ask ISON whether IRC_NICK is free. */
const NICK_RECLAIM_MS = 15_000;

const encoder = new TextEncoder();

export class Registration {
  readonly #link: ConnectionLink;
  readonly #fold: (name: string) => string;
  /** Once registered (001): what to do next (identify, join). */
  readonly #welcomed: () => void;
  #nick: string;
  #nickAttempt = 0;
  #registered = false;
  #capBuffer: string[] = [];
  #saslDone = false;
  #registerTimer: ReturnType<typeof setTimeout> | undefined;
  #reclaimTimer: ReturnType<typeof setInterval> | undefined;

  constructor(link: ConnectionLink, fold: (name: string) => string, welcomed: () => void) {
    this.#link = link;
    this.#fold = fold;
    this.#welcomed = welcomed;
    this.#nick = link.options.nick;
  }

  /** Our nick now. */
  get nick(): string {
    return this.#nick;
  }

  /** The server welcomed us (001). */
  get registered(): boolean {
    return this.#registered;
  }

  /** SASL logged us in: NickServ IDENTIFY is not needed. */
  get saslDone(): boolean {
    return this.#saslDone;
  }

  /** Registers on the connected socket: the first lines, and the limit on the server's welcome. */
  start(): void {
    const o = this.#link.options;
    this.#registerTimer = setTimeout(() => {
      if (!this.#registered) {
        this.#link.fail({
          error_code: "RegisterTimeout",
          message: `the IRC server did not complete registration within ${o.registerTimeoutMs} ms`,
        });
      }
    }, o.registerTimeoutMs);
    this.#link.write(formatLine("CAP", ["LS", "302"]));
    if (o.serverPassword) this.#link.write(formatLine("PASS", [o.serverPassword]));
    this.#link.write(formatLine("NICK", [this.#nick]));
    this.#link.write(formatLine("USER", [o.username, "0", "*", o.realname]));
  }

  /** The connection ended: no timer of registration acts any more. */
  stop(): void {
    clearTimeout(this.#registerTimer);
    clearInterval(this.#reclaimTimer);
  }

  onCap(message: IrcMessage): void {
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
      if (this.#link.options.sasl && sasl !== undefined && (sasl === "" || sasl.split(",").includes("PLAIN"))) {
        wanted.push("sasl");
      }
      if (offered.has("server-time")) wanted.push("server-time");
      if (wanted.length === 0) this.#link.write(formatLine("CAP", ["END"]));
      else this.#link.write(formatLine("CAP", ["REQ", wanted.join(" ")]));
    } else if (sub === "ACK") {
      const acked = (p[p.length - 1] ?? "").split(" ");
      if (acked.includes("sasl") && this.#link.options.sasl) this.#link.write(formatLine("AUTHENTICATE", ["PLAIN"]));
      else this.#link.write(formatLine("CAP", ["END"]));
    } else if (sub === "NAK") {
      this.#link.write(formatLine("CAP", ["END"]));
    }
  }

  /** AUTHENTICATE from the server: `+` asks for our SASL PLAIN payload. */
  onAuthenticate(params: readonly string[]): void {
    if (params[0] === "+" && this.#link.options.sasl) this.#sendSaslPlain();
  }

  #sendSaslPlain(): void {
    const sasl = this.#link.options.sasl!;
    const payload = btoa(
      String.fromCharCode(...encoder.encode(`${sasl.username}\0${sasl.username}\0${sasl.password}`)),
    );
    // AUTHENTICATE carries at most 400 bytes; a payload of exactly a multiple of 400 ends with "+".
    for (let i = 0; i < payload.length; i += 400) {
      this.#link.write(formatLine("AUTHENTICATE", [payload.slice(i, i + 400)]));
    }
    if (payload.length % 400 === 0) this.#link.write(formatLine("AUTHENTICATE", ["+"]));
  }

  /** 903: SASL succeeded. */
  onSaslSuccess(): void {
    this.#saslDone = true;
    this.#link.write(formatLine("CAP", ["END"]));
  }

  /** 902, 904, 905, 906: SASL failed. */
  onSaslFailure(): void {
    this.#link.fail({
      error_code: "SaslFailed",
      message: "SASL PLAIN authentication failed; check IRC_SASL_USERNAME / IRC_SASL_PASSWORD (or " +
        "IRC_NICKSERV_PASSWORD) in the .env",
    });
  }

  /** 001: registered under `nick`. */
  onWelcome(nick: string): void {
    if (this.#registered) return;
    this.#registered = true;
    clearTimeout(this.#registerTimer);
    this.#nick = nick;
    this.#link.post({ type: "registered", nick });
    this.#reclaimTimer = setInterval(
      () => this.#checkNickFree(),
      Math.min(NICK_RECLAIM_MS, this.#link.options.keepaliveMs),
    );
    this.#checkNickFree();
    this.#welcomed();
  }

  /** 433, 436: the nick we asked for is taken. */
  onNickInUse(): void {
    if (!this.#registered) this.#nextNick();
    // after registration: our attempt to reclaim IRC_NICK lost a race; the next check retries
  }

  /** 432: the server rejects IRC_NICK. */
  onNickRejected(): void {
    if (!this.#registered) {
      this.#link.fail({ error_code: "NickRejected", message: "the IRC server rejected IRC_NICK as an invalid nick" });
    }
  }

  /** 464: the server rejects IRC_SERVER_PASSWORD. */
  onPasswordRejected(): void {
    this.#link.fail({
      error_code: "ServerPasswordRejected",
      message: "the IRC server rejected the connection password; check IRC_SERVER_PASSWORD in the .env",
    });
  }

  /** Why the server's ERROR closes the link: a refused password, said in words, before registration. */
  closingError(reason: string): LastError {
    // Some servers (ngIRCd) refuse a bad PASS with only `ERROR :Access denied: Bad password?`.
    // InspIRCd says `Access denied by configuration` (its connect class wants a password).
    return !this.#registered &&
        (/password/i.test(reason) || (this.#link.options.serverPassword && /access denied/i.test(reason)))
      ? {
        error_code: "ServerPasswordRejected",
        message: `the IRC server rejected the connection password (${reason}); check IRC_SERVER_PASSWORD in the .env`,
      }
      : { error_code: "ServerClosed", message: `the IRC server closed the link: ${reason}` };
  }

  #nextNick(): void {
    this.#nickAttempt++;
    if (this.#nickAttempt > 9) {
      this.#link.fail({ error_code: "NickInUse", message: "IRC_NICK and its 9 variants are all in use on the server" });
      return;
    }
    this.#nick = `${this.#link.options.nick.slice(0, 8)}${this.#nickAttempt}`;
    this.#link.write(formatLine("NICK", [this.#nick]));
  }

  /** NICK from `from` to `to`: ours changed, or someone else's (who may have freed IRC_NICK). */
  onNickChange(from: string, to: string | undefined): void {
    if (this.#fold(from) === this.#fold(this.#nick) && to) {
      this.#nick = to;
      this.#link.post({ type: "nick", nick: this.#nick });
    } else this.reclaimIfFreed(from);
  }

  /** While on a fallback nick, asks whether IRC_NICK is online; takes it back once it is free. */
  #checkNickFree(): void {
    if (!this.#registered || this.#link.isClosed()) return;
    if (this.#fold(this.#nick) === this.#fold(this.#link.options.nick)) return;
    this.#link.write(formatLine("ISON", [this.#link.options.nick]));
  }

  /** Someone we share a channel with quit or changed nick: if it was IRC_NICK's holder, take it now. */
  reclaimIfFreed(nick: string): void {
    const wanted = this.#link.options.nick;
    if (!this.#registered || this.#fold(nick) !== this.#fold(wanted)) return;
    if (this.#fold(this.#nick) !== this.#fold(wanted)) {
      this.#link.write(formatLine("NICK", [wanted]));
    }
  }

  /** 303 (ISON): which of the nicks asked about are online. */
  onIson(online: string): void {
    const wanted = this.#link.options.nick;
    if (this.#fold(this.#nick) === this.#fold(wanted)) return;
    const taken = online.split(" ").some((nick) => nick && this.#fold(nick) === this.#fold(wanted));
    if (!taken) this.#link.write(formatLine("NICK", [wanted]));
  }
}
