/** Everything the outer CLI needs from the process, injected so tests run it in memory. */

export interface CliIo {
  readonly args: readonly string[];
  readonly env: (name: string) => string | undefined;
  readonly cwd: string;
  readonly stdin: { readonly isTerminal: boolean; readonly stream: ReadableStream<Uint8Array> };
  readonly stdoutIsTerminal: boolean;
  writeOut(text: string): Promise<void>;
  writeErr(text: string): Promise<void>;
}

const encoder = new TextEncoder();

type Output = typeof Deno.stdout;

/**
 * Writes all of `text`, synchronously while the stream takes it: a CLI has nothing to overlap the
 * wait with, and the process's first asynchronous write costs ~1 ms of every call's start-up
 * (bench/startup.ts). A non-blocking pipe that is full (WouldBlock) gets the rest asynchronously.
 */
async function writeAll(output: Output, text: string): Promise<void> {
  const bytes = encoder.encode(text);
  let written = 0;
  try {
    try {
      while (written < bytes.length) written += output.writeSync(bytes.subarray(written));
    } catch (error) {
      if (!(error instanceof Deno.errors.WouldBlock)) throw error;
      while (written < bytes.length) written += await output.write(bytes.subarray(written));
    }
  } catch (error) {
    // The reader went away (`pterm ... | head -1`, a closed pipe): there is no one left to tell.
    // The call itself is already recorded in the audit log; exit with its code, not a stack trace.
    if (error instanceof Deno.errors.BrokenPipe || error instanceof Deno.errors.BadResource) return;
    throw error;
  }
}

/** The real process. Only main.ts calls this. */
export function processIo(): CliIo {
  return {
    args: Deno.args,
    env: (name) => Deno.env.get(name),
    cwd: Deno.cwd(),
    stdin: {
      isTerminal: Deno.stdin.isTerminal(),
      // Creating the stream costs ~2 ms; most calls never read stdin.
      get stream() {
        return Deno.stdin.readable;
      },
    },
    stdoutIsTerminal: Deno.stdout.isTerminal(),
    writeOut: (text) => writeAll(Deno.stdout, text),
    writeErr: (text) => writeAll(Deno.stderr, text),
  };
}
