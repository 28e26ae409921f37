/**
 * No import circle among the source modules — type-only imports included — so every layer can be read,
 * tested and loaded from the bottom up: the kernel's type modules at the bottom, commands and hosts above.
 *
 * The graph is every module under main.ts, core/, hosts/, lib/, commands/ and scripts/ (not the generated
 * bundles/, not tests/), with one edge per relative specifier it names in
 *   - a static `import … from`, `import type … from`, `import "…"` or `export … from` statement, and
 *   - an `import("…")` expression with a literal specifier, in a type (`typeof import("./handler.ts")`,
 *     `import("../registry.ts").CommandLoaders`) or at run time (`await import("./schema.ts")`).
 * Left out: a module loaded through `lazyImport(new URL("./x.ts", import.meta.url))` — how the registry and
 * the kernel load handler entries late. Its type is still named by a `typeof import("./x.ts")`, which counts.
 */

import assert from "node:assert/strict";
import { importedSpecifiers, importGraph } from "./_support/import_graph.ts";

/** The strongly connected components with more than one module (or a module importing itself). */
function circles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) components.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return components;
}

/** One circle through a component, as the files in import order, back to the first: a -> b -> a. */
function circleThrough(graph: Map<string, string[]>, component: string[]): string[] {
  const members = new Set(component);
  const start = component[0];
  const previous = new Map<string, string>();
  const queue = [start];
  const seen = new Set([start]);
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const next of graph.get(node) ?? []) {
      if (!members.has(next)) continue;
      if (next === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(previous.get(path[0])!);
        return [...path, start];
      }
      if (!seen.has(next)) {
        seen.add(next);
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return component;
}

function describeCircles(graph: Map<string, string[]>): string[] {
  return circles(graph).map((component) =>
    `${circleThrough(graph, component).join(" -> ")}` +
    (component.length > 2 ? `  (${component.length} modules in this tangle: ${component.join(", ")})` : "")
  );
}

Deno.test("no source module imports itself back, type-only imports included", async () => {
  const graph = await importGraph();
  assert.ok(graph.size > 300, `only ${graph.size} modules found: the walk missed the sources`);
  assert.deepEqual(describeCircles(graph), []);
});

Deno.test("the scan sees every form of import a module can name another by", () => {
  const source = [
    `import { a } from "./a.ts";`,
    `import type { B } from '../b.ts';`,
    `import {`,
    `  c,`,
    `  type D,`,
    `} from "./c.ts";`,
    `import "./effects.ts";`,
    `export { e } from "./e.ts";`,
    `export type { F } from "./f.ts";`,
    `export * from "./g.ts";`,
    `type H = typeof import("./h.ts");`,
    `let i: import("./i.ts").I;`,
    `const j = await import("./j.ts");`,
    `import { z } from "zod";`,
    `// import { k } from "./k.ts";`,
    `/* export { l } from "./l.ts"; */`,
    `const text = "import { m } from './m.ts'";`,
    `const late = lazyImport<typeof import("./n.ts")>(new URL("./n.ts", import.meta.url));`,
    `export const from = "./o.ts";`,
  ].join("\n");
  assert.deepEqual(importedSpecifiers(source), [
    "./a.ts",
    "../b.ts",
    "./c.ts",
    "./effects.ts",
    "./e.ts",
    "./f.ts",
    "./g.ts",
    "./h.ts",
    "./i.ts",
    "./j.ts",
    "./n.ts",
  ]);
});

Deno.test("a circle is named by its files in import order", () => {
  const graph = new Map([
    ["core/a.ts", ["core/b.ts"]],
    ["core/b.ts", ["core/c.ts", "core/d.ts"]],
    ["core/c.ts", ["core/a.ts"]],
    ["core/d.ts", []],
    ["core/e.ts", ["core/e.ts"]],
  ]);
  assert.deepEqual(describeCircles(graph), [
    "core/a.ts -> core/b.ts -> core/c.ts -> core/a.ts  (3 modules in this tangle: core/a.ts, core/b.ts, core/c.ts)",
    "core/e.ts -> core/e.ts",
  ]);
});
