/**
 * The ledger of the irc delivery tests: every `irc send` is recorded with what pterm reported,
 * and checked against what a raw peer (tests/commands/irc/peer.ts, independent of pterm's IRC code)
 * received. It balances only when
 *   - reported sent (exit 0)            ⇒ the peer received every line, whole, in order, once;
 *   - reported not sent (any other code) ⇒ the peer received none of it;
 *   - otherwise the report says "unknown" (DeliveryUnknown, or the call's Timeout), and what
 *     arrived is a prefix of the lines, never something else.
 * Each send's lines carry a tag of their own, so a line is attributed to exactly one send.
 */

import assert from "node:assert/strict";
import type { Envelope } from "../../../core/envelope.ts";
import type { Peer } from "./peer.ts";

/** The codes that leave delivery open; every other failure must mean "nothing was delivered". */
const UNKNOWN_CODES = new Set(["DeliveryUnknown", "Timeout"]);

interface Entry {
  readonly tag: string;
  readonly lines: readonly string[];
  readonly envelope: Envelope;
  /** The client that must see the lines if they were delivered (in the channel, or the nick sent to). */
  readonly observer: Peer;
  readonly sender: string;
}

export class Ledger {
  readonly #entries: Entry[] = [];
  #next = 1;

  /** Lines of a new send, each tagged `[L<n>.<i>]` so they can be told apart at the peer. */
  lines(count: number, body = "ledger line"): string[] {
    const n = this.#next++;
    return Array.from({ length: count }, (_, i) => `[L${n}.${i + 1}] ${body}`);
  }

  record(lines: readonly string[], envelope: Envelope, observer: Peer, sender = "ptermbot"): Envelope {
    const tag = lines[0].match(/^\[L\d+\./)![0];
    this.#entries.push({ tag, lines, envelope, observer, sender });
    return envelope;
  }

  /** Asserts that every recorded send balances (call after a `sync` of each observer). */
  check(): void {
    for (const { tag, lines, envelope, observer, sender } of this.#entries) {
      const received = observer.lines
        .filter((l) => l.command === "PRIVMSG" && l.prefix.split("!")[0].toLowerCase().startsWith(sender))
        .map((l) => l.params[1])
        .filter((text) => text.startsWith(tag));
      const what = `send ${tag}] (${envelope.error_code ?? "ok"}: ${envelope.stderr.split("\n")[0]})`;
      if (envelope.exit_code === 0) {
        assert.deepEqual(received, lines, `${what} was reported sent: the peer must have every line once`);
      } else if (UNKNOWN_CODES.has(envelope.error_code ?? "")) {
        assert.deepEqual(received, lines.slice(0, received.length), `${what}: what arrived must be a prefix`);
        if (envelope.error_code === "DeliveryUnknown") assert.match(envelope.stderr, /may have been delivered/);
      } else {
        assert.deepEqual(received, [], `${what} was reported not sent: the peer must have none of it`);
      }
    }
  }

  get size(): number {
    return this.#entries.length;
  }
}
