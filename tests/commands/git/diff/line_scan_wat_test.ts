/**
 * line_scan.wat is the source of the WebAssembly module line_scan.ts carries: the carried bytes
 * are exactly what `deno task build-wasm` assembles from it, so neither can be edited without the other.
 */

import assert from "node:assert/strict";
import {
  INDENT,
  KPDIS_RUN,
  LINE_SCAN_MODULE,
  MARKER_AT,
  NO_NEWLINE_MARKER,
  SCORE_AT,
  SEARCH,
  SIMSCAN_WINDOW,
} from "../../../../commands/git/diff/line_scan.ts";
import { assembleWat, moduleDeclaration, rebuiltModuleSource, WAT_PATH } from "../../../../scripts/build_line_scan.ts";

const base64Of = (bytes: Uint8Array) => btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(""));

Deno.test("the module line_scan.ts carries is what line_scan.wat assembles to", async () => {
  const assembled = await assembleWat(await Deno.readTextFile(WAT_PATH));
  assert.equal(
    LINE_SCAN_MODULE,
    base64Of(assembled),
    "line_scan.ts's LINE_SCAN_MODULE is stale: run `deno task build-wasm`",
  );
  const { current, rebuilt } = await rebuiltModuleSource();
  assert.equal(current, rebuilt, "`deno task build-wasm` would rewrite line_scan.ts");
});

Deno.test("an edit to line_scan.wat alone makes the carried module stale", async () => {
  const wat = await Deno.readTextFile(WAT_PATH);
  // The hash seed of `lines`, the first instruction of its body: a one-number edit.
  const edited = wat.replace("i32.const 0x811c9dc5", "i32.const 0x811c9dc6");
  assert.notEqual(edited, wat);
  assert.notEqual(base64Of(await assembleWat(edited)), LINE_SCAN_MODULE);
});

Deno.test("a line_scan.wat that does not validate is refused with wabt's message", async () => {
  const wat = await Deno.readTextFile(WAT_PATH);
  const broken = wat.replace("local.get $high", "local.get $nowhere");
  await assert.rejects(() => assembleWat(broken), /nowhere/);
});

Deno.test("the carried declaration keeps every line within the formatter's width and decodes to the module", async () => {
  const bytes = await assembleWat(await Deno.readTextFile(WAT_PATH));
  const declaration = moduleDeclaration(bytes);
  for (const line of declaration.split("\n")) assert.ok(line.length <= 120, line);
  const decoded = Uint8Array.from(atob(LINE_SCAN_MODULE), (c) => c.charCodeAt(0));
  assert.ok(WebAssembly.validate(decoded));
  assert.deepEqual(decoded, bytes);
});

/** The values of the names line_scan.wat's `i32.const N ;; NAME` annotations use, as line_scan.ts exports them. */
const NAMED: Record<string, number> = {
  ...Object.fromEntries(Object.entries(INDENT).map(([key, value]) => [`INDENT.${key}`, value])),
  ...Object.fromEntries(Object.entries(SEARCH).map(([key, value]) => [`SEARCH.${key}`, value])),
  SIMSCAN_WINDOW,
  KPDIS_RUN,
  MARKER_AT,
  SCORE_AT,
  "NO_NEWLINE_MARKER.length": NO_NEWLINE_MARKER.length,
};

/** `[number, name, offset]` of each `i32.const N ;; NAME` or `;; NAME + K` / `;; NAME - K` naming a line_scan.ts value. */
function namedConstants(wat: string): [number, string, number][] {
  const found: [number, string, number][] = [];
  for (const match of wat.matchAll(/i32\.const (-?(?:0x)?[0-9a-f]+) ;; ([A-Z][\w.]*)(?: ([+-]) (\d+))?$/gm)) {
    if (!Object.hasOwn(NAMED, match[2])) continue;
    const offset = match[3] === undefined ? 0 : Number(`${match[3]}${match[4]}`);
    found.push([Number(match[1]) | 0, match[2], offset]);
  }
  return found;
}

Deno.test("every number line_scan.wat annotates with a line_scan.ts name is that name's value", async () => {
  const named = namedConstants(await Deno.readTextFile(WAT_PATH));
  const used = new Set(named.map(([, name]) => name));
  // The indent heuristic's weights, the search's bounds and the clean-up's window are all written out in the module.
  for (const name of ["INDENT.INDENT_WEIGHT", "SEARCH.XDL_SNAKE_CNT", "SIMSCAN_WINDOW", "NO_NEWLINE_MARKER.length"]) {
    assert.ok(used.has(name), `line_scan.wat annotates no number as ${name}`);
  }
  for (const [value, name, offset] of named) {
    assert.equal(value, (NAMED[name] + offset) | 0, `line_scan.wat's ${name}${offset ? ` ${offset}` : ""}`);
  }
});

Deno.test("a number changed in line_scan.wat under its line_scan.ts name is caught", () => {
  const wat = "    i32.const 61 ;; INDENT.INDENT_WEIGHT\n    i32.const 49 ;; SCORE_AT + 4\n";
  assert.deepEqual(namedConstants(wat), [[61, "INDENT.INDENT_WEIGHT", 0], [49, "SCORE_AT", 4]]);
  assert.notEqual(61, NAMED["INDENT.INDENT_WEIGHT"]);
  assert.notEqual(49, NAMED.SCORE_AT + 4);
});
