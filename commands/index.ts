/**
 * The whitelist: every top-level command and the module of its declaration. Only this table
 * changes when a command is added; the kernel never imports a command directly.
 *
 * Loaders go through lazyImport so a call loads only the declaration of the command it runs,
 * not every command's; a kernel running bundled loads the declaration's bundle (core/bundles.ts).
 * (The sandbox worker needs no table: the kernel hands it the handler's module and export from
 * the declaration.)
 */

import { bundleOf } from "../core/bundles.ts";
import type { CommandSpec } from "../core/declaration.ts";
import { lazyImport } from "../core/lazy.ts";
import type { CommandLoaders } from "../core/registry.ts";

/** Each command's declaration: its module (an absolute URL) and the export holding it. */
export const DECLARATIONS: Readonly<Record<string, { readonly module: string; readonly export: string }>> = {
  hello: { module: new URL("./hello/spec.ts", import.meta.url).href, export: "helloSpec" },
  git: { module: new URL("./git/spec.ts", import.meta.url).href, export: "gitSpec" },
  doc: { module: new URL("./doc/spec.ts", import.meta.url).href, export: "docSpec" },
  irc: { module: new URL("./irc/spec.ts", import.meta.url).href, export: "ircSpec" },
  patch: { module: new URL("./patch/spec.ts", import.meta.url).href, export: "patchSpec" },
};

export const commands: CommandLoaders = Object.fromEntries(
  Object.entries(DECLARATIONS).map(([name, declaration]) => [
    name,
    async () => {
      const module = bundleOf(declaration.module) ?? declaration.module;
      return (await lazyImport<Record<string, CommandSpec>>(new URL(module)))[declaration.export];
    },
  ]),
);
