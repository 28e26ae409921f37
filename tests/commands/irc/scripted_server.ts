/**
 * A tiny scripted IRC server for what ngIRCd does not offer: IRCv3 CAP negotiation with SASL
 * PLAIN and server-time. It accepts one client at a time, records every line it receives,
 * and answers just enough of the protocol for a client to register, authenticate and join.
 */

export interface ScriptedOptions {
  /** Offer `sasl=PLAIN` (and `server-time`) in CAP LS. */
  readonly offerSasl: boolean;
  /** The SASL PLAIN password that succeeds. */
  readonly saslPassword?: string;
}

export interface ScriptedServer extends AsyncDisposable {
  readonly port: number;
  /** Every line received from clients, in order. */
  readonly received: string[];
  /** Sends a raw line to the connected client. */
  send(line: string): Promise<void>;
  /** Resolves when a line matching `match` has been received. */
  waitFor(match: (line: string) => boolean, timeoutMs?: number): Promise<string>;
}

export function startScriptedServer(options: ScriptedOptions): ScriptedServer {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const received: string[] = [];
  const encoder = new TextEncoder();
  let client: Deno.Conn | null = null;
  const waiters: (() => void)[] = [];
  const wake = () => waiters.splice(0).forEach((w) => w());

  const write = async (conn: Deno.Conn, ...lines: string[]) => {
    const bytes = encoder.encode(lines.map((l) => `${l}\r\n`).join(""));
    let written = 0;
    while (written < bytes.length) written += await conn.write(bytes.subarray(written));
  };

  const serveClient = async (conn: Deno.Conn) => {
    client = conn;
    let nick = "*";
    let user = false;
    let capPending = false;
    let welcomed = false;
    const welcome = async () => {
      if (welcomed || capPending || nick === "*" || !user) return;
      welcomed = true;
      await write(conn, `:scripted 001 ${nick} :Welcome to the scripted server`);
    };
    const decoder = new TextDecoder();
    const buffer = new Uint8Array(16 * 1024);
    let pending = "";
    try {
      while (true) {
        const n = await conn.read(buffer);
        if (n === null) break;
        pending += decoder.decode(buffer.subarray(0, n), { stream: true });
        const lines = pending.split("\r\n");
        pending = lines.pop()!;
        for (const line of lines) {
          received.push(line);
          wake();
          const [command, ...rest] = line.split(" ");
          const trailing = line.includes(" :") ? line.slice(line.indexOf(" :") + 2) : rest.at(-1) ?? "";
          switch (command.toUpperCase()) {
            case "CAP":
              if (rest[0] === "LS") {
                capPending = true;
                await write(
                  conn,
                  `:scripted CAP * LS :${options.offerSasl ? "sasl=PLAIN,EXTERNAL server-time" : "multi-prefix"}`,
                );
              } else if (rest[0] === "REQ") await write(conn, `:scripted CAP * ACK :${trailing}`);
              else if (rest[0] === "END") {
                capPending = false;
                await welcome();
              }
              break;
            case "AUTHENTICATE":
              if (rest[0] === "PLAIN") await write(conn, "AUTHENTICATE +");
              else {
                const [, authcid, password] = atob(rest[0]).split("\0");
                if (password === options.saslPassword) {
                  await write(
                    conn,
                    `:scripted 900 ${nick} ${nick}!u@h ${authcid} :You are now logged in as ${authcid}`,
                    `:scripted 903 ${nick} :SASL authentication successful`,
                  );
                } else await write(conn, `:scripted 904 ${nick} :SASL authentication failed`);
              }
              break;
            case "NICK":
              nick = rest[0];
              await welcome();
              break;
            case "USER":
              user = true;
              await welcome();
              break;
            case "JOIN":
              await write(
                conn,
                `:${nick}!u@127.0.0.1 JOIN ${rest[0]}`,
                `:scripted 366 ${nick} ${rest[0]} :End of NAMES`,
              );
              break;
            case "WHOIS":
              // NickServ here is a network service, as services packages introduce it.
              if (rest[0]?.toLowerCase() === "nickserv") {
                await write(
                  conn,
                  `:scripted 311 ${nick} NickServ NickServ services.scripted * :Nickname Services`,
                  `:scripted 313 ${nick} NickServ :is a Network Service`,
                  `:scripted 318 ${nick} NickServ :End of /WHOIS list.`,
                );
              } else await write(conn, `:scripted 401 ${nick} ${rest[0]} :No such nick`);
              break;
            case "PING":
              await write(conn, `:scripted PONG scripted :${trailing}`);
              break;
            case "QUIT":
              conn.close();
              return;
          }
        }
      }
    } catch { /* the client went away */ }
    if (client === conn) client = null;
  };

  const accepting = (async () => {
    try {
      for await (const conn of listener) void serveClient(conn);
    } catch { /* closed */ }
  })();

  return {
    port,
    received,
    async send(line) {
      if (!client) throw new Error("no client connected");
      await write(client, line);
    },
    async waitFor(match, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (true) {
        const found = received.find(match);
        if (found !== undefined) return found;
        if (Date.now() > deadline) throw new Error(`not received; got:\n${received.join("\n")}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 100);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    async [Symbol.asyncDispose]() {
      listener.close();
      try {
        (client as Deno.Conn | null)?.close();
      } catch { /* closed */ }
      await accepting;
    },
  };
}
