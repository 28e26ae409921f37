/**
 * The shell's one boundary to the person's terminal. Everything the shell shows — its own lines,
 * commands' output, and everything the line editor (readline) draws: the prompt, the line being
 * typed, Tab completion's insertions and candidate lists — is written here, and here every code
 * point that would drive the terminal (ESC, BEL, CSI, C1, bidi overrides...) becomes a visible
 * escape. A file named `\x1b]2;…\x07` can then neither set the window title nor, through OSC 52,
 * the clipboard. Only the shell's own control sequences pass: the colours it paints, the line
 * editor's cursor moves (each written alone, never inside text), and `control`.
 */

import { Writable } from "node:stream";
import process from "node:process";
import { escapeCodePoint, TERMINAL_CONTROL } from "../../core/controls.ts";

/** The colours the shell paints (render.ts `paint`): reset, bold, dim, normal, foreground colours. */
// deno-lint-ignore no-control-regex -- matching control sequences is the point
const SHELL_COLOUR = /\x1b\[(?:0|1|2|22|3[0-79]|9[0-7])m/;
const TEXT_TOKEN = new RegExp(`${SHELL_COLOUR.source}|\\r\\n|${TERMINAL_CONTROL.source}`, "gu");

/**
 * What readline writes on its own to place the cursor (cursorTo, moveCursor, clearLine,
 * clearScreenDown), each as a write of its own: passed only when a write is nothing else.
 */
// deno-lint-ignore no-control-regex
const EDITOR_CONTROL = /^(?:\x1b\[\d*[ABCDG]|\x1b\[[012]?K|\x1b\[0?J|\x1b\[1;1H)+$/;

/** `text` with every unsafe code point shown as an escape (`\x1b`, `\u202e`); the shell's colours and CRLF kept. */
export function escapeForTerminal(text: string): string {
  return text.replace(TEXT_TOKEN, (token) => {
    return token.length > 1 ? token : escapeCodePoint(token);
  });
}

/** One write of the line editor: its cursor moves as they are, anything else as text. */
export function escapeEditorWrite(chunk: string): string {
  return EDITOR_CONTROL.test(chunk) ? chunk : escapeForTerminal(chunk);
}

export interface TerminalSink {
  write(text: string): unknown;
  readonly columns?: number;
  readonly rows?: number;
  readonly isTTY?: boolean;
  on?(event: "resize", listener: () => void): unknown;
}

export class TerminalOutput {
  readonly #sink: TerminalSink;

  constructor(sink: TerminalSink = process.stdout) {
    this.#sink = sink;
  }

  /** Text from anywhere (commands' output, file names, messages): shown, never obeyed. */
  text(text: string): void {
    this.#sink.write(escapeForTerminal(text));
  }

  /** One of the shell's own control sequences (clear the progress line, OSC 52 for `:copy`); never data. */
  control(sequence: string): void {
    this.#sink.write(sequence);
  }

  get columns(): number | undefined {
    return this.#sink.columns;
  }

  /** The stream readline draws on: its writes pass `escapeEditorWrite`; it sees the terminal's size. */
  editorStream(): Writable {
    const sink = this.#sink;
    const stream = new Writable({
      decodeStrings: false,
      write(chunk: string | Uint8Array, _encoding, callback) {
        const text = typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk);
        sink.write(escapeEditorWrite(text));
        callback();
      },
    });
    Object.defineProperties(stream, {
      isTTY: { get: () => sink.isTTY },
      columns: { get: () => sink.columns },
      rows: { get: () => sink.rows },
    });
    sink.on?.("resize", () => stream.emit("resize"));
    return stream;
  }
}
