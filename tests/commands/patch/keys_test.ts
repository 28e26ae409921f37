import assert from "node:assert/strict";
import { closestLines, locate, locateEnd, parseKeys, wholeDoc } from "../../../commands/patch/keys.ts";
import { TextDoc } from "../../../commands/patch/text.ts";

const doc = TextDoc.fromText(
  [
    "def login(user):", // 1
    "    timeout = 30", // 2
    "    retries = 3", // 3
    "    return check(user, timeout)", // 4
    "", // 5
    "def logout(user):", // 6
    "    TIMEOUT = 5", // 7
    "    return drop(user)", // 8
  ].join("\n") + "\n",
);

function line(n: number) {
  return n - 1;
}

Deno.test("keys split on |, comma and newlines, trimmed, lower-cased, blanks dropped", () => {
  assert.deepEqual(parseKeys("Foo|bar, Baz\n  qux  \n|,"), ["foo", "bar", "baz", "qux"]);
});

Deno.test("rule 1: a single key matching exactly one line wins (case and indentation ignored)", () => {
  assert.deepEqual(locate(doc, wholeDoc(doc), parseKeys("RETRIES = 3")), {
    kind: "unique",
    line: line(3),
    rule: "single-key",
  });
  // `timeout` hits 3 lines, `retries` one: the alternative that is unique decides.
  assert.deepEqual(locate(doc, wholeDoc(doc), parseKeys("timeout|retries")), {
    kind: "unique",
    line: line(3),
    rule: "single-key",
  });
});

Deno.test("rule 2: a pair of keys on one line decides when no single key is unique", () => {
  assert.deepEqual(locate(doc, wholeDoc(doc), parseKeys("timeout, return")), {
    kind: "unique",
    line: line(4),
    rule: "key-pair",
  });
});

Deno.test("rule 3: all keys on one line decide when no pair is unique", () => {
  const d = TextDoc.fromText("a b c\na b x\na y c\nz b c\n");
  assert.deepEqual(locate(d, wholeDoc(d), ["a", "b", "c"]), { kind: "unique", line: 0, rule: "all-keys" });
});

Deno.test("two keys that each hit one line, but different lines, are ambiguous, not a guess", () => {
  const found = locate(doc, wholeDoc(doc), parseKeys("retries|drop"));
  assert.deepEqual(found, { kind: "many", lines: [line(3), line(8)] });
});

Deno.test("several matches list the lines nthl counts in; no match says none", () => {
  assert.deepEqual(locate(doc, wholeDoc(doc), ["timeout"]), { kind: "many", lines: [line(2), line(4), line(7)] });
  assert.deepEqual(locate(doc, wholeDoc(doc), ["nothing here"]), { kind: "none" });
});

Deno.test("matching stays inside the scope", () => {
  const scope = { first: line(6), last: line(8) };
  assert.deepEqual(locate(doc, scope, ["timeout"]), { kind: "unique", line: line(7), rule: "single-key" });
  const end = (after: number, raw: string) => locateEnd(doc, after, doc.length - 1, raw);
  assert.deepEqual(end(line(1), "return"), { kind: "unique", line: line(4), rule: "first-hit" });
  assert.deepEqual(end(line(4), "return"), { kind: "unique", line: line(8), rule: "first-hit" });
  assert.deepEqual(end(line(8), "return"), { kind: "none" });
});

Deno.test("closest lines rank the near miss first", () => {
  const closest = closestLines(doc, wholeDoc(doc), ["timeout = 31"]);
  assert.equal(closest[0].line, 2);
  assert.ok(closest[0].similarity > 0.6, JSON.stringify(closest));
});

Deno.test("end-keys: the whole line as written wins over its comma-split fragments", () => {
  const end = (after: number, raw: string) => locateEnd(doc, after, doc.length - 1, raw);
  // Split on its comma, `timeout)` would do too; the whole text occurs (line 4) and decides.
  assert.deepEqual(end(line(1), "return check(user, timeout)"), { kind: "unique", line: line(4), rule: "whole-line" });
  // Fragments that agree on one line are fine; fragments that disagree are listed, never guessed.
  assert.deepEqual(end(line(1), "return check(user, retries = 3"), {
    kind: "many",
    candidates: [{ line: line(3), keys: ["retries = 3"] }, { line: line(4), keys: ["return check(user"] }],
  });
});
