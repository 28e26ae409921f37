// deno-lint-ignore-file no-console -- a script: printing is its output
/**
 * Assembles the npm package that runs pterm where only Node and npm exist:
 *
 *   npx -y pterm-mcp mcp --root <workspace>
 *   npx -y pterm-mcp exec "hello"
 *
 * The package depends on the `deno` npm package (the runtime, pinned to the version pterm is built
 * with) and carries what the binary carries (scripts/compile.ts): main.bundle.js, the bundles, the
 * source folders main.bundle.js loads lazily, the skills. Its bin (npm/bin/pterm.cjs) starts Deno
 * with the `pterm` task's flags (deno.json), and this package's own deno.json and deno.lock: the npm
 * packages pterm imports at run time, pinned and checked against the lock, which Deno fetches on
 * the first run.
 *
 *   deno task npm-package [--out <dir>] [--pack]   # the folder (default dist/npm), and its tarball
 */

import { dirname, join } from "node:path";
import { literalPackagesOf, REPO_PATH } from "./compile_imports.ts";
import { ENTRY, INCLUDED_DIRS } from "./compile.ts";

/** The package's name: `pterm` is taken on npm by an unrelated package; this one was free. */
export const PACKAGE_NAME = "pterm-mcp";
/** The Deno release pterm is built and tested with (the CI and release workflows pin the same). */
export const DENO_VERSION = "2.9.6";

interface DenoConfig {
  version: string;
  tasks: Record<string, string>;
  imports: Record<string, string>;
}

interface DenoLock {
  version: string;
  specifiers: Record<string, string>;
  npm: Record<
    string,
    & { dependencies?: string[]; optionalDependencies?: string[] }
    & Record<string, unknown>
  >;
  workspace: { dependencies: string[] };
}

const readJson = async <T>(path: string): Promise<T> => JSON.parse(await Deno.readTextFile(join(REPO_PATH, path)));

/** The `pterm` task's flags, in their order (deno.json: the one place they are written). */
export function ptermTaskFlags(config: DenoConfig): string[] {
  return config.tasks.pterm.split(/\s+/).filter((word) => word.startsWith("--"));
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
  const names = new Set<string>();
  for (const dir of INCLUDED_DIRS) {
    for await (const path of modulesUnder(dir)) {
      for (
        const name of literalPackagesOf(
          await Deno.readTextFile(join(REPO_PATH, path)),
        )
      ) names.add(name);
    }
  }
  for (
    const name of literalPackagesOf(
      await Deno.readTextFile(join(REPO_PATH, ENTRY)),
    )
  ) names.add(name);
  const missing = [...names].filter((name) => !Object.hasOwn(config.imports, name));
  if (missing.length > 0) {
    throw new Error(`deno.json imports none of: ${missing.join(", ")}`);
  }
  return [...names].sort();
}

/** The part of the repository's lock that pins `specifiers` and everything they depend on. */
export function lockFor(
  lock: DenoLock,
  specifiers: readonly string[],
): DenoLock {
  const keyOf = (dependency: string) => {
    if (Object.hasOwn(lock.npm, dependency)) return dependency;
    const found = Object.keys(lock.npm).filter((key) => key.split("_")[0].replace(/(?!^)@[^@]*$/, "") === dependency);
    if (found.length !== 1) {
      throw new Error(`deno.lock: ${found.length} entries for ${dependency}`);
    }
    return found[0];
  };
  const npm: DenoLock["npm"] = {};
  const visit = (key: string) => {
    if (Object.hasOwn(npm, key)) return;
    npm[key] = lock.npm[key];
    for (
      const dependency of [
        ...lock.npm[key].dependencies ?? [],
        ...lock.npm[key].optionalDependencies ?? [],
      ]
    ) {
      visit(keyOf(dependency));
    }
  };
  const pinned: Record<string, string> = {};
  for (const specifier of specifiers) {
    const resolved = lock.specifiers[specifier];
    if (resolved === undefined) {
      throw new Error(`deno.lock does not pin ${specifier}`);
    }
    pinned[specifier] = resolved;
    visit(
      `${specifier.replace(/^npm:/, "").replace(/@[^@]*$/, "")}@${resolved}`,
    );
  }
  const sortedNpm = Object.fromEntries(
    Object.keys(npm).sort().map((key) => [key, npm[key]]),
  );
  return {
    version: lock.version,
    specifiers: pinned,
    npm: sortedNpm,
    workspace: { dependencies: [...specifiers].sort() },
  };
}

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) {
      await copyTree(join(from, entry.name), join(to, entry.name));
    } else if (entry.isFile) {
      await Deno.copyFile(join(from, entry.name), join(to, entry.name));
    }
  }
}

/** Writes the package folder at `out` (replacing it) and returns its package.json. */
export async function assemble(out: string): Promise<Record<string, unknown>> {
  const config = await readJson<DenoConfig>("deno.json");
  const lock = await readJson<DenoLock>("deno.lock");
  const packages = await runtimePackages(config);
  const imports = Object.fromEntries(
    packages.map((name) => [name, config.imports[name]]),
  );

  await Deno.remove(out, { recursive: true }).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
  await copyTree(join(REPO_PATH, "npm"), out);
  for (const dir of INCLUDED_DIRS) {
    await copyTree(join(REPO_PATH, dir), join(out, dir));
  }
  await Deno.copyFile(join(REPO_PATH, ENTRY), join(out, ENTRY));
  await Deno.copyFile(join(REPO_PATH, "LICENSE"), join(out, "LICENSE"));

  const manifest = JSON.parse(
    await Deno.readTextFile(join(REPO_PATH, "npm/package.json")),
  );
  if (
    manifest.name !== PACKAGE_NAME ||
    manifest.dependencies?.deno !== DENO_VERSION
  ) {
    throw new Error(
      `npm/package.json must name ${PACKAGE_NAME} and depend on deno ${DENO_VERSION}`,
    );
  }
  const packageJson = { ...manifest, version: config.version };
  await Deno.writeTextFile(
    join(out, "package.json"),
    JSON.stringify(packageJson, null, 2) + "\n",
  );
  await Deno.writeTextFile(
    join(out, "launch.json"),
    JSON.stringify({ flags: ptermTaskFlags(config), entry: ENTRY }, null, 2) +
      "\n",
  );
  // The runtime's configuration: the unstable API the task's deno.json turns on, the npm packages
  // from Deno's own cache (files under a node_modules folder are not type-stripped in Deno's
  // node_modules modes, and pterm loads some TypeScript from source).
  const denoJson = {
    unstable: ["worker-options"],
    nodeModulesDir: "none",
    imports,
  };
  await Deno.writeTextFile(
    join(out, "deno.json"),
    JSON.stringify(denoJson, null, 2) + "\n",
  );
  const specifiers = Object.values(imports);
  await Deno.writeTextFile(
    join(out, "deno.lock"),
    JSON.stringify(lockFor(lock, specifiers), null, 2) + "\n",
  );
  return packageJson;
}

/** Runs `npm pack` in `folder`, writing the tarball to `destination`; returns the tarball's path. */
export async function pack(
  folder: string,
  destination: string,
): Promise<string> {
  const output = await new Deno.Command("npm", {
    args: ["pack", "--json", "--pack-destination", destination],
    cwd: folder,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(
      `npm pack failed:\n${new TextDecoder().decode(output.stderr)}`,
    );
  }
  const [{ filename }] = JSON.parse(new TextDecoder().decode(output.stdout));
  return join(destination, filename);
}

if (import.meta.main) {
  const outIndex = Deno.args.indexOf("--out");
  const out = outIndex >= 0 ? Deno.args[outIndex + 1] : join(REPO_PATH, "dist/npm");
  const packageJson = await assemble(out);
  console.log(`${packageJson.name}@${packageJson.version} assembled in ${out}`);
  if (Deno.args.includes("--pack")) console.log(await pack(out, dirname(out)));
}
