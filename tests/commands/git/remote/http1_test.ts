/**
 * commands/git/remote/http1.ts, the HTTP/1.1 client of the smart HTTP transport, against a raw TCP
 * server that answers each request with bytes the test scripts (written in small pieces, so every
 * boundary falls mid-line and mid-chunk somewhere): each framing an HTTP server may use, interim
 * answers, a kept connection the server closed meanwhile, and answers cut short, which must fail,
 * never end quietly. The transport's tests (clone_test.ts, fetch_test.ts, …) run it against the
 * real git http-backend behind Deno's HTTP server, and push through it.
 */

import assert from "node:assert/strict";
import { Http1Client, HttpProtocolError, type HttpResponse } from "../../../../commands/git/remote/http1.ts";

const encoder = new TextEncoder();

interface Scripted extends AsyncDisposable {
  readonly url: URL;
  /** The requests received, as text (head and body), in order, and on which connection (0, 1, …). */
  readonly requests: { connection: number; text: string }[];
}

/**
 * A TCP server: for the n-th request (over all connections) it writes `answers[n]` in pieces of
 * `piece` bytes, then closes the connection when `close` says so.
 */
function scriptedServer(answers: readonly { bytes: string; close?: boolean }[], piece = 7): Scripted {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const requests: { connection: number; text: string }[] = [];
  const open = new Set<Deno.Conn>();
  let served = 0;
  const serve = async (conn: Deno.Conn, connection: number) => {
    const buffer = new Uint8Array(65536);
    let pending = "";
    try {
      for (;;) {
        const n = await conn.read(buffer);
        if (n === null) return;
        pending += new TextDecoder().decode(buffer.subarray(0, n));
        const headEnd = pending.indexOf("\r\n\r\n");
        if (headEnd < 0) continue;
        const head = pending.slice(0, headEnd);
        let end: number;
        if (/transfer-encoding: chunked/i.test(head)) {
          // Enough for the bodies these tests send: up to the last chunk (and no trailers).
          const last = pending.indexOf("\r\n0\r\n\r\n", headEnd + 2);
          if (last < 0) continue;
          end = last + 7;
        } else {
          end = headEnd + 4 + Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
          if (pending.length < end) continue;
        }
        requests.push({ connection, text: pending.slice(0, end) });
        pending = pending.slice(end);
        const answer = answers[served++];
        const bytes = encoder.encode(answer.bytes);
        for (let at = 0; at < bytes.length; at += piece) await conn.write(bytes.subarray(at, at + piece));
        if (answer.close) return;
      }
    } catch {
      /* the client closed it */
    } finally {
      open.delete(conn);
      try {
        conn.close();
      } catch { /* closed */ }
    }
  };
  const accepting = (async () => {
    let connections = 0;
    for await (const conn of listener) {
      open.add(conn);
      serve(conn, connections++);
    }
  })();
  const { port } = listener.addr as Deno.NetAddr;
  return {
    url: new URL(`http://127.0.0.1:${port}/repo.git`),
    requests,
    async [Symbol.asyncDispose]() {
      listener.close();
      for (const conn of open) {
        try {
          conn.close();
        } catch { /* closed */ }
      }
      await accepting.catch(() => {});
    },
  };
}

async function text(response: HttpResponse): Promise<string> {
  let out = "";
  const decoder = new TextDecoder();
  for (let piece = await response.body.read(); piece !== null; piece = await response.body.read()) {
    out += decoder.decode(piece, { stream: true });
  }
  return out;
}

const get = (client: Http1Client, url: URL, path = "/info/refs") =>
  client.request(new URL(url.href + path), { method: "GET", headers: [["accept", "*/*"]] });

Deno.test("http1: chunked (extensions, trailers), Content-Length and close-delimited bodies, over one kept connection", async () => {
  await using server = scriptedServer([
    {
      bytes: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n" +
        "5;name=value\r\nhello\r\n1\r\n,\r\n6\r\n world\r\n0\r\nX-Trailer: yes\r\n\r\n",
    },
    { bytes: "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nfixed sized" },
    { bytes: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n" },
    { bytes: "HTTP/1.0 200 OK\r\n\r\nuntil the end", close: true },
  ]);
  const client = new Http1Client();
  try {
    const first = await get(client, server.url);
    assert.equal(first.status, 200);
    assert.equal(first.headers.get("content-type"), "text/plain");
    assert.equal(await text(first), "hello, world");
    assert.equal(await text(await get(client, server.url)), "fixed sized");
    const posted = await client.request(new URL(server.url.href + "/git-upload-pack"), {
      method: "POST",
      headers: [["content-type", "application/x-git-upload-pack-request"]],
      body: encoder.encode("0000"),
    });
    assert.equal(posted.status, 200);
    assert.equal(await text(posted), "");
    assert.equal(await text(await get(client, server.url)), "until the end");
  } finally {
    client.close();
  }
  // The first three answers came over one connection, kept between them.
  assert.deepEqual(server.requests.map((r) => r.connection), [0, 0, 0, 0]);
  assert.match(server.requests[0].text, /^GET \/repo\.git\/info\/refs HTTP\/1\.1\r\nhost: 127\.0\.0\.1:\d+\r\n/);
  assert.match(server.requests[2].text, /content-length: 4\r\n\r\n0000$/);
});

Deno.test("http1: a kept connection the server closed meanwhile is replaced, and the request is sent once more", async () => {
  await using server = scriptedServer([
    { bytes: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", close: true },
    { bytes: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nagain" },
  ]);
  const client = new Http1Client();
  try {
    assert.equal(await text(await get(client, server.url)), "ok");
    // The server has closed the connection the client kept; give the close time to arrive.
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(await text(await get(client, server.url)), "again");
  } finally {
    client.close();
  }
  assert.deepEqual(server.requests.map((r) => r.connection), [0, 1]);
});

Deno.test("http1: an answer cut short fails, whatever its framing; a malformed one is refused", async (t) => {
  const cases: [string, string][] = [
    ["inside a chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nonly part"],
    ["before the last chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n"],
    ["inside the trailers", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-A: b\r\n"],
    ["before Content-Length is reached", "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort"],
    ["inside the headers", "HTTP/1.1 200 OK\r\nContent-Le"],
    ["a chunk longer than its size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n"],
    ["a chunk size that is not hex", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"],
    ["not HTTP", "SSH-2.0-OpenSSH_9.2\r\n\r\n"],
    ["two Content-Lengths", "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd"],
    ["a transfer encoding not chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nabc"],
  ];
  for (const [name, bytes] of cases) {
    await t.step(name, async () => {
      await using server = scriptedServer([{ bytes, close: true }], 3);
      const client = new Http1Client();
      try {
        await assert.rejects(async () => await text(await get(client, server.url)), HttpProtocolError);
      } finally {
        client.close();
      }
    });
  }
});

Deno.test("http1: headers past 64 KiB are refused, not buffered on", async () => {
  await using server = scriptedServer([
    { bytes: `HTTP/1.1 200 OK\r\n${"X-Big: " + "a".repeat(1000) + "\r\n"}`.repeat(70), close: true },
  ], 4096);
  const client = new Http1Client();
  try {
    await assert.rejects(() => get(client, server.url), HttpProtocolError);
  } finally {
    client.close();
  }
});

Deno.test("http1: a streamed request body goes out chunked; an abort closes the connection at once", async () => {
  await using server = scriptedServer([{ bytes: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok" }]);
  const client = new Http1Client();
  try {
    const parts = ["0032", "pack bytes", ""];
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = parts.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(encoder.encode(next));
      },
    });
    const response = await client.request(new URL(server.url.href + "/git-receive-pack"), {
      method: "POST",
      headers: [],
      body,
    });
    assert.equal(await text(response), "ok");
  } finally {
    client.close();
  }
  assert.match(server.requests[0].text, /transfer-encoding: chunked\r\n\r\n4\r\n0032\r\na\r\npack bytes\r\n0\r\n\r\n$/);

  // A server that sends the head and then nothing: the abort ends the read.
  await using stalled = scriptedServer([{ bytes: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc" }]);
  const controller = new AbortController();
  const other = new Http1Client();
  try {
    const response = await other.request(new URL(stalled.url.href + "/x"), {
      method: "GET",
      headers: [],
      signal: controller.signal,
    });
    assert.equal(new TextDecoder().decode(await response.body.read() ?? new Uint8Array()), "abc");
    const reading = response.body.read();
    controller.abort(new Error("deadline"));
    await assert.rejects(reading);
  } finally {
    other.close();
  }
});

Deno.test("http1: an abort while waiting for the answer's head ends the request with the signal's reason", async () => {
  // A server that takes the connection and never answers.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const accepted: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of listener) accepted.push(conn);
  })();
  const client = new Http1Client();
  try {
    const controller = new AbortController();
    const { port } = listener.addr as Deno.NetAddr;
    const request = client.request(new URL(`http://127.0.0.1:${port}/repo.git/info/refs`), {
      method: "GET",
      headers: [],
      signal: controller.signal,
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const reason = new Error("the call's deadline");
    controller.abort(reason);
    await assert.rejects(request, (error) => error === reason);
  } finally {
    client.close();
    listener.close();
    for (const conn of accepted) conn.close();
    await accepting.catch(() => {});
  }
});
