/**
 * A bounded-time fuzz of every command's flags and positionals with hostile values: whatever an
 * agent types, the answer is an envelope with a precise code, never `Internal`, and nothing outside
 * the root changes. The command list, flags and positionals come from the registry, so a new
 * command or flag is fuzzed without editing this file. The workspace holds a repository made by the
 * real `git`, a real PDF, a symlink leading outside, secrets and a file where a folder is expected.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import fc from "fast-check";
import { commands } from "../../commands/index.ts";
import { isGroup } from "../../core/declaration.ts";
import type { CommandNode, FlagSpec, LeafSpec } from "../../core/declaration.ts";
import { quoteWord } from "../../core/grammar.ts";
import { Registry } from "../../core/registry.ts";
import { exec, makeRoot } from "../_support/helpers.ts";

/** Fuzzing time per command leaf; the whole file stays within a couple of minutes on 2 cores. */
const MS_PER_LEAF = 4_000;
const RUNS_PER_LEAF = 40;

function leavesOf(node: CommandNode, path: string[]): { path: string[]; leaf: LeafSpec }[] {
  if (!isGroup(node)) return [{ path, leaf: node }];
  return node.subcommands.flatMap((child) => leavesOf(child, [...path, child.name]));
}

/** Values an attacker (or a confused model) would try in any flag. */
const HOSTILE_STRINGS = [
  "",
  ".",
  "..",
  "../x",
  "a/../../x",
  "/etc/passwd",
  "C:\\Windows\\win.ini",
  "\\\\server\\share",
  "~",
  "proj/.git",
  "proj/.git/config",
  "proj/.GIT./hooks/pre-commit",
  "proj/GIT~1/config",
  "proj/.g\u200cit/config",
  "secrets/token",
  ".env",
  "proj/.env.local",
  "audit/x.json",
  "artifacts",
  "pterm.json",
  "escape/x",
  "dangling/x",
  "file.txt/x",
  "file.txt",
  "report.pdf",
  "proj",
  "-",
  "--",
  "--help",
  "-1",
  "0",
  "1e309",
  "NaN",
  "9007199254740993",
  "refs/../../../secrets/token",
  "HEAD~99999",
  "@{-1}",
  "a\x1b[2Jb",
  "\x07\x08\x7f\x9b",
  "'",
  '"',
  "$(id)",
  "`id`",
  "a;b|c&d",
  "*",
  "x".repeat(300),
  "é".repeat(200),
  "\u{1F600}",
  "\uFEFF",
  "a\tb",
];

const hostileString = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme-composite", maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 20 }) },
);

function flagArbitrary(flag: FlagSpec): fc.Arbitrary<string[]> {
  const name = `--${flag.name}`;
  // Mostly well-formed where the grammar of the flag is strict, so the line reaches the command.
  if (flag.type === "boolean") {
    return fc.oneof({ weight: 8, arbitrary: fc.constant<string[]>([name]) }, fc.constant<string[]>([`${name}=nope`]));
  }
  const value = flag.type === "number"
    ? fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min: -2, max: 100_000 }).map(String) },
      fc.constantFrom("0", "1e309", "-1", "9007199254740993", "NaN", "1.5"),
      hostileString,
    )
    : flag.choices
    ? fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...flag.choices) }, hostileString)
    : hostileString;
  return value.map((v) => [name, v]);
}

function lineArbitrary(path: string[], leaf: LeafSpec): fc.Arbitrary<string> {
  // Required flags are (nearly) always there and optional ones often, so most lines get past
  // parsing into the command's own code, where an Internal would hide.
  const flags = (leaf.flags ?? []).map((flag) =>
    flag.required ? fc.option(flagArbitrary(flag), { freq: 20 }) : fc.option(flagArbitrary(flag), { freq: 2 })
  );
  const positionals = fc.array(hostileString, { maxLength: leaf.positionals?.length ?? 0 });
  const extra = fc.oneof({ weight: 8, arbitrary: fc.constant(null) }, hostileString);
  return fc.tuple(fc.tuple(...flags), positionals, extra).map(([chosen, given, stray]) => {
    const words = [...chosen.flatMap((w) => w ?? []), ...given, ...(stray === null ? [] : [stray])];
    return [...path, ...words].map(quoteWord).join(" ");
  });
}

const hostileStdin = fc.oneof(
  fc.constant('=== file.write: ".git/config" ===\n[core]\n\tfsmonitor = x\n=== end ===\n=== PATCH EOF ===\n'),
  fc.constant('=== file.write: "../escape.txt" ===\nx\n=== end ===\n=== PATCH EOF ===\n'),
  fc.constant("=== git.diff ===\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n=== end ===\n=== PATCH EOF ===\n"),
  fc.string({ maxLength: 200 }),
);

async function git(cwd: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("git", { args, cwd, stdout: "null", stderr: "piped" }).output();
  if (!out.success) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
}

async function snapshot(dir: string): Promise<string> {
  const entries: string[] = [];
  const walk = async (at: string) => {
    for await (const entry of Deno.readDir(at)) {
      const path = join(at, entry.name);
      const info = await Deno.lstat(path);
      entries.push(`${path} ${info.size} ${info.mtime?.getTime()}`);
      if (entry.isDirectory) await walk(path);
    }
  };
  await walk(dir);
  return entries.sort().join("\n");
}

Deno.test("fuzz: no hostile flag value of any command reaches Internal or leaves the root", async (t) => {
  await using dir = await makeRoot();
  await using outside = await makeRoot("pterm-outside-");
  await Deno.writeTextFile(join(outside.path, "keep.txt"), "outside\n");
  await git(dir.path, "init", "-q", "proj");
  await git(dir.path, "-C", "proj", "config", "user.email", "a@example.com");
  await git(dir.path, "-C", "proj", "config", "user.name", "A");
  await Deno.writeTextFile(join(dir.path, "proj/readme.md"), "hello\n");
  await git(dir.path, "-C", "proj", "add", ".");
  await git(dir.path, "-C", "proj", "commit", "-qm", "init");
  await Deno.writeTextFile(join(dir.path, "file.txt"), "a file\n");
  await Deno.copyFile(new URL("../fixtures/doc/report.pdf", import.meta.url), join(dir.path, "report.pdf"));
  await Deno.symlink(outside.path, join(dir.path, "escape"));
  await Deno.symlink(join(outside.path, "missing"), join(dir.path, "dangling"));
  await Deno.mkdir(join(dir.path, "secrets"));
  await Deno.writeTextFile(join(dir.path, "secrets/token"), "0123456789abcdef0123456789abcdef01234567\n");
  const before = await snapshot(outside.path);
  const gitConfig = await Deno.readTextFile(join(dir.path, "proj/.git/config"));

  const registry = new Registry(commands);
  const findings: string[] = [];
  const codes = new Map<string, number>();
  for (const spec of await registry.loadAll()) {
    for (const { path, leaf } of leavesOf(spec, [spec.name])) {
      await t.step(path.join(" "), async () => {
        await fc.assert(
          fc.asyncProperty(lineArbitrary(path, leaf), hostileStdin, async (line, stdin) => {
            const envelope = await exec(dir.path, line, { stdin, timeoutMs: 5_000 });
            const code = envelope.error_code ?? "ok";
            codes.set(code, (codes.get(code) ?? 0) + 1);
            if (envelope.error_code === "Internal") {
              findings.push(`${line}\n  ${envelope.stderr.split("\n")[0]}`);
              return false;
            }
            return true;
          }),
          { numRuns: RUNS_PER_LEAF, interruptAfterTimeLimit: MS_PER_LEAF, markInterruptAsFailure: false, seed: 11 },
        );
      });
    }
  }
  // The fuzz is worth something only if most lines get past parsing into command code.
  const total = [...codes.values()].reduce((a, b) => a + b, 0);
  const parsedOut = ["InvalidArgs", "InvalidCommandLine", "UnknownCommand"].reduce(
    (n, c) => n + (codes.get(c) ?? 0),
    0,
  );
  assert.ok(total - parsedOut >= total * 0.4, `only ${total - parsedOut} of ${total} lines reached a command`);
  assert.equal(await snapshot(outside.path), before, "nothing outside the root changed");
  assert.equal(await Deno.readTextFile(join(dir.path, "proj/.git/config")), gitConfig, ".git/config untouched");
  assert.deepEqual(findings, []);
});
