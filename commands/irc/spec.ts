/**
 * `irc`: a session-bound IRC connection. The connection lives in `pterm
 * irc-daemon` (one per agent session, started by the host); these commands reach it over
 * the session's Unix socket. They never see a password: the daemon reads the .env.
 */

import { IRC_ERROR_CODES } from "./error_codes.ts";
import type { CommandSpec, LeafSpec } from "../../core/declaration.ts";
import { pullFlags, sendFlags, sendPositionals, statusFlags } from "./flags.ts";
import { lazyImport } from "../../core/lazy.ts";
import { join } from "../../core/fs/path.ts";
import { SOCKET_NAME } from "./daemon_protocol.ts";

type HandlerModule = typeof import("./handler.ts");
type SchemaModule = typeof import("./schema.ts");
const HANDLERS = new URL("./handler.ts", import.meta.url).href;
const schemas = () => lazyImport<SchemaModule>(new URL("./schema.ts", import.meta.url));

/**
 * Talking to the daemon: Deno treats a Unix socket as network (`unix:<path>`) and also
 * checks read and write on its path. `net` is granted for this one socket only.
 */
const CAPABILITIES = ["fs.read", "fs.write", "net"] as const;

const statusSpec: LeafSpec = {
  name: "status",
  summary: "Show the IRC connection of this session: state, red/yellow/green light, server, nick, channel, last error.",
  description: "The first irc status, send or pull of a session makes the connection and joins the channel. " +
    "Light: red = not connected or error, yellow = connecting, green = joined.",
  flags: statusFlags,
  capabilities: CAPABILITIES,
  examples: [{ command: "irc status", description: "Connect if needed and show the state (no secrets shown)." }],
  result: async () => (await schemas()).statusResultSchema,
  handler: { module: HANDLERS, export: "ircStatus" satisfies keyof HandlerModule },
};

const sendSpec: LeafSpec = {
  name: "send",
  summary: "Send a message (PRIVMSG) to the default channel, or with --confirm to a nick or another channel.",
  description: "Give the text with --text or --text-stdin (exactly one). Lines are throttled so the server never " +
    "disconnects pterm for flooding, so a long text takes a few seconds. A dropped connection is re-made " +
    "(bounded retries); the server's refusals (no such nick, cannot send to channel) fail the call.",
  flags: sendFlags,
  positionals: sendPositionals,
  capabilities: CAPABILITIES,
  stdin: { mode: "whenFlag", flag: "text-stdin" },
  limits: { timeoutMs: 120_000 },
  examples: [
    { command: 'irc send "build 42 passed"', description: "Post to the default channel." },
    { command: 'irc send --text "build 43 passed"', description: "The same with --text." },
    {
      command: "irc send --text-stdin",
      stdin: "Deploy finished.\nAll checks green.",
      description: "Post a multi-line text from stdin (two IRC lines).",
    },
    { command: 'irc send --to alice --confirm --text "ping"', description: "Private message: needs --confirm." },
  ],
  result: async () => (await schemas()).sendResultSchema,
  handler: { module: HANDLERS, export: "ircSend" satisfies keyof HandlerModule },
};

const pullSpec: LeafSpec = {
  name: "pull",
  summary: "Return the messages received since the last pull of a conversation (third-party text, bounded).",
  description: "Each conversation has its own cursor, kept across daemon restarts; --peek leaves it. Texts are " +
    "sanitised and bounded (head + [...TRUNCATED...] + tail); `dropped_count` says how many messages the " +
    "in-memory buffer lost before this pull (all of them are still in the session's JSONL log).",
  flags: pullFlags,
  capabilities: CAPABILITIES,
  examples: [
    { command: "irc pull", description: "New messages of the default channel; moves its cursor." },
    { command: "irc pull --peek", description: "Look at them without moving the cursor." },
    { command: "irc pull --from alice --limit 20 --format full", description: "Private messages from alice, whole." },
  ],
  result: async () => (await schemas()).pullResultSchema,
  handler: { module: HANDLERS, export: "ircPull" satisfies keyof HandlerModule },
};

export const ircSpec: CommandSpec = {
  name: "irc",
  summary: "IRC for this agent session: status, send, pull (through the session's irc daemon).",
  description: "The connection belongs to `pterm irc-daemon --session <id>`, which the host starts for the agent " +
    "session and which reads the credentials from skills/irc-cli/secrets/.env (never from arguments). Without " +
    "it every irc command fails with DaemonNotRunning. Linux and macOS only: on Windows the commands fail with " +
    "UnsupportedPlatform.",
  zone: "help-first",
  errorCodes: IRC_ERROR_CODES,
  subcommands: [statusSpec, sendSpec, pullSpec],
  examples: [
    { command: "irc status", description: "Is the session connected? (green = joined)" },
    { command: 'irc send --text "hello"', description: "Say hello in the default channel." },
    { command: "irc pull", description: "Read what others wrote since the last pull." },
  ],
  netHosts: (_section, call) => [`unix:${join(call.session.dir, SOCKET_NAME)}`],
  sessionService: async () =>
    (await lazyImport<typeof import("./service.ts")>(new URL("./service.ts", import.meta.url))).ircService,
};
