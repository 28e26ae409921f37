// deno-lint-ignore-file no-console -- a script: printing is its output
/**
 * Assembles commands/git/diff/line_scan.wat (the source of the line diff's WebAssembly module)
 * with wabt's wat2wasm and writes the bytes into line_scan.ts's LINE_SCAN_MODULE, as base64 in
 * lines: pterm carries the module assembled, so a start costs one base64 decode and no assembler.
 *
 *   deno task build-wasm            # rewrite LINE_SCAN_MODULE from line_scan.wat
 *   deno task build-wasm --check    # exit 1 if LINE_SCAN_MODULE is not what line_scan.wat assembles to
 *
 * wabt is a development dependency only (deno.json, not runtime.deno.json): nothing pterm runs imports it.
 */

import wabt from "wabt";
import { join } from "node:path";

const REPO = join(import.meta.dirname!, "..");
export const WAT_PATH = join(REPO, "commands/git/diff/line_scan.wat");
export const MODULE_PATH = join(REPO, "commands/git/diff/line_scan.ts");

/** Base64 characters per line of LINE_SCAN_MODULE (keeps line_scan.ts within the formatter's width). */
const LINE_WIDTH = 100;
/** LINE_SCAN_MODULE's declaration, from its first line to its `].join("")`. */
const DECLARATION = /export const LINE_SCAN_MODULE = \[\n[\s\S]*?\n\]\.join\(""\);/;

/** The module `wat` assembles to; throws with wabt's message when the text does not parse or validate. */
export async function assembleWat(wat: string, fileName = "line_scan.wat"): Promise<Uint8Array> {
  const toolkit = await wabt();
  const module = toolkit.parseWat(fileName, wat, { bulk_memory: true });
  try {
    module.resolveNames();
    module.validate();
    return module.toBinary({ log: false, write_debug_names: false }).buffer;
  } finally {
    module.destroy();
  }
}

/** `bytes` as line_scan.ts declares them: base64 in lines of LINE_WIDTH characters. */
export function moduleDeclaration(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  const base64 = btoa(binary);
  const lines: string[] = [];
  for (let k = 0; k < base64.length; k += LINE_WIDTH) lines.push(`  "${base64.slice(k, k + LINE_WIDTH)}",`);
  return `export const LINE_SCAN_MODULE = [\n${lines.join("\n")}\n].join("");`;
}

/** line_scan.ts's text with LINE_SCAN_MODULE replaced by what line_scan.wat assembles to. */
export async function rebuiltModuleSource(): Promise<{ current: string; rebuilt: string }> {
  const current = await Deno.readTextFile(MODULE_PATH);
  if (!DECLARATION.test(current)) throw new Error(`${MODULE_PATH}: no LINE_SCAN_MODULE declaration found`);
  const declaration = moduleDeclaration(await assembleWat(await Deno.readTextFile(WAT_PATH)));
  return { current, rebuilt: current.replace(DECLARATION, () => declaration) };
}

if (import.meta.main) {
  const { current, rebuilt } = await rebuiltModuleSource();
  if (Deno.args.includes("--check")) {
    if (current !== rebuilt) {
      console.error("line_scan.ts's LINE_SCAN_MODULE is stale: run `deno task build-wasm`");
      Deno.exit(1);
    }
    console.log("line_scan.ts's LINE_SCAN_MODULE is what line_scan.wat assembles to");
  } else if (current === rebuilt) {
    console.log("line_scan.ts's LINE_SCAN_MODULE is already up to date");
  } else {
    await Deno.writeTextFile(MODULE_PATH, rebuilt);
    console.log("rewrote LINE_SCAN_MODULE in commands/git/diff/line_scan.ts");
  }
}
