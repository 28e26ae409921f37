/**
 * pterm's own code is never workspace data.
 *
 * Commands write anywhere under the workspace root, and the kernel loads its code — and every
 * command's — from its repository folder, its bundles and Deno's module cache, outside any
 * sandbox. A root that holds that code (pterm vendored in a project, `--root` a parent folder,
 * `--root ~` over the module cache), or lies inside it, would let an agent's `patch` rewrite what
 * the next call runs. So no face starts on such a root.
 */

import { PtermError } from "./errors.ts";
import { dirname, fromFileUrl, join, resolve } from "./fs/path.ts";
import { folderNames } from "./fs/names.ts";

/** One place pterm loads code from: its path and what it is, for the message. */
export interface CodeLocation {
  readonly path: string;
  readonly what: string;
  /** A root may lie inside it (pterm's repository folder: its own `.agents` holds no code). */
  readonly rootMayBeInside?: boolean;
  /** The path is already canonical: nothing is looked up for it. */
  readonly canonical?: boolean;
}

const REPO = new URL("../", import.meta.url);

function absolute(path: string): string {
  return resolve(Deno.cwd(), path);
}

/** The repository entries that are code or decide how code loads (config, lock file, skills shown to agents). */
const REPO_CODE_ENTRIES = [
  "main.ts",
  "main.bundle.js",
  "version.ts",
  "deno.json",
  "deno.lock",
  "core",
  "commands",
  "bundles",
  "hosts",
  "lib",
  "skills",
  "runtime.deno.json",
  "runtime.deno.lock",
];

function envValue(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}

/** Deno's module cache (npm and remote modules, compiled code): DENO_DIR, else the platform's default. */
function denoCacheDir(): string | null {
  const configured = envValue("DENO_DIR");
  if (configured) return absolute(configured);
  if (Deno.build.os === "windows") {
    const local = envValue("LOCALAPPDATA");
    return local ? join(local, "deno") : null;
  }
  const home = envValue("HOME");
  if (Deno.build.os === "darwin") return home ? join(home, "Library", "Caches", "deno") : null;
  const xdg = envValue("XDG_CACHE_HOME");
  if (xdg) return join(xdg, "deno");
  return home ? join(home, ".cache", "deno") : null;
}

/** Every place pterm's code is loaded from in this process. */
export function ptermCodeLocations(): CodeLocation[] {
  const locations: CodeLocation[] = [];
  if (REPO.protocol === "file:") {
    const repo = fromFileUrl(REPO);
    locations.push({ path: repo, what: "pterm's own code", rootMayBeInside: true });
    // An entry this install lacks (a package without main.ts) is placed under the repository's real
    // path without a look-up that would throw (core/fs/names.ts).
    const present = folderNames(repo);
    const realRepo = present === null ? null : canonical(repo);
    for (const entry of REPO_CODE_ENTRIES) {
      if (realRepo !== null && !present!.has(entry)) {
        locations.push({ path: join(realRepo, entry), what: "pterm's own code", canonical: true });
      } else {
        locations.push({ path: join(repo, entry), what: "pterm's own code" });
      }
    }
  }
  const cache = denoCacheDir();
  if (cache) locations.push({ path: cache, what: "Deno's module cache, which pterm loads its modules from" });
  try {
    locations.push({ path: Deno.execPath(), what: "the program running pterm" });
  } catch { /* no permission to ask: the repository and the cache are still covered */ }
  return locations;
}

/** The path with symlinks resolved as far as it exists (a root may not exist yet). */
function canonical(path: string): string {
  const missing: string[] = [];
  let current = absolute(path);
  for (;;) {
    try {
      return join(Deno.realPathSync(current), ...missing.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return absolute(path);
      missing.push(current.slice(parent.length).replace(/^[\\/]+/, ""));
      current = parent;
    }
  }
}

function isWithin(outer: string, inner: string): boolean {
  if (outer === inner) return true;
  const prefix = outer.endsWith("/") || outer.endsWith("\\") ? outer : outer + (outer.includes("\\") ? "\\" : "/");
  return inner.startsWith(prefix);
}

/**
 * Refuses a workspace root that contains, equals or lies inside one of `locations` (by default,
 * where this process loads pterm's code from), naming the folder.
 */
export function assertRootHoldsNoPtermCode(root: string, locations = ptermCodeLocations()): void {
  const rootPath = canonical(root);
  for (const location of locations) {
    const codePath = location.canonical ? location.path : canonical(location.path);
    if (isWithin(rootPath, codePath)) {
      throw new PtermError(
        "UnsafeRoot",
        `the workspace root ${rootPath} contains ${codePath} (${location.what}): an agent could rewrite the code ` +
          `pterm runs next. Give a root that holds only the agent's work, e.g. --root ${join(rootPath, ".agents")}.`,
      );
    }
    if (!location.rootMayBeInside && isWithin(codePath, rootPath)) {
      throw new PtermError(
        "UnsafeRoot",
        `the workspace root ${rootPath} is inside ${codePath} (${location.what}): an agent could rewrite the code ` +
          `pterm runs next. Give a root outside it, e.g. your project's own folder: --root ./.agents.`,
      );
    }
  }
}
