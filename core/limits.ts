/** The kernel's limits and their defaults; `pterm.json`'s `limits` section overrides them. */

export interface KernelLimits {
  /** Bytes of `stdout` kept in the envelope; the rest goes to an artifact. */
  readonly stdout_bytes: number;
  /** Bytes of `stderr` kept in the envelope; the rest goes to an artifact. */
  readonly stderr_bytes: number;
  /** Largest stdin a call may send. */
  readonly stdin_bytes: number;
  /** Timeout of a call that gives none (unless its command declares its own). */
  readonly timeout_ms_default: number;
  /** Largest timeout a call may ask for; larger requests are clipped to it. */
  readonly timeout_ms_max: number;
  /**
   * Resident memory of the pterm process past which a running command is stopped
   * (InputTooLarge): the ceiling that keeps a command from taking the process down.
   */
  readonly memory_bytes: number;
}

export const DEFAULT_LIMITS: KernelLimits = {
  stdout_bytes: 16 * 1024,
  stderr_bytes: 8 * 1024,
  stdin_bytes: 4 * 1024 * 1024,
  timeout_ms_default: 60_000,
  timeout_ms_max: 600_000,
  memory_bytes: 2 * 1024 * 1024 * 1024,
};

/** How long a command runs before the memory ceiling is watched (a short call never pays for it). */
export const MEMORY_WATCH_AFTER_MS = 100;
/** How often the memory ceiling is checked once watched. */
export const MEMORY_WATCH_EVERY_MS = 20;

/** How long a command gets to finish on its own after its signal aborts, before it is terminated. */
export const ABORT_GRACE_MS = 250;
