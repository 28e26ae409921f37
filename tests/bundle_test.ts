/**
 * main.bundle.js is what users run (`deno task pterm`) and what the process-level tests spawn;
 * these tests keep it identical to what the sources build to, and check the rewriting that lets
 * bundled code find the modules it loads lazily.
 */

import assert from "node:assert/strict";
import { buildBundle, BUNDLE, rebaseImportMeta } from "../scripts/bundle.ts";
import { PtermError } from "../core/errors.ts";

Deno.test("main.bundle.js is what the sources build to (else run `deno task bundle`)", async () => {
  const committed = await Deno.readTextFile(new URL(`../${BUNDLE}`, import.meta.url));
  const built = await buildBundle();
  assert.ok(committed === built, `${BUNDLE} is stale: run \`deno task bundle\` and commit the result.`);
});

Deno.test("the pterm task runs the bundle, with the same permissions as the compiled binary", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  assert.match(config.tasks.pterm, new RegExp(`\\s${BUNDLE.replace(".", "\\.")}$`));
  assert.ok((config.fmt.exclude as string[]).includes(BUNDLE), "deno fmt leaves the generated file alone");
  assert.ok((config.lint.exclude as string[]).includes(BUNDLE), "deno lint leaves the generated file alone");
});

Deno.test("rebaseImportMeta points import.meta.url at the module's own source, relative to the bundle", async (t) => {
  await t.step("a module in a folder", () => {
    const out = rebaseImportMeta('const x = new URL("./help.ts", import.meta.url);', "core/runtime.ts");
    assert.equal(out, 'const x = new URL("./help.ts", new URL("./core/runtime.ts", import.meta.url).href);');
    const base = new URL("file:///repo/main.bundle.js");
    const resolved = new URL("./help.ts", new URL("./core/runtime.ts", base).href).href;
    assert.equal(resolved, "file:///repo/core/help.ts");
  });
  await t.step("every occurrence", () => {
    const out = rebaseImportMeta("a(import.meta.url); b(import.meta.url);", "main.ts");
    assert.equal(out, 'a(new URL("./main.ts", import.meta.url).href); b(new URL("./main.ts", import.meta.url).href);');
  });
  await t.step("other import.meta properties are refused, naming the module", () => {
    assert.throws(
      () => rebaseImportMeta("if (import.meta.main) run();", "core/x.ts"),
      /core\/x\.ts uses import\.meta\.main/,
    );
    assert.throws(() => rebaseImportMeta("import.meta.resolve('./y.ts')", "core/x.ts"), /import\.meta\.resolve/);
  });
});

Deno.test("a PtermError is recognised across copies of core/errors.ts (the bundle has its own)", async () => {
  const copy = await import(`../core/errors.ts?copy=${crypto.randomUUID()}`) as typeof import("../core/errors.ts");
  assert.notEqual(copy.PtermError, PtermError, "a second module instance");
  const fromCopy = new copy.PtermError("InvalidConfig", "bad key");
  assert.ok(fromCopy instanceof PtermError);
  assert.ok(new PtermError("NotFound", "x") instanceof copy.PtermError);
  assert.ok(!(new Error("plain") instanceof PtermError));
  assert.ok(!({ code: "NotFound" } instanceof PtermError));
  class Narrower extends PtermError {}
  assert.ok(!(new PtermError("NotFound", "x") instanceof Narrower), "subclasses keep the ordinary check");
  assert.ok(new Narrower("NotFound", "x") instanceof Narrower);
});
