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
import { REPO_PATH } from "./compile_imports.ts";
import { ENTRY, INCLUDED_DIRS } from "./compile.ts";
import { type DenoConfig, runtimeConfig } from "./runtime_config.ts";

/** The package's name: `pterm` is taken on npm by an unrelated package; this one was free. */
export const PACKAGE_NAME = "pterm-mcp";
/** The Deno release pterm is built and tested with (the CI and release workflows pin the same). */
export const DENO_VERSION = "2.9.6";

const readJson = async <T>(path: string): Promise<T> => JSON.parse(await Deno.readTextFile(join(REPO_PATH, path)));

/** The `pterm` task's flags, in their order (deno.json: the one place they are written), but its
 * configuration: the package brings its own. */
export function ptermTaskFlags(config: DenoConfig): string[] {
  return config.tasks.pterm.split(/\s+/).filter((word) => word.startsWith("--") && !word.startsWith("--config"));
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
  const runtime = await runtimeConfig();

  await Deno.remove(out, { recursive: true }).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
  await copyTree(join(REPO_PATH, "npm"), out);
  for (const dir of INCLUDED_DIRS) await copyTree(join(REPO_PATH, dir), join(out, dir));
  await Deno.copyFile(join(REPO_PATH, ENTRY), join(out, ENTRY));
  await Deno.copyFile(join(REPO_PATH, "LICENSE"), join(out, "LICENSE"));

  const manifest = JSON.parse(await Deno.readTextFile(join(REPO_PATH, "npm/package.json")));
  if (manifest.name !== PACKAGE_NAME || manifest.dependencies?.deno !== DENO_VERSION) {
    throw new Error(`npm/package.json must name ${PACKAGE_NAME} and depend on deno ${DENO_VERSION}`);
  }
  const packageJson = { ...manifest, version: config.version };
  const write = (name: string, value: unknown) =>
    Deno.writeTextFile(join(out, name), JSON.stringify(value, null, 2) + "\n");
  await write("package.json", packageJson);
  await write("launch.json", { flags: ptermTaskFlags(config), entry: ENTRY });
  // pterm's runtime configuration (runtime.deno.json), its lock beside it under the default name,
  // and the npm packages from Deno's own cache: Deno does not strip types from files under a
  // node_modules folder in its node_modules modes, and pterm loads some TypeScript from source.
  const { lock: _lockPath, ...denoJson } = runtime.config;
  await write("deno.json", { ...denoJson, nodeModulesDir: "none" });
  await write("deno.lock", runtime.lock);
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
