/** The flags of `irc status`, `send` and `pull`: declared by spec.ts, typed in handler.ts. */

import type { FlagSpec, PositionalSpec } from "../../core/declaration.ts";

export const statusFlags = [] as const satisfies readonly FlagSpec[];

export const sendFlags = [
  {
    name: "to",
    type: "string",
    valueName: "#channel|nick",
    description: "Where to send: a channel or a nick. Default: the configured channel (IRC_CHANNEL); any other " +
      "target needs --confirm. A channel other than the default is joined first.",
  },
  {
    name: "text",
    type: "string",
    valueName: "text",
    description: "The message (quote it). Long texts are split into several IRC lines; line breaks start new lines.",
  },
  {
    name: "text-stdin",
    type: "boolean",
    description: "Read the message from the tool call's stdin instead (recommended for long or multi-line text).",
  },
  {
    name: "confirm",
    type: "boolean",
    description: "Required to send anywhere but the default channel (a private message or another channel).",
  },
] as const satisfies readonly FlagSpec[];

export const sendPositionals = [
  {
    name: "text",
    variadic: true,
    description: "The message, quoted: the same as --text (give one of them).",
  },
] as const satisfies readonly PositionalSpec[];

export const pullFlags = [
  {
    name: "from",
    type: "string",
    valueName: "#channel|nick",
    description: "Which conversation: a channel, or a nick for private messages. Default: the configured channel.",
  },
  {
    name: "limit",
    type: "number",
    valueName: "n",
    min: 1,
    max: 1000,
    default: 100,
    description: "At most this many new messages; the rest stay for the next pull (see `remaining`).",
  },
  {
    name: "format",
    type: "string",
    choices: ["summary", "full"],
    default: "summary",
    description: "summary: each text cut to a short digest; full: whole messages (a batch past the bound is also " +
      "saved whole as an artifact).",
  },
  {
    name: "peek",
    type: "boolean",
    description: "Look without moving the cursor: the same messages come again on the next pull.",
  },
] as const satisfies readonly FlagSpec[];
