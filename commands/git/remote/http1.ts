/**
 * A small HTTP/1.1 client over `Deno.connect` / `Deno.connectTls`: what the smart HTTP
 * conversation needs (a GET, POSTs with a body given whole or streamed, answers framed by
 * Content-Length, chunked or by the connection's end) and nothing else — no redirects (the
 * transport decides those), no compression (none is asked for), no proxy (git.proxy keeps Deno's
 * fetch, transport.ts).
 *
 * Why not fetch: in a fresh worker, the first `fetch` loads Deno's Web streams, Headers, Response
 * and fetch machinery (~4–5 ms of a no-op fetch's ~15 ms of network work, measured in the `git`
 * worker), and each answer is read through a stream. Here an answer's body is read straight from
 * the socket into one buffer, and the connection is kept for the conversation's next request
 * (discovery, then ls-refs or fetch) instead of a new one per request.
 */

/** The bytes of an answer's body as they arrive. */
export interface ByteSource {
  /** The next bytes of the body, valid only until the next call; null at its end. */
  read(): Promise<Uint8Array | null>;
  /** Stops reading (the connection is closed unless the body was read to its end). */
  cancel(): Promise<void>;
}

export interface HttpHeaders {
  get(name: string): string | null;
  has(name: string): boolean;
}

export interface HttpResponse {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: HttpHeaders;
  readonly body: ByteSource;
}

export interface HttpRequestInit {
  readonly method: "GET" | "POST";
  /** Header names and values (no Host, Content-Length or Transfer-Encoding: the client writes those). */
  readonly headers: readonly (readonly [string, string])[];
  /** A body given whole is sent with Content-Length; a stream is sent chunked. */
  readonly body?: Uint8Array | ReadableStream<Uint8Array>;
  readonly signal?: AbortSignal;
}

/** The most an answer's status line and headers may take. */
const MAX_HEAD_BYTES = 64 * 1024;
/** The most a chunk-size line (or a trailer line) may take. */
const MAX_LINE_BYTES = 4 * 1024;
/** The socket is read into a buffer of this size (one side-band packet, 65520 bytes, and a bit). */
const READ_BYTES = 96 * 1024;

const encoder = new TextEncoder();
const latin1 = new TextDecoder("latin1");

/** The connection closed or sent something that is not HTTP/1.1; transport.ts turns it into RemoteError. */
export class HttpProtocolError extends Error {
  override name = "HttpProtocolError";
}

/** One connection and what has been read from it but not consumed yet (`buffer[start, end)`). */
class Wire {
  readonly key: string;
  readonly #conn: Deno.Conn;
  buffer = new Uint8Array(READ_BYTES);
  start = 0;
  end = 0;
  closed = false;

  constructor(key: string, conn: Deno.Conn) {
    this.key = key;
    this.#conn = conn;
  }

  /** Reads more bytes after the unconsumed ones; false at the connection's end. */
  async fill(): Promise<boolean> {
    if (this.start === this.end) this.start = this.end = 0;
    else if (this.end === this.buffer.length) {
      this.buffer.copyWithin(0, this.start, this.end);
      this.end -= this.start;
      this.start = 0;
    }
    if (this.end === this.buffer.length) throw new HttpProtocolError("an HTTP header or line too long");
    const n = await this.#conn.read(this.buffer.subarray(this.end));
    if (n === null) return false;
    this.end += n;
    return true;
  }

  async write(bytes: Uint8Array): Promise<void> {
    for (let at = 0; at < bytes.length;) at += await this.#conn.write(bytes.subarray(at));
  }

  /** The next line (CRLF, or a bare LF, stripped) as latin-1 text; null at the connection's end. */
  async line(limit: number): Promise<string | null> {
    let scanned = this.start;
    for (;;) {
      const lf = this.buffer.subarray(scanned, this.end).indexOf(10);
      if (lf >= 0) {
        const at = scanned + lf;
        const stop = at > this.start && this.buffer[at - 1] === 13 ? at - 1 : at;
        const text = latin1.decode(this.buffer.subarray(this.start, stop));
        this.start = at + 1;
        return text;
      }
      const searched = this.end - this.start;
      if (searched >= limit) throw new HttpProtocolError("an HTTP header or line too long");
      if (!await this.fill()) return null;
      scanned = this.start + searched; // fill() may have moved the unconsumed bytes to the front
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.#conn.close();
    } catch { /* already closed */ }
  }
}

class Headers1 implements HttpHeaders {
  readonly #values = new Map<string, string>();

  add(name: string, value: string): void {
    const key = name.toLowerCase();
    const had = this.#values.get(key);
    this.#values.set(key, had === undefined ? value : `${had}, ${value}`);
  }

  get(name: string): string | null {
    return this.#values.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.#values.has(name.toLowerCase());
  }
}

/** The framing of an answer's body. */
type Framing = { kind: "empty" } | { kind: "length"; left: number } | { kind: "chunked" } | { kind: "close" };

/**
 * An HTTP/1.1 client for one remote conversation: it keeps at most one idle connection, for the
 * conversation's next request; `close()` ends it (a warm worker keeps no socket between calls).
 */
export class Http1Client {
  readonly #caCerts: string[] | undefined;
  #idle: Wire | null = null;

  constructor(caCerts?: string) {
    this.#caCerts = caCerts ? [caCerts] : undefined;
  }

  close(): void {
    this.#idle?.close();
    this.#idle = null;
  }

  async request(url: URL, init: HttpRequestInit): Promise<HttpResponse> {
    init.signal?.throwIfAborted();
    const key = `${url.protocol}//${url.host}`;
    let kept = this.#idle?.key === key ? this.#idle : null;
    if (this.#idle && this.#idle !== kept) this.#idle.close();
    this.#idle = null;
    // (Not `instanceof ReadableStream`: naming that global loads Deno's Web streams, ~2–3 ms in a worker.)
    const replayable = init.body === undefined || init.body instanceof Uint8Array;
    for (;;) {
      const reused = kept !== null;
      const wire = kept ?? await this.#open(url, init.signal);
      kept = null;
      const abort = () => wire.close();
      init.signal?.addEventListener("abort", abort, { once: true });
      const release = () => init.signal?.removeEventListener("abort", abort);
      try {
        await this.#send(wire, url, init);
        const answer = await readHead(wire);
        if (answer === null) {
          // A kept connection the server closed meanwhile: once more on a new one.
          if (reused && replayable) {
            release();
            wire.close();
            continue;
          }
          throw new HttpProtocolError("the connection closed before the answer");
        }
        return this.#response(wire, answer, release);
      } catch (error) {
        release();
        wire.close();
        if (init.signal?.aborted) throw init.signal.reason;
        // A kept connection may break on the first write: once more on a new one.
        if (reused && replayable && !(error instanceof HttpProtocolError)) continue;
        throw error;
      }
    }
  }

  async #open(url: URL, signal?: AbortSignal): Promise<Wire> {
    const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
    const https = url.protocol === "https:";
    const port = url.port ? Number(url.port) : https ? 443 : 80;
    const connecting = https
      ? Deno.connectTls({ hostname, port, caCerts: this.#caCerts })
      : Deno.connect({ hostname, port });
    const conn = signal ? await abortable(connecting, signal) : await connecting;
    // Requests are written whole, but a streamed body goes out chunk by chunk: no Nagle delay.
    if ("setNoDelay" in conn) (conn as Deno.TcpConn).setNoDelay(true);
    return new Wire(`${url.protocol}//${url.host}`, conn);
  }

  async #send(wire: Wire, url: URL, init: HttpRequestInit): Promise<void> {
    let head = `${init.method} ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n`;
    for (const [name, value] of init.headers) {
      if (/[\r\n]/.test(name + value)) throw new HttpProtocolError("a header with a line break");
      head += `${name}: ${value}\r\n`;
    }
    const body = init.body;
    if (body !== undefined && !(body instanceof Uint8Array)) {
      await wire.write(encoder.encode(`${head}transfer-encoding: chunked\r\n\r\n`));
      const reader = body.getReader();
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          if (value.length === 0) continue;
          const size = encoder.encode(`${value.length.toString(16)}\r\n`);
          const frame = new Uint8Array(size.length + value.length + 2);
          frame.set(size);
          frame.set(value, size.length);
          frame.set([13, 10], size.length + value.length);
          await wire.write(frame);
        }
      } finally {
        reader.releaseLock();
      }
      await wire.write(encoder.encode("0\r\n\r\n"));
      return;
    }
    const headBytes = encoder.encode(`${head}content-length: ${body?.length ?? 0}\r\n\r\n`);
    if (!body || body.length === 0) return await wire.write(headBytes);
    // One write for head and body: a second small segment could wait for the server's delayed ACK.
    const request = new Uint8Array(headBytes.length + body.length);
    request.set(headBytes);
    request.set(body, headBytes.length);
    await wire.write(request);
  }

  #response(wire: Wire, answer: { status: number; headers: Headers1; keepAlive: boolean }, release: () => void) {
    const { status, headers } = answer;
    let framing: Framing;
    const encoding = headers.get("transfer-encoding");
    const length = headers.get("content-length");
    if (status === 204 || status === 304) framing = { kind: "empty" };
    else if (encoding !== null) {
      if (encoding.split(",").map((e) => e.trim().toLowerCase()).at(-1) !== "chunked") {
        throw new HttpProtocolError(`a transfer encoding pterm does not read (${encoding.slice(0, 40)})`);
      }
      framing = { kind: "chunked" };
    } else if (length !== null) {
      const values = new Set(length.split(",").map((v) => v.trim()));
      const [only] = values;
      if (values.size !== 1 || !/^\d{1,15}$/.test(only)) throw new HttpProtocolError("a bad Content-Length");
      framing = Number(only) === 0 ? { kind: "empty" } : { kind: "length", left: Number(only) };
    } else framing = { kind: "close" };
    // "open": being read; "done": read to its end; "stopped": cancelled or failed (the connection is closed).
    let state: "open" | "done" | "stopped" = "open";
    const finish = () => {
      state = "done";
      release();
      if (answer.keepAlive && framing.kind !== "close" && wire.start === wire.end && !wire.closed) {
        this.#idle?.close();
        this.#idle = wire;
      } else wire.close();
    };
    const stop = () => {
      if (state !== "open") return;
      state = "stopped";
      release();
      wire.close();
    };
    if (framing.kind === "empty") finish();
    const ended = () => new HttpProtocolError("the connection closed in the middle of the answer");
    /** Of a chunked body: the bytes left of the current chunk; -1: a chunk-size line comes next; -2: the chunk's CRLF. */
    let chunkLeft = -1;
    const take = (most: number) => {
      const n = Math.min(most, wire.end - wire.start);
      const view = wire.buffer.subarray(wire.start, wire.start + n);
      wire.start += n;
      return view;
    };
    const readBody = async (): Promise<Uint8Array | null> => {
      if (framing.kind === "length") {
        if (framing.left === 0) {
          finish();
          return null;
        }
        if (wire.start === wire.end && !await wire.fill()) throw ended();
        const view = take(framing.left);
        framing.left -= view.length;
        return view;
      }
      if (framing.kind === "close") {
        if (wire.start === wire.end && !await wire.fill()) {
          finish();
          return null;
        }
        return take(wire.end - wire.start);
      }
      for (;;) { // chunked
        if (chunkLeft > 0) {
          if (wire.start === wire.end && !await wire.fill()) throw ended();
          const view = take(chunkLeft);
          chunkLeft -= view.length;
          if (chunkLeft === 0) chunkLeft = -2;
          return view;
        }
        const line = await wire.line(MAX_LINE_BYTES);
        if (line === null) throw ended();
        if (chunkLeft === -2) {
          if (line !== "") throw new HttpProtocolError("a chunk longer than its size");
          chunkLeft = -1;
          continue;
        }
        const sizeText = line.split(";")[0].trim();
        if (!/^[0-9a-fA-F]{1,12}$/.test(sizeText)) throw new HttpProtocolError("a bad chunk size");
        chunkLeft = parseInt(sizeText, 16);
        if (chunkLeft > 0) continue;
        // The last chunk, then trailers up to an empty line.
        for (let trailer = line; trailer !== "";) {
          const next = await wire.line(MAX_LINE_BYTES);
          if (next === null) throw ended();
          trailer = next;
        }
        finish();
        return null;
      }
    };
    const body: ByteSource = {
      read: async () => {
        if (state === "done") return null;
        if (state === "stopped") throw new HttpProtocolError("the answer was already given up");
        try {
          return await readBody();
        } catch (error) {
          stop();
          throw error;
        }
      },
      cancel: () => {
        stop();
        return Promise.resolve();
      },
    };
    return { status, ok: status >= 200 && status < 300, headers, body };
  }
}

/**
 * `connecting`, or the signal's reason as soon as it aborts (a host that drops the connection
 * attempt does not hold the call past its deadline); a connection made after that is closed.
 */
function abortable(connecting: Promise<Deno.Conn>, signal: AbortSignal): Promise<Deno.Conn> {
  if (signal.aborted) {
    connecting.then((conn) => conn.close(), () => {});
    return Promise.reject(signal.reason);
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      connecting.then((conn) => conn.close(), () => {});
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    connecting.then((conn) => {
      signal.removeEventListener("abort", onAbort);
      if (signal.aborted) conn.close();
      else resolve(conn);
    }, (error) => {
      signal.removeEventListener("abort", onAbort);
      reject(error);
    });
  });
}

/** The status line and headers of the next answer (interim 1xx answers skipped); null: the connection was closed before it. */
async function readHead(wire: Wire): Promise<{ status: number; headers: Headers1; keepAlive: boolean } | null> {
  for (;;) {
    const statusLine = await wire.line(MAX_HEAD_BYTES);
    if (statusLine === null) return null;
    const match = /^HTTP\/1\.([01]) (\d{3})(?: .*)?$/.exec(statusLine);
    if (!match) throw new HttpProtocolError("an answer that is not HTTP/1.1");
    const status = Number(match[2]);
    const headers = new Headers1();
    for (let headBytes = statusLine.length;;) {
      const line = await wire.line(MAX_HEAD_BYTES);
      if (line === null) throw new HttpProtocolError("the connection closed in the middle of the answer's headers");
      if (line === "") break;
      headBytes += line.length + 2;
      if (headBytes > MAX_HEAD_BYTES) throw new HttpProtocolError("an answer's headers too long");
      const colon = line.indexOf(":");
      if (colon <= 0) throw new HttpProtocolError("a malformed header line");
      headers.add(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
    }
    if (status >= 100 && status < 200) continue;
    const connection = (headers.get("connection") ?? "").toLowerCase();
    const keepAlive = match[1] === "1" ? !/\bclose\b/.test(connection) : /\bkeep-alive\b/.test(connection);
    return { status, headers, keepAlive };
  }
}
