/**
 * What `deno compile` embeds: the module graph it can see from the entry and from each `--include`d
 * folder (it analyses the modules in them), plus those folders' files. A module loaded by a name
 * computed at run time is invisible to that analysis; the binary then fails on the first call that
 * needs it, though every test run from source passes. So every dynamic import and every lazy import
 * in the code the binary carries must be one of:
 *
 * - `import("<literal>")`: Deno sees it;
 * - an `import()` or `lazyImport()` of `new URL("<literal>", <module's own URL>)`: a file, which must
 *   exist inside an included folder;
 * - `import(String("<package>"))` (the bundles' deferred npm imports, scripts/bundle.ts): a package
 *   some module of an included folder imports by its literal name, so that Deno embeds it;
 * - one of two loaders whose URL comes from a checked table: core/lazy.ts's `import(url.href)`, which
 *   every lazy import goes through (its callers are checked as above), and the command table's
 *   `lazyImport(new URL(module))` (commands/index.ts), whose modules are the declarations listed in
 *   `DECLARATIONS` or their bundles listed in the app bundle's `BUNDLES`: each must exist inside an
 *   included folder.
 *
 * Anything else is a computed import, and the build refuses it (scripts/compile.ts).
 */

import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { DECLARATIONS } from "../commands/index.ts";

/** One `import(...)` or `lazyImport(...)` call and what its argument names. */
export interface DynamicImport {
  /** The module, relative to the repository, `/`-separated. */
  readonly file: string;
  readonly line: number;
  /** The argument as written. */
  readonly argument: string;
  readonly kind: "literal" | "file" | "package" | "table" | "computed";
  /** A file's path relative to the repository, or a package's name. */
  readonly target?: string;
}

/**
 * The calls whose URL is computed from a table of literal ones, known by their argument and the code
 * just before them (in the source and in the bundles alike).
 */
const TABLE_LOADERS = [
  {
    table: "lazyImport",
    argument: "url.href",
    before: /\bfunction\s+lazyImport\s*(?:<[^>]*>)?\(\s*url\b[^)]*\)[^{]*\{\s*return\s*$/,
  },
  {
    table: "DECLARATIONS",
    argument: "new URL(module)",
    before: /const module = bundleOf\(declaration\.module\) \?\? declaration\.module;\s*return \(await\s*$/,
  },
] as const;

const toPosix = (path: string) => path.split("\\").join("/");

/** The repository this script belongs to, as a path. */
export const REPO_PATH = fileURLToPath(new URL("../", import.meta.url));

/** The modules each table loader may load, relative to the repository: every one must be embedded. */
function tableModules(
  sources: Iterable<string>,
): Record<(typeof TABLE_LOADERS)[number]["table"], string[]> {
  const declarations = Object.values(DECLARATIONS).map((declaration) =>
    toPosix(relative(REPO_PATH, fileURLToPath(declaration.module)))
  );
  // The bundled copy of core/bundles.ts (in the app's bundle) lists each bundled module with its
  // bundle (scripts/bundle.ts).
  const bundles = new Set<string>();
  for (const source of sources) {
    const manifest = /\bvar BUNDLES = (\{[^}]*\});/.exec(source);
    if (manifest) {
      for (const bundle of Object.values(JSON.parse(manifest[1]) as Record<string, string>)) bundles.add(bundle);
    }
  }
  return { DECLARATIONS: [...declarations, ...bundles], lazyImport: [] };
}

/**
 * `source` with its comments blanked (line breaks kept), so that no `import(` in a comment counts.
 * Strings, template literals and regular-expression literals are kept as they are.
 */
export function withoutComments(source: string): string {
  let out = "";
  let i = 0;
  /** The last significant character outside comments: decides whether a `/` starts a regular expression. */
  let previous = "";
  const regexMayFollow = () =>
    previous === "" || /[(,=:[!&|?{};+\-*%<>~^]/.test(previous) ||
    /\b(?:return|typeof|case|in|of|void)$/.test(out);
  while (i < source.length) {
    const char = source[i];
    const next = source[i + 1];
    if (char === "/" && next === "/") {
      while (i < source.length && source[i] !== "\n") i++;
      continue;
    }
    if (char === "/" && next === "*") {
      const end = source.indexOf("*/", i + 2);
      const stop = end === -1 ? source.length : end + 2;
      out += source.slice(i, stop).replace(/[^\n]/g, " ");
      i = stop;
      continue;
    }
    if (
      char === '"' || char === "'" || char === "`" ||
      (char === "/" && regexMayFollow())
    ) {
      let j = i + 1;
      let inClass = false;
      while (j < source.length) {
        const c = source[j];
        if (c === "\\") {
          j += 2;
          continue;
        }
        if (char === "/" && c === "[") inClass = true;
        else if (char === "/" && c === "]") inClass = false;
        else if (c === char && !inClass) break;
        else if (char !== "`" && c === "\n") break;
        j++;
      }
      out += source.slice(i, j + 1);
      previous = char;
      i = j + 1;
      continue;
    }
    out += char;
    if (!/\s/.test(char)) previous = char;
    i++;
  }
  return out;
}

/** The text from `open` (an index just after a `(`) to its matching `)`, or null. */
function balancedArgument(code: string, open: number): string | null {
  let depth = 0;
  let quote: string | null = null;
  for (let i = open; i < code.length; i++) {
    const char = code[i];
    if (quote !== null) {
      if (char === "\\") i++;
      else if (char === quote) quote = null;
      continue;
    }
    if (char === '"' || char === "'" || char === "`") quote = char;
    else if (char === "(") depth++;
    else if (char === ")") {
      if (depth === 0) return code.slice(open, i);
      depth--;
    }
  }
  return null;
}

const STRING = String
  .raw`"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|\x60((?:[^\x60\\$]|\\.)*)\x60`;
const LITERAL = new RegExp(`^(?:${STRING})$`);
/** `import.meta.url`, or the bundles' rewrite of it: `new URL("<module>", import.meta.url).href`. */
const MODULE_URL = String
  .raw`(?:import\.meta\.url|new URL\(\s*"([^"]+)"\s*,\s*import\.meta\.url\s*\)\.href)`;
const FILE_URL = new RegExp(
  String.raw`^new URL\(\s*"([^"]+)"\s*,\s*${MODULE_URL}\s*\)(?:\.href)?$`,
);
const PACKAGE = /^String\(\s*"([^"]+)"\s*\)$/;
/** `import(` as a call (not a method `.import(`, not a word ending in `import`). */
const CALL = /(?<![.\w$])(import|lazyImport)\s*(?:<(?:[^<>()]|<[^<>]*>)*>)?\s*\(/g;

/** Every dynamic import and lazy import in one module, classified. */
export function dynamicImportsOf(
  file: string,
  source: string,
): DynamicImport[] {
  const code = withoutComments(source);
  const found: DynamicImport[] = [];
  for (const call of code.matchAll(CALL)) {
    const open = call.index + call[0].length;
    const raw = balancedArgument(code, open);
    const line = code.slice(0, call.index).split("\n").length;
    // `lazyImport` itself, declared: `function lazyImport<Module>(url: URL)`.
    if (
      call[1] === "lazyImport" &&
      /\bfunction\s+$/.test(
        code.slice(Math.max(0, call.index - 20), call.index),
      )
    ) {
      continue;
    }
    const argument = (raw ?? "").trim().replace(/,$/, "").trim();
    const base = { file, line, argument };
    if (call[1] === "import" && LITERAL.test(argument)) {
      found.push({ ...base, kind: "literal" });
      continue;
    }
    const fileUrl = FILE_URL.exec(argument);
    if (fileUrl) {
      const moduleDir = dirname(
        fileUrl[2] === undefined ? file : normalize(join(dirname(file), fileUrl[2])),
      );
      found.push({
        ...base,
        kind: "file",
        target: toPosix(normalize(join(moduleDir, fileUrl[1]))),
      });
      continue;
    }
    const pkg = call[1] === "import" ? PACKAGE.exec(argument) : null;
    if (pkg) {
      found.push({ ...base, kind: "package", target: pkg[1] });
      continue;
    }
    const before = code.slice(Math.max(0, call.index - 200), call.index);
    const loader = TABLE_LOADERS.find((known) => known.argument === argument && known.before.test(before));
    if (loader) {
      found.push({ ...base, kind: "table", target: loader.table });
      continue;
    }
    found.push({ ...base, kind: "computed" });
  }
  return found;
}

/** The package a literal specifier names (`npm:x@1/y` → x, `@a/b/c` → @a/b), or null for a file or `node:`. */
function packageName(specifier: string): string | null {
  if (/^(?:\.|\/|file:|node:|https?:|jsr:|data:)/.test(specifier)) return null;
  const bare = specifier.replace(/^npm:/, "");
  const parts = bare.split("/");
  const name = bare.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
  return name.replace(/(?!^)@.*$/, "");
}

/** The packages `source` imports by a literal specifier (static imports, re-exports, literal dynamic imports). */
export function literalPackagesOf(source: string): Set<string> {
  const code = withoutComments(source);
  const names = new Set<string>();
  const specifiers = [
    ...code.matchAll(
      /(?<![.\w$])(?:import|export)\b[^"';]*?\bfrom\s*["']([^"']+)["']/g,
    ),
    ...code.matchAll(/(?<![.\w$])import\s*\(\s*["']([^"']+)["']\s*\)/g),
    ...code.matchAll(/(?<![.\w$])import\s*["']([^"']+)["']/g),
  ];
  for (const match of specifiers) {
    const name = packageName(match[1]);
    if (name !== null) names.add(name);
  }
  return names;
}

async function* modulesUnder(
  repo: string,
  dir: string,
): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(join(repo, dir))) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* modulesUnder(repo, path);
    else if (
      /\.(?:ts|js|mjs)$/.test(entry.name) && !entry.name.endsWith(".d.ts")
    ) yield path;
  }
}

/**
 * Why `deno compile` of `entry` with `includedDirs` would build a binary that cannot load one of its
 * modules: one line per problem, empty when every dynamic and lazy import is one it embeds.
 */
export async function embeddingProblems(
  repo: string,
  entry: string,
  includedDirs: readonly string[],
): Promise<string[]> {
  const modules = [entry];
  for (const dir of includedDirs) {
    for await (const path of modulesUnder(repo, dir)) modules.push(path);
  }
  const sources = new Map<string, string>();
  for (const path of modules) {
    sources.set(path, await Deno.readTextFile(join(repo, path)));
  }
  const embeddedPackages = new Set<string>();
  for (const [path, source] of sources) {
    if (path !== entry) {
      for (const name of literalPackagesOf(source)) {
        embeddedPackages.add(name);
      }
    }
  }
  const inIncluded = (path: string) => path === entry || includedDirs.some((dir) => path.startsWith(`${dir}/`));
  const problems: string[] = [];
  for (
    const [table, loaded] of Object.entries(tableModules(sources.values()))
  ) {
    for (const path of loaded) {
      if (!inIncluded(path) || !sources.has(path)) {
        problems.push(
          `${table} lists ${path}, which is not a module inside the folders the binary includes`,
        );
      }
    }
  }
  for (const [path, source] of sources) {
    for (const found of dynamicImportsOf(path, source)) {
      const at = `${found.file}:${found.line}: ${found.argument}`;
      if (found.kind === "computed") {
        problems.push(
          `${at}: a computed import; deno compile cannot see what it loads (write a literal specifier)`,
        );
      } else if (found.kind === "file") {
        if (!inIncluded(found.target!)) {
          problems.push(
            `${at}: loads ${found.target}, outside the folders the binary includes (scripts/compile.ts)`,
          );
        } else if (!sources.has(found.target!)) {
          problems.push(`${at}: loads ${found.target}, which does not exist`);
        }
      } else if (
        found.kind === "package" && !embeddedPackages.has(found.target!)
      ) {
        problems.push(
          `${at}: loads the package ${found.target}, which no module of the included folders imports by name`,
        );
      }
    }
  }
  return problems;
}
