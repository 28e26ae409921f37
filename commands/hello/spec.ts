/** `hello`: the smallest complete command — proof that the whole path works. */

import type { CommandSpec } from "../../core/declaration.ts";
import { lazyImport } from "../../core/lazy.ts";

export const helloSpec: CommandSpec = {
  name: "hello",
  summary: "Print a HELLO banner and the lemonhall signature (checks that pterm works).",
  description: "The banner is drawn from a built-in glyph table at run time, not stored as text.",
  zone: "ready",
  capabilities: [],
  examples: [{ command: "hello", description: "Print the banner; exit_code 0 means pterm runs." }],
  result: async () =>
    (await lazyImport<typeof import("./schema.ts")>(new URL("./schema.ts", import.meta.url))).helloResultSchema,
  handler: { module: new URL("./handler.ts", import.meta.url).href, export: "hello" },
};
