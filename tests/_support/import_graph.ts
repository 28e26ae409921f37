/**
 * The import graph of pterm's source modules (main.ts, core/, hosts/, lib/, commands/, scripts/; not the
 * generated bundles/, not tests/), read from the text of each module. tests/house_test.ts says which
 * references are edges; with `urls`, a module named by `new URL("./x.ts", import.meta.url)` — a lazily loaded
 * module, a handler's module — is one too (what code may run for a command: tests/error_codes_test.ts).
 */

import { dirname, join, normalize, relative } from "node:path";
import { REPO_PATH, withoutComments } from "../../scripts/compile_imports.ts";

export const SOURCE_ROOTS = ["main.ts", "core", "hosts", "lib", "commands", "scripts"];

/** `import … from "x"`, `import type … from "x"`, `export … from "x"`, `export type … from "x"` at a line start. */
const FROM_STATEMENT = /^[ \t]*(?:import|export)\b[^;'"`]*?\bfrom\s*(["'])([^"'\n]+)\1/gm;
/** `import "x";` — a module loaded for its effects. */
const BARE_IMPORT = /^[ \t]*import\s*(["'])([^"'\n]+)\1/gm;
/** `import("x")` with a literal specifier, in a type or an expression. */
const IMPORT_EXPRESSION = /(?<![\w$.])import\s*\(\s*(["'])([^"'\n]+)\1\s*\)/g;

/** `new URL("./x.ts", import.meta.url)`: a module loaded later (lazyImport) or named as a handler's module. */
const MODULE_URL = /\bnew\s+URL\(\s*(["'])([^"'\n]+\.ts)\1\s*,\s*import\.meta\.url\s*\)/g;

/** The relative specifiers a module names, in the order they appear; with `urls`, its module URLs too. */
export function importedSpecifiers(source: string, urls = false): string[] {
  const code = withoutComments(source);
  const found: { index: number; specifier: string }[] = [];
  for (const pattern of [FROM_STATEMENT, BARE_IMPORT, IMPORT_EXPRESSION, ...(urls ? [MODULE_URL] : [])]) {
    for (const match of code.matchAll(pattern)) found.push({ index: match.index, specifier: match[2] });
  }
  return found.sort((a, b) => a.index - b.index).map((entry) => entry.specifier)
    .filter((specifier) => specifier.startsWith("./") || specifier.startsWith("../"));
}

export async function sourceModules(): Promise<string[]> {
  const modules: string[] = [];
  const walk = async (path: string) => {
    const info = await Deno.stat(join(REPO_PATH, path));
    if (info.isFile) {
      if (/\.(?:ts|js|mjs)$/.test(path)) modules.push(path);
      return;
    }
    for await (const entry of Deno.readDir(join(REPO_PATH, path))) await walk(`${path}/${entry.name}`);
  };
  for (const root of SOURCE_ROOTS) await walk(root);
  return modules.sort();
}

/** Module -> the source modules it imports (paths relative to the repository, `/`-separated). */
export async function importGraph(urls = false): Promise<Map<string, string[]>> {
  const modules = await sourceModules();
  const known = new Set(modules);
  const graph = new Map<string, string[]>();
  for (const module of modules) {
    const targets = new Set<string>();
    for (const specifier of importedSpecifiers(await Deno.readTextFile(join(REPO_PATH, module)), urls)) {
      const target = relative(REPO_PATH, normalize(join(REPO_PATH, dirname(module), specifier)))
        .replaceAll("\\", "/");
      if (known.has(target)) targets.add(target);
    }
    graph.set(module, [...targets].sort());
  }
  return graph;
}
