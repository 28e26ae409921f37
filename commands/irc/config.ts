/**
 * The IRC settings, read only from `<root>/skills/irc-cli/secrets/.env` by the daemon (host
 * code). dotenv's `parse` reads the file; nothing is loaded into the process environment.
 * Error messages name keys, never values.
 */

import { parse } from "dotenv";
import { PtermError } from "../../core/errors.ts";
import { isAbsolute, join, resolve } from "../../core/fs/path.ts";
import { isChannelName, isNickName, normalizeFingerprint } from "./protocol.ts";

/** Where the settings live, relative to the workspace root. */
export const ENV_REL_PATH = "skills/irc-cli/secrets/.env";

/** The longest nick accepted: RFC 1459's 9 characters, which every server takes. */
export const MAX_NICK_LENGTH = 9;

export const REQUIRED_KEYS = ["IRC_SERVER", "IRC_PORT", "IRC_CHANNEL", "IRC_NICK"] as const;

/** Keys whose values are credentials: they never leave the daemon except to the IRC server. */
export const SECRET_KEYS = [
  "IRC_SERVER_PASSWORD",
  "IRC_CHANNEL_KEY",
  "IRC_NICKSERV_PASSWORD",
  "IRC_SASL_PASSWORD",
] as const;

export const OPTIONAL_KEYS = [
  "IRC_TLS",
  "IRC_TLS_CA_FILE",
  "IRC_TLS_FINGERPRINT",
  ...SECRET_KEYS,
  "IRC_SASL_USERNAME",
  "IRC_NICKSERV_HOSTMASK",
  "IRC_SEND_MAX_LINES",
  "IRC_KEEPALIVE_MS",
  "IRC_USERNAME",
  "IRC_REALNAME",
  "IRC_AUTO_FORWARD_TO_AGENT",
  "IRC_SEND_BURST",
  "IRC_SEND_INTERVAL_MS",
  "IRC_BUFFER_MESSAGES",
] as const;

const KNOWN_KEYS: ReadonlySet<string> = new Set([...REQUIRED_KEYS, ...OPTIONAL_KEYS]);

export const DEFAULTS = {
  sendBurst: 4,
  sendIntervalMs: 1000,
  /** Lines one `irc send` may become: at the default pace 50 lines take ~50 s. */
  sendMaxLines: 50,
  keepaliveMs: 30_000,
  bufferMessages: 1000,
  realname: "pterm",
} as const;

export interface IrcSecrets {
  readonly serverPassword?: string;
  readonly channelKey?: string;
  readonly nickservPassword?: string;
  readonly saslPassword?: string;
}

export interface IrcConfig {
  readonly server: string;
  readonly port: number;
  readonly tls: boolean;
  /** PEM text of extra trust anchors for TLS (IRC_TLS_CA_FILE), read by the daemon. */
  readonly caPem?: string;
  /** IRC_TLS_FINGERPRINT, normalised to 64 lower-case hex digits: the one certificate accepted. */
  readonly tlsFingerprint?: string;
  readonly channel: string;
  readonly nick: string;
  readonly username: string;
  readonly realname: string;
  readonly saslUsername: string;
  readonly autoForward: boolean;
  readonly sendBurst: number;
  readonly sendIntervalMs: number;
  readonly sendMaxLines: number;
  /** PING after this much silence from the server; the link is dead after twice as long. */
  readonly keepaliveMs: number;
  /** IRC_NICKSERV_HOSTMASK: the real NickServ's nick!user@host glob (identification is sent only to it). */
  readonly nickservHostmask?: string;
  readonly bufferMessages: number;
  readonly secrets: IrcSecrets;
}

/** Every credential value of `config`, for redaction (longest first, so overlaps redact fully). */
export function secretValues(config: IrcConfig): string[] {
  return Object.values(config.secrets)
    .filter((v): v is string => typeof v === "string" && v.length > 0)
    .sort((a, b) => b.length - a.length);
}

/** The `host:port` Deno's net permission uses (IPv6 literals in brackets). */
export function netPermissionHost(config: Pick<IrcConfig, "server" | "port">): string {
  const host = config.server.includes(":") ? `[${config.server}]` : config.server;
  return `${host}:${config.port}`;
}

function invalid(key: string, rule: string): PtermError {
  return new PtermError(
    "InvalidConfig",
    `${key} in ${ENV_REL_PATH} ${rule}; fix the value and retry (the daemon rereads the file on the next connection).`,
  );
}

function flag(values: Record<string, string>, key: string): boolean {
  const value = values[key];
  if (value === undefined || value === "" || value === "0") return false;
  if (value === "1") return true;
  throw invalid(key, "must be 0 or 1");
}

function integer(values: Record<string, string>, key: string, min: number, max: number, fallback: number): number {
  const value = values[key];
  if (value === undefined || value === "") return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw invalid(key, `must be a whole number from ${min} to ${max}`);
  }
  return Number(value);
}

function nickservHostmask(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!/^[^\s!@]+![^\s!@]+@[^\s!@]+$/.test(value)) {
    throw invalid("IRC_NICKSERV_HOSTMASK", "must be a nick!user@host mask such as NickServ!NickServ@services.*");
  }
  return value;
}

/**
 * Validates the parsed .env. Empty values count as unset (the skill's template leaves optional
 * keys empty). `readCa` reads IRC_TLS_CA_FILE, resolved against the .env's folder.
 */
export async function configFromValues(
  raw: Record<string, string>,
  readCa: (path: string) => Promise<string>,
): Promise<IrcConfig> {
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!key.startsWith("IRC_")) continue;
    if (!KNOWN_KEYS.has(key)) {
      throw invalid(key, `is not a known key (known: ${[...KNOWN_KEYS].join(", ")})`);
    }
    const trimmed = value.trim();
    if (trimmed !== "") values[key] = trimmed;
  }
  for (const key of REQUIRED_KEYS) {
    if (values[key] === undefined) {
      throw new PtermError(
        "MissingConfig",
        `${key} is not set in ${ENV_REL_PATH}; the host must add it (required: ${REQUIRED_KEYS.join(", ")}).`,
      );
    }
  }
  const nick = values.IRC_NICK;
  if ([...nick].length > MAX_NICK_LENGTH) {
    throw new PtermError(
      "NickTooLong",
      `IRC_NICK in ${ENV_REL_PATH} is ${[...nick].length} characters long; IRC nicks here may have at most ` +
        `${MAX_NICK_LENGTH}. The host must choose a shorter nick.`,
    );
  }
  if (!isNickName(nick)) throw invalid("IRC_NICK", "is not a valid IRC nick (letters, digits, -[]\\`_^{|})");
  const server = values.IRC_SERVER;
  if (!/^[A-Za-z0-9.:-]+$/.test(server)) throw invalid("IRC_SERVER", "must be a host name or an IP address");
  const channel = values.IRC_CHANNEL;
  if (!isChannelName(channel)) throw invalid("IRC_CHANNEL", "must be a channel name such as #lemon");
  const tls = flag(values, "IRC_TLS");
  let caPem: string | undefined;
  if (tls && values.IRC_TLS_CA_FILE !== undefined) {
    try {
      caPem = await readCa(values.IRC_TLS_CA_FILE);
    } catch {
      throw invalid("IRC_TLS_CA_FILE", "names a file the daemon cannot read (a path relative to the .env's folder)");
    }
    if (!caPem.includes("-----BEGIN CERTIFICATE-----")) {
      throw invalid("IRC_TLS_CA_FILE", "must be a PEM certificate file");
    }
  }
  let tlsFingerprint: string | undefined;
  if (values.IRC_TLS_FINGERPRINT !== undefined) {
    tlsFingerprint = normalizeFingerprint(values.IRC_TLS_FINGERPRINT) ?? undefined;
    if (!tlsFingerprint) {
      throw invalid("IRC_TLS_FINGERPRINT", "must be a SHA-256 fingerprint (64 hex digits, colons allowed)");
    }
    if (!tls) throw invalid("IRC_TLS_FINGERPRINT", "needs IRC_TLS=1");
    if (caPem !== undefined) {
      throw invalid("IRC_TLS_FINGERPRINT", "and IRC_TLS_CA_FILE are two ways to trust the server; set only one");
    }
  }
  const username = values.IRC_USERNAME ?? (nick.toLowerCase().replace(/[^a-z0-9]/g, "") || "pterm");
  if (!/^[A-Za-z0-9._-]{1,10}$/.test(username)) throw invalid("IRC_USERNAME", "must be 1-10 letters, digits, . _ or -");
  return {
    server,
    port: integer(values, "IRC_PORT", 1, 65535, 0),
    tls,
    caPem,
    tlsFingerprint,
    channel,
    nick,
    username,
    realname: values.IRC_REALNAME ?? DEFAULTS.realname,
    saslUsername: values.IRC_SASL_USERNAME ?? nick,
    autoForward: flag(values, "IRC_AUTO_FORWARD_TO_AGENT"),
    sendBurst: integer(values, "IRC_SEND_BURST", 1, 20, DEFAULTS.sendBurst),
    sendIntervalMs: integer(values, "IRC_SEND_INTERVAL_MS", 50, 60_000, DEFAULTS.sendIntervalMs),
    sendMaxLines: integer(values, "IRC_SEND_MAX_LINES", 1, 1000, DEFAULTS.sendMaxLines),
    keepaliveMs: integer(values, "IRC_KEEPALIVE_MS", 1000, 300_000, DEFAULTS.keepaliveMs),
    nickservHostmask: nickservHostmask(values.IRC_NICKSERV_HOSTMASK),
    bufferMessages: integer(values, "IRC_BUFFER_MESSAGES", 10, 100_000, DEFAULTS.bufferMessages),
    secrets: {
      serverPassword: values.IRC_SERVER_PASSWORD,
      channelKey: values.IRC_CHANNEL_KEY,
      nickservPassword: values.IRC_NICKSERV_PASSWORD,
      // SASL PLAIN defaults to the NickServ account's password: that is what networks check.
      saslPassword: values.IRC_SASL_PASSWORD ?? values.IRC_NICKSERV_PASSWORD,
    },
  };
}

/**
 * dotenv reads an unquoted `#` as the start of a comment, even inside a value, so the skill's
 * own template line `IRC_CHANNEL=#lemon` would come out empty and `PASS=ab#c` as `ab`. Such
 * values are quoted before parsing: a token right after `=` that starts with `#`, or any
 * unquoted token with a `#` inside. A `#` after a blank stays a comment (`KEY=  # note`).
 */
export function quoteHashValues(text: string): string {
  return text.replace(
    /^([ \t]*(?:export[ \t]+)?[A-Za-z_][A-Za-z0-9_.-]*[ \t]*=)(#[^\s']*|[ \t]*[^\s'"`#][^\s']*#[^\s']*)(?=[ \t]|$)/gm,
    (_, key: string, value: string) => `${key}${value.match(/^[ \t]*/)![0]}'${value.trimStart()}'`,
  );
}

/** Reads and validates `<root>/skills/irc-cli/secrets/.env`. */
export async function loadConfig(root: string): Promise<IrcConfig> {
  const envPath = join(root, ...ENV_REL_PATH.split("/"));
  let text: string;
  try {
    text = await Deno.readTextFile(envPath);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new PtermError(
        "MissingConfig",
        `${ENV_REL_PATH} does not exist under the workspace root; the host must create it with at least ` +
          `${REQUIRED_KEYS.join(", ")} (see \`pterm skills show irc-cli\`).`,
      );
    }
    throw new PtermError("InvalidConfig", `${ENV_REL_PATH} cannot be read: ${(error as Error).name}.`);
  }
  const envDir = join(root, "skills", "irc-cli", "secrets");
  return await configFromValues(
    parse(quoteHashValues(text)),
    (path) => Deno.readTextFile(isAbsolute(path) ? path : resolve(envDir, path)),
  );
}
