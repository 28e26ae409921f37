/**
 * `help --search <word>`: every command, subcommand and
 * flag whose name, summary, description or example mentions the word, each with its one-line
 * usage, through the real kernel and the real declarations; and it is in Zone A of the prompt.
 */

import assert from "node:assert/strict";
import { commands } from "../../commands/index.ts";
import { renderPrompt } from "../../core/agent_surface.ts";
import { isGroup } from "../../core/declaration.ts";
import { leafUsage } from "../../core/help.ts";
import { Registry } from "../../core/registry.ts";
import { exec, makeRoot } from "../_support/helpers.ts";

type HelpResult = {
  command: string;
  help: { usage: string[]; subcommands: { name: string }[]; flags: { name: string }[] };
};

Deno.test("help --search lists what mentions the word, each with the usage its declaration gives", async () => {
  await using dir = await makeRoot();
  const registry = new Registry(commands);
  const git = await registry.load("git");
  assert.ok(isGroup(git));
  const tag = git.subcommands.find((s) => s.name === "tag")!;
  assert.ok(!isGroup(tag));

  const envelope = await exec(dir.path, "help --search tag");
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  const result = envelope.result as HelpResult;
  assert.equal(result.command, "help");
  assert.ok(result.help.usage.includes(leafUsage(["git", "tag"], tag)), result.help.usage.join("\n"));
  assert.ok(envelope.stdout.includes(leafUsage(["git", "tag"], tag)));
  assert.ok(result.help.subcommands.some((s) => s.name === "patch apply"), "git.tag blocks are in patch's help");

  const flag = await exec(dir.path, "help --search output");
  assert.match(flag.stdout, /^doc extract /m);
  assert.match(flag.stdout, /-o, --out: /);
  assert.ok((flag.result as HelpResult).help.flags.some((f) => f.name === "doc extract --out"));

  const words = await exec(dir.path, 'help --search "default channel"');
  assert.match(words.stdout, /^irc send /m);
  assert.doesNotMatch(words.stdout, /^doc /m, "every word must match");
  const attached = await exec(dir.path, "help --search=CHANNEL");
  assert.match(attached.stdout, /^irc send /m, "case is ignored; --search=WORD works");
});

Deno.test("help --search with no hit says so and lists the commands; without a word it is a usage error", async () => {
  await using dir = await makeRoot();
  const none = await exec(dir.path, "help --search frobnicate");
  assert.equal(none.exit_code, 0);
  assert.match(none.stdout, /Nothing matches "frobnicate"\. The commands are: ([a-z]+, )*help, /);
  const missing = await exec(dir.path, "help --search");
  assert.equal(missing.error_code, "InvalidArgs");
  assert.match(missing.stderr, /help --search commit/);
  // Seed 001's spelling, and a word that is no command name, search as well.
  const seed = await exec(dir.path, "help search commit");
  assert.equal(seed.exit_code, 0);
  assert.match(seed.stdout, /^Matches for "commit"/);
  assert.match(seed.stdout, /^git commit /m);
  const word = await exec(dir.path, "help branch");
  assert.match(word.stdout, /^git branch /m);
  const git = await exec(dir.path, "help git");
  assert.match(git.stdout, /^git — /, "a command name still shows its help");
  const list = await exec(dir.path, "help");
  assert.match(list.stdout, /help --search <word>/);
});

Deno.test("pterm prompt names help --search in Zone A", async () => {
  const prompt = renderPrompt(await new Registry(commands).loadAll());
  const zoneA = prompt.slice(prompt.indexOf("## Zone A"), prompt.indexOf("## Zone B"));
  assert.match(zoneA, /`help --search <word>`/);
});
