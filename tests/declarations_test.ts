/**
 * Every command's declaration is complete and honest: each node has a summary and examples,
 * every example parses against the declaration it documents, every leaf has a loadable result
 * schema and handler, and --help renders. Adding a command adds it to this test.
 */

import assert from "node:assert/strict";
import { z } from "zod";
import { commands, DECLARATIONS } from "../commands/index.ts";
import { type CommandNode, isGroup } from "../core/declaration.ts";
import { parseArgs } from "../core/flags.ts";
import { tokenize } from "../core/grammar.ts";
import { renderHelp } from "../core/help.ts";
import { Registry } from "../core/registry.ts";

function* nodes(path: string[], node: CommandNode): Generator<{ path: string[]; node: CommandNode }> {
  yield { path, node };
  if (isGroup(node)) { for (const sub of node.subcommands) yield* nodes([...path, sub.name], sub); }
}

const registry = new Registry(commands);

for (const name of Object.keys(commands)) {
  Deno.test(`declaration of ${name}`, async (t) => {
    const spec = await registry.load(name);
    assert.equal(spec.name, name);
    assert.ok(["ready", "help-first"].includes(spec.zone));
    if (spec.config) assert.ok((await spec.config()) instanceof z.ZodType, "config schema is zod");
    for (const { path, node } of nodes([name], spec)) {
      await t.step(path.join(" "), async () => {
        assert.ok(node.summary.length > 10, "summary");
        assert.ok(node.examples.length >= 1, "at least one example");
        const help = renderHelp(path, node);
        assert.match(help.text, /Examples:/);
        for (const example of node.examples) {
          const words = tokenize(example.command);
          const resolution = await registry.resolve(words);
          if (resolution.kind === "help") continue;
          assert.ok(
            resolution.path.join(" ").startsWith(path.join(" ")),
            `example \`${example.command}\` belongs to ${path.join(" ")}`,
          );
          const parsed = parseArgs(resolution.path.join(" "), resolution.leaf, resolution.rest);
          assert.ok(parsed, example.command);
        }
        if (!isGroup(node)) {
          assert.ok((await node.result()) instanceof z.ZodType, "result schema is zod");
          const handlerModule = await import(node.handler.module);
          assert.equal(typeof handlerModule[node.handler.export], "function", "handler loads");
          const flagNames = (node.flags ?? []).map((f) => f.name);
          assert.equal(new Set(flagNames).size, flagNames.length, "flag names are unique");
          const shorts = (node.flags ?? []).flatMap((f) => (f.short ? [f.short] : []));
          assert.equal(new Set(shorts).size, shorts.length, "short flags are unique");
          for (const flag of node.flags ?? []) {
            assert.ok(flag.description.length > 3, `--${flag.name} has a description`);
          }
          // A refused flag must not shadow a flag the leaf takes (the parser checks refusals first).
          const words = new Set((node.flags ?? []).flatMap((f) => [
            `--${f.name}`,
            ...(f.aliases ?? []).map((a) => `--${a}`),
            ...(f.short ? [`-${f.short}`] : []),
          ]));
          for (const refused of Object.keys(node.refusedFlags ?? {})) {
            assert.ok(!words.has(refused), `${refused} is both refused and declared`);
          }
        }
      });
    }
  });
}

Deno.test("declarations stay cheap to import: no npm package and no literal import() in spec.ts", async () => {
  // A literal `import("./handler.ts")` puts the handler and its npm packages into the module graph
  // Deno builds before `pterm exec` runs anything (see core/lazy.ts and bench/startup.ts).
  for (const declaration of Object.values(DECLARATIONS)) {
    // The declaration's module and the modules of its own folder it imports (commands/files/declare.ts).
    const modules = [new URL(declaration.module)];
    for (let i = 0; i < modules.length; i++) {
      const file = modules[i].pathname.split("/commands/")[1];
      const source = await Deno.readTextFile(modules[i]);
      assert.doesNotMatch(
        source,
        /(?<!typeof\s*)\bimport\(\s*["'`]/,
        `commands/${file}: load lazily with lazyImport(new URL(...))`,
      );
      for (const match of source.matchAll(/^import\s+(?!type\b)[^;]*?from\s+["']([^"']+)["']/gm)) {
        assert.ok(match[1].startsWith("."), `commands/${file} imports ${match[1]} at start-up; import it lazily`);
        if (match[1].startsWith("./")) modules.push(new URL(match[1], modules[i]));
      }
    }
  }
});
