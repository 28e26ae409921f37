/**
 * What agents read — the system-prompt rules, the tool definition and every `--help` — pinned
 * as snapshots, so a change to any of it shows up as a reviewable diff
 * (`deno test -A --no-check --update-snapshots tests/agent_surface_test.ts` after an intended change).
 */

import { commands } from "../commands/index.ts";
import { renderPrompt } from "../core/agent_surface.ts";
import { schemaDocument } from "../hosts/cli/schema.ts";
import { type CommandNode, isGroup } from "../core/declaration.ts";
import { renderCommandList, renderHelp } from "../core/help.ts";
import { Registry } from "../core/registry.ts";

const registry = new Registry(commands);
const specs = await registry.loadAll();

function* nodes(path: string[], node: CommandNode): Generator<{ path: string[]; node: CommandNode }> {
  yield { path, node };
  if (isGroup(node)) { for (const sub of node.subcommands) yield* nodes([...path, sub.name], sub); }
}

Deno.test("pterm prompt", async (t) => {
  await t.assertSnapshot(renderPrompt(specs));
});

Deno.test("pterm schema (OpenAI and Anthropic shapes)", async (t) => {
  await t.assertSnapshot(await schemaDocument(registry, {}));
  await t.assertSnapshot(await schemaDocument(registry, { format: "anthropic" }));
});

Deno.test("help", async (t) => {
  await t.assertSnapshot(renderCommandList(specs).text);
});

for (const spec of specs) {
  Deno.test(`${spec.name} --help, and every subcommand's`, async (t) => {
    for (const { path, node } of nodes([spec.name], spec)) {
      await t.step(path.join(" "), async (t) => {
        await t.assertSnapshot(renderHelp(path, node).text);
      });
    }
  });
}
