/** The string walk shared by redaction and the envelope's well-formed text. */

import assert from "node:assert/strict";
import fc from "fast-check";
import { mapStrings, wellFormed } from "../../core/strings.ts";

Deno.test("mapStrings: a value with nothing to change is the same value; a change copies only its way down", () => {
  fc.assert(fc.property(fc.jsonValue(), (value) => {
    assert.equal(mapStrings(value, (s) => s), value);
  }));
  const result = { files: [{ path: "caf\udce9.txt", status: "M" }, { path: "ok.txt", status: "A" }], n: 2 };
  const before = structuredClone(result);
  const out = mapStrings(result, wellFormed);
  assert.deepEqual(out, { files: [{ path: "caf\ufffd.txt", status: "M" }, { path: "ok.txt", status: "A" }], n: 2 });
  assert.deepEqual(result, before, "the value walked is not changed");
  assert.equal(out.files[1], result.files[1], "an entry with no change is the same object");
});

Deno.test("wellFormed: lone surrogates become U+FFFD, as a UTF-8 decoder shows the bytes they stand for", () => {
  fc.assert(fc.property(fc.string({ unit: "binary" }), (text) => {
    const out = wellFormed(text);
    assert.ok(out.isWellFormed());
    assert.equal(out, new TextDecoder().decode(new TextEncoder().encode(text)));
  }));
});
