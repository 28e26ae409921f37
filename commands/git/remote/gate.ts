/**
 * Which remotes git in pterm may reach: `git.remotes` in pterm.json lists URL
 * prefixes to `allow` and to `deny` (deny wins); nothing is allowed by default. A prefix names a
 * scheme, a host (and port) and a path prefix, so `http` is reachable only for hosts listed with
 * `http://` explicitly. Other schemes (file, ssh, git) and URLs carrying a user or token are
 * refused with their own message.
 *
 * The same functions run twice: in the kernel, to grant the command's worker network to exactly
 * the remote's `host:port` (spec.ts `netHosts`), and in the handler, to refuse with a message.
 * This module imports nothing but the error type, so the declaration stays light.
 */

import { PtermError } from "../../../core/errors.ts";
import { redactCredentials } from "../../../core/redact.ts";
import { locateGitDirs } from "../repo/gitdirs.ts";

/** The part of the `git` section of pterm.json this module reads. */
export interface RemotesPolicy {
  readonly allow: readonly string[];
  readonly deny: readonly string[];
}

export interface RemoteUrl {
  /** The URL as git stores it in .git/config (scheme, host, port if given, path; nothing else). */
  readonly url: string;
  readonly scheme: "https" | "http";
  readonly host: string;
  /** `host:port` with the scheme's default port filled in: what the sandbox grants. */
  readonly hostPort: string;
  /** The path without a trailing slash. */
  readonly path: string;
}

/** Reads `git.remotes` from the (already validated) config section; absent means nothing allowed. */
export function policyOf(section: unknown): RemotesPolicy {
  const remotes = (section as { remotes?: { allow?: string[]; deny?: string[] } } | undefined)?.remotes;
  return { allow: remotes?.allow ?? [], deny: remotes?.deny ?? [] };
}

const OTHER_SCHEMES: Record<string, string> = {
  "file:": "file:// remotes are not supported: pterm reaches other repositories only over https (or http for " +
    "hosts listed explicitly in git.remotes.allow)",
  "ssh:": "ssh:// remotes are not supported (pterm has no ssh client and holds no keys); use the repository's " +
    "https URL with a token in skills/git/secrets/.env",
  "git:": "git:// remotes are not supported (the git protocol is unauthenticated and unencrypted); use the " +
    "repository's https URL",
};

/** Parses a remote URL, refusing every shape pterm does not speak. `label` names it in messages. */
export function parseRemoteUrl(input: string, label = "the remote URL"): RemoteUrl {
  const text = input.trim();
  if (/^[\w.-]+@[\w.-]+:/.test(text) && !text.includes("://")) {
    throw new PtermError(
      "NetworkDenied",
      `${label} ${JSON.stringify(text)} is an ssh address (user@host:path); ssh remotes are not supported. Use the ` +
        "repository's https URL with a token in skills/git/secrets/.env.",
    );
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new PtermError(
      "InvalidArgs",
      // Echoed without credentials: a token with a `/` or a space is what makes such a URL unparsable.
      `${label} ${JSON.stringify(redactCredentials(text, [text]))} is not a URL; give the repository's https URL ` +
        "(e.g. https://git.example.com/org/app.git). Local paths are not supported as remotes.",
    );
  }
  const other = OTHER_SCHEMES[url.protocol];
  if (other) throw new PtermError("NetworkDenied", `${label}: ${other}.`);
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new PtermError("NetworkDenied", `${label} uses ${url.protocol}//, which pterm does not speak; use https.`);
  }
  if (url.username || url.password) {
    // The URL itself is not repeated: it holds the secret.
    throw new PtermError(
      "InvalidArgs",
      `${label} carries a user name or token (user:token@host); pterm refuses it because it would be stored in ` +
        "argv, the audit log and .git/config. Give the URL without it and put the token in " +
        "skills/git/secrets/.env (see `git clone --help`).",
    );
  }
  if (url.search || url.hash) {
    throw new PtermError("InvalidArgs", `${label} has a query or fragment; give the repository's plain URL.`);
  }
  const scheme = url.protocol === "https:" ? "https" : "http";
  const port = url.port || (scheme === "https" ? "443" : "80");
  const host = url.hostname.toLowerCase();
  const path = url.pathname.replace(/\/+$/, "");
  return {
    url: `${scheme}://${url.host}${path}`,
    scheme,
    host,
    hostPort: `${host.startsWith("[") ? host : host}:${port}`,
    path,
  };
}

/** Whether the prefix pattern covers the URL: same scheme and host:port, and a path prefix ending at a `/`. */
export function covers(pattern: string, remote: RemoteUrl): boolean {
  return coversPath(pattern, remote, (path) => path);
}

/**
 * The spelling of a path a server may treat as the same repository: percent-escapes decoded,
 * repeated slashes collapsed, letters in lower case (hosts such as GitHub ignore case) and `.git`
 * dropped from each segment (`org/app` and `org/app.git` are one repository there). A deny
 * prefix is matched on this spelling, so no other spelling of a denied path slips past it.
 */
function sameRepositorySpelling(path: string): string {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch { /* a stray % stays as written */ }
  return decoded.replace(/\/+/g, "/").toLowerCase().split("/").map((s) => s.replace(/\.git$/, "")).join("/")
    .replace(/\/+$/, "");
}

function coversPath(pattern: string, remote: RemoteUrl, spelling: (path: string) => string): boolean {
  let prefix: RemoteUrl;
  try {
    prefix = parseRemoteUrl(pattern);
  } catch {
    return false;
  }
  if (prefix.scheme !== remote.scheme || prefix.hostPort !== remote.hostPort) return false;
  const prefixPath = spelling(prefix.path);
  const path = spelling(remote.path);
  if (prefixPath === "") return true;
  return path === prefixPath || path.startsWith(prefixPath + "/");
}

/** What pterm.json says of one URL: the deny prefix that forbids it, the allow prefix that admits it, or neither. */
export type RemoteVerdict =
  | { readonly kind: "denied"; readonly pattern: string }
  | { readonly kind: "allowed"; readonly patterns: readonly string[] }
  | { readonly kind: "unlisted" };

/**
 * The policy's verdict on a parsed URL (deny wins over allow). Every URL the transport sends a
 * request to is judged by this one function: the typed remote, and each redirect target before
 * anything is sent to it.
 */
export function remoteVerdict(remote: RemoteUrl, policy: RemotesPolicy): RemoteVerdict {
  const denied = policy.deny.find((p) => coversPath(p, remote, sameRepositorySpelling));
  if (denied !== undefined) return { kind: "denied", pattern: denied };
  const allowed = policy.allow.filter((p) => covers(p, remote));
  return allowed.length > 0 ? { kind: "allowed", patterns: allowed } : { kind: "unlisted" };
}

/** The remote, if pterm.json allows it; otherwise NetworkDenied with the lines that would allow it. */
export function allowedRemote(input: string, policy: RemotesPolicy, label?: string): RemoteUrl {
  const remote = parseRemoteUrl(input, label);
  const verdict = remoteVerdict(remote, policy);
  if (verdict.kind === "denied") {
    throw new PtermError(
      "NetworkDenied",
      `${remote.url} is denied by git.remotes.deny (${
        JSON.stringify(verdict.pattern)
      }) in pterm.json; nothing was sent.`,
    );
  }
  if (verdict.kind === "unlisted") {
    const lines = `"git": { "remotes": { "allow": [${JSON.stringify(remote.url)}] } }`;
    const httpNote = remote.scheme === "http"
      ? " (plain http is reachable only for hosts listed with http:// themselves)"
      : "";
    throw new PtermError(
      "NetworkDenied",
      `${remote.url} is not in git.remotes.allow of pterm.json${httpNote}; nothing was sent. To allow it, the ` +
        `workspace's owner adds to pterm.json:\n  ${lines}\n(a prefix such as ${
          JSON.stringify(`${remote.scheme}://${remote.hostPort.replace(/:(443|80)$/, "")}/`)
        } allows every repository of that host).`,
    );
  }
  return remote;
}

/** git.proxy: validated when pterm.json is read. */
export function checkProxy(value: string): string | null {
  try {
    parseProxyUrl(value);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** A URL prefix in git.remotes: validated when pterm.json is read. */
export function checkPattern(pattern: string): string | null {
  try {
    parseRemoteUrl(pattern);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** The last value of `[section "subsection"] key` in a git config text (a small reading of git's format). */
function configValue(text: string, section: string, subsection: string, key: string): string | null {
  let inSection = false;
  let value: string | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const header = /^\[\s*([^\s\]"]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(line);
    if (header) {
      inSection = header[1].toLowerCase() === section && header[2]?.replace(/\\(.)/g, "$1") === subsection;
      continue;
    }
    const setting = /^([A-Za-z0-9-]+)\s*=\s*(.*)$/.exec(line);
    if (inSection && setting && setting[1].toLowerCase() === key) value = setting[2].trim().replace(/^"(.*)"$/, "$1");
  }
  return value;
}

/**
 * git's `url.<base>.insteadOf` (and, for a push, `url.<base>.pushInsteadOf`) in a .git/config
 * text: a URL starting with one of the prefixes is rewritten to start with its base instead; the
 * longest matching prefix wins, and for a push a pushInsteadOf match wins over an insteadOf one.
 */
export function rewriteRemoteUrl(configText: string, url: string, push: boolean): string {
  const rules: { prefix: string; base: string; push: boolean }[] = [];
  let base: string | null = null;
  for (const raw of configText.split(/\r?\n/)) {
    const line = raw.trim();
    const header = /^\[\s*([^\s\]"]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(line);
    if (header) {
      base = header[1].toLowerCase() === "url" && header[2] !== undefined ? header[2].replace(/\\(.)/g, "$1") : null;
      continue;
    }
    const setting = /^([A-Za-z0-9-]+)\s*=\s*(.*)$/.exec(line);
    if (base === null || !setting) continue;
    const key = setting[1].toLowerCase();
    const prefix = setting[2].trim().replace(/^"(.*)"$/, "$1");
    if (key === "insteadof") rules.push({ prefix, base, push: false });
    else if (key === "pushinsteadof") rules.push({ prefix, base, push: true });
  }
  const best = (candidates: typeof rules) =>
    candidates.filter((r) => r.prefix !== "" && url.startsWith(r.prefix))
      .sort((a, b) => b.prefix.length - a.prefix.length)[0];
  const rule = (push ? best(rules.filter((r) => r.push)) : undefined) ?? best(rules.filter((r) => !r.push));
  return rule ? rule.base + url.slice(rule.prefix.length) : url;
}

/**
 * The URL of the remote a call on the repository at `repoDir` reaches: `--remote`, else the
 * current branch's remote (what pull uses), else origin; after url.*.insteadOf (pushInsteadOf
 * with `push`). Null when there is none.
 */
export function configuredRemoteUrl(
  repoDir: string,
  remote: string | null,
  push = false,
  root?: string,
): string | null {
  let text: string;
  // The git folders as every git command finds them: a gitfile (submodule, linked worktree) is
  // followed inside `root` only; one that is refused grants nothing (the command then says why).
  let dirs: { gitdir: string; commondir: string };
  try {
    dirs = locateGitDirs(repoDir, repoDir, root);
    text = Deno.readTextFileSync(`${dirs.commondir}/config`);
  } catch {
    return null;
  }
  let name = remote;
  if (name === null) {
    let head = "";
    try {
      head = Deno.readTextFileSync(`${dirs.gitdir}/HEAD`).trim();
    } catch { /* no HEAD */ }
    const branch = head.startsWith("ref: refs/heads/") ? head.slice("ref: refs/heads/".length) : null;
    name = (branch && configValue(text, "branch", branch, "remote")) || "origin";
  }
  const url = configValue(text, "remote", name, "url");
  return url === null ? null : rewriteRemoteUrl(text, url, push);
}

/**
 * The `host:port` the kernel grants a git command's worker: the remote of `--url`, or of the
 * repository's `--remote` (default origin), when pterm.json allows it and the call has
 * `--confirm`. Anything else gets no network at all; the handler then explains why.
 */
export function grantedHosts(
  section: unknown,
  call: { root: string; args: { flags: Readonly<Record<string, unknown>> } },
): string[] {
  const flags = call.args.flags;
  if (flags.confirm !== true) return [];
  const urls: string[] = [];
  if (typeof flags.url === "string") urls.push(flags.url);
  else if (typeof flags.repo === "string") {
    // The call's declaration is shared by fetch and push: both rewrites of the remote's URL
    // (insteadOf, pushInsteadOf) are granted, each only if pterm.json allows it.
    const remote = typeof flags.remote === "string" ? flags.remote : null;
    for (const push of [false, true]) {
      const url = configuredRemoteUrl(`${call.root}/${flags.repo}`, remote, push, call.root);
      if (url !== null) urls.push(url);
    }
  }
  const hosts = new Set<string>();
  for (const url of urls) {
    try {
      hosts.add(allowedRemote(url, policyOf(section)).hostPort);
    } catch { /* not allowed: no network for it */ }
  }
  if (hosts.size === 0) return [];
  const proxy = proxyOf(section);
  if (proxy) {
    try {
      hosts.add(parseProxyUrl(proxy).hostPort);
    } catch {
      return [];
    }
  }
  return [...hosts];
}

/** git.proxy of pterm.json, if set. */
export function proxyOf(section: unknown): string | null {
  const proxy = (section as { proxy?: unknown } | undefined)?.proxy;
  return typeof proxy === "string" ? proxy : null;
}

/** An http(s) proxy URL: scheme, host and port only; its credentials belong in the .env. */
export function parseProxyUrl(input: string): RemoteUrl {
  const proxy = parseRemoteUrl(input, "git.proxy");
  if (proxy.path !== "") {
    throw new PtermError("InvalidConfig", "git.proxy is a proxy's scheme, host and port, without a path.");
  }
  return proxy;
}
