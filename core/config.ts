/**
 * `<root>/pterm.json`: validated when present (with zod, loaded only then), absent means
 * defaults. A bad file stops every call with `InvalidConfig` naming the key.
 *
 * Validation loads zod and every command's config schema, ~33 ms per call (bench/startup.ts
 * has a row for it), so a validated file is remembered in `<root>/cache/config.json` together
 * with its exact text, pterm's version and the command list; any change to one of them
 * validates again. An invalid file is never remembered.
 */

import { safeReadTextFileSync, safeWriteFileSync } from "./fs/safe_fs.ts";
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
  /** The `server` section: whether `pterm exec` starts the root's session server (absent: it does not). */
  readonly server?: { readonly autostart: boolean };
}

export const DEFAULT_CONFIG: PtermConfig = { limits: DEFAULT_LIMITS, sections: {}, fromFile: false };

/** Where a validated configuration is remembered (pterm's state: read-only to commands). */
export const CONFIG_CACHE = ["cache", "config.json"] as const;

interface CachedConfig {
  readonly source: string;
  readonly version: string;
  readonly commands: string;
  readonly config: PtermConfig;
}

function readCache(root: string): CachedConfig | null {
  try {
    return JSON.parse(safeReadTextFileSync(root, CONFIG_CACHE.join("/"))) as CachedConfig;
  } catch {
    return null; // missing or unreadable: validate again
  }
}

/** `version` tells pterm builds apart: a new build may have new config schemas. */
export async function loadConfig(root: string, registry: Registry, version = "dev"): Promise<PtermConfig> {
  let text: string;
  try {
    // Synchronous: on the start-up path of every call (see core/fs/atomic.ts writeFileAtomicSync).
    // Never through a symlink (`pterm.json -> /elsewhere`): see core/fs/safe_fs.ts.
    text = safeReadTextFileSync(root, CONFIG_FILE);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return DEFAULT_CONFIG;
    if (error instanceof PtermError) throw error;
    throw new PtermError("InvalidConfig", `${CONFIG_FILE} cannot be read: ${(error as Error).message}`);
  }
  const commands = registry.names().join(",");
  const cached = readCache(root);
  if (cached && cached.source === text && cached.version === version && cached.commands === commands) {
    return cached.config;
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
  const config: PtermConfig = { ...await validateConfig(raw, registry), fromFile: true };
  try {
    const entry: CachedConfig = { source: text, version, commands, config };
    safeWriteFileSync(root, CONFIG_CACHE.join("/"), JSON.stringify(entry), { mkdirs: true });
  } catch { /* only a lost shortcut: the next call validates again */ }
  return config;
}
