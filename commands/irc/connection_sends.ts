/**
 * The agent's messages to the server: one send at a time, its PRIVMSG lines paced by the flood
 * throttle, then confirmed by a PING round trip so that the server's refusals (401, 404, ...)
 * reach the caller; each send reported with what was written and what was confirmed.
 */

import type { Delivery, SendFailure, SendReport } from "./connection_protocol.ts";
import type { LastError } from "./daemon_protocol.ts";
import { formatLine, type IrcMessage, isChannelName, isNickName } from "./protocol.ts";
import { LineThrottle } from "./throttle.ts";
import type { ConnectionLink } from "./connection_link.ts";
import type { Channels } from "./connection_channels.ts";

/**
 * How long after our last line the server has to answer a send's PING: a base, plus time per
 * line, because servers process a client's lines at their own pace (ngIRCd: a few per second).
 */
const SEND_CONFIRM_BASE_MS = 15_000;
const SEND_CONFIRM_PER_LINE_MS = 2_000;

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

type Progress = { written: number; members: number | undefined };

export class Sends {
  readonly #link: ConnectionLink;
  readonly #channels: Channels;
  readonly #registered: () => boolean;
  readonly #throttle: LineThrottle;
  #chain: Promise<void> = Promise.resolve();
  #inFlight: { errors: SendFailure[]; token: string; target: string; resolve: () => void } | null = null;
  /**
   * The send being written. When the connection ends, its report goes out before "closed" (the
   * daemon ends this worker on "closed"), saying how many of its lines reached the socket.
   */
  #current: { id: number; lines: number; progress: Progress; reported: boolean } | null = null;
  /** Sends whose caller is gone: no more of their lines are written. */
  readonly #cancelled = new Set<number>();
  #resolveClosed!: () => void;
  readonly #closedSignal = new Promise<void>((resolve) => {
    this.#resolveClosed = resolve;
  });

  constructor(link: ConnectionLink, channels: Channels, registered: () => boolean) {
    this.#link = link;
    this.#channels = channels;
    this.#registered = registered;
    this.#throttle = new LineThrottle({ burst: link.options.sendBurst, intervalMs: link.options.sendIntervalMs });
  }

  /** Sends one agent message (its PRIVMSG lines), serialised after earlier sends. */
  send(id: number, target: string, texts: readonly string[], join?: { channel: string; key?: string }): void {
    this.#chain = this.#chain.then(async () => {
      const progress = { written: 0, members: undefined as number | undefined };
      const current = { id, lines: texts.length, progress, reported: false };
      this.#current = current;
      let report: SendReport;
      try {
        report = await this.#sendNow(target, texts, id, progress, join);
      } catch (error) {
        report = failedReport(texts.length, progress, {
          code: "Internal",
          message: `the connection worker failed (a bug): ${(error as Error).message}`,
        });
      }
      this.#cancelled.delete(id);
      this.#current = null;
      if (!current.reported) this.#link.post({ type: "sent", id, report });
    });
  }

  cancel(id: number): void {
    this.#cancelled.add(id);
  }

  /** PONG: the answer to a send's confirming PING. */
  onPong(token: string | undefined): void {
    if (this.#inFlight && token === this.#inFlight.token) this.#inFlight.resolve();
  }

  /**
   * An error numeric while a send is in flight fails it, unless it answers something else (our
   * NICK, a JOIN) or names another channel or nick.
   */
  onErrorNumeric(message: IrcMessage): void {
    const p = message.params;
    if (!this.#inFlight || !(/^[45]\d\d$/.test(message.command) || SEND_ERRORS[message.command])) return;
    const fold = (name: string) => this.#channels.fold(name);
    const namesTarget = p[1] !== undefined && fold(p[1]) === fold(this.#inFlight.target);
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

  /** The connection ended (`error`: why, null after our QUIT): the send being written is reported now. */
  connectionEnded(error: LastError | null): void {
    this.#resolveClosed();
    const current = this.#current;
    if (current && !current.reported) {
      current.reported = true;
      const why = error ? `${error.error_code}: ${error.message}` : "the connection was closed";
      this.#link.post({
        type: "sent",
        id: current.id,
        report: failedReport(current.lines, current.progress, {
          code: "NotConnected",
          message: `the connection ended before the server confirmed the lines (${why})`,
        }),
      });
    }
  }

  async #sendNow(
    target: string,
    texts: readonly string[],
    id: number,
    progress: Progress,
    join?: { channel: string; key?: string },
  ): Promise<SendReport> {
    const lines = texts.length;
    if (!this.#registered() || this.#link.isClosed()) {
      return failedReport(lines, progress, { code: "NotConnected", message: "not connected to the IRC server" });
    }
    if (join) {
      const error = await this.#channels.join(join.channel, join.key);
      if (error) return failedReport(lines, progress, { code: "NotJoined", message: error.message });
    }
    if (isChannelName(target)) progress.members = this.#channels.otherMembers(target);
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
        return failedReport(lines, progress, {
          code: "Timeout",
          message: "the call ended (timeout or the client went away) before every line was written; " +
            "the rest was cancelled",
        });
      }
      if (this.#link.isClosed() || !await this.#link.write(formatLine("PRIVMSG", [target, text]))) break;
      this.#throttle.take();
      progress.written++;
    }
    if (progress.written < lines) {
      settle();
      return failedReport(lines, progress, {
        code: "NotConnected",
        message: "the connection closed before every line was written",
      });
    }
    // The confirming PING is not a message: it does not take a pacing slot.
    await this.#link.write(formatLine("PING", [token]));
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
      return failedReport(lines, progress, errors[0], errors.length >= lines ? "rejected" : "unknown");
    }
    if (outcome === "closed") {
      return failedReport(lines, progress, {
        code: "NotConnected",
        message: "the connection closed before the server confirmed the lines",
      });
    }
    if (outcome === "timeout") {
      this.#link.fail({
        error_code: "PingTimeout",
        message: `the IRC server did not confirm a message within ${confirmWithin} ms`,
      });
      return failedReport(lines, progress, {
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

  /** Waits until the throttle allows one more line. */
  async #waitForPace(): Promise<void> {
    let delay = this.#throttle.delayMs();
    while (delay > 0) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = this.#throttle.delayMs();
    }
  }
}

/** A failed send's report: what was written decides between "not sent" and "unknown". */
function failedReport(
  lines: number,
  progress: Progress,
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
