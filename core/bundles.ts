/**
 * Which module the kernel loads for a command's declaration and its sandbox worker.
 *
 * From source (the tests, `deno run main.ts`) that is the module itself, and Deno loads its graph
 * file by file. When the kernel runs as main.bundle.js (`deno task pterm`, the compiled binary),
 * scripts/bundle.ts fills in `BUNDLES` in the bundle's copy of this module: every command's
 * declaration and every handler module then has a bundle of its own under `bundles/` — its static
 * module graph as one module (a handler's with the kernel's worker body), what it imports lazily
 * as chunks beside it, so that a lazily loaded module shares the bundle's instances instead of
 * loading a second copy from source. Deno pays for every module it loads, and more for TypeScript
 * than for JavaScript (bench/startup.ts).
 */

import { fromFileUrl } from "./fs/path.ts";

const REPO = new URL("../", import.meta.url);

/** The folder of the bundles; a worker may read it when it is among its code folders (`permissionsFor`). */
export const BUNDLE_DIR = fromFileUrl(new URL("bundles", REPO));

/**
 * Each bundled module (relative to the repository, `/`-separated) with its bundle (the same).
 * Empty here: only the bundle's copy of this module has entries (scripts/bundle.ts writes them).
 */
export const BUNDLES: Readonly<Record<string, string>> = {};

/** The absolute URL of the bundle of `module` (an absolute URL), or null: none, or running from source. */
export function bundleOf(module: string): string | null {
  if (!module.startsWith(REPO.href)) return null;
  const relative = module.slice(REPO.href.length);
  if (!Object.hasOwn(BUNDLES, relative)) return null;
  return new URL(BUNDLES[relative], REPO).href;
}
