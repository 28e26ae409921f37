/**
 * The MCP stdio transport pterm serves on: newline-delimited JSON-RPC over the process's stdin and
 * stdout. The SDK's own stdio transport closes the connection when a line is not a JSON-RPC message
 * or the unread input passes 10 MiB; a tool call's `stdin` may be larger than that, and a bad line
 * must not take the session down. Here a line that is not JSON is answered with a JSON-RPC parse
 * error, one that is not a JSON-RPC message with an invalid-request error (with its id when it has
 * one), a line over MAX_MESSAGE_BYTES with an error and skipped — and the connection stays up.
 */

import { concatBytes } from "../../core/bytes.ts";
import { type JSONRPCMessage, parseJSONRPCMessage, type Transport } from "@modelcontextprotocol/server";

/** A larger message is refused without being parsed (pterm's own stdin limit is far below it). */
export const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

export interface LineTransportOptions {
  readonly input: ReadableStream<Uint8Array>;
  /** Writes all of one serialized message. */
  readonly write: (text: string) => Promise<void>;
  readonly log: (line: string) => void;
  /** Default MAX_MESSAGE_BYTES. */
  readonly maxMessageBytes?: number;
}

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #options: LineTransportOptions;
  #reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  #closed = false;
  /** Writes go out one after another, whole. */
  #writing: Promise<void> = Promise.resolve();

  constructor(options: LineTransportOptions) {
    this.#options = options;
  }

  start(): Promise<void> {
    this.#reader = this.#options.input.getReader();
    void this.#pump();
    return Promise.resolve();
  }

  async #pump(): Promise<void> {
    const reader = this.#reader!;
    let parts: Uint8Array[] = [];
    let size = 0;
    let skipping = false;
    const max = this.#options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    try {
      while (!this.#closed) {
        const { value, done } = await reader.read();
        if (done) break;
        let chunk = value;
        while (chunk.length > 0) {
          const newline = chunk.indexOf(0x0a);
          const piece = newline < 0 ? chunk : chunk.subarray(0, newline);
          if (!skipping) {
            size += piece.length;
            if (size > max) {
              skipping = true;
              parts = [];
            } else parts.push(piece);
          }
          if (newline < 0) break;
          if (skipping) {
            this.#reply(null, INVALID_REQUEST, `the message is larger than ${max} bytes and was skipped`);
          } else this.#deliver(concatBytes(parts));
          parts = [];
          size = 0;
          skipping = false;
          chunk = chunk.subarray(newline + 1);
        }
      }
    } catch (error) {
      if (!this.#closed) this.onerror?.(error as Error);
    }
    await this.close();
  }

  #deliver(bytes: Uint8Array): void {
    const line = new TextDecoder().decode(bytes).replace(/\r$/, "");
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.#reply(null, PARSE_ERROR, "Parse error: the line is not JSON");
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(value);
    } catch {
      const id = (value as { id?: unknown } | null)?.id;
      const validId = typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
      this.#reply(validId, INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message");
      return;
    }
    try {
      this.onmessage?.(message);
    } catch (error) {
      this.onerror?.(error as Error);
    }
  }

  #reply(id: string | number | null, code: number, message: string): void {
    this.#options.log(`refused a message: ${message}`);
    void this.#write(JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } }) + "\n");
  }

  #write(text: string): Promise<void> {
    this.#writing = this.#writing.then(() => this.#options.write(text)).catch((error) => {
      if (!this.#closed) this.onerror?.(error as Error);
    });
    return this.#writing;
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return this.#write(JSON.stringify(message) + "\n");
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.#reader?.cancel();
    } catch { /* already done */ }
    await this.#writing;
    this.onclose?.();
  }
}
