import assert from "node:assert/strict";
import type { LeafSpec } from "../../core/declaration.ts";
import { PtermError } from "../../core/errors.ts";
import { parseArgs } from "../../core/flags.ts";

const commit: LeafSpec = {
  name: "commit",
  summary: "commit",
  examples: [],
  capabilities: [],
  result: () => Promise.resolve(null),
  handler: { module: "file:///unused.ts", export: "unused" },
  flags: [
    { name: "repo", type: "string", required: true, description: "repository", path: "write" },
    { name: "message", short: "m", type: "string", required: true, description: "message" },
    { name: "allow-empty", type: "boolean", description: "allow an empty commit" },
    { name: "max", type: "number", min: 1, max: 100, default: 10, description: "count" },
    { name: "path", type: "string", repeatable: true, description: "paths" },
    { name: "mode", type: "string", choices: ["soft", "mixed", "hard"], description: "mode" },
  ],
  positionals: [{ name: "ref", description: "a ref" }],
};

function parse(words: string[]) {
  const outcome = parseArgs("git commit", commit, words);
  if (outcome.help) throw new Error("unexpected help");
  return outcome.args;
}

function failure(words: string[]): string {
  try {
    parseArgs("git commit", commit, words);
  } catch (error) {
    assert.ok(error instanceof PtermError);
    assert.equal(error.code, "InvalidArgs");
    assert.equal(error.helpFor, "git commit");
    return error.message;
  }
  throw new Error(`accepted ${words.join(" ")}`);
}

Deno.test("parseArgs reads flags in every accepted form", async (t) => {
  await t.step("--flag value, --flag=value, -m value, switches and defaults", () => {
    const args = parse(["--repo", "proj", "-m", "hello world", "--allow-empty", "--path=a", "--path", "b"]);
    assert.deepEqual(args.flags, {
      repo: "proj",
      message: "hello world",
      "allow-empty": true,
      max: 10,
      path: ["a", "b"],
    });
    assert.deepEqual(args.positionals, {});
  });
  await t.step("numbers, choices and a positional", () => {
    const args = parse(["--repo=p", "--message=x", "--max", "42", "--mode", "hard", "HEAD~1"]);
    assert.equal(args.flags.max, 42);
    assert.equal(args.flags.mode, "hard");
    assert.equal(args.positionals.ref, "HEAD~1");
    assert.deepEqual(args.flags.path, []);
  });
  await t.step("a value may start with a dash when it is not a flag", () => {
    assert.equal(parse(["--repo", "p", "--message", "-x-"]).flags.message, "-x-");
  });
  await t.step("-- ends the flags", () => {
    assert.equal(parse(["--repo", "p", "-m", "x", "--", "--help"]).positionals.ref, "--help");
  });
  await t.step("--help anywhere before -- asks for help", () => {
    assert.deepEqual(parseArgs("git commit", commit, ["--repo", "p", "--help"]), { help: true });
    assert.deepEqual(parseArgs("git commit", commit, ["-h"]), { help: true });
  });
});

Deno.test("parseArgs refuses with a message that says what to do", async (t) => {
  await t.step("unknown flag suggests the close one", () => {
    assert.match(failure(["--repo", "p", "--mesage", "x"]), /unknown flag --mesage\. Did you mean --message\?/);
  });
  await t.step("unknown flag with nothing close lists the flags", () => {
    assert.match(failure(["--repo", "p", "-m", "x", "--zzzzzz"]), /Its flags: --repo, --message/);
  });
  await t.step("missing required flag names it and its meaning", () => {
    assert.match(failure(["-m", "x"]), /missing --repo <string> \(repository\)/);
  });
  await t.step("missing value", () => {
    assert.match(failure(["--repo", "p", "--message"]), /--message <string> needs a value/);
  });
  await t.step("a flag where a value belongs", () => {
    assert.match(failure(["--repo", "p", "--message", "--allow-empty"]), /write --message=--allow-empty/);
  });
  await t.step("repeated single flag", () => {
    assert.match(failure(["--repo", "p", "--repo", "q", "-m", "x"]), /--repo was given twice/);
  });
  await t.step("numbers: not a number, out of range", () => {
    assert.match(failure(["--repo", "p", "-m", "x", "--max", "ten"]), /takes a whole number, not `ten`/);
    assert.match(failure(["--repo", "p", "-m", "x", "--max", "0"]), /at least 1/);
    assert.match(failure(["--repo", "p", "-m", "x", "--max", "101"]), /at most 100/);
    assert.match(failure(["--repo", "p", "-m", "x", "--max", "1.5"]), /whole number/);
  });
  await t.step("choices", () => {
    assert.match(
      failure(["--repo", "p", "-m", "x", "--mode", "herd"]),
      /one of soft, mixed, hard, not `herd`\. Did you mean hard\?/,
    );
  });
  await t.step("switch given a value", () => {
    assert.match(failure(["--repo", "p", "-m", "x", "--allow-empty=yes"]), /is a switch/);
  });
  await t.step("extra positional", () => {
    assert.match(failure(["--repo", "p", "-m", "x", "HEAD", "extra"]), /unexpected argument `extra`/);
  });
  await t.step("a single-dash long flag suggests the double-dash form", () => {
    assert.match(failure(["--repo", "p", "-message", "x"]), /Did you mean --message\?/);
  });
});
