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
  read: { module: new URL("./files/read.ts", import.meta.url).href, export: "readSpec" },
  cat: { module: new URL("./files/cat.ts", import.meta.url).href, export: "catSpec" },
  head: { module: new URL("./files/head.ts", import.meta.url).href, export: "headSpec" },
  tail: { module: new URL("./files/tail.ts", import.meta.url).href, export: "tailSpec" },
  sed: { module: new URL("./files/sed.ts", import.meta.url).href, export: "sedSpec" },
  ls: { module: new URL("./files/ls.ts", import.meta.url).href, export: "lsSpec" },
  find: { module: new URL("./files/find.ts", import.meta.url).href, export: "findSpec" },
  glob: { module: new URL("./files/glob.ts", import.meta.url).href, export: "globSpec" },
  grep: { module: new URL("./files/grep.ts", import.meta.url).href, export: "grepSpec" },
  search: { module: new URL("./files/search.ts", import.meta.url).href, export: "searchSpec" },
  wc: { module: new URL("./files/wc.ts", import.meta.url).href, export: "wcSpec" },
  pwd: { module: new URL("./files/pwd.ts", import.meta.url).href, export: "pwdSpec" },
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
