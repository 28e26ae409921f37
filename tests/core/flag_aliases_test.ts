/** A flag's other long names (`aliases`): `--output` is `--out`, in parsing and in --help. */

import assert from "node:assert/strict";
import type { LeafSpec } from "../../core/declaration.ts";
import { PtermError } from "../../core/errors.ts";
import { parseArgs } from "../../core/flags.ts";
import { renderHelp } from "../../core/help.ts";

const extract: LeafSpec = {
  name: "extract",
  summary: "extract",
  examples: [],
  capabilities: [],
  result: () => Promise.resolve(null),
  handler: { module: "file:///unused.ts", export: "unused" },
  flags: [
    { name: "out", short: "o", aliases: ["output"], type: "string", description: "where to write" },
    { name: "max", type: "number", description: "count" },
  ],
};

function parse(words: string[]) {
  const outcome = parseArgs("doc extract", extract, words);
  if (outcome.help) throw new Error("unexpected help");
  return outcome.args.flags;
}

Deno.test("an alias sets the flag under its own name, in every spelling", () => {
  assert.equal(parse(["--output", "a.md"]).out, "a.md");
  assert.equal(parse(["--output=b.md"]).out, "b.md");
  assert.equal(parse(["-o", "c.md"]).out, "c.md");
  assert.equal(parse(["--out", "d.md"]).out, "d.md");
  assert.equal(parse([]).out, undefined);
});

Deno.test("a flag given under two of its names is given twice; an alias is known as a flag word", () => {
  assert.throws(
    () => parse(["--out", "a", "--output", "b"]),
    (e) => e instanceof PtermError && /twice/.test(e.message),
  );
  assert.throws(
    () => parse(["--max", "--output"]),
    (e) => e instanceof PtermError && /next word `--output` is a flag/.test(e.message),
  );
  assert.throws(() => parse(["--outptu", "x"]), (e) => e instanceof PtermError && /--out\b/.test(e.message));
});

Deno.test("--help lists the alias with its flag", () => {
  const help = renderHelp(["doc", "extract"], extract).text;
  assert.match(help, /-o, --out <string>\s+where to write \(also --output\)/);
});
