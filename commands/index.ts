/**
 * The whitelist: every top-level command and the loader of its declaration. Only this
 * table changes when a command is added; the kernel never imports a command directly.
 *
 * Loaders go through lazyImport so a call loads only the declaration of the command it runs,
 * not every command's. (The sandbox worker needs no table: the kernel hands it the handler's
 * module and export from the declaration.)
 */

import type { CommandSpec } from "../core/declaration.ts";
import { lazyImport } from "../core/lazy.ts";
import type { CommandLoaders } from "../core/registry.ts";

function declaration<Name extends string>(folder: string, exported: Name): () => Promise<CommandSpec> {
  return async () =>
    (await lazyImport<Record<Name, CommandSpec>>(new URL(`./${folder}/spec.ts`, import.meta.url)))[exported];
}

export const commands: CommandLoaders = {
  hello: declaration("hello", "helloSpec"),
  git: declaration("git", "gitSpec"),
  doc: declaration("doc", "docSpec"),
  irc: declaration("irc", "ircSpec"),
  patch: declaration("patch", "patchSpec"),
};
