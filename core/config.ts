/**
 * `<root>/pterm.json`: validated when present (with zod, loaded only then), absent means
 * defaults. A bad file stops every call with `InvalidConfig` naming the key.
 */

import { join } from "./path.ts";
import { PtermError } from "./errors.ts";
import { lazyImport } from "./lazy.ts";
import { DEFAULT_LIMITS, type KernelLimits } from "./limits.ts";
import type { Registry } from "./registry.ts";

export const CONFIG_FILE = "pterm.json";

export interface PtermConfig {
  readonly limits: KernelLimits;
  /** Each command's section, already validated against its schema (raw values; the command applies its defaults). */
  readonly sections: Readonly<Record<string, unknown>>;
  /** Whether a pterm.json was found. */
  readonly fromFile: boolean;
}

export const DEFAULT_CONFIG: PtermConfig = { limits: DEFAULT_LIMITS, sections: {}, fromFile: false };

export async function loadConfig(root: string, registry: Registry): Promise<PtermConfig> {
  let text: string;
  try {
    // Synchronous: on the start-up path of every call (see core/atomic.ts writeFileAtomicSync).
    text = Deno.readTextFileSync(join(root, CONFIG_FILE));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return DEFAULT_CONFIG;
    throw new PtermError("InvalidConfig", `${CONFIG_FILE} cannot be read: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new PtermError(
      "InvalidConfig",
      `${CONFIG_FILE} is not valid JSON (${(error as Error).message}); fix the file or remove it to use the defaults.`,
    );
  }
  const { validateConfig } = await lazyImport<typeof import("./config_schema.ts")>(
    new URL("./config_schema.ts", import.meta.url),
  );
  return await validateConfig(raw, registry);
}
