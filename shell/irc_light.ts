/**
 * The IRC light of the prompt, from the session's irc daemon — the same `status` request over
 * the same socket that `irc status` uses (commands/irc/client.ts). Grey ("off") when the
 * workspace has no irc settings; red when no daemon answers or it reports an error; yellow while
 * it connects; green once joined. Only the state is shown in the prompt: no server, channel or
 * nick. A red light comes with its reason and the line that fixes it, which the shell prints
 * once above its next prompt.
 */

import { callDaemon } from "../commands/irc/client.ts";
import { ENV_REL_PATH } from "../commands/irc/config.ts";
import { indicatorFor, type IrcState, type LastError, type StatusFields } from "../commands/irc/daemon_protocol.ts";
import { PtermError } from "../core/errors.ts";
import { join } from "../core/path.ts";
import type { Light } from "./render.ts";

/**
 * How long one status request may take. The daemon's first status starts its (lazy) connection
 * and answers only when that attempt ends; the light shows "connecting" meanwhile.
 */
const STATUS_TIMEOUT_MS = 1_500;

function configured(root: string): boolean {
  try {
    return Deno.statSync(join(root, ...ENV_REL_PATH.split("/"))).isFile;
  } catch {
    return false;
  }
}

export interface LightReading {
  readonly light: Light;
  /** Why the light is red and what to run about it; null for any other colour. */
  readonly reason: string | null;
}

/** Why a daemon that answered is not joined, and where to look. */
function stateReason(state: IrcState, lastError: LastError | undefined): string {
  const error = lastError ? `: ${lastError.error_code} ${lastError.message}` : "";
  if (state === "error") return `the irc daemon reports an error${error}. \`irc status\` shows it in full.`;
  if (state === "connected") return "the irc daemon is connected but not in its channel yet; `irc status` shows why.";
  return "the irc daemon has not connected yet: it connects on the first irc command, e.g. `irc status`.";
}

/** Asks the daemon once. */
export async function readLight(root: string, session: string): Promise<LightReading> {
  if (!configured(root)) return { light: "off", reason: null };
  const signal = AbortSignal.timeout(STATUS_TIMEOUT_MS);
  try {
    const status = await callDaemon(
      { id: session, dir: join(root, "sessions", session) },
      { v: 1, op: "status" },
      signal,
    ) as unknown as StatusFields;
    const light = indicatorFor(status.state);
    return { light, reason: light === "red" ? stateReason(status.state, status.last_error) : null };
  } catch (error) {
    if (signal.aborted) return { light: "yellow", reason: null };
    const result = error instanceof PtermError ? error.result : undefined;
    const state = result?.state as IrcState | undefined;
    if (state) {
      const light = indicatorFor(state);
      return {
        light,
        reason: light === "red" ? stateReason(state, result?.last_error as LastError | undefined) : null,
      };
    }
    if (error instanceof PtermError && error.code === "DaemonNotRunning") {
      return {
        light: "red",
        reason: `no irc daemon answers for session ${session}. Start one in another terminal and keep it running: ` +
          `pterm irc-daemon --session ${session} --root ${JSON.stringify(root)}`,
      };
    }
    return { light: "red", reason: `the irc daemon did not answer: ${(error as Error).message}` };
  }
}

/** Polls the light every `intervalMs` while started; `onChange` hears each new value. */
export class IrcLight {
  #value: Light = "off";
  #reason: string | null = null;
  #timer: ReturnType<typeof setInterval> | undefined;
  #polling = false;
  readonly #root: string;
  readonly #session: string;
  readonly #onChange: (light: Light) => void;
  readonly #intervalMs: number;

  constructor(root: string, session: string, onChange: (light: Light) => void, intervalMs = 1_000) {
    this.#root = root;
    this.#session = session;
    this.#onChange = onChange;
    this.#intervalMs = intervalMs;
  }

  get value(): Light {
    return this.#value;
  }

  /** Why the light is red now (null when it is not). */
  get reason(): string | null {
    return this.#reason;
  }

  /** Reads the light now (and before the first prompt). */
  async refresh(): Promise<Light> {
    if (this.#polling) return this.#value;
    this.#polling = true;
    try {
      const { light, reason } = await readLight(this.#root, this.#session);
      this.#reason = reason;
      if (light !== this.#value) {
        this.#value = light;
        this.#onChange(light);
      }
    } finally {
      this.#polling = false;
    }
    return this.#value;
  }

  /**
   * The first reading, waited for at most `maxWaitMs` so the first prompt is not held up: a daemon
   * that takes longer is busy with its (lazy) first connection, which the light shows as yellow.
   */
  async first(maxWaitMs = 300): Promise<Light> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const reading = this.refresh();
    const late = await Promise.race([
      reading.then(() => false),
      new Promise<boolean>((resolve) => timer = setTimeout(() => resolve(true), maxWaitMs)),
    ]);
    clearTimeout(timer);
    if (late && this.#polling && configured(this.#root)) this.#value = "yellow";
    return this.#value;
  }

  start(): void {
    this.#timer ??= setInterval(() => void this.refresh(), this.#intervalMs);
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
