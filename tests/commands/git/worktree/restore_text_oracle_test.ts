/**
 * What `git checkout [<rev>] <paths>` and `git restore` print, against real git in twin
 * repositories: checkout says `Updated N paths from the index` (or from the source's tree) on
 * stderr, counting the files it wrote, and says nothing when the paths follow `--` or with -q;
 * restore says nothing. The state after each line is the same as git's.
 */

import assert from "node:assert/strict";
import { gitRaw, ptermTry } from "../oracle.ts";
import { Twin } from "../twin.ts";

Deno.test("checkout <paths> and restore print what git prints, and leave what git leaves", async () => {
  await using twin = await Twin.create();
  await twin.write("a.txt", "a1\n");
  await twin.write("b.txt", "b1\n");
  await twin.run("git add --repo R -A", ["add", "-A"]);
  await twin.run("git commit --repo R -m one", ["commit", "-q", "-m", "one"]);
  await twin.write("a.txt", "a2\n");
  await twin.write("b.txt", "b2\n");
  await twin.run("git commit --repo R -a -m two", ["commit", "-q", "-a", "-m", "two"]);
  const lines: readonly string[][] = [
    ["checkout", "HEAD~1", "a.txt", "b.txt"],
    ["checkout", "HEAD~1", "a.txt", "b.txt"],
    ["checkout", "HEAD", "a.txt"],
    ["checkout", "b.txt"],
    ["checkout", "HEAD", "--", "b.txt"],
    ["checkout", "-q", "HEAD~1", "a.txt"],
    ["restore", "a.txt"],
    ["restore", "--staged", "a.txt"],
    ["restore", "a.txt"],
    ["restore", "--source", "HEAD~1", "b.txt"],
  ];
  for (const args of lines) {
    if (args[0] === "checkout" && args.includes("b.txt") && !args.includes("HEAD~1")) {
      await twin.write("b.txt", "dirty\n");
    }
    const line = `git ${args[0]} --repo p ${args.slice(1).join(" ")}`;
    const envelope = await ptermTry(twin.root.path, line);
    const real = await gitRaw(twin.g, args);
    assert.equal(envelope.exit_code, real.code, `${line}: ${envelope.stderr}`);
    assert.equal(envelope.stdout, real.stdout, `${line}: stdout`);
    assert.equal(envelope.stderr, real.stderr, `${line}: stderr`);
    await twin.compare(line);
  }
});
