/**
 * The one reader of the shell's stdin. At the prompt it hands every byte to the line editor
 * (node:readline); while a command runs (or `:watch` follows a session) it hands nothing on and
 * turns Ctrl-C into a stop request; while an external program ($EDITOR) owns the terminal it does
 * not read at all, so that program gets every key.
 */

import { PassThrough } from "node:stream";

const CTRL_C = 0x03;

export type KeyboardMode =
  | { readonly kind: "line" }
  | { readonly kind: "busy"; readonly interrupt: (why?: string) => void };

export class Keyboard {
  /** What the line editor reads. */
  readonly editorInput = new PassThrough();
  #mode: KeyboardMode = { kind: "line" };
  #held: Promise<void> | null = null;
  #release: (() => void) | null = null;
  readonly #stdin: typeof Deno.stdin;

  constructor(stdin: typeof Deno.stdin = Deno.stdin) {
    this.#stdin = stdin;
  }

  set mode(mode: KeyboardMode) {
    this.#mode = mode;
  }

  /** Stops reading until `release` (call it before any await that could let a read start). */
  hold(): void {
    this.#held ??= new Promise((resolve) => this.#release = resolve);
  }

  release(): void {
    this.#release?.();
    this.#held = null;
    this.#release = null;
  }

  /** Reads until stdin ends; then ends the editor's input (which closes the line editor). */
  async pump(): Promise<void> {
    const buffer = new Uint8Array(4096);
    while (true) {
      // Let the line editor's handlers run (they may hold the keyboard) before the next read.
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (this.#held) await this.#held;
      let n: number | null;
      try {
        n = await this.#stdin.read(buffer);
      } catch {
        n = null;
      }
      if (n === null) break;
      const chunk = buffer.slice(0, n);
      const mode = this.#mode;
      if (mode.kind === "line") this.editorInput.write(chunk);
      else if (chunk.includes(CTRL_C)) mode.interrupt("^C");
    }
    this.editorInput.end();
  }
}
