/** A small HTTP CONNECT proxy on loopback for the tests: it records each tunnel and can require basic auth. */

export interface ConnectProxy extends AsyncDisposable {
  readonly url: string;
  /** `host:port` of each tunnel opened, and the Proxy-Authorization it came with. */
  readonly tunnels: { target: string; authorization: string | null; allowed: boolean }[];
}

export function startConnectProxy(auth?: { user: string; password: string }): ConnectProxy {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const tunnels: ConnectProxy["tunnels"] = [];
  const open = new Set<Deno.Conn>();
  const serve = async (conn: Deno.Conn) => {
    open.add(conn);
    try {
      let head = "";
      const buffer = new Uint8Array(4096);
      while (!head.includes("\r\n\r\n")) {
        const n = await conn.read(buffer);
        if (n === null) return;
        head += new TextDecoder().decode(buffer.subarray(0, n));
      }
      const [requestLine, ...headers] = head.split("\r\n");
      const [method, target] = requestLine.split(" ");
      const authorization = headers.find((h) => h.toLowerCase().startsWith("proxy-authorization:"))?.slice(20).trim() ??
        null;
      const allowed = !auth || authorization === "Basic " + btoa(`${auth.user}:${auth.password}`);
      tunnels.push({ target, authorization, allowed });
      const reply = (text: string) => conn.write(new TextEncoder().encode(text));
      if (method !== "CONNECT") return void await reply("HTTP/1.1 405 Method Not Allowed\r\n\r\n");
      if (!allowed) {
        return void await reply(
          'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="t"\r\n\r\n',
        );
      }
      const [hostname, port] = target.split(":");
      const upstream = await Deno.connect({ hostname, port: Number(port) });
      open.add(upstream);
      await reply("HTTP/1.1 200 Connection Established\r\n\r\n");
      await Promise.allSettled([conn.readable.pipeTo(upstream.writable), upstream.readable.pipeTo(conn.writable)]);
    } catch {
      /* a side closed */
    } finally {
      for (const c of [conn]) {
        try {
          c.close();
        } catch { /* closed */ }
      }
    }
  };
  const accepting = (async () => {
    for await (const conn of listener) void serve(conn);
  })().catch(() => {});
  const { port } = listener.addr as Deno.NetAddr;
  return {
    url: `http://127.0.0.1:${port}`,
    tunnels,
    async [Symbol.asyncDispose]() {
      listener.close();
      for (const c of open) {
        try {
          c.close();
        } catch { /* closed */ }
      }
      await accepting;
    },
  };
}
