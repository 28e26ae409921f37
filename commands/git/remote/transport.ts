/**
 * git's smart HTTP transport, client side (gitprotocol-http, gitprotocol-v2, gitprotocol-pack):
 * reference discovery, `ls-refs` and `fetch` over protocol v2 where the server offers it, and
 * protocol v0 discovery and upload-pack otherwise. The pack streams from the response into
 * index_pack.ts; nothing holds it whole.
 *
 * Credentials come only from `<root>/skills/git/secrets/.env` (see `credentialsFor`) and go only
 * into the Authorization header; every text that leaves this module passes `redact` first.
 */

import { PtermError } from "../../../core/errors.ts";
import { redactSecrets } from "../../../core/redact.ts";
import type { IndexedPack } from "./index_pack.ts";
import { covers, parseRemoteUrl, type RemotesPolicy, type RemoteUrl, remoteVerdict } from "./gate.ts";
import { concat, DELIM, FLUSH, packetText, pktLine, PktReader, sideBand } from "./pkt_line.ts";
import { type ByteSource, Http1Client, type HttpResponse } from "./http1.ts";

export const SECRETS_REL_PATH = "skills/git/secrets/.env";
const AGENT = "pterm/1";
const ZERO_OID = "0".repeat(40);

/** dotenv's `parse`, loaded only when there is a .env to read (an npm module boots Deno's Node layer). */
async function parseEnv(text: string): Promise<Record<string, string>> {
  const { parse } = await import("dotenv");
  return parse(text);
}

/** The .env key prefix of a host: `GIT_` + host (and a port other than the scheme's) in capitals, `_` for the rest. */
export function credentialKey(remote: RemoteUrl): string {
  const defaultPort = remote.scheme === "https" ? "443" : "80";
  const port = remote.hostPort.slice(remote.hostPort.lastIndexOf(":") + 1);
  const host = port === defaultPort ? remote.host : `${remote.host}_${port}`;
  return `GIT_${host.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`;
}

/**
 * The Authorization header for `remote`, from `<root>/skills/git/secrets/.env`:
 * `<KEY>_TOKEN` (basic auth, user `<KEY>_USER` or `git`) or `<KEY>_BEARER` (a bearer token),
 * where KEY is `credentialKey`. Null when the file or the keys are absent.
 */
export async function credentialsFor(root: string, remote: RemoteUrl): Promise<string | null> {
  let text: string;
  try {
    // Read synchronously: a worker's first asynchronous file read starts Deno's blocking-thread pool
    // (measured 1–3 ms of a no-op fetch), and the file is a few lines.
    text = Deno.readTextFileSync(`${root}/${SECRETS_REL_PATH}`);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw new PtermError("InvalidConfig", `${SECRETS_REL_PATH} cannot be read (${(error as Error).name}).`);
  }
  const values = await parseEnv(text);
  const key = credentialKey(remote);
  const bearer = values[`${key}_BEARER`];
  if (bearer) return `Bearer ${bearer}`;
  const token = values[`${key}_TOKEN`];
  if (token) return "Basic " + btoa(`${values[`${key}_USER`] || "git"}:${token}`);
  return null;
}

export interface RemoteRef {
  readonly name: string;
  readonly oid: string;
  /** For an annotated tag: the object it finally points to. */
  readonly peeled?: string;
  /** For HEAD: the branch it names. */
  readonly symref?: string;
  /** HEAD of an empty repository: it names a branch that does not exist yet (`oid` is all zeros). */
  readonly unborn?: boolean;
}

export interface TransferProgress {
  /** Bytes of pack received so far. */
  bytes: number;
  /** The remote's last progress line (side band 2), if any. */
  message?: string;
}

export interface Connection {
  readonly remote: RemoteUrl;
  /** git.remotes of pterm.json: judged again on every URL a request goes to (each redirect target). */
  readonly policy: RemotesPolicy;
  readonly root: string;
  /** PEM certificates trusted besides the system's (git.ca_file), for a self-hosted server. */
  readonly caCerts?: string;
  /** git.proxy: every request goes through it (CONNECT for https). */
  readonly proxy?: RemoteUrl;
  readonly signal?: AbortSignal;
  readonly onProgress?: (stage: string, done: number, total?: number) => void;
}

/**
 * One remote over HTTP: its base URL (after a same-host redirect) and the header holding its
 * credentials. Every URL a request goes to is judged by git.remotes first; the credentials go only
 * to URLs inside an allow prefix that admitted the remote they were read for.
 */
class Session {
  readonly remote: RemoteUrl;
  base: string;
  readonly #policy: RemotesPolicy;
  /** The allow prefixes that admitted `remote`: the credentials' reach. */
  readonly #credentialScope: readonly string[];
  readonly #authorization: string | null;
  readonly #secrets: string[];
  readonly signal?: AbortSignal;

  /** Without a proxy: pterm's own HTTP/1.1 client (http1.ts). */
  readonly #http1: Http1Client | undefined;
  /** With git.proxy: Deno's fetch through a client that knows the proxy. */
  readonly #client: Deno.HttpClient | undefined;
  readonly #proxied: boolean;

  constructor(
    remote: RemoteUrl,
    policy: RemotesPolicy,
    authorization: string | null,
    signal?: AbortSignal,
    client?: { caCerts?: string; proxy?: { url: string; basicAuth?: { username: string; password: string } } },
  ) {
    this.remote = remote;
    this.base = remote.url;
    this.#policy = policy;
    const verdict = remoteVerdict(remote, policy);
    this.#credentialScope = verdict.kind === "allowed" ? verdict.patterns : [];
    this.#authorization = authorization;
    this.signal = signal;
    this.#proxied = client?.proxy !== undefined;
    this.#client = this.#proxied ? httpClient(client!) : undefined;
    this.#http1 = this.#proxied ? undefined : new Http1Client(client?.caCerts);
    const secrets: string[] = [];
    if (authorization) {
      const value = authorization.slice(authorization.indexOf(" ") + 1);
      secrets.push(value);
      if (authorization.startsWith("Basic ")) {
        try {
          const decoded = atob(value);
          secrets.push(decoded, decoded.slice(decoded.indexOf(":") + 1));
        } catch { /* not base64 */ }
      }
    }
    this.#secrets = secrets.filter((s) => s.length >= 4);
  }

  /** Ends the conversation: the connection kept for a next request is closed. */
  close(): void {
    this.#http1?.close();
  }

  /** Removes every spelling of the credentials from a text that came from the remote. */
  redact(text: string): string {
    return redactSecrets(text, this.#secrets);
  }

  /** One HTTP request; redirects are followed only within the same scheme, host and port, and only for discovery. */
  async request(
    path: string,
    init: {
      method: "GET" | "POST";
      body?: Uint8Array | ReadableStream<Uint8Array>;
      contentType?: string;
      accept: string;
      v2: boolean;
    },
    followRedirects: boolean,
  ): Promise<HttpResponse> {
    let url = `${this.base}${path}`;
    for (let hop = 0;; hop++) {
      const sendCredentials = this.#admit(new URL(url), path);
      const headers: [string, string][] = [["user-agent", `git/2.39.5 (${AGENT})`], ["accept", init.accept]];
      if (init.v2) headers.push(["git-protocol", "version=2"]);
      if (init.contentType) headers.push(["content-type", init.contentType]);
      if (this.#authorization && sendCredentials) headers.push(["authorization", this.#authorization]);
      let response: HttpResponse;
      try {
        response = this.#http1
          ? await this.#http1.request(new URL(url), {
            method: init.method,
            headers,
            body: init.body,
            signal: this.signal,
          })
          : fromFetch(
            await fetch(url, {
              method: init.method,
              headers,
              body: init.body as Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> | undefined,
              redirect: "manual",
              signal: this.signal,
              client: this.#client,
            }),
          );
      } catch (error) {
        throw this.networkError(error);
      }
      if (response.status >= 300 && response.status < 400 && response.headers.has("location")) {
        await response.body.cancel();
        const target = new URL(response.headers.get("location")!, url);
        const sameOrigin = target.protocol === new URL(url).protocol && target.host === new URL(url).host;
        if (!sameOrigin) {
          throw new PtermError(
            "NetworkDenied",
            `${this.remote.url} redirected to another host (${target.protocol}//${target.host}); pterm follows ` +
              "redirects only within the same host. Use the final URL (and allow it in git.remotes) if you trust it.",
          );
        }
        // Judged before anything is sent to it (and before the next hop's request is built).
        this.#admit(target, path);
        if (!followRedirects || hop >= 4) {
          throw new PtermError("RemoteError", `${this.remote.url} redirected ${path} again; nothing was changed.`);
        }
        // As git's http.followRedirects=initial: the new base serves the rest of the conversation.
        if (target.pathname.endsWith(path.split("?")[0])) {
          this.base = `${target.protocol}//${target.host}${target.pathname.slice(0, -path.split("?")[0].length)}`;
        }
        url = target.href;
        continue;
      }
      if (response.ok) return response;
      await response.body.cancel();
      throw this.statusError(response.status);
    }
  }

  /**
   * Refuses a URL that git.remotes does not allow (a redirect target the server chose included),
   * and says whether the credentials may go with a request to it. `path` is the request's path
   * below the repository; the repository's URL is what messages name (never a query or a user).
   */
  #admit(url: URL, path: string): boolean {
    const requestPath = path.split("?")[0];
    const repositoryPath = url.pathname.endsWith(requestPath)
      ? url.pathname.slice(0, url.pathname.length - requestPath.length)
      : url.pathname;
    let target: RemoteUrl;
    try {
      target = parseRemoteUrl(`${url.protocol}//${url.host}${repositoryPath}`);
    } catch {
      throw new PtermError(
        "NetworkDenied",
        `${this.remote.url} redirected to a URL pterm does not speak; nothing was sent to it.`,
      );
    }
    const moved = target.url !== this.remote.url;
    const where = moved ? `${this.remote.url} redirected to ${target.url}, which` : `${target.url}`;
    const verdict = remoteVerdict(target, this.#policy);
    if (verdict.kind === "denied") {
      throw new PtermError(
        "NetworkDenied",
        `${where} is denied by git.remotes.deny (${JSON.stringify(verdict.pattern)}) in pterm.json; nothing was ` +
          `sent to it and nothing was changed.`,
        { result: { url: this.remote.url, redirect: target.url, policy: "deny", pattern: verdict.pattern } },
      );
    }
    if (verdict.kind === "unlisted") {
      throw new PtermError(
        "NetworkDenied",
        `${where} is not in git.remotes.allow of pterm.json; nothing was sent to it and nothing was changed. ` +
          `If the workspace's owner trusts it, use ${target.url} itself (and allow it in git.remotes).`,
        { result: { url: this.remote.url, redirect: target.url, policy: "allow", pattern: null } },
      );
    }
    const inScope = this.#credentialScope.some((pattern) => covers(pattern, target));
    if (this.#authorization && !inScope) {
      throw new PtermError(
        "NetworkDenied",
        `${where} is allowed by git.remotes.allow (${JSON.stringify(verdict.patterns[0])}) but not by the prefix ` +
          `${JSON.stringify(this.#credentialScope[0] ?? "")} that admitted ${this.remote.url}; pterm does not carry ` +
          `its credentials there, and nothing was sent to it. Use ${target.url} itself if the workspace's owner ` +
          "trusts it.",
        { result: { url: this.remote.url, redirect: target.url, policy: "credentials", pattern: verdict.patterns[0] } },
      );
    }
    return inScope;
  }

  statusError(status: number): PtermError {
    const where = this.remote.url;
    if (status === 401) {
      return new PtermError(
        "AuthFailed",
        `${where} asks for credentials (HTTP 401) and ${
          this.#authorization ? "refused the ones pterm sent" : "pterm has none for it"
        }; nothing was changed. The workspace's owner puts a token in ${SECRETS_REL_PATH} as ` +
          `${credentialKey(this.remote)}_TOKEN=... (and ${credentialKey(this.remote)}_USER=... if the server needs ` +
          "a user name), never on the command line.",
      );
    }
    if (status === 403) {
      return new PtermError(
        "AuthFailed",
        `${where} refused access (HTTP 403); nothing was changed. Check that the token in ${SECRETS_REL_PATH} ` +
          `(${credentialKey(this.remote)}_TOKEN) may read (and for push, write) this repository.`,
      );
    }
    if (status === 404) {
      return new PtermError(
        "NotFound",
        `${where} has no git repository (HTTP 404); check the URL. (Some servers answer 404 to a missing token too.)`,
      );
    }
    return new PtermError("RemoteError", `${where} answered HTTP ${status}; nothing was changed. Retry later.`);
  }

  networkError(error: unknown): PtermError {
    if (error instanceof PtermError) return error;
    if (this.signal?.aborted) {
      const reason = this.signal.reason;
      if (reason instanceof PtermError) return reason;
    }
    if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
      return new PtermError(
        "NetworkDenied",
        `the sandbox did not grant network to ${this.remote.hostPort}; nothing was sent.`,
      );
    }
    const name = error instanceof Error ? error.name : "error";
    const text = error instanceof Error ? `${error.message} ${String((error as { cause?: unknown }).cause ?? "")}` : "";
    if (/certificate|UnknownIssuer|tls|handshake/i.test(text)) {
      return new PtermError(
        "RemoteError",
        `the TLS connection to ${this.remote.hostPort} failed: its certificate is not trusted (${
          this.redact(text).trim().slice(0, 160)
        }); nothing was sent. For a server with its own certificate authority, the workspace's owner sets ` +
          'git.ca_file in pterm.json to that CA\'s PEM file inside the workspace ({"git": {"ca_file": "certs/ca.pem"}}).',
      );
    }
    if (this.#proxied && /407|proxy/i.test(text)) {
      return new PtermError(
        "RemoteError",
        `the proxy (git.proxy) refused to connect to ${this.remote.hostPort} (${
          this.redact(text).trim().slice(0, 160)
        }); nothing was sent. If it needs credentials, the workspace's owner puts them in ${SECRETS_REL_PATH} as ` +
          "GIT_PROXY_USER=... and GIT_PROXY_PASSWORD=...",
      );
    }
    return new PtermError(
      "RemoteError",
      `the connection to ${this.remote.hostPort} failed or broke off (${name}: ${
        this.redact(text.trim()).slice(0, 200)
      }); nothing was changed. Retry; the next attempt starts over.`,
    );
  }
}

/** The buffer a fetch body is read into, over and over (one side-band packet and a bit). */
const POOL_BYTES = 96 * 1024;

/** A fetch Response (git.proxy's path) as http1.ts answers. */
function fromFetch(response: Response): HttpResponse {
  return { status: response.status, ok: response.ok, headers: response.headers, body: streamSource(response.body) };
}

/**
 * A body stream read into one buffer used over and over (Deno's fetch otherwise makes a new buffer
 * per chunk: measured +17 MiB of resident memory for a 5.5 MiB pack, +7 this way).
 */
function streamSource(stream: ReadableStream<Uint8Array> | null): ByteSource {
  if (stream === null) return { read: () => Promise.resolve(null), cancel: () => Promise.resolve() };
  let pool: Uint8Array | null = null;
  let reader: ReadableStreamDefaultReader<Uint8Array> | ReadableStreamBYOBReader;
  try {
    reader = stream.getReader({ mode: "byob" });
    pool = new Uint8Array(POOL_BYTES);
  } catch {
    reader = stream.getReader();
  }
  return {
    async read() {
      if (pool === null) {
        const { value, done } = await (reader as ReadableStreamDefaultReader<Uint8Array>).read();
        return done ? null : value;
      }
      const { value, done } = await (reader as ReadableStreamBYOBReader).read(pool);
      // The read took the buffer over; the view it returns is the buffer for the next read.
      if (value) pool = new Uint8Array(value.buffer as ArrayBuffer);
      return done ? null : value as Uint8Array;
    },
    cancel: () => reader.cancel().catch(() => {}),
  };
}

/** One HTTP client per CA set and proxy, for the worker's life (MCP reuses warm workers). */
const clients = new Map<string, Deno.HttpClient>();

function httpClient(
  options: { caCerts?: string; proxy?: { url: string; basicAuth?: { username: string; password: string } } },
): Deno.HttpClient {
  const key = JSON.stringify(options);
  let client = clients.get(key);
  if (!client) {
    client = Deno.createHttpClient({
      ...(options.caCerts ? { caCerts: [options.caCerts] } : {}),
      ...(options.proxy ? { proxy: options.proxy } : {}),
    });
    clients.set(key, client);
  }
  return client;
}

/** The proxy's user and password, from the same .env as the tokens (GIT_PROXY_USER, GIT_PROXY_PASSWORD). */
async function proxyCredentials(root: string): Promise<{ username: string; password: string } | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(`${root}/${SECRETS_REL_PATH}`);
  } catch {
    return undefined;
  }
  const values = await parseEnv(text);
  return values.GIT_PROXY_USER
    ? { username: values.GIT_PROXY_USER, password: values.GIT_PROXY_PASSWORD ?? "" }
    : undefined;
}

export interface Advertisement {
  readonly version: 0 | 2;
  readonly capabilities: ReadonlySet<string>;
  /** Protocol v0 lists the refs with the advertisement; v2 needs `ls-refs`. */
  readonly refs?: RemoteRef[];
}

export interface Remote extends Disposable {
  readonly session: Session;
  readonly advertisement: Advertisement;
}

/**
 * Opens a remote: credentials, then `GET info/refs?service=git-upload-pack` (asking for protocol
 * v2) or, to push, `git-receive-pack` (protocol v0: git has no v2 push).
 */
export async function connect(
  connection: Connection,
  service: "git-upload-pack" | "git-receive-pack" = "git-upload-pack",
): Promise<Remote> {
  const authorization = await credentialsFor(connection.root, connection.remote);
  const proxy = connection.proxy
    ? { url: connection.proxy.url, basicAuth: await proxyCredentials(connection.root) }
    : undefined;
  const session = new Session(connection.remote, connection.policy, authorization, connection.signal, {
    caCerts: connection.caCerts,
    proxy: proxy?.basicAuth ? proxy : proxy ? { url: proxy.url } : undefined,
  });
  const response = await session.request(`/info/refs?service=${service}`, {
    method: "GET",
    accept: "*/*",
    v2: service === "git-upload-pack",
  }, true);
  const type = response.headers.get("content-type") ?? "";
  if (type !== `application/x-${service}-advertisement`) {
    await response.body.cancel();
    throw new PtermError(
      "UnsupportedFormat",
      `${connection.remote.url} does not speak git's smart HTTP protocol (it answered ${
        JSON.stringify(type.slice(0, 60))
      }); pterm does not support the old "dumb" HTTP transport.`,
    );
  }
  const reader = new PktReader(response.body, session.signal);
  try {
    // v0 starts with `# service=...` and a flush; git's v2 answer starts with `version 2` at once.
    let first = await reader.line();
    if (first === `# service=${service}`) first = await reader.line() ?? await reader.line();
    else if (first !== "version 2") {
      throw new PtermError("CorruptInput", `${connection.remote.url} sent an unexpected advertisement.`);
    }
    const advertisement = await readAdvertisement(first, reader);
    // Read to its end (normally nothing more), so that the connection can serve the next request;
    // anything else is not read and the connection closes.
    await reader.next();
    return { session, advertisement, [Symbol.dispose]: () => session.close() };
  } catch (error) {
    session.close();
    throw session.networkError(error);
  } finally {
    await reader.cancel();
  }
}

async function readAdvertisement(firstLine: string | null, reader: PktReader): Promise<Advertisement> {
  let line = firstLine;
  if (line === "version 2") {
    const capabilities = new Set<string>();
    for (let cap = await reader.line(); cap !== null; cap = await reader.line()) capabilities.add(cap);
    return { version: 2, capabilities };
  }
  // Protocol v0: `<oid> <ref>\0<capabilities>`, then one ref a line.
  const refs: RemoteRef[] = [];
  let capabilities = new Set<string>();
  let first = true;
  const peeled = new Map<string, string>();
  for (; line !== null; line = await reader.line()) {
    let text = line;
    if (first) {
      const nul = text.indexOf("\0");
      if (nul >= 0) {
        capabilities = new Set(text.slice(nul + 1).split(" ").filter(Boolean));
        text = text.slice(0, nul);
      }
      first = false;
    }
    const [oid, name] = text.split(" ");
    if (!/^[0-9a-f]{40}$/.test(oid ?? "")) throw new PtermError("CorruptInput", "the remote advertised a bad ref.");
    if (name === "capabilities^{}") continue;
    if (name.endsWith("^{}")) peeled.set(name.slice(0, -3), oid);
    else refs.push({ name, oid });
  }
  const symrefs = new Map<string, string>();
  for (const cap of capabilities) {
    if (cap.startsWith("symref=")) {
      const [from, to] = cap.slice(7).split(":");
      symrefs.set(from, to);
    }
  }
  return {
    version: 0,
    capabilities,
    refs: refs.map((r) => ({ ...r, peeled: peeled.get(r.name), symref: symrefs.get(r.name) })),
  };
}

function v2Command(remote: Remote, command: string, args: readonly string[]): Uint8Array {
  const caps = remote.advertisement.capabilities;
  const head = [pktLine(`command=${command}\n`)];
  if ([...caps].some((c) => c.startsWith("agent="))) head.push(pktLine(`agent=${AGENT}\n`));
  if ([...caps].some((c) => c.startsWith("object-format="))) head.push(pktLine("object-format=sha1\n"));
  return concat([...head, DELIM, ...args.map((a) => pktLine(`${a}\n`)), FLUSH]);
}

async function post(remote: Remote, body: Uint8Array): Promise<PktReader> {
  const response = await remote.session.request("/git-upload-pack", {
    method: "POST",
    body,
    contentType: "application/x-git-upload-pack-request",
    accept: "application/x-git-upload-pack-result",
    v2: remote.advertisement.version === 2,
  }, false);
  return new PktReader(response.body, remote.session.signal);
}

/** What the server's ls-refs takes besides the basics (`ls-refs=unborn`). */
function lsRefsFeatures(remote: Remote): string[] {
  return [...remote.advertisement.capabilities].find((c) => c.startsWith("ls-refs="))?.slice(8).split(" ") ?? [];
}

/**
 * The remote's HEAD, branches and tags (ls-refs in v2; the advertisement in v0). With `unborn`, an
 * empty repository's HEAD comes back too (`unborn: true`, no object), naming its default branch.
 */
export async function listRemoteRefs(
  remote: Remote,
  prefixes: readonly string[],
  options: { unborn?: boolean } = {},
): Promise<RemoteRef[]> {
  const wanted = (name: string) => prefixes.some((p) => name === p || name.startsWith(p));
  if (remote.advertisement.version === 0) return remote.advertisement.refs!.filter((r) => wanted(r.name));
  const reader = await post(
    remote,
    v2Command(remote, "ls-refs", [
      "peel",
      "symrefs",
      ...(options.unborn && lsRefsFeatures(remote).includes("unborn") ? ["unborn"] : []),
      ...prefixes.map((p) => `ref-prefix ${p}`),
    ]),
  );
  const refs: RemoteRef[] = [];
  try {
    for (let line = await reader.line(); line !== null; line = await reader.line()) {
      const [oid, name, ...attributes] = line.split(" ");
      if (oid === "unborn" && name === "HEAD") {
        // An empty repository's HEAD: the branch its first push will create.
        const target = attributes.find((a) => a.startsWith("symref-target:"))?.slice(14);
        if (target) refs.push({ name, oid: ZERO_OID, symref: target, unborn: true });
        continue;
      }
      if (!/^[0-9a-f]{40}$/.test(oid ?? "") || !name) {
        throw new PtermError("CorruptInput", "the remote listed a bad ref; nothing was changed.");
      }
      let symref: string | undefined;
      let peeled: string | undefined;
      for (const attribute of attributes) {
        if (attribute.startsWith("symref-target:")) symref = attribute.slice(14);
        if (attribute.startsWith("peeled:")) peeled = attribute.slice(7);
      }
      if (wanted(name)) refs.push({ name, oid, symref, peeled });
    }
  } catch (error) {
    throw remote.session.networkError(error);
  } finally {
    await reader.cancel();
  }
  return refs;
}

export interface FetchRequest {
  readonly wants: readonly string[];
  readonly haves: readonly string[];
  /** `deepen N`: a shallow history of N commits. */
  readonly depth?: number;
  /** The commits the repository already has as shallow boundaries. */
  readonly shallow?: readonly string[];
  /** include-tag: annotated tags pointing into the pack come with it. */
  readonly includeTags?: boolean;
  readonly objectsDir: string;
  readonly maxBytes: number;
}

export interface FetchOutcome {
  readonly pack: IndexedPack | null;
  /** shallow-info: commits that became shallow boundaries, and ones that no longer are. */
  readonly shallow: string[];
  readonly unshallow: string[];
  /** The remote's last progress text. */
  readonly remoteProgress: string;
}

/** Asks for the wanted objects (all of them missing locally) and indexes the pack the remote sends. */
export async function fetchPack(remote: Remote, request: FetchRequest, connection: Connection): Promise<FetchOutcome> {
  const caps = remote.advertisement.capabilities;
  let body: Uint8Array;
  if (remote.advertisement.version === 2) {
    const fetchCaps = [...caps].find((c) => c.startsWith("fetch="))?.slice(6).split(" ") ?? [];
    if (request.depth && !fetchCaps.includes("shallow")) {
      throw new PtermError("UnsupportedFormat", `${remote.session.remote.url} does not offer shallow fetches.`);
    }
    const args = [
      "ofs-delta",
      ...(request.includeTags ? ["include-tag"] : []),
      ...request.wants.map((w) => `want ${w}`),
      ...request.haves.map((h) => `have ${h}`),
    ];
    for (const s of request.shallow ?? []) args.push(`shallow ${s}`);
    if (request.depth) args.push(`deepen ${request.depth}`);
    args.push("done");
    body = v2Command(remote, "fetch", args);
  } else {
    for (const needed of ["side-band-64k", "ofs-delta"]) {
      if (!caps.has(needed)) {
        throw new PtermError("UnsupportedFormat", `${remote.session.remote.url} does not offer ${needed}.`);
      }
    }
    if (request.depth && !caps.has("shallow")) {
      throw new PtermError("UnsupportedFormat", `${remote.session.remote.url} does not offer shallow fetches.`);
    }
    const lines = request.wants.map((w, i) =>
      pktLine(
        i === 0
          ? `want ${w} side-band-64k ofs-delta${
            request.includeTags && caps.has("include-tag") ? " include-tag" : ""
          } agent=${AGENT}\n`
          : `want ${w}\n`,
      )
    );
    for (const s of request.shallow ?? []) lines.push(pktLine(`shallow ${s}\n`));
    if (request.depth) lines.push(pktLine(`deepen ${request.depth}\n`));
    lines.push(FLUSH, ...request.haves.map((h) => pktLine(`have ${h}\n`)), pktLine("done\n"));
    body = concat(lines);
  }
  const reader = await post(remote, body);
  const shallow: string[] = [];
  const unshallow: string[] = [];
  let remoteProgress = "";
  try {
    const readShallow = (line: string) => {
      if (line.startsWith("shallow ")) shallow.push(line.slice(8));
      else if (line.startsWith("unshallow ")) unshallow.push(line.slice(10));
      else return false;
      return true;
    };
    if (remote.advertisement.version === 2) {
      for (;;) {
        const header = await reader.next();
        if (header === null || header.kind !== "data") {
          throw new PtermError("CorruptInput", "the remote's fetch answer has no pack section; nothing was changed.");
        }
        const section = packetText(header);
        if (section === "packfile") break;
        // shallow-info (and any section pterm did not ask for) runs to a delim.
        for (let p = await reader.next(); p && p.kind === "data"; p = await reader.next()) {
          if (section === "shallow-info") readShallow(packetText(p));
        }
      }
    } else {
      if (request.depth) {
        for (let line = await reader.line(); line !== null; line = await reader.line()) readShallow(line);
      }
      for (;;) {
        const line = await reader.line();
        if (line === null) continue;
        if (line === "NAK" || (line.startsWith("ACK ") && line.split(" ").length === 2)) break;
        if (!line.startsWith("ACK ")) {
          throw new PtermError("CorruptInput", "the remote's fetch answer is not what v0 upload-pack sends.");
        }
      }
    }
    const packBytes = sideBand(reader, (text) => {
      remoteProgress = remote.session.redact(text).split(/[\r\n]/).filter(Boolean).pop() ?? remoteProgress;
    });
    // The indexer loads when a pack comes, not for a fetch with nothing new.
    const { receivePack } = await import("./index_pack.ts");
    const pack = await receivePack(packBytes, request.objectsDir, {
      maxBytes: request.maxBytes,
      signal: connection.signal,
      onProgress: (stage, done, total) => connection.onProgress?.(stage, done, total),
    });
    return { pack, shallow, unshallow, remoteProgress };
  } catch (error) {
    throw remote.session.networkError(error);
  } finally {
    await reader.cancel();
  }
}

export { ZERO_OID };

export interface PushCommand {
  readonly ref: string;
  readonly old: string;
  readonly new: string;
}

export interface PushReport {
  /** The remote's `unpack` status: "ok" or its error. */
  readonly unpack: string;
  /** Per ref: null when accepted, else the remote's reason. */
  readonly refs: Map<string, string | null>;
}

/**
 * Sends ref updates and a pack to receive-pack (gitprotocol-pack, report-status). The pack is
 * streamed from `pack` (null: the updates need no objects, as a deletion). The remote checks each
 * command's old value under its own ref lock, so a ref that moved since discovery is refused there.
 */
export async function sendPack(
  remote: Remote,
  commands: readonly PushCommand[],
  pack: ReadableStream<Uint8Array> | null,
): Promise<PushReport> {
  const caps = remote.advertisement.capabilities;
  if (!caps.has("report-status")) {
    throw new PtermError("UnsupportedFormat", `${remote.session.remote.url} does not report push status.`);
  }
  const wanted = ["report-status", ...(caps.has("atomic") && commands.length > 1 ? ["atomic"] : [])];
  const head = concat([
    ...commands.map((c, i) =>
      pktLine(`${c.old} ${c.new} ${c.ref}${i === 0 ? `\0${wanted.join(" ")} agent=${AGENT}` : ""}\n`)
    ),
    FLUSH,
  ]);
  const body = pack === null ? head : concatStreams(head, pack);
  const response = await remote.session.request("/git-receive-pack", {
    method: "POST",
    body,
    contentType: "application/x-git-receive-pack-request",
    accept: "application/x-git-receive-pack-result",
    v2: false,
  }, false);
  const reader = new PktReader(response.body, remote.session.signal);
  try {
    const unpackLine = await reader.line();
    if (unpackLine === null || !unpackLine.startsWith("unpack ")) {
      throw new PtermError("CorruptInput", "the remote's push report is not what receive-pack sends.");
    }
    const refs = new Map<string, string | null>();
    for (let line = await reader.line(); line !== null; line = await reader.line()) {
      if (line.startsWith("ok ")) refs.set(line.slice(3), null);
      else if (line.startsWith("ng ")) {
        const rest = line.slice(3);
        const space = rest.indexOf(" ");
        refs.set(
          space < 0 ? rest : rest.slice(0, space),
          space < 0 ? "refused" : remote.session.redact(rest.slice(space + 1)),
        );
      }
    }
    return { unpack: remote.session.redact(unpackLine.slice(7)), refs };
  } catch (error) {
    throw remote.session.networkError(error);
  } finally {
    await reader.cancel();
  }
}

/** A request body of `head` and then everything `rest` yields. */
function concatStreams(head: Uint8Array, rest: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = rest.getReader();
  let sentHead = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!sentHead) {
        sentHead = true;
        controller.enqueue(head);
        return;
      }
      const { value, done } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
