/**
 * The truncation policy for IRC text that reaches an agent (`irc pull`, auto-forward):
 * every message is first cut to a per-message bound, then the batch to a total bound by
 * keeping head messages, a `[...TRUNCATED...]` marker and tail messages. Texts are cut with
 * the kernel's head + marker + tail on UTF-8 boundaries.
 */

import { boundText, TRUNCATION_MARKER, utf8Length } from "../../core/truncate.ts";
import type { StoredMessage } from "./daemon_protocol.ts";

export type PullFormat = "summary" | "full";

export interface BatchBounds {
  /** Bytes of one message's text. */
  readonly messageBytes: number;
  /** Bytes of the whole batch (texts, nicks and a fixed overhead per message). */
  readonly totalBytes: number;
}

/**
 * summary: a short safe digest of each message; full: whole IRC messages (an IRC line holds
 * at most 512 bytes, so 2 KiB never cuts one), with a larger batch bound.
 */
export const BOUNDS: Readonly<Record<PullFormat, BatchBounds>> = {
  summary: { messageBytes: 300, totalBytes: 6 * 1024 },
  full: { messageBytes: 2 * 1024, totalBytes: 12 * 1024 },
};

/** Counted per message besides text and nick: id, times, kind and JSON punctuation. */
const MESSAGE_OVERHEAD_BYTES = 64;

export interface BoundedMessage extends StoredMessage {
  /** Present (true) when this message's text was cut. */
  truncated?: true;
}

export interface BoundedBatch {
  readonly messages: BoundedMessage[];
  /** Whether any text was cut or any message left out. */
  readonly truncated: boolean;
  /** Messages left out between head and tail. */
  readonly omitted_count: number;
  /** The id of the last head message, after which the marker stands (null: nothing omitted). */
  readonly omitted_after_id: string | null;
}

function cost(message: StoredMessage): number {
  return utf8Length(message.text) + utf8Length(message.nick) + MESSAGE_OVERHEAD_BYTES;
}

export function boundBatch(messages: readonly StoredMessage[], bounds: BatchBounds): BoundedBatch {
  let anyCut = false;
  const cut: BoundedMessage[] = messages.map((message) => {
    const bounded = boundText(message.text, bounds.messageBytes);
    if (!bounded.truncated) return message;
    anyCut = true;
    return { ...message, text: bounded.text, truncated: true };
  });
  const total = cut.reduce((sum, m) => sum + cost(m), 0);
  if (total <= bounds.totalBytes) {
    return { messages: cut, truncated: anyCut, omitted_count: 0, omitted_after_id: null };
  }
  const room = bounds.totalBytes - utf8Length(TRUNCATION_MARKER);
  const headRoom = Math.floor(room * 0.6);
  const head: BoundedMessage[] = [];
  let used = 0;
  for (const message of cut) {
    if (used + cost(message) > headRoom) break;
    head.push(message);
    used += cost(message);
  }
  const tail: BoundedMessage[] = [];
  for (let i = cut.length - 1; i >= head.length; i--) {
    if (used + cost(cut[i]) > room) break;
    tail.unshift(cut[i]);
    used += cost(cut[i]);
  }
  return {
    messages: [...head, ...tail],
    truncated: true,
    omitted_count: cut.length - head.length - tail.length,
    omitted_after_id: head.length > 0 ? head[head.length - 1].id : null,
  };
}
