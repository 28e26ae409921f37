/**
 * NickServ IDENTIFY, sent only to a NickServ verified as the network's service: SASL is preferred
 * (no password goes to a nick at all); otherwise WHOIS must show a service or an IRC operator, or
 * its nick!user@host must match IRC_NICKSERV_HOSTMASK. On a server without services any user can
 * take the nick NickServ, and would receive the password.
 */

import { formatLine, globMatches, type IrcMessage } from "./protocol.ts";
import type { ConnectionLink } from "./connection_link.ts";

/** How long NickServ has to answer the WHOIS that verifies it before identification is skipped. */
const NICKSERV_WHOIS_TIMEOUT_MS = 10_000;

export class NickServ {
  readonly #link: ConnectionLink;
  readonly #fold: (name: string) => string;
  /** Set while we wait for the WHOIS of NickServ that decides whether to identify. */
  #check: { service: boolean; userhost: string | null; settle: () => void } | null = null;

  constructor(link: ConnectionLink, fold: (name: string) => string) {
    this.#link = link;
    this.#fold = fold;
  }

  /** Identifies (IRC_NICKSERV_PASSWORD) when NickServ is verified; tells the daemon either way. */
  async identify(saslDone: boolean): Promise<void> {
    const o = this.#link.options;
    if (!o.nickservPassword) return;
    if (saslDone) {
      this.#link.post({
        type: "nickserv",
        identified: true,
        reason: "logged in with SASL; NickServ IDENTIFY was not needed",
      });
      return;
    }
    const check = { service: false, userhost: null as string | null, settle: () => {} };
    const answered = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), NICKSERV_WHOIS_TIMEOUT_MS);
      check.settle = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.#check = check;
      this.#link.write(formatLine("WHOIS", ["NickServ"]));
    });
    this.#check = null;
    if (this.#link.isClosed()) return;
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
    if (verified) this.#link.write(formatLine("PRIVMSG", ["NickServ", `IDENTIFY ${o.nickservPassword}`]));
    this.#link.post({ type: "nickserv", identified: verified, reason });
  }

  /** 311, 313, 320, 318: the WHOIS of NickServ we wait for. */
  onWhois(message: IrcMessage): void {
    const check = this.#check;
    const p = message.params;
    if (!check || !p[1] || this.#fold(p[1]) !== this.#fold("NickServ")) return;
    if (message.command === "311") check.userhost = `${p[1]}!${p[2]}@${p[3]}`;
    else if (message.command === "313") check.service = true;
    else if (message.command === "320" && /service/i.test(p[p.length - 1] ?? "")) check.service = true;
    else if (message.command === "318") check.settle();
  }

  /** 401 for NickServ while we ask: there is no NickServ at all (the WHOIS's answer); true when it was that. */
  onNoSuchNick(message: IrcMessage): boolean {
    const p = message.params;
    if (this.#check && message.command === "401" && p[1] && this.#fold(p[1]) === this.#fold("NickServ")) {
      this.#check.settle(); // no NickServ at all: the WHOIS's answer, not a send's refusal
      return true;
    }
    return false;
  }

  /** The connection ended: a WHOIS still waited for is over. */
  stop(): void {
    this.#check?.settle();
  }
}
