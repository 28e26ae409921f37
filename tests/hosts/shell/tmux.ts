/**
 * A real terminal for the shell tests: `pterm shell` runs in a tmux pane (its own tmux server,
 * on a socket of its own), keys go in with send-keys and the screen comes back with capture-pane.
 * Waits poll the screen for the expected text with a bound; nothing sleeps a fixed time.
 */

import { baseEnv, ptermArgs } from "../../_support/helpers.ts";

export const SHELL_ENTRY = new URL("./shell_main.ts", import.meta.url).pathname;

async function tmux(socket: string, args: string[]): Promise<string> {
  const output = await new Deno.Command("tmux", { args: ["-L", socket, ...args], stdout: "piped", stderr: "piped" })
    .output();
  if (!output.success) throw new Error(`tmux ${args.join(" ")}: ${new TextDecoder().decode(output.stderr)}`);
  return new TextDecoder().decode(output.stdout);
}

function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

export interface ShellOptions {
  readonly root: string;
  readonly session?: string;
  /** Extra environment (NO_COLOR is unset unless given). */
  readonly env?: Record<string, string>;
  /** Extra `pterm shell` arguments. */
  readonly args?: readonly string[];
  /** Extra `deno run` flags. */
  readonly denoFlags?: readonly string[];
  /** Start pterm without the permission to start `sh` (as a host that leaves --allow-run out would). */
  readonly withoutRun?: boolean;
  /**
   * The whole command line that starts the shell, in `cwd`, instead of this checkout's pterm under
   * this Deno (the newcomer test starts it as the README says). `env` is then all its environment.
   */
  readonly launch?: { readonly argv: readonly string[]; readonly cwd: string };
}

export class TerminalShell implements AsyncDisposable {
  readonly socket = `pterm-shell-test-${crypto.randomUUID().slice(0, 8)}`;
  readonly target = "shell";

  static async start(options: ShellOptions): Promise<TerminalShell> {
    const shell = new TerminalShell();
    const args = ptermArgs(
      ["shell", "--root", options.root, "--session", options.session ?? "agent-7", ...(options.args ?? [])],
      SHELL_ENTRY,
    );
    args.splice(1, 0, ...(options.denoFlags ?? []));
    if (options.withoutRun) args.splice(0, args.length, ...args.filter((a) => !a.startsWith("--allow-run")));
    const env = options.launch
      ? { TERM: "xterm-256color", ...options.env }
      : { ...baseEnv(), TERM: "xterm-256color", ...options.env };
    const argv = options.launch?.argv ?? [Deno.execPath(), ...args];
    const command = [
      ...(options.launch ? ["cd", shellQuote(options.launch.cwd), "&&"] : []),
      "/usr/bin/env",
      "-i",
      ...Object.entries(env).map(([k, v]) => shellQuote(`${k}=${v}`)),
      ...argv.map(shellQuote),
    ].join(" ");
    // After the shell exits the pane stays, showing how it ended.
    await tmux(shell.socket, [
      "-f",
      "/dev/null",
      "new-session",
      "-d",
      "-s",
      shell.target,
      "-x",
      "160",
      "-y",
      "50",
      `${command}; echo "[shell exited $?]"; sleep 600`,
    ]);
    await tmux(shell.socket, ["set-option", "-g", "history-limit", "10000"]);
    return shell;
  }

  /** Text typed as is. */
  async type(text: string): Promise<void> {
    await tmux(this.socket, ["send-keys", "-t", this.target, "-l", text]);
  }

  /** Named keys: Enter, Tab, Up, C-c, C-d, ... */
  async keys(...keys: string[]): Promise<void> {
    await tmux(this.socket, ["send-keys", "-t", this.target, ...keys]);
  }

  async line(text: string): Promise<void> {
    await this.type(text);
    await this.keys("Enter");
  }

  /** The whole pane, scrollback included, wrapped lines joined. */
  async screen(): Promise<string> {
    return await tmux(this.socket, ["capture-pane", "-p", "-J", "-S", "-", "-t", this.target]);
  }

  /** The pane with its colours (SGR sequences kept). */
  async screenWithColours(): Promise<string> {
    return await tmux(this.socket, ["capture-pane", "-p", "-e", "-J", "-S", "-", "-t", this.target]);
  }

  /** The cursor's column (0-based). */
  async cursorColumn(): Promise<number> {
    return Number((await tmux(this.socket, ["display-message", "-p", "-t", this.target, "#{cursor_x}"])).trim());
  }

  async tmux(...args: string[]): Promise<string> {
    return await tmux(this.socket, args);
  }

  /** Polls the screen until `check` holds (a string: appears `count` times); returns the screen. */
  async waitFor(
    check: string | RegExp | ((screen: string) => boolean | Promise<boolean>),
    options: { timeoutMs?: number; count?: number } = {},
  ): Promise<string> {
    const timeoutMs = options.timeoutMs ?? 20_000;
    const count = options.count ?? 1;
    const test = typeof check === "function"
      ? check
      : typeof check === "string"
      ? (s: string) => s.split(check).length - 1 >= count
      : (s: string) =>
        (s.match(new RegExp(check.source, check.flags.includes("g") ? check.flags : check.flags + "g")) ?? [])
          .length >= count;
    const deadline = Date.now() + timeoutMs;
    let screen = "";
    while (Date.now() < deadline) {
      screen = await this.screen();
      if (await test(screen)) return screen;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`the terminal did not show ${String(check)} (x${count}) within ${timeoutMs} ms:\n${screen}`);
  }

  /** Waits for the n-th prompt of the session (the shell is ready for a line). */
  async waitForPrompt(count = 1, session = "agent-7"): Promise<string> {
    return await this.waitFor(new RegExp(`^${session} ● IRC\\S* › `, "m"), { count });
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await tmux(this.socket, ["kill-server"]).catch(() => {});
  }
}
