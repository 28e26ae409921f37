/**
 * Channels and their members as the connection knows them: the server's case mapping (ISUPPORT
 * CASEMAPPING) that folds every name, the channels we are in, each one's members (from NAMES and
 * JOIN/PART/KICK/QUIT/NICK), and the JOINs waiting for the server's answer.
 */

import type { LastError } from "./daemon_protocol.ts";
import { type CaseMapping, foldName, formatLine, type IrcMessage, nickOf, parseCaseMapping } from "./protocol.ts";
import type { ConnectionLink } from "./connection_link.ts";

const JOIN_TIMEOUT_MS = 10_000;

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

export class Channels {
  readonly #link: ConnectionLink;
  /** Our nick now (it changes on a fallback or a reclaim). */
  readonly #ourNick: () => string;
  #caseMapping: CaseMapping = "rfc1459";
  readonly #joined = new Set<string>();
  readonly #joinWaiters = new Map<string, (error: LastError | null) => void>();
  /** Members (folded nicks) of each channel we are in, from NAMES and JOIN/PART/QUIT/KICK/NICK. */
  readonly #members = new Map<string, Set<string>>();

  constructor(link: ConnectionLink, ourNick: () => string) {
    this.#link = link;
    this.#ourNick = ourNick;
  }

  /** `name` folded by the server's case mapping: two names are the same when their folds are. */
  fold(name: string): string {
    return foldName(name, this.#caseMapping);
  }

  onIsupport(params: readonly string[]): void {
    for (const token of params.slice(1, -1)) {
      if (!token.toUpperCase().startsWith("CASEMAPPING=")) continue;
      const mapping = parseCaseMapping(token.slice("CASEMAPPING=".length));
      if (!mapping || mapping === this.#caseMapping) continue;
      // Names folded under the old mapping (joined channels, member lists) are folded again.
      this.#caseMapping = mapping;
      const joined = [...this.#joined];
      this.#joined.clear();
      for (const name of joined) this.#joined.add(this.fold(name));
      this.#link.post({ type: "casemapping", mapping });
    }
  }

  /** Joins `channel` unless we are in it; resolves with the server's refusal, or null once joined. */
  join(channel: string, key?: string): Promise<LastError | null> {
    const folded = this.fold(channel);
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
    this.#link.write(formatLine("JOIN", key ? [channel, key] : [channel]));
    return waiting;
  }

  #settleJoin(channel: string, error: LastError | null): void {
    const folded = this.fold(channel);
    const waiter = this.#joinWaiters.get(folded);
    this.#joinWaiters.delete(folded);
    if (error) this.#link.post({ type: "join_failed", channel, error });
    waiter?.(error);
  }

  /** A numeric that refuses a JOIN we wait for settles it; true when `message` was one. */
  onJoinError(message: IrcMessage): boolean {
    const p = message.params;
    const joinError = JOIN_ERRORS[message.command];
    if (joinError && p[1] && this.#joinWaiters.has(this.fold(p[1]))) {
      this.#settleJoin(p[1], { error_code: joinError, message: `joining ${p[1]} failed: ${p[p.length - 1]}` });
      return true;
    }
    return false;
  }

  /** The connection ended: every JOIN still waiting fails with `error`. */
  abandonJoins(error: LastError): void {
    for (const channel of [...this.#joinWaiters.keys()]) this.#settleJoin(channel, error);
  }

  onJoin(message: IrcMessage): void {
    const channel = message.params[0];
    if (!channel) return;
    const nick = this.#ourNick();
    if (this.fold(nickOf(message.prefix)) !== this.fold(nick)) {
      this.#members.get(this.fold(channel))?.add(this.fold(nickOf(message.prefix)));
      return;
    }
    // NAMES (353) follows our JOIN and fills the list.
    this.#members.set(this.fold(channel), new Set([this.fold(nick)]));
    if (message.prefix) this.#link.post({ type: "prefix", prefix: message.prefix });
    this.#joined.add(this.fold(channel));
    this.#link.post({ type: "joined", channel });
    this.#settleJoin(channel, null);
  }

  /** PART or KICK: a member leaves, or we do. */
  onLeave(message: IrcMessage): void {
    const p = message.params;
    const channel = p[0];
    if (!channel) return;
    const kicked = message.command === "KICK";
    const who = kicked ? p[1] : nickOf(message.prefix);
    if (!who) return;
    if (this.fold(who) !== this.fold(this.#ourNick())) {
      this.#members.get(this.fold(channel))?.delete(this.fold(who));
      return;
    }
    this.#joined.delete(this.fold(channel));
    this.#members.delete(this.fold(channel));
    this.#link.post({
      type: "left",
      channel,
      error: kicked
        ? { error_code: "Kicked", message: `kicked from ${channel} by ${nickOf(message.prefix)}: ${p[2] ?? ""}` }
        : { error_code: "Parted", message: `left ${channel}` },
    });
  }

  /** NAMES (353): members of a channel we are in. */
  onNames(channel: string | undefined, names: string): void {
    if (!channel) return;
    const members = this.#members.get(this.fold(channel));
    if (!members) return;
    for (const name of names.split(" ")) {
      // Status prefixes (@ + % & ~ and multi-prefix) stand before the nick.
      const nick = name.replace(/^[~&@%+!.]+/, "");
      if (nick) members.add(this.fold(nick));
    }
  }

  /** `nick` quit the server: it leaves every channel. */
  onQuit(nick: string): void {
    for (const members of this.#members.values()) members.delete(this.fold(nick));
  }

  /** `from` is now called `to`, in every channel it is in. */
  onRename(from: string, to: string): void {
    const folded = this.fold(from);
    for (const members of this.#members.values()) {
      if (members.delete(folded)) members.add(this.fold(to));
    }
  }

  /** Members of `channel` other than us, or undefined when we are not in it. */
  otherMembers(channel: string): number | undefined {
    const members = this.#members.get(this.fold(channel));
    if (!members) return undefined;
    return [...members].filter((nick) => nick !== this.fold(this.#ourNick())).length;
  }
}
