/** The `irc status | send | pull` handlers: thin clients of the session's irc daemon. */

import type { CommandContext, Handler } from "../../core/context.ts";
import { PtermError } from "../../core/errors.ts";
import { TRUNCATION_MARKER } from "../../core/truncate.ts";
import { boundBatch, type BoundedMessage, BOUNDS, type PullFormat } from "./bounds.ts";
import { callDaemon } from "./client.ts";
import { type Indicator, MAX_SEND_TEXT_BYTES, type PullFields, type StatusFields } from "./daemon_protocol.ts";
import { THIRD_PARTY_NOTICE } from "./forward.ts";
import type { pullFlags, sendFlags, sendPositionals, statusFlags } from "./flags.ts";

const COLOURS: Record<Indicator, string> = { red: "\x1b[31m", yellow: "\x1b[33m", green: "\x1b[32m" };
const RESET = "\x1b[0m";

function daemon(ctx: CommandContext<unknown, unknown>, request: Parameters<typeof callDaemon>[1]) {
  return callDaemon(ctx.session, request, ctx.signal);
}

/** The terminal's version of the Chat-tab light: a dot, coloured when the terminal allows. */
function light(indicator: Indicator, color: boolean): string {
  return color ? `${COLOURS[indicator]}●${RESET} ${indicator}` : `● ${indicator}`;
}

function describeStatus(status: Partial<StatusFields> & Pick<StatusFields, "state" | "indicator">): string {
  const where = status.server ? ` ${status.server}:${status.port}${status.tls ? " (TLS)" : ""}` : "";
  const who = status.nick ? ` as ${status.nick}` : "";
  const what = status.state === "joined"
    ? `joined ${status.channel}${who} on${where}`
    : `${status.state}${status.channel ? ` (channel ${status.channel}${who} on${where})` : ""}`;
  const error = status.last_error ? `\nlast error: ${status.last_error.error_code}: ${status.last_error.message}` : "";
  return `${what}${error}`;
}

export const ircStatus: Handler<typeof statusFlags> = async (ctx) => {
  let status: StatusFields;
  try {
    status = await daemon(ctx, { v: 1, op: "status" }) as unknown as StatusFields;
  } catch (error) {
    const result = (error instanceof PtermError ? error.result : undefined) as StatusFields | undefined;
    if (result?.indicator) {
      ctx.stdout.write(`${light(result.indicator, ctx.terminal.color)} IRC ${describeStatus(result)}\n`);
    }
    throw error;
  }
  ctx.stdout.write(`${light(status.indicator, ctx.terminal.color)} IRC ${describeStatus(status)}\n`);
  return { ...status };
};

/** The message given as the argument: one quoted word; several unquoted words are refused with the quoted line. */
function argumentText(words: readonly string[], command: string): string | undefined {
  if (words.length === 0) return undefined;
  if (words.length === 1) return words[0];
  const [first, ...rest] = words;
  const quoted = (t: string) => `"${t.replaceAll('"', '\\"')}"`;
  const fix = first.startsWith("#")
    ? `to post in ${first}, write \`${command} --to '${first}' --confirm ${quoted(rest.join(" "))}\` (--confirm only ` +
      "if it is not the default channel); to send the words as they are, quote them"
    : `quote the message: \`${command} ${quoted(words.join(" "))}\``;
  throw new PtermError("InvalidArgs", `${command}: the message is ${words.length} separate words; ${fix}.`, {
    helpFor: command,
  });
}

export const ircSend: Handler<typeof sendFlags, typeof sendPositionals> = async (ctx) => {
  const { confirm } = ctx.flags;
  const given = argumentText(ctx.positionals.text, ctx.command);
  if (given !== undefined && ctx.flags.text !== undefined) {
    throw new PtermError(
      "InvalidArgs",
      `${ctx.command}: the message was given twice (as the argument and as --text); give it once.`,
      { helpFor: ctx.command },
    );
  }
  const flagText = given ?? ctx.flags.text;
  const fromStdin = ctx.flags["text-stdin"];
  if ((flagText === undefined) === !fromStdin) {
    throw new PtermError(
      "InvalidArgs",
      fromStdin
        ? "give the message once: from stdin (--text-stdin) or on the line, not both."
        : 'give the message: `irc send "<text>"` (or --text "<text>", or --text-stdin with the text on stdin).',
      { helpFor: ctx.command },
    );
  }
  const text = (fromStdin ? ctx.stdin ?? "" : flagText!).replace(/\r?\n$/, "");
  if (text.trim() === "") throw new PtermError("InvalidArgs", "the message is empty; give some text to send.");
  if (new TextEncoder().encode(text).length > MAX_SEND_TEXT_BYTES) {
    throw new PtermError(
      "InputTooLarge",
      `the message is longer than ${MAX_SEND_TEXT_BYTES} bytes; send it in several parts.`,
    );
  }
  const result = await daemon(ctx, { v: 1, op: "send", to: ctx.flags.to ?? null, text, confirm });
  const lines = result.lines as number;
  const members = result.channel_members as number | undefined;
  const audience = members === undefined
    ? ""
    : members === 0
    ? "; nobody else was in the channel, so nobody read it"
    : `; ${members} other member${members === 1 ? " was" : "s were"} in the channel`;
  ctx.stdout.write(
    `delivered ${result.message_len} characters to ${result.to} in ${lines} IRC line${lines === 1 ? "" : "s"}, ` +
      `confirmed by the server${result.reconnected ? " (after reconnecting)" : ""}${audience}\n`,
  );
  return result;
};

function renderMessage(m: BoundedMessage): string {
  const time = (m.server_time ?? m.ts).slice(11, 19);
  const who = m.kind === "action" ? `* ${m.nick}` : m.kind === "notice" ? `-${m.nick}-` : `<${m.nick}>`;
  return `[${m.id}] ${time} ${who} ${m.text.replaceAll("\n", " ")}`;
}

export const ircPull: Handler<typeof pullFlags> = async (ctx) => {
  const format = ctx.flags.format as PullFormat;
  const peek = ctx.flags.peek;
  const raw = await daemon(ctx, {
    v: 1,
    op: "pull",
    from: ctx.flags.from ?? null,
    limit: ctx.flags.limit,
  }) as unknown as PullFields;
  const batch = boundBatch(raw.messages, BOUNDS[format]);
  let artifact: string | undefined;
  if (batch.omitted_count > 0) {
    // A batch past the bound is kept whole on disk and named in the result: the cursor moves
    // past messages the agent was not shown only because they are in that file.
    const ref = await ctx.artifacts.save(
      `irc-pull-${raw.from}.jsonl`,
      raw.messages.map((m) => JSON.stringify(m)).join("\n") + "\n",
      {
        mime: "application/x-ndjson",
        description: `all ${raw.messages.length} messages of this pull of ${raw.from}, whole (third-party text)`,
      },
    );
    artifact = ref.path;
  }
  let cursorAfter: string | undefined;
  if (!peek) {
    const last = raw.messages[raw.messages.length - 1];
    if (last) {
      const committed = await daemon(ctx, { v: 1, op: "commit", from: raw.from, cursor_after: last.id });
      cursorAfter = committed.cursor as string;
    } else if (raw.cursor_before !== null) cursorAfter = raw.cursor_before;
  }

  const out: string[] = [
    `IRC ${raw.from}: ${raw.messages.length} new message${raw.messages.length === 1 ? "" : "s"}` +
    (peek ? " (peek: the cursor stays)" : ""),
  ];
  if (raw.messages.length > 0) out.push(THIRD_PARTY_NOTICE);
  for (const m of batch.messages) {
    out.push(renderMessage(m));
    if (batch.omitted_count > 0 && m.id === batch.omitted_after_id) {
      out.push(`${TRUNCATION_MARKER} ${batch.omitted_count} messages left out`);
    }
  }
  if (raw.dropped_count > 0) {
    out.push(`${raw.dropped_count} earlier messages were dropped from the buffer before this pull (still in the log).`);
  }
  if (raw.remaining > 0) out.push(`${raw.remaining} more new messages: pull again.`);
  if (artifact) out.push(`the whole batch: ${artifact}`);
  ctx.stdout.write(out.join("\n") + "\n");

  return {
    from: raw.from,
    format,
    peek,
    returned: batch.messages.length,
    ...(raw.cursor_before !== null ? { cursor_before: raw.cursor_before } : {}),
    ...(cursorAfter !== undefined ? { cursor_after: cursorAfter } : {}),
    messages: batch.messages,
    truncated: batch.truncated,
    omitted_count: batch.omitted_count,
    ...(batch.omitted_after_id !== null ? { omitted_after_id: batch.omitted_after_id } : {}),
    dropped_count: raw.dropped_count,
    remaining: raw.remaining,
    third_party: true,
    state: raw.state,
    ...(artifact ? { artifact } : {}),
  };
};
