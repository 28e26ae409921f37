/**
 * Inbound messages of one agent session: a ring buffer per conversation (a channel, or the
 * nick of someone who wrote to us) for `irc pull`, every message appended to that
 * conversation's JSONL log, and the pull cursors. It all lives in `<session>/irc/`, so a
 * restarted daemon of the same session finds its cursors and recent messages again.
 */

import { writeFileAtomic } from "../../core/fs/atomic.ts";
import { join } from "../../core/fs/path.ts";
import type { StoredMessage } from "./daemon_protocol.ts";
import { type CaseMapping, foldName, parseCaseMapping } from "./protocol.ts";
import { type Numbered, Ring } from "./ring.ts";
import { concatBytes } from "../../core/bytes.ts";

export const MESSAGES_DIR = "messages";
export const CURSORS_FILE = "cursors.json";
export const CASE_MAPPING_FILE = "case_mapping";
/**
 * Conversations whose ring buffer stays in memory. Past this, the least recently active one
 * leaves memory (its log stays on disk, and a pull of it reloads it): a flood of private
 * messages from many nicks cannot grow the daemon without bound.
 */
export const MAX_RESIDENT_CONVERSATIONS = 64;

interface Entry extends Numbered {
  readonly message: StoredMessage;
}

/** A conversation name as a file name: folded, with anything unusual percent-encoded. */
export function logFileName(conversation: string, mapping?: CaseMapping): string {
  const encoded = [...new TextEncoder().encode(foldName(conversation, mapping))].map((byte) => {
    const c = String.fromCharCode(byte);
    return /[a-z0-9#&+!._-]/.test(c) && byte < 0x80 ? c : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }).join("");
  return `${encoded.startsWith(".") ? "%2E" + encoded.slice(1) : encoded}.jsonl`;
}

function conversationOfFile(name: string): string {
  return decodeURIComponent(name.replace(/\.jsonl$/, ""));
}

/** The last `maxLines` complete lines of a file, read from its end, and whether it ends with a newline. */
async function readTailLines(path: string, maxLines: number): Promise<{ lines: string[]; endsWithNewline: boolean }> {
  using file = await Deno.open(path, { read: true });
  const size = (await file.stat()).size;
  if (size === 0) return { lines: [], endsWithNewline: true };
  const chunks: Uint8Array[] = [];
  let position = size;
  let newlines = 0;
  while (position > 0 && newlines <= maxLines) {
    const length = Math.min(64 * 1024, position);
    position -= length;
    const chunk = new Uint8Array(length);
    await file.seek(position, Deno.SeekMode.Start);
    let read = 0;
    while (read < length) {
      const n = await file.read(chunk.subarray(read));
      if (n === null) break;
      read += n;
    }
    for (const byte of chunk) if (byte === 0x0a) newlines++;
    chunks.unshift(chunk);
  }
  const bytes = concatBytes(chunks);
  const lines = new TextDecoder().decode(bytes).split("\n");
  if (position > 0) lines.shift(); // the first line is cut
  return {
    lines: lines.filter((l) => l.trim() !== "").slice(-maxLines),
    endsWithNewline: bytes[bytes.length - 1] === 0x0a,
  };
}

class Conversation {
  readonly ring: Ring<Entry>;
  #pending = "";
  #chain: Promise<void> = Promise.resolve();
  #file: Deno.FsFile | null = null;

  /** `after`: writes of an earlier instance of this conversation that must land first. */
  constructor(readonly path: string, capacity: number, lastSeq: number, after: Promise<void> = Promise.resolve()) {
    this.ring = new Ring<Entry>(capacity, lastSeq);
    this.#chain = after;
  }

  append(message: StoredMessage, onError: (error: Error) => void): void {
    this.ring.push({ seq: Number(message.id), message });
    const first = this.#pending === "";
    this.#pending += JSON.stringify(message) + "\n";
    // Everything appended in one turn of the event loop goes out in one write.
    if (first) {
      this.#chain = this.#chain.then(() => this.#writePending()).catch((error) => onError(error as Error));
    }
  }

  async #writePending(): Promise<void> {
    await Promise.resolve();
    const text = this.#pending;
    this.#pending = "";
    if (!text) return;
    this.#file ??= await Deno.open(this.path, { append: true, create: true, mode: 0o600 });
    const bytes = new TextEncoder().encode(text);
    let written = 0;
    while (written < bytes.length) written += await this.#file.write(bytes.subarray(written));
  }

  async flush(): Promise<void> {
    await this.#chain;
  }

  close(): void {
    this.#file?.close();
    this.#file = null;
  }
}

export class MessageStore {
  readonly #dir: string;
  readonly #capacity: number;
  readonly #onError: (error: Error) => void;
  /** Resident conversations, least recently active first. */
  readonly #conversations = new Map<string, Conversation>();
  /** The last id of every conversation seen, resident or not. */
  readonly #lastSeqs = new Map<string, number>();
  /** Writes still finishing for conversations that left memory. */
  readonly #leaving = new Map<string, Promise<void>>();
  #cursors: Record<string, string> = {};
  #cursorWrite: Promise<void> = Promise.resolve();

  private constructor(dir: string, capacity: number, onError: (error: Error) => void) {
    this.#dir = dir;
    this.#capacity = capacity;
    this.#onError = onError;
  }

  /** Opens (creating) the store in `dir`, reloading each conversation's newest messages and the cursors. */
  static async open(dir: string, capacity: number, onError: (error: Error) => void): Promise<MessageStore> {
    const store = new MessageStore(dir, capacity, onError);
    const messagesDir = join(dir, MESSAGES_DIR);
    await Deno.mkdir(messagesDir, { recursive: true, mode: 0o700 });
    try {
      store.#cursors = JSON.parse(await Deno.readTextFile(join(dir, CURSORS_FILE)));
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) onError(new Error(`${CURSORS_FILE} is unreadable; cursors reset`));
    }
    try {
      store.#caseMapping = parseCaseMapping(await Deno.readTextFile(join(dir, CASE_MAPPING_FILE))) ?? "rfc1459";
    } catch { /* never announced yet: RFC 1459's default */ }
    for await (const entry of Deno.readDir(messagesDir)) {
      if (!entry.isFile || !entry.name.endsWith(".jsonl")) continue;
      await store.#reload(conversationOfFile(entry.name), join(messagesDir, entry.name));
    }
    return store;
  }

  /**
   * The server's case mapping (ISUPPORT CASEMAPPING): conversations, cursors and log files are
   * keyed by names folded under it. Remembered on disk, so a restarted daemon keys its logs as
   * before until the server speaks again.
   */
  #caseMapping: CaseMapping = "rfc1459";

  get caseMapping(): CaseMapping {
    return this.#caseMapping;
  }

  /** Sets the server's case mapping; names already known are keyed again under it. */
  async setCaseMapping(mapping: CaseMapping): Promise<void> {
    if (mapping === this.#caseMapping) return;
    this.#caseMapping = mapping;
    const rekey = <T>(map: Map<string, T>) => {
      const entries = [...map];
      map.clear();
      for (const [key, value] of entries) if (!map.has(this.#fold(key))) map.set(this.#fold(key), value);
    };
    rekey(this.#conversations);
    rekey(this.#lastSeqs);
    const cursors: Record<string, string> = {};
    for (const [key, value] of Object.entries(this.#cursors)) {
      const folded = this.#fold(key);
      if (cursors[folded] === undefined || Number(value) > Number(cursors[folded])) cursors[folded] = value;
    }
    this.#cursors = cursors;
    await writeFileAtomic(join(this.#dir, CASE_MAPPING_FILE), mapping, { mode: 0o600 });
  }

  #fold(name: string): string {
    return foldName(name, this.#caseMapping);
  }

  #path(key: string): string {
    return join(this.#dir, MESSAGES_DIR, logFileName(key, this.caseMapping));
  }

  /** Makes a conversation resident from the newest messages of its log. */
  async #reload(name: string, file?: string): Promise<Conversation> {
    const key = this.#fold(name);
    const path = file ?? this.#path(key);
    await this.#leaving.get(key);
    const messages: StoredMessage[] = [];
    const tail = await readTailLines(path, this.#capacity).catch((error) => {
      if (error instanceof Deno.errors.NotFound) return { lines: [], endsWithNewline: true };
      throw error;
    });
    for (const line of tail.lines) {
      try {
        const message = JSON.parse(line) as StoredMessage;
        if (/^\d+$/.test(message.id)) messages.push(message);
      } catch { /* a line torn by a crash */ }
    }
    // A file cut mid-line by a crash must not glue the next message onto the fragment.
    if (!tail.endsWithNewline) await Deno.writeTextFile(path, "\n", { append: true });
    // An append may have made it resident while the log was being read: that one wins.
    const current = this.#conversations.get(key);
    if (current) return current;
    const lastSeq = messages.length ? Number(messages[messages.length - 1].id) : 0;
    const firstSeq = messages.length ? Number(messages[0].id) : 1;
    const conversation = new Conversation(path, this.#capacity, firstSeq - 1);
    for (const message of messages) {
      if (Number(message.id) !== conversation.ring.lastSeq + 1) continue;
      conversation.ring.push({ seq: Number(message.id), message });
    }
    if (conversation.ring.lastSeq !== lastSeq) this.#onError(new Error(`${path} has gaps in its ids`));
    this.#lastSeqs.set(key, Math.max(conversation.ring.lastSeq, this.#lastSeqs.get(key) ?? 0));
    this.#resident(key, conversation);
    return conversation;
  }

  /** Marks `key` the most recently active, and sends the least recently active beyond the limit out of memory. */
  #resident(key: string, conversation: Conversation): void {
    this.#conversations.delete(key);
    this.#conversations.set(key, conversation);
    while (this.#conversations.size > MAX_RESIDENT_CONVERSATIONS) {
      const [oldKey, old] = this.#conversations.entries().next().value!;
      this.#conversations.delete(oldKey);
      const leaving = old.flush().catch(() => {}).finally(() => old.close());
      this.#leaving.set(oldKey, leaving);
      leaving.then(() => {
        if (this.#leaving.get(oldKey) === leaving) this.#leaving.delete(oldKey);
      });
    }
  }

  #conversation(name: string): Conversation {
    const key = this.#fold(name);
    const conversation = this.#conversations.get(key) ??
      new Conversation(this.#path(key), this.#capacity, this.#lastSeqs.get(key) ?? 0, this.#leaving.get(key));
    this.#resident(key, conversation);
    return conversation;
  }

  /** Stores new messages of a conversation (their text already sanitised); returns them with their ids. */
  append(name: string, entries: readonly Omit<StoredMessage, "id">[]): StoredMessage[] {
    const conversation = this.#conversation(name);
    const stored = entries.map((entry) => {
      const message: StoredMessage = {
        id: String(conversation.ring.lastSeq + 1),
        ts: entry.ts,
        ...(entry.server_time ? { server_time: entry.server_time } : {}),
        nick: entry.nick,
        text: entry.text,
        kind: entry.kind,
      };
      conversation.append(message, this.#onError);
      return message;
    });
    this.#lastSeqs.set(this.#fold(name), conversation.ring.lastSeq);
    return stored;
  }

  cursor(name: string): string | null {
    return this.#cursors[this.#fold(name)] ?? null;
  }

  /** Messages after the conversation's cursor (at most `limit`), without moving the cursor. */
  async read(name: string, limit: number): Promise<{ messages: StoredMessage[]; dropped: number; remaining: number }> {
    const cursor = this.cursor(name);
    const key = this.#fold(name);
    const conversation = this.#conversations.get(key) ?? (this.#lastSeqs.has(key) ? await this.#reload(key) : null);
    if (!conversation) return { messages: [], dropped: 0, remaining: 0 };
    const { items, dropped, remaining } = conversation.ring.after(cursor === null ? 0 : Number(cursor), limit);
    return { messages: items.map((e) => e.message), dropped, remaining };
  }

  /** Moves the cursor forward to `after` (never back: two pulls racing cannot re-deliver). */
  async commit(name: string, after: string): Promise<string> {
    const key = this.#fold(name);
    const current = this.#cursors[key];
    if (current === undefined || Number(after) > Number(current)) {
      this.#cursors = { ...this.#cursors, [key]: after };
      const snapshot = JSON.stringify(this.#cursors, null, 2) + "\n";
      this.#cursorWrite = this.#cursorWrite.catch(() => {}).then(() =>
        writeFileAtomic(join(this.#dir, CURSORS_FILE), snapshot, { mode: 0o600 })
      );
      await this.#cursorWrite;
    }
    return this.#cursors[key];
  }

  async flush(): Promise<void> {
    await Promise.all([...this.#conversations.values()].map((c) => c.flush()));
    await Promise.all([...this.#leaving.values()]);
    await this.#cursorWrite.catch(() => {});
  }

  async close(): Promise<void> {
    await this.flush();
    for (const conversation of this.#conversations.values()) conversation.close();
  }
}
