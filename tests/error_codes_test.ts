/**
 * Who owns an error code. The kernel (core/errors.ts) owns the generic ones; a code only one command's world
 * has is declared by that command (`CommandSpec.errorCodes`, from its `error_codes.ts`), and the envelope's
 * list is the kernel's plus every command's (`Registry.errorCodes`).
 *
 * A command must declare every code its code can raise: this test reads, for each command, every module that
 * may run for it — its folder when its declaration is a `spec.ts`, and whatever those modules import or load
 * (tests/_support/import_graph.ts with module URLs) — and fails naming the command, the code and the module
 * when one of them holds another command's code its declaration leaves out. The check is done here, not by
 * the kernel at run time: turning an undeclared code into `Internal` would answer a real failure (a corrupt
 * repository reached through another command) with "a bug", and the omission would show only when it happens.
 * A code nobody declares at all is a type error (`deno task check`).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { DECLARATIONS } from "../commands/index.ts";
import type { CommandSpec } from "../core/declaration.ts";
import { KERNEL_ERROR_CODES } from "../core/errors.ts";
import { errorCodesOf, Registry } from "../core/registry.ts";
import { REPO_PATH, withoutComments } from "../scripts/compile_imports.ts";
import { commands } from "../commands/index.ts";
import { importGraph } from "./_support/import_graph.ts";

interface Undeclared {
  readonly command: string;
  readonly code: string;
  readonly module: string;
}

/** `new PtermError("Code", …)`: a code raised by name. */
const RAISED = /\bPtermError\(\s*["'`]([A-Z][A-Za-z]*)["'`]/g;

/** The codes among `codes` that `source` names as a string literal. */
function codesNamed(source: string, codes: readonly string[]): string[] {
  const code = withoutComments(source);
  return codes.filter((name) => new RegExp(`["'\`]${name}["'\`]`).test(code));
}

/** The modules that may run for a command declared in `declaration`. */
function modulesOf(graph: ReadonlyMap<string, readonly string[]>, declaration: string): Set<string> {
  const folder = declaration.slice(0, declaration.lastIndexOf("/") + 1);
  const start = declaration.endsWith("/spec.ts")
    ? [...graph.keys()].filter((module) => module.startsWith(folder))
    : [declaration];
  const seen = new Set(start);
  const queue = [...start];
  while (queue.length > 0) {
    for (const next of graph.get(queue.pop()!) ?? []) {
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return seen;
}

/** Each command-only code a command's modules name that its declaration does not list. */
export function undeclaredCodes(
  graph: ReadonlyMap<string, readonly string[]>,
  sources: ReadonlyMap<string, string>,
  declarations: ReadonlyMap<string, { readonly module: string; readonly errorCodes: readonly string[] }>,
): Undeclared[] {
  const kernel = new Set<string>(KERNEL_ERROR_CODES);
  // The codes commands declare, and any other a module raises by name (`new PtermError("Code", …)`).
  const raised = [...sources.values()].flatMap((source) =>
    [...withoutComments(source).matchAll(RAISED)].map((match) => match[1])
  );
  const commandCodes = [
    ...new Set([...[...declarations.values()].flatMap((declared) => declared.errorCodes), ...raised]),
  ].filter((code) => !kernel.has(code));
  const found: Undeclared[] = [];
  for (const [command, { module, errorCodes }] of declarations) {
    for (const reached of [...modulesOf(graph, module)].sort()) {
      for (const code of codesNamed(sources.get(reached) ?? "", commandCodes)) {
        if (!errorCodes.includes(code)) found.push({ command, code, module: reached });
      }
    }
  }
  return found;
}

async function theTree() {
  const graph = await importGraph(true);
  const sources = new Map<string, string>();
  for (const module of graph.keys()) sources.set(module, await Deno.readTextFile(join(REPO_PATH, module)));
  const registry = new Registry(commands);
  const declarations = new Map<string, { module: string; errorCodes: readonly string[] }>();
  for (const [name, { module }] of Object.entries(DECLARATIONS)) {
    const spec = await registry.load(name);
    declarations.set(name, {
      module: module.slice(new URL("../", import.meta.url).href.length),
      errorCodes: spec.errorCodes ?? [],
    });
  }
  return { graph, sources, declarations, registry };
}

Deno.test("every command declares each code its code can raise", async () => {
  const { graph, sources, declarations } = await theTree();
  assert.ok(declarations.get("irc")!.errorCodes.includes("NotJoined"));
  assert.deepEqual(undeclaredCodes(graph, sources, declarations), []);
});

Deno.test("the kernel owns only generic codes: no command declares one, core/ and hosts/ name no command's", async () => {
  const { sources, declarations } = await theTree();
  const kernel = new Set<string>(KERNEL_ERROR_CODES);
  assert.equal(kernel.size, KERNEL_ERROR_CODES.length, "a kernel code is listed twice");
  for (const [command, { errorCodes }] of declarations) {
    assert.deepEqual(errorCodes.filter((code) => kernel.has(code)), [], `${command} declares a kernel code`);
  }
  const commandCodes = [...new Set([...declarations.values()].flatMap((declared) => declared.errorCodes))];
  const inKernel = [...sources].filter(([module]) => /^(?:core|hosts)\//.test(module))
    .flatMap(([module, source]) => codesNamed(source, commandCodes).map((code) => `${module}: ${code}`));
  assert.deepEqual(inKernel, []);
});

Deno.test("the envelope's list is the kernel's codes, then each command's, each once", async () => {
  const { registry } = await theTree();
  const codes = await registry.errorCodes();
  assert.deepEqual(codes.slice(0, KERNEL_ERROR_CODES.length), [...KERNEL_ERROR_CODES]);
  assert.equal(new Set(codes).size, codes.length);
  for (const code of ["NotJoined", "PatchParseError", "Conflict", "EncryptedDocument", "StaleJournal"]) {
    assert.ok(codes.includes(code), code);
  }
  // patch lists git's codes too (it drives git's code); the joined list still holds each once.
  const specs = await registry.loadAll();
  const patch = specs.find((spec: CommandSpec) => spec.name === "patch")!;
  assert.ok(patch.errorCodes?.includes("NotARepository"));
  assert.deepEqual(errorCodesOf(specs), codes);
});

Deno.test("a handler raising a code its command does not declare is named, with the module that raises it", () => {
  const graph = new Map([
    ["commands/x/spec.ts", ["commands/x/handler.ts"]],
    ["commands/x/handler.ts", ["commands/y/client.ts", "core/errors.ts"]],
    ["commands/y/spec.ts", []],
    ["commands/y/client.ts", []],
    ["commands/z/tool.ts", ["commands/x/handler.ts", "commands/z/lost.ts"]],
    ["commands/z/lost.ts", []],
    ["core/errors.ts", []],
  ]);
  const sources = new Map([
    ["commands/x/handler.ts", `throw new PtermError("XBroken", "…"); // "YDown" in a comment does not count`],
    ["commands/y/client.ts", `throw new PtermError('YDown', "the y daemon is down");`],
    ["commands/z/lost.ts", `throw new PtermError("ZLost", "declared by nobody");`],
    ["core/errors.ts", `export const KERNEL_ERROR_CODES = ["NotFound"];`],
  ]);
  const declarations = new Map([
    ["x", { module: "commands/x/spec.ts", errorCodes: ["XBroken"] }],
    ["y", { module: "commands/y/spec.ts", errorCodes: ["YDown"] }],
    ["z", { module: "commands/z/tool.ts", errorCodes: [] }],
  ]);
  assert.deepEqual(undeclaredCodes(graph, sources, declarations), [
    { command: "x", code: "YDown", module: "commands/y/client.ts" },
    { command: "z", code: "XBroken", module: "commands/x/handler.ts" },
    { command: "z", code: "YDown", module: "commands/y/client.ts" },
    { command: "z", code: "ZLost", module: "commands/z/lost.ts" },
  ]);
});

Deno.test("deno.json's compilerOptions.types names every command's error_codes.ts, so a module checked alone knows its codes", async () => {
  const { graph } = await theTree();
  const declared = [...graph.keys()].filter((module) => /^commands\/[^/]+\/error_codes\.ts$/.test(module));
  const config = JSON.parse(await Deno.readTextFile(join(REPO_PATH, "deno.json")));
  assert.deepEqual(
    [...config.compilerOptions.types].sort(),
    declared.map((module) => `./${module}`).sort(),
  );
});
