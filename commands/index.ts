/**
 * The whitelist: every top-level command and the loader of its declaration. Only this
 * table changes when a command is added; the kernel never imports a command directly.
 */

import type { CommandLoaders } from "../core/registry.ts";

export const commands: CommandLoaders = {
  hello: async () => (await import("./hello/spec.ts")).helloSpec,
  irc: async () => (await import("./irc/spec.ts")).ircSpec,
  doc: async () => (await import("./doc/spec.ts")).docSpec,
};
