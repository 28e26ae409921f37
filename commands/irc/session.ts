/**
 * The daemon's IRC session: one connection per agent session, made by its first command,
 * reconnected by the next `irc send` after a drop, inbound messages stored
 * and optionally forwarded to the host (IRC_AUTO_FORWARD_TO_AGENT).
 *
 * The connection itself runs in a Worker allowed only `net` to IRC_SERVER:IRC_PORT; this
 * class, on the daemon's main thread, holds the state the commands ask about.
 */

import { PtermError } from "../../core/errors.ts";
import { redactSecrets } from "../../core/redact.ts";
import { type IrcConfig, loadConfig, netPermissionHost, secretValues } from "./config.ts";
import type {
  ConnectionOptions,
  FromConnection,
  InboundMessage,
  SendReport,
  ToConnection,
} from "./connection_protocol.ts";
import {
  indicatorFor,
  type IrcState,
  type LastError,
  MAX_SEND_TEXT_BYTES,
  type PullFields,
  type SendFields,
  type StatusFields,
  type StoredMessage,
} from "./daemon_protocol.ts";
import { Forwarder } from "./forward.ts";
import {
  type CaseMapping,
  foldName,
  isChannelName,
  isNickName,
  privmsgTexts,
  RELAY_PREFIX_RESERVE,
  utf8Bytes,
} from "./protocol.ts";
import { sanitizeNick, sanitizeText } from "./sanitize.ts";
import type { MessageStore } from "./store.ts";

export const CONNECT_TIMEOUT_MS = 10_000;
export const REGISTER_TIMEOUT_MS = 20_000;
/** How long the daemon waits for a connection attempt to reach "joined" (or fail). */
const ATTEMPT_TIMEOUT_MS = CONNECT_TIMEOUT_MS + REGISTER_TIMEOUT_MS + 12_000;
/** Connection attempts one `irc send` may make after a drop, and the pause before each retry. */
export const SEND_CONNECT_ATTEMPTS = 3;
const RETRY_BACKOFF_MS = 300;
/** Rate limit of failed connection attempts, so a flapping server is not hammered. */
export const MAX_ATTEMPTS_PER_WINDOW = 10;
const ATTEMPT_WINDOW_MS = 60_000;
const QUIT_WAIT_MS = 2_000;
/** Failures another attempt cannot fix: the .env or the server's configuration must change first. */
const FINAL_CONNECT_ERRORS: ReadonlySet<string> = new Set([
  "ServerPasswordRejected",
  "SaslFailed",
  "NickRejected",
  "Banned",
  "TlsCertificateInvalid",
  "TlsHandshakeFailed",
  "NetworkDenied",
]);

const CONNECTION_WORKER_URL = new URL("./connection_worker.ts", import.meta.url);

export interface SessionDeps {
  readonly root: string;
  readonly sessionId: string;
  readonly store: MessageStore;
  /** A line for the daemon's stderr (the host's log). */
  readonly log: (line: string) => void;
  /** A line for the daemon's stdout (auto-forward to the agent host). */
  readonly forward: (line: string) => Promise<void>;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class IrcSession {
  readonly #deps: SessionDeps;
  #state: IrcState = "not_initialized";
  #lastError: LastError | undefined;
  #config: IrcConfig | null = null;
  #worker: Worker | null = null;
  #nick = "";
  #prefixReserve = RELAY_PREFIX_RESERVE;
  #attempted = false;
  #defaultJoinSettled = false;
  #connecting: Promise<void> | null = null;
  #connectionCount = 0;
  #attemptTimes: number[] = [];
  readonly #sends = new Map<number, { lines: number; resolve: (report: SendReport) => void }>();
  #caseMapping: CaseMapping = "rfc1459";
  #nickserv: { identified: boolean; reason: string } | undefined;
  #nextSendId = 1;
  #waiters: (() => void)[] = [];
  #forwarder: Forwarder | null = null;

  constructor(deps: SessionDeps) {
    this.#deps = deps;
  }

  /** Replaces every configured credential in `text`: nothing secret is stored, shown or logged. */
  #redact(text: string): string {
    return this.#config ? redactSecrets(text, secretValues(this.#config)) : text;
  }

  #redactError(error: LastError): LastError {
    return { error_code: error.error_code, message: this.#redact(sanitizeText(error.message)) };
  }

  async #loadConfig(): Promise<IrcConfig> {
    try {
      const config = await loadConfig(this.#deps.root);
      this.#config = config;
      if (config.autoForward) this.#forwarder ??= new Forwarder(this.#deps.sessionId, this.#deps.forward);
      else if (this.#forwarder) {
        void this.#forwarder.close();
        this.#forwarder = null;
      }
      return config;
    } catch (error) {
      if (error instanceof PtermError) {
        this.#state = "error";
        this.#lastError = { error_code: error.code, message: error.message };
        throw new PtermError(error.code, error.message, { result: this.#statusFields() });
      }
      throw error;
    }
  }

  #changed(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  /** Waits until `done()` holds, re-checking on every event, or `timeoutMs` passes; returns `done()`. */
  async #until(done: () => boolean, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        timer = setTimeout(resolve, left);
      });
      clearTimeout(timer);
    }
    return true;
  }

  get #linkUp(): boolean {
    return this.#state === "connected" || this.#state === "joined";
  }

  /** One connection attempt (joined by concurrent callers); config problems throw. */
  #connect(): Promise<void> {
    this.#connecting ??= this.#attempt().finally(() => {
      this.#connecting = null;
    });
    return this.#connecting;
  }

  async #attempt(): Promise<void> {
    const config = await this.#loadConfig();
    this.#attempted = true;
    const startedAt = Date.now();
    this.#stopWorker();
    this.#state = "connecting";
    this.#defaultJoinSettled = false;
    const worker = new Worker(CONNECTION_WORKER_URL, {
      type: "module",
      name: "pterm-irc-connection",
      // The second wall: the IRC code may reach the configured server and nothing else.
      deno: {
        permissions: {
          net: [netPermissionHost(config)],
          read: false,
          write: false,
          env: false,
          run: false,
          ffi: false,
          sys: false,
          import: false,
        },
      },
    } as WorkerOptions);
    this.#worker = worker;
    worker.onmessage = (event: MessageEvent<FromConnection>) => this.#onEvent(worker, event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      // A crashed worker never reported the send it was writing: its lines may be out.
      if (worker === this.#worker) this.#failPendingSends(false);
      this.#onEvent(worker, {
        type: "closed",
        error: { error_code: "Internal", message: `the IRC connection worker failed (a bug): ${event.message}` },
      });
    };
    worker.postMessage({ type: "start", options: this.#connectionOptions(config) } satisfies ToConnection);
    const settled = await this.#until(
      () => this.#state === "joined" || this.#state === "error" || (this.#linkUp && this.#defaultJoinSettled),
      ATTEMPT_TIMEOUT_MS,
    );
    if (!settled && this.#worker === worker) {
      this.#stopWorker();
      this.#state = "error";
      this.#lastError = {
        error_code: "ConnectTimeout",
        message: `the connection to ${config.server}:${config.port} was not ready within ${ATTEMPT_TIMEOUT_MS} ms`,
      };
    }
    // Only failures count against the rate limit: reconnecting after a drop that worked is fine.
    if (!this.#linkUp) this.#attemptTimes.push(startedAt);
  }

  #connectionOptions(config: IrcConfig): ConnectionOptions {
    const s = config.secrets;
    return {
      server: config.server,
      port: config.port,
      tls: config.tls,
      caPem: config.caPem,
      tlsFingerprint: config.tlsFingerprint,
      nick: config.nick,
      username: config.username,
      realname: config.realname,
      channel: config.channel,
      channelKey: s.channelKey,
      serverPassword: s.serverPassword,
      nickservPassword: s.nickservPassword,
      nickservHostmask: config.nickservHostmask,
      sasl: s.saslPassword ? { username: config.saslUsername, password: s.saslPassword } : undefined,
      sendBurst: config.sendBurst,
      sendIntervalMs: config.sendIntervalMs,
      keepaliveMs: config.keepaliveMs,
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
      registerTimeoutMs: REGISTER_TIMEOUT_MS,
    };
  }

  #isDefaultChannel(name: string): boolean {
    return this.#config !== null &&
      foldName(name, this.#caseMapping) === foldName(this.#config.channel, this.#caseMapping);
  }

  #onEvent(worker: Worker, event: FromConnection): void {
    if (worker !== this.#worker) return; // a connection already given up
    switch (event.type) {
      case "connecting":
        this.#state = "connecting";
        break;
      case "registered":
        this.#nickserv = undefined;
        this.#state = "connected";
        this.#nick = event.nick;
        this.#connectionCount++;
        this.#lastError = undefined;
        this.#deps.log(`connected to ${this.#config?.server}:${this.#config?.port} as ${event.nick}`);
        break;
      case "nick":
        this.#nick = event.nick;
        break;
      case "prefix":
        this.#prefixReserve = Math.max(RELAY_PREFIX_RESERVE, utf8Bytes(`:${event.prefix} `));
        break;
      case "joined":
        if (this.#isDefaultChannel(event.channel)) {
          this.#state = "joined";
          this.#defaultJoinSettled = true;
          this.#lastError = undefined;
        }
        this.#deps.log(`joined ${event.channel}`);
        break;
      case "left":
      case "join_failed":
        if (this.#isDefaultChannel(event.channel)) {
          if (this.#state === "joined") this.#state = "connected";
          this.#defaultJoinSettled = true;
          this.#lastError = this.#redactError(event.error);
        }
        this.#deps.log(this.#redactError(event.error).message);
        break;
      case "inbound":
        this.#storeInbound(event.messages);
        break;
      case "sent": {
        const pending = this.#sends.get(event.id);
        this.#sends.delete(event.id);
        pending?.resolve(event.report);
        break;
      }
      case "casemapping":
        this.#caseMapping = event.mapping;
        void this.#deps.store.setCaseMapping(event.mapping).catch((error) =>
          this.#deps.log(`case mapping not saved: ${error}`)
        );
        break;
      case "nickserv":
        this.#nickserv = { identified: event.identified, reason: event.reason };
        this.#deps.log(event.reason);
        break;
      case "closed":
        this.#worker = null;
        worker.terminate();
        if (event.error) {
          this.#state = "error";
          this.#lastError = this.#redactError(event.error);
          this.#deps.log(`connection ended: ${this.#lastError.error_code}: ${this.#lastError.message}`);
        } else {
          this.#state = "not_initialized";
        }
        this.#failPendingSends();
        break;
    }
    this.#changed();
  }

  #storeInbound(messages: readonly InboundMessage[]): void {
    const ts = new Date().toISOString();
    const byConversation = new Map<string, Omit<StoredMessage, "id">[]>();
    for (const m of messages) {
      const conversation = foldName(m.conversation, this.#caseMapping);
      let list = byConversation.get(conversation);
      if (!list) byConversation.set(conversation, list = []);
      const serverTime = m.serverTime && /^[0-9T:.\-+Z]{10,40}$/.test(m.serverTime) ? m.serverTime : undefined;
      list.push({
        ts,
        ...(serverTime ? { server_time: serverTime } : {}),
        nick: sanitizeNick(m.nick),
        text: this.#redact(sanitizeText(m.text)),
        kind: m.kind,
      });
    }
    for (const [conversation, entries] of byConversation) {
      const stored = this.#deps.store.append(conversation, entries);
      this.#forwarder?.add(conversation, stored);
    }
  }

  #stopWorker(): void {
    const worker = this.#worker;
    this.#worker = null;
    worker?.terminate();
    this.#failPendingSends(worker === null);
  }

  /**
   * Settles the sends the worker has not reported. After its "closed" it has reported the send
   * it was writing, so the rest never started (not sent); a worker stopped or crashed without
   * closing may have been writing one of them, so then what happened is unknown.
   */
  #failPendingSends(workerReported = true): void {
    for (const [id, pending] of this.#sends) {
      this.#sends.delete(id);
      const reason = this.#lastError?.message ?? "the connection closed";
      pending.resolve({
        delivery: workerReported ? "not_sent" : "unknown",
        lines: pending.lines,
        linesWritten: 0,
        linesConfirmed: 0,
        failure: {
          code: "NotConnected",
          message: workerReported ? reason : `the connection was stopped before it reported the lines it wrote`,
        },
      });
    }
  }

  #statusFields(): Partial<StatusFields> & Pick<StatusFields, "state" | "indicator"> {
    const c = this.#config;
    return {
      state: this.#state,
      indicator: indicatorFor(this.#state),
      ...(c
        ? {
          server: c.server,
          port: c.port,
          tls: c.tls,
          nick: this.#nick || c.nick,
          configured_nick: c.nick,
          channel: c.channel,
          case_mapping: this.#caseMapping,
        }
        : {}),
      ...(this.#nickserv ? { nickserv: this.#nickserv } : {}),
      ...(this.#lastError ? { last_error: this.#lastError } : {}),
      connection_count: this.#connectionCount,
      auto_forward: c?.autoForward ?? false,
    };
  }

  /** The first status/send/pull of the session makes the connection: none is opened before an agent asks. */
  async #lazyStart(): Promise<void> {
    if (!this.#attempted) await this.#connect();
  }

  async status(): Promise<Record<string, unknown>> {
    await this.#lazyStart();
    return this.#statusFields();
  }

  async send(
    to: string | null,
    text: string,
    confirm: boolean,
    signal: AbortSignal = new AbortController().signal,
  ): Promise<SendFields> {
    const config = this.#config ?? await this.#loadConfig();
    const target = to ?? config.channel;
    if (!isChannelName(target) && !isNickName(target)) {
      throw new PtermError("InvalidArgs", `\`${target}\` is neither a channel (#name) nor a nick.`, {
        helpFor: "irc send",
      });
    }
    const isDefault = this.#isDefaultChannel(target);
    if (!isDefault && !confirm) {
      throw new PtermError(
        "ConfirmRequired",
        `sending to ${target} (not the default channel ${config.channel}) needs --confirm; add it only when your ` +
          "user asked for a message to that target.",
        { helpFor: "irc send" },
      );
    }
    if (utf8Bytes(text) > MAX_SEND_TEXT_BYTES) {
      throw new PtermError(
        "InputTooLarge",
        `the text is ${utf8Bytes(text)} bytes; one irc send carries at most ${MAX_SEND_TEXT_BYTES}. Send it in parts.`,
      );
    }
    const reconnected = this.#attempted && !this.#linkUp;
    if (!this.#attempted) await this.#connect();
    if (!this.#linkUp) await this.#reconnect();
    const texts = privmsgTexts(text, target, this.#prefixReserve);
    if (texts.length === 0) {
      throw new PtermError("InvalidArgs", "the text is empty once control characters are removed; send some text.", {
        helpFor: "irc send",
      });
    }
    if (texts.length > config.sendMaxLines) {
      throw new PtermError(
        "InputTooLarge",
        `the text makes ${texts.length} IRC lines; one irc send carries at most ${config.sendMaxLines} ` +
          `(IRC_SEND_MAX_LINES), about ${Math.ceil(config.sendMaxLines * config.sendIntervalMs / 1000)} s at the ` +
          "server-safe pace. Split it into several sends, or save it as a file and send its path.",
        { helpFor: "irc send" },
      );
    }
    if (signal.aborted) throw new PtermError("Timeout", "the call ended before the message was handed over");
    const worker = this.#worker;
    if (!worker) {
      throw new PtermError("NotConnected", `the connection closed before sending: ${this.#lastError?.message}`, {
        result: this.#statusFields(),
      });
    }
    const id = this.#nextSendId++;
    const cancel = () => worker.postMessage({ type: "cancel", id } satisfies ToConnection);
    signal.addEventListener("abort", cancel, { once: true });
    const report = await new Promise<SendReport>((resolve) => {
      this.#sends.set(id, { lines: texts.length, resolve });
      const join = isChannelName(target)
        ? { channel: target, ...(isDefault && config.secrets.channelKey ? { key: config.secrets.channelKey } : {}) }
        : undefined;
      worker.postMessage({ type: "send", id, target, texts, join } satisfies ToConnection);
    }).finally(() => signal.removeEventListener("abort", cancel));
    const known = {
      delivery: report.delivery,
      lines: report.lines,
      lines_written: report.linesWritten,
      lines_confirmed: report.linesConfirmed,
      ...(report.channelMembers !== undefined ? { channel_members: report.channelMembers } : {}),
    };
    if (report.failure) {
      const reason = this.#redact(report.failure.message);
      if (signal.aborted) this.#deps.log(`a send to ${target} was cut short: ${JSON.stringify(known)}: ${reason}`);
      const result = { ...this.#statusFields(), send: known };
      if (report.delivery === "unknown") {
        throw new PtermError(
          "DeliveryUnknown",
          `the message to ${target} may have been delivered: ${
            report.linesWritten > 0
              ? `${report.linesWritten} of ${report.lines} lines were written to the connection and none was confirmed`
              : `its ${report.lines} line(s) were handed to the connection, which did not report how many it wrote`
          } (${reason}). Check with the recipient or \`irc pull\` before sending it again, or a retry may duplicate it.`,
          { result },
        );
      }
      const what = report.delivery === "rejected"
        ? `the server refused the message to ${target}`
        : `the message to ${target} was not sent (no line was written)`;
      throw new PtermError(report.failure.code, `${what}: ${reason}`, { result });
    }
    return {
      to: target,
      message_len: [...text].length,
      ...known,
      delivery: "delivered",
      session_bound: true,
      connected: this.#linkUp,
      joined_default_channel: this.#state === "joined",
      reconnected,
    };
  }

  /** Bounded, rate-limited reconnection for `irc send`; the reason ends up in last_error. */
  async #reconnect(): Promise<void> {
    let attempts = 0;
    let final = false;
    for (let attempt = 1; attempt <= SEND_CONNECT_ATTEMPTS && !this.#linkUp; attempt++) {
      if (attempt > 1) await delay(RETRY_BACKOFF_MS * 2 ** (attempt - 2));
      const now = Date.now();
      this.#attemptTimes = this.#attemptTimes.filter((t) => now - t < ATTEMPT_WINDOW_MS);
      if (this.#attemptTimes.length >= MAX_ATTEMPTS_PER_WINDOW) {
        const wait = Math.ceil((this.#attemptTimes[0] + ATTEMPT_WINDOW_MS - now) / 1000);
        throw new PtermError(
          "NotConnected",
          `not connected (${
            this.#lastError?.message ?? "connection lost"
          }), and ${MAX_ATTEMPTS_PER_WINDOW} connection ` +
            `attempts were made in the last minute; retry in ${wait} s.`,
          { result: this.#statusFields() },
        );
      }
      await this.#connect();
      attempts++;
      final = !this.#linkUp && this.#lastError !== undefined && FINAL_CONNECT_ERRORS.has(this.#lastError.error_code);
      if (final) break;
    }
    if (!this.#linkUp) {
      throw new PtermError(
        "NotConnected",
        `could not reconnect to the IRC server (${attempts} attempt${attempts === 1 ? "" : "s"}` +
          `${final ? "; not retried: another attempt cannot fix this" : ""}): ` +
          `${this.#lastError?.error_code ?? "Unknown"}: ${this.#lastError?.message ?? "no reason given"}`,
        { result: this.#statusFields() },
      );
    }
  }

  async pull(from: string | null, limit: number): Promise<PullFields> {
    const config = this.#config ?? await this.#loadConfig();
    await this.#lazyStart();
    const conversation = from ?? config.channel;
    if (!isChannelName(conversation) && !isNickName(conversation)) {
      throw new PtermError("InvalidArgs", `\`${conversation}\` is neither a channel (#name) nor a nick.`, {
        helpFor: "irc pull",
      });
    }
    const read = await this.#deps.store.read(conversation, limit);
    return {
      from: conversation,
      messages: read.messages,
      cursor_before: this.#deps.store.cursor(conversation),
      dropped_count: read.dropped,
      remaining: read.remaining,
      state: this.#state,
    };
  }

  async commit(from: string, after: string): Promise<{ from: string; cursor: string }> {
    if (!isChannelName(from) && !isNickName(from)) {
      throw new PtermError("InvalidArgs", `\`${from}\` is neither a channel (#name) nor a nick.`);
    }
    return { from, cursor: await this.#deps.store.commit(from, after) };
  }

  /** Ends the session: QUIT, close, flush — nothing of the connection outlives its session. */
  async shutdown(message = "pterm session ended"): Promise<void> {
    const worker = this.#worker;
    if (worker) {
      worker.postMessage({ type: "quit", message } satisfies ToConnection);
      await this.#until(() => this.#worker !== worker, QUIT_WAIT_MS);
      if (this.#worker === worker) this.#stopWorker();
    }
    this.#state = "not_initialized";
    await this.#forwarder?.close();
  }
}
