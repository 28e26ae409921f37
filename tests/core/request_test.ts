import assert from "node:assert/strict";
import fc from "fast-check";
import { requestSchema } from "../../core/envelope_schema.ts";
import { parseRequest } from "../../core/request.ts";

function handAccepts(value: unknown): boolean {
  try {
    parseRequest(value);
    return true;
  } catch {
    return false;
  }
}

Deno.test("property: the hand-written request check accepts exactly what the published zod schema accepts", () => {
  const field = fc.oneof(
    fc.string(),
    fc.constant(""),
    fc.integer(),
    fc.double(),
    fc.constant(Number.MAX_SAFE_INTEGER + 2),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.array(fc.string(), { maxLength: 2 }),
  );
  const request = fc.record(
    { command: field, stdin: field, timeout_ms: field, extra: field },
    { requiredKeys: [] },
  );
  fc.assert(
    fc.property(fc.oneof(request, field), (value) => {
      assert.equal(handAccepts(value), requestSchema.safeParse(value).success, JSON.stringify(value));
    }),
    { numRuns: 5000 },
  );
});

Deno.test("parseRequest keeps exactly the given fields", () => {
  assert.deepEqual(parseRequest({ command: "hello" }), { command: "hello" });
  assert.deepEqual(parseRequest({ command: "x", stdin: "", timeout_ms: 5 }), {
    command: "x",
    stdin: "",
    timeout_ms: 5,
  });
});

Deno.test("a strict-mode call's nulls mean not given: the same request as leaving them out", () => {
  assert.deepEqual(parseRequest({ command: "hello", stdin: null, timeout_ms: null }), { command: "hello" });
  assert.deepEqual(parseRequest({ command: "x", stdin: "text", timeout_ms: null }), { command: "x", stdin: "text" });
  assert.throws(() => parseRequest({ command: null }), /`command` must be a non-empty string/);
});
