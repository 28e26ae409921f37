import assert from "node:assert/strict";
import fc from "fast-check";
import { boundText, TRUNCATION_MARKER, utf8Length } from "../../core/truncate.ts";

Deno.test("property: boundText fits the bound, keeps head and tail, never splits a character", () => {
  fc.assert(
    fc.property(fc.string({ unit: "grapheme", maxLength: 400 }), fc.integer({ min: 0, max: 300 }), (text, max) => {
      const { text: out, truncated } = boundText(text, max);
      if (utf8Length(text) <= max) {
        assert.equal(out, text);
        assert.equal(truncated, false);
        return;
      }
      assert.equal(truncated, true);
      assert.ok(utf8Length(out) <= max, `${utf8Length(out)} > ${max}`);
      assert.ok(!out.includes("\uFFFD") || text.includes("\uFFFD"), "no broken UTF-8");
      if (max >= 40) {
        const [head, tail] = out.split(`\n${TRUNCATION_MARKER}\n`);
        assert.ok(text.startsWith(head));
        assert.ok(text.endsWith(tail));
      }
    }),
    { numRuns: 3000 },
  );
});
