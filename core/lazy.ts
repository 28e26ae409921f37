/**
 * Lazy imports that stay out of the start-up module graph.
 *
 * Deno builds the whole graph before running anything, and that graph includes every
 * `import("./literal.ts")` it can see — with its npm packages — even when the code path is never
 * taken: on `pterm exec "hello"` that cost ~8 ms (bench/startup.ts). A specifier that arrives as
 * a function argument is invisible to that analysis, so the module is loaded only when called.
 * Pass an absolute URL (`new URL("./x.ts", import.meta.url)`): a relative one would resolve
 * against this file. `deno compile` must be told about such modules (scripts/compile.ts).
 *
 * Write every call as `lazyImport(new URL("<literal>", import.meta.url))`: the declaration and
 * worker bundles (scripts/bundle.ts) rewrite exactly that shape into an `import()` of a chunk of
 * the same bundle, so the module shares the bundle's instances of what it imports; another shape
 * in a module a bundle holds fails the build.
 */
export function lazyImport<Module>(url: URL): Promise<Module> {
  return import(url.href);
}
