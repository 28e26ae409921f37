/**
 * The prompt's lights: one per session service the commands declare (irc's daemon), read with
 * the service's own `read` (core/session_service.ts) and polled while the shell waits at its
 * prompt. A red light comes with its reason and the line that fixes it, which the shell prints
 * once above its next prompt.
 */

import type { ServiceReading, SessionService } from "../../core/session_service.ts";
import type { Light } from "./render.ts";

/**
 * How long one reading may take. A service may answer only once a slow first step ends (irc's
 * daemon connects on its first status); the light shows yellow meanwhile.
 */
const READ_TIMEOUT_MS = 1_500;

/** Polls one service's light every `intervalMs` while started; `onChange` hears each new value. */
export class ServiceLight {
  #value: Light = "off";
  #reason: string | null = null;
  #timer: ReturnType<typeof setInterval> | undefined;
  #polling = false;
  readonly #service: SessionService;
  readonly #root: string;
  readonly #session: string;
  readonly #onChange: (light: Light) => void;
  readonly #intervalMs: number;

  constructor(
    service: SessionService,
    root: string,
    session: string,
    onChange: (light: Light) => void,
    intervalMs = 1_000,
  ) {
    this.#service = service;
    this.#root = root;
    this.#session = session;
    this.#onChange = onChange;
    this.#intervalMs = intervalMs;
  }

  get label(): string {
    return this.#service.label;
  }

  get value(): Light {
    return this.#value;
  }

  /** Why the light is red now (null when it is not). */
  get reason(): string | null {
    return this.#reason;
  }

  async #read(): Promise<ServiceReading> {
    const signal = AbortSignal.timeout(READ_TIMEOUT_MS);
    try {
      return await this.#service.read(this.#root, this.#session, signal);
    } catch (error) {
      if (signal.aborted) return { light: "yellow", reason: null };
      return { light: "red", reason: `${this.label} could not be read: ${(error as Error).message}` };
    }
  }

  /** Reads the light now (and before the first prompt). */
  async refresh(): Promise<Light> {
    if (this.#polling) return this.#value;
    this.#polling = true;
    try {
      const { light, reason } = await this.#read();
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
   * The first reading, waited for at most `maxWaitMs` so the first prompt is not held up: a service
   * that takes longer is busy with a slow first step, which the light shows as yellow.
   */
  async first(maxWaitMs = 300): Promise<Light> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const reading = this.refresh();
    const late = await Promise.race([
      reading.then(() => false),
      new Promise<boolean>((resolve) => timer = setTimeout(() => resolve(true), maxWaitMs)),
    ]);
    clearTimeout(timer);
    if (late && this.#polling && this.#service.configured(this.#root)) this.#value = "yellow";
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
