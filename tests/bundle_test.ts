/**
 * main.bundle.js and the declaration and worker bundles under bundles/ are what users run
 * (`deno task pterm`) and what the process-level tests spawn; these tests keep them identical to
 * what the sources build to, check the rewriting that lets bundled code find what it loads
 * lazily, and show that a module loaded lazily inside a bundled worker shares the instances of
 * the modules the worker already has.
 */

import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  APP_BUNDLE,
  buildBundles,
  buildModuleBundles,
  BUNDLE,
  BUNDLE_DIR,
  bundleEntries,
  type BundleEntry,
  committedBundles,
  deferChunkImports,
  foldFacade,
  inlineLazyImports,
  rebaseImportMeta,
  staleBundles,
} from "../scripts/bundle.ts";
import { PtermError } from "../core/errors.ts";
import { workerEntryUrl } from "../core/sandbox/sandbox.ts";
import { DEFAULT_LIMITS } from "../core/limits.ts";
import type { FromWorker, SandboxJob, ToWorker } from "../core/sandbox/protocol.ts";

const REPO = fileURLToPath(new URL("../", import.meta.url));

/** One build for the tests that read it. */
let building: Promise<Map<string, string>> | null = null;
const builtOnce = () => building ??= buildBundles();

Deno.test("the generated bundles are what the sources build to (else run `deno task bundle`)", async () => {
  const built = await builtOnce();
  const stale = staleBundles(await committedBundles(), built);
  assert.deepEqual(stale, [], `stale: ${stale.join(", ")}; run \`deno task bundle\` and commit the result.`);
});

Deno.test("every declaration and handler module has a bundle, listed in the app's bundle", async () => {
  const built = await builtOnce();
  const entries = await bundleEntries();
  assert.ok(entries.some((e) => e.module === "commands/git/spec.ts" && e.kind === "declaration"));
  assert.ok(entries.some((e) => e.module === "commands/git/entries/basic.ts" && e.kind === "worker"));
  const app = built.get(APP_BUNDLE)!;
  for (const entry of entries) {
    assert.ok(built.has(entry.bundle), `${entry.bundle} is built`);
    // One module at start: the entry imports no other file of its bundle statically.
    assert.doesNotMatch(
      built.get(entry.bundle)!,
      /^(?:import|export)\b[^;]*?from\s*"\.\//m,
      `${entry.bundle} starts alone`,
    );
    assert.ok(
      app.includes(`${JSON.stringify(entry.module)}: ${JSON.stringify(entry.bundle)}`),
      `${entry.module} listed`,
    );
  }
  for (const [path, text] of built) {
    // The app's bundle is the command line as main.ts loads it: its lazy imports (help, commander,
    // the faces' own modules) load from source, as main.bundle.js's did before it was split.
    if (!path.startsWith(`${BUNDLE_DIR}/`) || path === APP_BUNDLE) continue;
    // Nothing in a bundle loads a module from source (a second instance of it) or from Deno's cache.
    assert.doesNotMatch(text, /\bimport\s*\(?\s*["'][^"']*\.ts["']/, `${path} imports no .ts module`);
    assert.doesNotMatch(text, /lazyImport\(/, `${path} has no lazyImport left`);
    assert.doesNotMatch(text, /\.cache\/deno|registry\.npmjs\.org/, `${path} bundles no npm package`);
  }
});

Deno.test("main.bundle.js holds the warm hand-over alone; the kernel and the command table are in the app's bundle", async () => {
  const built = await builtOnce();
  const main = built.get(BUNDLE)!;
  const modules = (text: string) => [...text.matchAll(/^\/\/ ([\w/.-]+\.ts)$/gm)].map((match) => match[1]);
  // What a call answered by a session server loads: the exec options, the workspace's checks, the socket.
  assert.ok(modules(main).includes("hosts/cli/warm_exec.ts"));
  for (const heavy of ["core/runtime.ts", "core/sandbox/sandbox.ts", "core/registry.ts", "commands/index.ts"]) {
    assert.ok(!modules(main).includes(heavy), `main.bundle.js does not carry ${heavy}`);
    assert.ok(modules(built.get(APP_BUNDLE)!).includes(heavy), `the app's bundle carries ${heavy}`);
  }
  assert.ok(main.length < 60_000, `main.bundle.js stays small (${main.length} bytes)`);
});

Deno.test("the pterm task runs the bundle, with the same permissions as the compiled binary", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  assert.match(config.tasks.pterm, new RegExp(`\\s${BUNDLE.replace(".", "\\.")}$`));
  for (const generated of [BUNDLE, `${BUNDLE_DIR}/`]) {
    assert.ok((config.fmt.exclude as string[]).includes(generated), `deno fmt leaves ${generated} alone`);
    assert.ok((config.lint.exclude as string[]).includes(generated), `deno lint leaves ${generated} alone`);
  }
});

Deno.test("rebaseImportMeta points import.meta.url at the module's own source, relative to the bundle", async (t) => {
  await t.step("a module in a folder", () => {
    const out = rebaseImportMeta('const x = new URL("./help.ts", import.meta.url);', "core/runtime.ts");
    assert.equal(out, 'const x = new URL("./help.ts", new URL("./core/runtime.ts", import.meta.url).href);');
    const base = new URL("file:///repo/main.bundle.js");
    const resolved = new URL("./help.ts", new URL("./core/runtime.ts", base).href).href;
    assert.equal(resolved, "file:///repo/core/help.ts");
  });
  await t.step("every occurrence", () => {
    const out = rebaseImportMeta("a(import.meta.url); b(import.meta.url);", "main.ts");
    assert.equal(out, 'a(new URL("./main.ts", import.meta.url).href); b(new URL("./main.ts", import.meta.url).href);');
  });
  await t.step("other import.meta properties are refused, naming the module", () => {
    assert.throws(
      () => rebaseImportMeta("if (import.meta.main) run();", "core/x.ts"),
      /core\/x\.ts uses import\.meta\.main/,
    );
    assert.throws(() => rebaseImportMeta("import.meta.resolve('./y.ts')", "core/x.ts"), /import\.meta\.resolve/);
  });
});

Deno.test("inlineLazyImports turns every lazyImport into an import() the bundler sees, or refuses", async (t) => {
  await t.step("one line, several lines, with and without the type argument", () => {
    const source = 'const a = () => lazyImport<typeof import("./a.ts")>(new URL("./a.ts", import.meta.url));\n' +
      'const { b } = await lazyImport<typeof import("./b.ts")>(\n  new URL("./b.ts", import.meta.url),\n);\n' +
      'const c = lazyImport(new URL("../c.ts", import.meta.url));\n' +
      'const d = lazyImport<Record<string, Spec>>(new URL("./d.ts", import.meta.url));\n';
    assert.equal(
      inlineLazyImports(source, "core/x.ts"),
      'const a = () => import("./a.ts");\nconst { b } = await import("./b.ts");\nconst c = import("../c.ts");\n' +
        'const d = import("./d.ts");\n',
    );
  });
  await t.step("a computed URL is refused, naming the module", () => {
    assert.throws(
      () => inlineLazyImports("lazyImport(new URL(`./${name}/spec.ts`, import.meta.url))", "commands/x.ts"),
      /commands\/x\.ts: a worker bundle needs every lazy import/,
    );
    assert.throws(() => inlineLazyImports("lazyImport(url)", "commands/x.ts"), /lazyImport\(url\)/);
  });
  await t.step("the import and core/lazy.ts itself are left alone", () => {
    const source = 'import { lazyImport } from "./lazy.ts";\n';
    assert.equal(inlineLazyImports(source, "core/x.ts"), source);
    const lazy = Deno.readTextFileSync(join(REPO, "core/lazy.ts"));
    assert.match(inlineLazyImports(lazy, "core/lazy.ts"), /export function lazyImport<Module>\(url: URL\)/);
  });
});

Deno.test("deferChunkImports makes a chunk's or an npm package's dynamic import one Deno does not load ahead", () => {
  assert.equal(
    deferChunkImports('const m = await import("./diff3-X7Q2AB.js");', "bundles/x/worker.js"),
    'const m = await import(new URL("./diff3-X7Q2AB.js", import.meta.url).href);',
  );
  assert.equal(deferChunkImports('await import("dotenv")', "bundles/x/worker.js"), 'await import(String("dotenv"))');
  assert.equal(
    deferChunkImports('import("npm:diff@9.0.0")', "bundles/x/worker.js"),
    'import(String("npm:diff@9.0.0"))',
  );
  assert.equal(deferChunkImports('import("node:zlib")', "bundles/x/worker.js"), 'import("node:zlib")');
  assert.throws(
    () => deferChunkImports('await import("../../commands/x.ts")', "bundles/x/worker.js"),
    /bundles\/x\/worker\.js: a literal dynamic import of a file/,
  );
});

Deno.test("foldFacade folds an entry that only re-exports a chunk into that chunk", () => {
  const files = new Map([
    [
      "worker.js",
      'import {\n  a_exports,\n  serve\n} from "./chunk-AB12.js";\nexport {\n  a_exports as handlerModule,\n  serve\n};\n',
    ],
    ["chunk-AB12.js", "var serve = 1;\nvar a_exports = {};\nexport {\n  serve,\n  a_exports\n};\n"],
    ["lazy-CD34.js", 'import {\n  serve\n} from "./chunk-AB12.js";\nexport const x = serve;\n'],
  ]);
  const folded = foldFacade(files, "worker.js");
  assert.deepEqual([...folded.keys()].sort(), ["lazy-CD34.js", "worker.js"]);
  assert.equal(folded.get("worker.js"), files.get("chunk-AB12.js") + "export { a_exports as handlerModule };\n");
  assert.equal(folded.get("lazy-CD34.js"), 'import {\n  serve\n} from "./worker.js";\nexport const x = serve;\n');
  // An entry with code of its own is left as it is.
  const own = new Map([["worker.js", 'import { a } from "./chunk-AB12.js";\nconsole.log(a);\n'], [
    "chunk-AB12.js",
    "x",
  ]]);
  assert.deepEqual(foldFacade(own, "worker.js"), own);
});

/** Builds the fixture handler's worker bundle into `dir` (as bundles/<name>/ under it) and runs its job there. */
async function runFixtureBundle(dir: string, lazyImports: "inline" | "keep"): Promise<Record<string, unknown>> {
  const module = "tests/fixtures/bundle_identity/handler.ts";
  const entry: BundleEntry = { kind: "worker", module, bundle: `${BUNDLE_DIR}/fixture/worker.js` };
  const files = await buildModuleBundles(REPO, [entry], {
    sourceDirs: ["core", "tests/fixtures/bundle_identity"],
    lazyImports,
  });
  for (const [path, text] of files) {
    await Deno.mkdir(join(dir, dirname(path)), { recursive: true });
    await Deno.writeTextFile(join(dir, path), text);
  }
  // The sources beside the bundle as in the repository, for what a kept lazy import loads.
  for (
    const source of [
      "core/errors.ts",
      "tests/fixtures/bundle_identity/state.ts",
      "tests/fixtures/bundle_identity/later.ts",
    ]
  ) {
    await Deno.mkdir(join(dir, dirname(source)), { recursive: true });
    await Deno.copyFile(join(REPO, source), join(dir, source));
  }
  const handler = { module: new URL(module, `file://${REPO}`).href, export: "sameInstances" };
  const worker = new Worker(workerEntryUrl(handler, new URL(entry.bundle, `file://${dir}/`).href), {
    type: "module",
    deno: { permissions: { read: [dir], write: false, net: false, env: false, run: false, ffi: false, sys: false } },
  } as WorkerOptions);
  try {
    const job: SandboxJob = {
      commandName: "fixture",
      path: ["fixture"],
      args: { flags: {}, positionals: {} },
      stdin: null,
      root: dir,
      runId: "test",
      session: "default",
      sessionDir: join(dir, "sessions", "default"),
      config: undefined,
      limits: DEFAULT_LIMITS,
      terminal: { color: false },
    };
    return await new Promise((resolve, reject) => {
      worker.onerror = (event) => {
        event.preventDefault();
        reject(new Error(event.message));
      };
      worker.onmessage = (event: MessageEvent<FromWorker>) => {
        if (event.data.type === "done") resolve(event.data.result);
        else if (event.data.type === "failed") reject(new Error(event.data.message));
      };
      worker.postMessage({ type: "run", job, seq: 1 } satisfies ToWorker);
    });
  } finally {
    worker.terminate();
  }
}

Deno.test("a module loaded lazily in a bundled worker shares the instances the worker has", async (t) => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "pterm-bundle-identity-" }));
  try {
    await t.step("as pterm builds its bundles: one instance of each module", async () => {
      const result = await runFixtureBundle(join(dir, "inline"), "inline");
      assert.equal(result.same_state, true);
      assert.equal(result.same_errors_module, true);
    });
    await t.step("the check can fail: a lazy import left loading the source makes second instances", async () => {
      const result = await runFixtureBundle(join(dir, "keep"), "keep");
      assert.equal(result.same_state, false);
      assert.equal(result.same_errors_module, false);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a PtermError is recognised across copies of core/errors.ts (the bundle has its own)", async () => {
  const copy = await import(`../core/errors.ts?copy=${crypto.randomUUID()}`) as typeof import("../core/errors.ts");
  assert.notEqual(copy.PtermError, PtermError, "a second module instance");
  const fromCopy = new copy.PtermError("InvalidConfig", "bad key");
  assert.ok(fromCopy instanceof PtermError);
  assert.ok(new PtermError("NotFound", "x") instanceof copy.PtermError);
  assert.ok(!(new Error("plain") instanceof PtermError));
  assert.ok(!({ code: "NotFound" } instanceof PtermError));
  class Narrower extends PtermError {}
  assert.ok(!(new PtermError("NotFound", "x") instanceof Narrower), "subclasses keep the ordinary check");
  assert.ok(new Narrower("NotFound", "x") instanceof Narrower);
});
