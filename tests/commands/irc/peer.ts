/**
 * The other side of the conversation in the irc tests: a plain IRC client over Deno.connect
 * that talks to pterm through the real server. Deliberately independent of pterm's own IRC
 * code (it parses only what the tests look at), so the two cannot share a bug.
 */

export interface PeerLine {
  readonly raw: string;
  readonly prefix: string;
  readonly command: string;
  readonly params: string[];
  readonly at: number;
}

function parse(raw: string): PeerLine {
  let rest = raw;
  if (rest.startsWith("@")) rest = rest.slice(rest.indexOf(" ") + 1);
  let prefix = "";
  if (rest.startsWith(":")) {
    prefix = rest.slice(1, rest.indexOf(" "));
    rest = rest.slice(rest.indexOf(" ") + 1);
  }
  const trailingAt = rest.indexOf(" :");
  const head = trailingAt >= 0 ? rest.slice(0, trailingAt) : rest;
  const params = head.split(" ").filter(Boolean);
  const command = params.shift()!.toUpperCase();
  if (trailingAt >= 0) params.push(rest.slice(trailingAt + 2));
  return { raw, prefix, command, params, at: performance.now() };
}

export class Peer {
  readonly lines: PeerLine[] = [];
  readonly #conn: Deno.Conn;
  #waiters: (() => void)[] = [];
  #closed = false;
  readonly #reading: Promise<void>;
  #nick: string;

  private constructor(conn: Deno.Conn, nick: string) {
    this.#conn = conn;
    this.#nick = nick;
    this.#reading = this.#read();
  }

  get nick(): string {
    return this.#nick;
  }

  static async connect(
    port: number,
    nick: string,
    password: string,
    options: { oper?: { name: string; password: string } } = {},
  ): Promise<Peer> {
    const peer = new Peer(await Deno.connect({ hostname: "127.0.0.1", port }), nick);
    await peer.raw(`PASS ${password}`, `NICK ${nick}`, `USER ${nick} 0 * :pterm test peer`);
    await peer.waitFor((l) => l.command === "001", 10_000, "welcome");
    if (options.oper) {
      await peer.raw(`OPER ${options.oper.name} ${options.oper.password}`);
      await peer.waitFor((l) => l.command === "381", 5_000, "oper");
      // +F: ngIRCd's relaxed flood protection, so a test can send a burst.
      await peer.raw(`MODE ${nick} +F`);
    }
    return peer;
  }

  async #read(): Promise<void> {
    const decoder = new TextDecoder();
    const buffer = new Uint8Array(64 * 1024);
    let pending = "";
    try {
      while (true) {
        const n = await this.#conn.read(buffer);
        if (n === null) break;
        pending += decoder.decode(buffer.subarray(0, n), { stream: true });
        const parts = pending.split("\r\n");
        pending = parts.pop()!;
        for (const raw of parts) {
          if (!raw) continue;
          const line = parse(raw);
          if (line.command === "PING") await this.raw(`PONG :${line.params.at(-1) ?? ""}`);
          this.lines.push(line);
        }
        this.#wake();
      }
    } catch { /* closed */ }
    this.#closed = true;
    this.#wake();
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }

  async raw(...lines: string[]): Promise<void> {
    const bytes = new TextEncoder().encode(lines.map((l) => `${l}\r\n`).join(""));
    let written = 0;
    while (written < bytes.length) written += await this.#conn.write(bytes.subarray(written));
  }

  /** Waits for a line (from index `from` on) matching `match`. */
  async waitFor(match: (line: PeerLine) => boolean, timeoutMs = 10_000, what = "a line", from = 0): Promise<PeerLine> {
    const deadline = Date.now() + timeoutMs;
    let index = from;
    while (true) {
      for (; index < this.lines.length; index++) if (match(this.lines[index])) return this.lines[index];
      if (this.#closed) throw new Error(`${this.nick}: connection closed while waiting for ${what}`);
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(
          `${this.nick}: no ${what} within ${timeoutMs} ms; last lines:\n${
            this.lines.slice(-10).map((l) => l.raw).join("\n")
          }`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits until `count` lines match. */
  async waitForCount(match: (line: PeerLine) => boolean, count: number, timeoutMs = 20_000): Promise<PeerLine[]> {
    const deadline = Date.now() + timeoutMs;
    while (true) {
      const found = this.lines.filter(match);
      if (found.length >= count) return found;
      if (this.#closed || Date.now() > deadline) {
        throw new Error(`${this.nick}: ${found.length} of ${count} expected lines`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 200);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async join(channel: string, key?: string): Promise<void> {
    await this.raw(key ? `JOIN ${channel} ${key}` : `JOIN ${channel}`);
    await this.waitFor((l) => l.command === "366" && l.params[1] === channel, 5_000, `join ${channel}`);
  }

  async say(target: string, text: string): Promise<void> {
    await this.raw(`PRIVMSG ${target} :${text}`);
  }

  /** PRIVMSGs received from `nick` (optionally to `target`). */
  messagesFrom(nick: string, target?: string): PeerLine[] {
    return this.lines.filter((l) =>
      l.command === "PRIVMSG" && l.prefix.split("!")[0] === nick && (target === undefined || l.params[0] === target)
    );
  }

  /** A PING round trip: everything sent before it has been processed by the server. */
  async sync(): Promise<void> {
    const token = `sync${crypto.randomUUID().slice(0, 8)}`;
    const from = this.lines.length;
    await this.raw(`PING :${token}`);
    await this.waitFor((l) => l.command === "PONG" && l.params.at(-1) === token, 30_000, "PONG", from);
  }

  /**
   * Changes to `nick`, asking again while the server answers 433: a nick whose holder has just
   * gone can stay taken until the server has processed that holder's end (ngIRCd does not read
   * from a client serving its flood penalty, so a QUIT or a closed socket waits). Returns the
   * 433 answers it got on the way, so that a test can say what held the nick.
   */
  async takeNick(nick: string, timeoutMs = 10_000): Promise<PeerLine[]> {
    const deadline = Date.now() + timeoutMs;
    const refusals: PeerLine[] = [];
    while (true) {
      const from = this.lines.length;
      await this.raw(`NICK ${nick}`);
      const answer = await this.waitFor(
        (l) => (l.command === "NICK" && l.prefix.split("!")[0] === this.#nick) || l.command === "433",
        5_000,
        `the answer to NICK ${nick}`,
        from,
      );
      if (answer.command === "NICK") {
        this.#nick = nick;
        return refusals;
      }
      refusals.push(answer);
      if (Date.now() > deadline) throw new Error(`${this.#nick}: ${nick} still in use after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  async close(): Promise<void> {
    if (!this.#closed) {
      try {
        await this.raw("QUIT :bye");
      } catch { /* gone */ }
      try {
        this.#conn.close();
      } catch { /* closed */ }
    }
    await this.#reading;
  }
}
