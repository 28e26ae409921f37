/**
 * A session service: something a command needs running for as long as an agent session lasts
 * (irc's daemon, which holds the session's IRC connection). A command declares it once
 * (`CommandSpec.sessionService`); hosts start and show every declared service the same way:
 * `pterm mcp` serves each one for its session, `pterm shell` shows each one's light in its prompt.
 */

import type { CliIo } from "./host/io.ts";

/** A service's light: off when the workspace does not use it; red, yellow, green as it goes. */
export type ServiceLight = "off" | "red" | "yellow" | "green";

export interface ServiceReading {
  readonly light: ServiceLight;
  /** Why the light is red and the line to run about it; null for any other colour. */
  readonly reason: string | null;
}

export interface ServeOptions {
  readonly root: string;
  readonly session: string;
  /** Aborting stops the service. */
  readonly signal: AbortSignal;
  /** Called once the service takes requests (or once it has given up starting). */
  readonly ready: () => void;
}

export interface SessionService {
  /** Its name in logs and in the shell's prompt (`IRC`). */
  readonly label: string;
  /** Whether the workspace's settings enable it; with them it reaches beyond the workspace (open world). */
  configured(root: string): boolean;
  /**
   * Serves `session` in this process until `signal` aborts; its log lines go to `io`'s stderr.
   * Rejects when it cannot run here (another process already serves the session, say).
   */
  serve(io: CliIo, options: ServeOptions): Promise<void>;
  /** Asks the running service how it is, within `signal`'s time. */
  read(root: string, session: string, signal: AbortSignal): Promise<ServiceReading>;
}
