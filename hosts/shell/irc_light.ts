/**
 * The IRC light of the prompt, from the session's irc daemon — the same `status` request over
 * the same socket that `irc status` uses (commands/irc/client.ts). Grey ("off") when the
 * workspace has no irc settings; red when no daemon answers or it reports an error; yellow while
 * it connects; green once joined. Only the state is shown: no server, channel or nick.
 */

import { callDaemon } from "../../commands/irc/client.ts";
import { ENV_REL_PATH } from "../../commands/irc/config.ts";
import { indicatorFor, type IrcState, type StatusFields } from "../../commands/irc/daemon_protocol.ts";
import { PtermError } from "../../core/errors.ts";
import { join } from "../../core/fs/path.ts";
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

/** Asks the daemon once. */
export async function readLight(root: string, session: string): Promise<Light> {
  if (!configured(root)) return "off";
  const signal = AbortSignal.timeout(STATUS_TIMEOUT_MS);
  try {
    const status = await callDaemon(
      { id: session, dir: join(root, "sessions", session) },
      { v: 1, op: "status" },
      signal,
    ) as unknown as StatusFields;
    return indicatorFor(status.state);
  } catch (error) {
    if (signal.aborted) return "yellow";
    const state = (error instanceof PtermError ? error.result?.state : undefined) as IrcState | undefined;
    return state ? indicatorFor(state) : "red";
  }
}

/** Polls the light every `intervalMs` while started; `onChange` hears each new value. */
export class IrcLight {
  #value: Light = "off";
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

  /** Reads the light now (and before the first prompt). */
  async refresh(): Promise<Light> {
    if (this.#polling) return this.#value;
    this.#polling = true;
    try {
      const light = await readLight(this.#root, this.#session);
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
