// deno-lint-ignore-file no-console -- a script: printing is its output
/**
 * The configuration pterm runs with: runtime.deno.json and runtime.deno.lock, generated from
 * deno.json and deno.lock and committed. deno.json imports what the tests, benchmarks and scripts
 * need as well; the runtime configuration imports only the npm packages pterm's own modules import
 * by name (those of the folders the binary carries, scripts/compile.ts), and its lock pins exactly
 * those and what they depend on. Deno installs every package a lock lists, so:
 *
 *   deno install --config runtime.deno.json   # caches what running pterm needs, nothing more
 *   deno install                              # also what the tests need
 *
 * The `pterm` task, the compiled binary and the npm package (scripts/npm_package.ts) run with it.
 *
 *   deno run -A scripts/runtime_config.ts           # rewrite the two files
 *   deno run -A scripts/runtime_config.ts --check   # exit 1 if either is stale
 */

import { join } from "node:path";
import { literalPackagesOf, REPO_PATH } from "./compile_imports.ts";
import { ENTRY, INCLUDED_DIRS } from "./compile.ts";

export const RUNTIME_CONFIG = "runtime.deno.json";
export const RUNTIME_LOCK = "runtime.deno.lock";

export interface DenoConfig {
  version: string;
  tasks: Record<string, string>;
  imports: Record<string, string>;
}

export interface DenoLock {
  version: string;
  specifiers: Record<string, string>;
  npm: Record<string, { dependencies?: string[]; optionalDependencies?: string[] } & Record<string, unknown>>;
  workspace: { dependencies: string[] };
}

async function* modulesUnder(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(join(REPO_PATH, dir))) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* modulesUnder(path);
    else if (/\.(?:ts|js)$/.test(entry.name)) yield path;
  }
}

/** The import-map names of the npm packages pterm's own modules import (what it needs at run time). */
export async function runtimePackages(config: DenoConfig): Promise<string[]> {
  const modules = [ENTRY];
  for (const dir of INCLUDED_DIRS) for await (const path of modulesUnder(dir)) modules.push(path);
  const names = new Set<string>();
  for (const path of modules) {
    for (const name of literalPackagesOf(await Deno.readTextFile(join(REPO_PATH, path)))) names.add(name);
  }
  const missing = [...names].filter((name) => !Object.hasOwn(config.imports, name));
  if (missing.length > 0) throw new Error(`deno.json imports none of: ${missing.join(", ")}`);
  return [...names].sort();
}

/** The part of `lock` that pins `specifiers` and everything they depend on. */
export function lockFor(lock: DenoLock, specifiers: readonly string[]): DenoLock {
  const nameOf = (key: string) => key.split("_")[0].replace(/(?!^)@[^@]*$/, "");
  const keyOf = (dependency: string) => {
    if (Object.hasOwn(lock.npm, dependency)) return dependency;
    const found = Object.keys(lock.npm).filter((key) => nameOf(key) === dependency);
    if (found.length !== 1) throw new Error(`deno.lock: ${found.length} entries for ${dependency}`);
    return found[0];
  };
  const npm: DenoLock["npm"] = {};
  const visit = (key: string) => {
    if (Object.hasOwn(npm, key)) return;
    npm[key] = lock.npm[key];
    for (const dependency of [...lock.npm[key].dependencies ?? [], ...lock.npm[key].optionalDependencies ?? []]) {
      visit(keyOf(dependency));
    }
  };
  const pinned: Record<string, string> = {};
  for (const specifier of [...specifiers].sort()) {
    const resolved = lock.specifiers[specifier];
    if (resolved === undefined) throw new Error(`deno.lock does not pin ${specifier}`);
    pinned[specifier] = resolved;
    visit(`${specifier.replace(/^npm:/, "").replace(/@[^@]*$/, "")}@${resolved}`);
  }
  return {
    version: lock.version,
    specifiers: pinned,
    npm: Object.fromEntries(Object.keys(npm).sort().map((key) => [key, npm[key]])),
    workspace: { dependencies: [...specifiers].sort() },
  };
}

/** What runtime.deno.json and runtime.deno.lock hold, built from deno.json, deno.lock and the sources. */
export async function runtimeConfig(): Promise<{ config: Record<string, unknown>; lock: DenoLock }> {
  const read = async (name: string) => JSON.parse(await Deno.readTextFile(join(REPO_PATH, name)));
  const config = await read("deno.json") as DenoConfig & { unstable?: string[] };
  const imports = Object.fromEntries((await runtimePackages(config)).map((name) => [name, config.imports[name]]));
  return {
    config: { unstable: config.unstable ?? [], lock: { path: `./${RUNTIME_LOCK}`, frozen: true }, imports },
    lock: lockFor(await read("deno.lock") as DenoLock, Object.values(imports)),
  };
}

/** The two files' text, as written. */
export async function runtimeConfigFiles(): Promise<Record<string, string>> {
  const { config, lock } = await runtimeConfig();
  return {
    [RUNTIME_CONFIG]: JSON.stringify(config, null, 2) + "\n",
    [RUNTIME_LOCK]: JSON.stringify(lock, null, 2) + "\n",
  };
}

if (import.meta.main) {
  const check = Deno.args.includes("--check");
  let stale = false;
  for (const [name, text] of Object.entries(await runtimeConfigFiles())) {
    const path = join(REPO_PATH, name);
    const current = await Deno.readTextFile(path).catch(() => null);
    if (current === text) continue;
    if (check) {
      console.error(`${name} is stale: run \`deno run -A scripts/runtime_config.ts\``);
      stale = true;
    } else {
      await Deno.writeTextFile(path, text);
      console.log(`wrote ${name}`);
    }
  }
  if (stale) Deno.exit(1);
}
