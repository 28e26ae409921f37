/** What every read-only file command's declaration shares: its handler module, result schema and capability. */

import type { Capability, CommandSpec, LeafSpec, PositionalSpec } from "../../core/declaration.ts";
import { lazyImport } from "../../core/lazy.ts";

type Schemas = typeof import("./schema.ts");
export type HandlerName = keyof typeof import("./handler.ts");

const HANDLERS = new URL("./handler.ts", import.meta.url).href;
const spellings = async () =>
  (await lazyImport<typeof import("./spellings.ts")>(new URL("./spellings.ts", import.meta.url))).fileSpellings;

/** Reads under the root, never writes: the only capability these commands have. */
export const READ_ONLY: readonly Capability[] = ["fs.read"];

/** One or more files to read, each confined to the root: the operands of `cat`, `head`, `tail` and `wc`. */
export const FILES_POSITIONAL: PositionalSpec = {
  name: "files",
  description: "The files, relative to the root",
  variadic: true,
  required: true,
  path: "read",
};

export function fileCommand(
  name: HandlerName,
  schema: keyof Schemas,
  spec: Omit<LeafSpec, "name" | "capabilities" | "handler" | "result" | "subcommands">,
  options: { readonly spellings?: boolean } = {},
): CommandSpec {
  return {
    ...spec,
    name,
    zone: "ready",
    capabilities: READ_ONLY,
    result: async () => (await lazyImport<Schemas>(new URL("./schema.ts", import.meta.url)))[schema],
    handler: { module: HANDLERS, export: name },
    ...(options.spellings ? { spellings } : {}),
  };
}
