/**
 * The whitelist: every top-level command and the loader of its declaration. Only this
 * table changes when a command is added; the kernel never imports a command directly.
 */

import type { CommandLoaders } from "../core/registry.ts";

export const commands: CommandLoaders = {
  hello: async () => (await import("./hello/spec.ts")).helloSpec,
  git: async () => (await import("./git/spec.ts")).gitSpec,
  irc: async () => (await import("./irc/spec.ts")).ircSpec,
  patch: async () => (await import("./patch/spec.ts")).patchSpec,
  doc: async () => (await import("./doc/spec.ts")).docSpec,
};
