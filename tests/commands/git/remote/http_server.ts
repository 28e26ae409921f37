/**
 * A real git smart-HTTP server on loopback for the tests: `git http-backend` (git's own CGI
 * program) behind a small CGI bridge in the test process. Protocol v2 is whatever the client asks
 * for in its `Git-Protocol` header, passed on as GIT_PROTOCOL, exactly as Apache or nginx would.
 *
 * Options let a test make the server misbehave the way real ones do: require a token on some
 * repositories (basic auth), speak only protocol v0, cut an upload-pack response after some bytes,
 * or redirect to another host.
 */

import { join } from "node:path";

export interface GitHttpServerOptions {
  /** Repositories (names under the project root, e.g. "private.git") that need basic auth with this user and token. */
  readonly auth?: { readonly repos: readonly string[]; readonly user: string; readonly token: string };
  /** Drop the client's Git-Protocol header: the server then answers in protocol v0. */
  readonly v0Only?: boolean;
  /** Repositories (names under the project root) answered with 403 Forbidden, whatever the credentials. */
  readonly forbidden?: readonly string[];
  /** Serve https with this certificate and key (PEM). */
  readonly tls?: { readonly cert: string; readonly key: string };
}

export interface RequestRecord {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly gitProtocol: string | null;
  readonly authorization: string | null;
  readonly status: number;
}

export interface GitHttpServer extends AsyncDisposable {
  /** The folder holding the served repositories (bare ones, named `*.git`). */
  readonly projectRoot: string;
  /** `http://127.0.0.1:<port>` (https with `tls`) */
  readonly origin: string;
  readonly port: number;
  /** Every request the server answered, in order. */
  readonly requests: RequestRecord[];
  /** The next fetch (an upload-pack POST asking for objects) is cut after this many bytes of its answer; null: none. */
  cutNextFetchAfter: number | null;
  /** The next fetch stops sending after this many bytes of its answer but keeps the connection open; null: none. */
  stallNextFetchAfter: number | null;
  /** Requests under `/redirect/` are answered with a redirect to this URL prefix (the rest of the path kept). */
  redirectTo: string | null;
  /** The status of that redirect: 302 unless a test sets another (301, 307, 308). */
  redirectStatus: number;
  /** Makes a bare repository `<name>` (e.g. "app.git") that accepts pushes; returns its path. */
  createBare(name: string, initialBranch?: string): Promise<string>;
  /** `<origin>/<name>` */
  url(name: string): string;
}

async function git(args: string[], cwd?: string): Promise<string> {
  const out = await new Deno.Command("git", {
    args,
    cwd,
    stdout: "piped",
    stderr: "piped",
    env: { GIT_CONFIG_NOSYSTEM: "1", HOME: "/nonexistent" },
  }).output();
  if (!out.success) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}

/** Finds the end of the CGI header block (`\r\n\r\n` or `\n\n`). */
function headerEnd(bytes: Uint8Array): { at: number; skip: number } | null {
  for (let i = 0; i + 1 < bytes.length; i++) {
    if (bytes[i] === 10 && bytes[i + 1] === 10) return { at: i, skip: 2 };
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) return { at: i, skip: 4 };
  }
  return null;
}

export async function startGitHttpServer(options: GitHttpServerOptions = {}): Promise<GitHttpServer> {
  const projectRoot = await Deno.realPath(await Deno.makeTempDir({ prefix: "pterm-git-http-" }));
  const requests: RequestRecord[] = [];
  const state = {
    cutNextFetchAfter: null as number | null,
    stallNextFetchAfter: null as number | null,
    redirectTo: null as string | null,
    redirectStatus: 302,
  };
  const controller = new AbortController();

  const handler = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const record = (status: number) =>
      requests.push({
        method: request.method,
        path: url.pathname,
        query: url.search.slice(1),
        gitProtocol: request.headers.get("git-protocol"),
        authorization: request.headers.get("authorization"),
        status,
      });
    if (url.pathname.startsWith("/redirect/") && state.redirectTo) {
      record(state.redirectStatus);
      return new Response(null, {
        status: state.redirectStatus,
        headers: { location: `${state.redirectTo}${url.pathname.slice("/redirect".length)}${url.search}` },
      });
    }
    let remoteUser = "";
    const repoName = url.pathname.split("/")[1] ?? "";
    if (options.forbidden?.includes(repoName)) {
      record(403);
      return new Response("forbidden\n", { status: 403 });
    }
    if (options.auth && options.auth.repos.includes(repoName)) {
      const expected = "Basic " + btoa(`${options.auth.user}:${options.auth.token}`);
      if (request.headers.get("authorization") !== expected) {
        record(401);
        return new Response("authentication required\n", {
          status: 401,
          headers: { "www-authenticate": 'Basic realm="pterm-test"' },
        });
      }
      remoteUser = options.auth.user;
    }
    const env: Record<string, string> = {
      GIT_PROJECT_ROOT: projectRoot,
      GIT_HTTP_EXPORT_ALL: "1",
      GIT_CONFIG_NOSYSTEM: "1",
      HOME: "/nonexistent",
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      REQUEST_METHOD: request.method,
      QUERY_STRING: url.search.slice(1),
      PATH_INFO: decodeURIComponent(url.pathname),
      CONTENT_TYPE: request.headers.get("content-type") ?? "",
      REMOTE_USER: remoteUser,
      REMOTE_ADDR: "127.0.0.1",
      SERVER_PROTOCOL: "HTTP/1.1",
    };
    const gitProtocol = request.headers.get("git-protocol");
    if (gitProtocol && !options.v0Only) env.GIT_PROTOCOL = gitProtocol;
    const encoding = request.headers.get("content-encoding");
    if (encoding) env.HTTP_CONTENT_ENCODING = encoding;
    const length = request.headers.get("content-length");
    if (length) env.CONTENT_LENGTH = length;

    const child = new Deno.Command("/usr/lib/git-core/git-http-backend", {
      env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    // An upload-pack request is small: read whole, to tell a fetch (which the cut applies to) from ls-refs.
    const requestBody = request.method === "POST" ? new Uint8Array(await request.arrayBuffer()) : null;
    const feeding = (async () => {
      try {
        if (requestBody) {
          const writer = child.stdin.getWriter();
          await writer.write(requestBody);
          await writer.close();
        } else await child.stdin.close();
      } catch { /* the program stopped reading */ }
    })();

    const reader = child.stdout.getReader();
    let head = new Uint8Array(0);
    let split: { at: number; skip: number } | null = null;
    while (!split) {
      const { value, done } = await reader.read();
      if (done) break;
      const next = new Uint8Array(head.length + value.length);
      next.set(head);
      next.set(value, head.length);
      head = next;
      split = headerEnd(head);
    }
    if (!split) {
      record(502);
      await child.status;
      return new Response("bad gateway: the CGI program wrote no headers\n", { status: 502 });
    }
    const headers = new Headers();
    let status = 200;
    for (const line of new TextDecoder().decode(head.subarray(0, split.at)).split(/\r?\n/)) {
      const colon = line.indexOf(":");
      if (colon < 0) continue;
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === "status") status = parseInt(value, 10);
      else headers.append(name, value);
    }
    record(status);
    const rest = head.subarray(split.at + split.skip);
    const asked = requestBody ? new TextDecoder().decode(requestBody) : "";
    const isFetch = url.pathname.endsWith("/git-upload-pack") &&
      (asked.includes("command=fetch") || (!asked.includes("command=") && asked.includes("want ")));
    let cutAfter: number | null = null;
    if (isFetch && state.cutNextFetchAfter !== null) {
      cutAfter = state.cutNextFetchAfter;
      state.cutNextFetchAfter = null;
    }
    let stallAfter: number | null = null;
    if (isFetch && state.stallNextFetchAfter !== null) {
      stallAfter = state.stallNextFetchAfter;
      state.stallNextFetchAfter = null;
    }
    const stalled = Promise.withResolvers<void>();
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      start(stream) {
        if (rest.length) {
          stream.enqueue(rest);
          sent += rest.length;
        }
      },
      async pull(stream) {
        if (cutAfter !== null && sent >= cutAfter) {
          // The connection breaks mid-answer, as when a server is killed.
          stream.error(new Error("cut by the test"));
          try {
            child.kill("SIGKILL");
          } catch { /* gone */ }
          return;
        }
        if (stallAfter !== null && sent >= stallAfter) {
          // A server that hangs: nothing more, but the connection stays open until the client gives up.
          await stalled.promise;
          return;
        }
        const { value, done } = await reader.read();
        if (done) {
          stream.close();
          await feeding;
          await child.status;
          return;
        }
        const limit = cutAfter ?? stallAfter;
        const chunk = limit !== null ? value.subarray(0, Math.max(0, limit - sent)) : value;
        sent += chunk.length;
        stream.enqueue(chunk);
      },
      cancel() {
        stalled.resolve();
        try {
          child.kill("SIGKILL");
        } catch { /* gone */ }
      },
    });
    return new Response(body, { status, headers });
  };

  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: controller.signal,
    onListen: () => {},
    ...(options.tls ? { cert: options.tls.cert, key: options.tls.key } : {}),
  }, handler);
  const port = server.addr.port;
  const origin = `${options.tls ? "https" : "http"}://127.0.0.1:${port}`;

  return {
    projectRoot,
    origin,
    port,
    requests,
    get cutNextFetchAfter() {
      return state.cutNextFetchAfter;
    },
    set cutNextFetchAfter(value: number | null) {
      state.cutNextFetchAfter = value;
    },
    get stallNextFetchAfter() {
      return state.stallNextFetchAfter;
    },
    set stallNextFetchAfter(value: number | null) {
      state.stallNextFetchAfter = value;
    },
    get redirectTo() {
      return state.redirectTo;
    },
    set redirectTo(value: string | null) {
      state.redirectTo = value;
    },
    get redirectStatus() {
      return state.redirectStatus;
    },
    set redirectStatus(value: number) {
      state.redirectStatus = value;
    },
    async createBare(name: string, initialBranch = "main") {
      const path = join(projectRoot, name);
      await git(["init", "--quiet", "--bare", `--initial-branch=${initialBranch}`, path]);
      await git(["config", "http.receivepack", "true"], path);
      return path;
    },
    url: (name: string) => `${origin}/${name}`,
    async [Symbol.asyncDispose]() {
      controller.abort();
      await server.finished.catch(() => {});
      await Deno.remove(projectRoot, { recursive: true }).catch(() => {});
    },
  };
}

/** Runs the real git (no system or user config) and returns its stdout. */
export { git as realGit };
