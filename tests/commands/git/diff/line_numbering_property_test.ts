/**
 * Blame's LineNumbering (commands/git/diff/line_diff.ts): a version numbered with a version it
 * shares bytes with (`like`, whose common lines at the start and the end are moved, not hashed)
 * is the version numbered alone — the same lines, the same hashes, the same numbers — on random
 * chains of versions that edit, insert and delete lines, change bytes inside a line, drop or add
 * the final newline, and mix ASCII with UTF-8 and Latin-1 bytes, in arrays that start and end
 * on a word of memory and views that do not.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { LineNumbering, type NumberedVersion } from "../../../../commands/git/diff/line_diff.ts";

const POOL = ["a", "b", "x = 1;", "", "}", "  indented", "caf\xc3\xa9", "\xe9t\xe9", "a\r", "b b b b b b b b"];

const bytesOf = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));

/** The text's bytes `shift` bytes into a larger buffer (a view that does not start or end on a word). */
const bytesAt = (text: string, shift: number) => {
  const buffer = new Uint8Array(text.length + shift + 3).fill(0x0a);
  buffer.set(bytesOf(text), shift);
  return buffer.subarray(shift, shift + text.length);
};

/** A file: lines from the pool joined by newlines, with or without a final one. */
const file = fc.record({
  lines: fc.array(fc.constantFrom(...POOL), { maxLength: 30 }),
  final: fc.boolean(),
}).map(({ lines, final }) => lines.join("\n") + (final && lines.length ? "\n" : ""));

/** An edit of a file's text: replace a random span by random pool text (a byte, a line, several). */
const edit = fc.record({
  at: fc.nat(),
  cut: fc.nat({ max: 20 }),
  insert: fc.array(fc.constantFrom(...POOL, "\n", "z"), { maxLength: 6 }).map((parts) => parts.join("")),
});

function plain(version: NumberedVersion) {
  const { lines, ids } = version;
  return {
    starts: [...lines.starts.subarray(0, lines.count + 1)],
    hashes: [...lines.hashes.subarray(0, lines.count)],
    count: lines.count,
    ascii: lines.ascii,
    ids: [...ids],
  };
}

Deno.test("property: a version numbered like another is the version numbered alone (lines, hashes, numbers)", () => {
  fc.assert(
    fc.property(
      file,
      fc.array(edit, { minLength: 1, maxLength: 12 }),
      fc.array(fc.nat(), { maxLength: 12 }),
      fc.array(fc.nat({ max: 7 }), { maxLength: 13 }),
      (start, edits, picks, shifts) => {
        const hinted = new LineNumbering();
        const alone = new LineNumbering();
        const texts = [start];
        for (const e of edits) {
          const last = texts[texts.length - 1];
          const at = e.at % (last.length + 1);
          texts.push(last.slice(0, at) + e.insert + last.slice(at + e.cut));
        }
        const versions: NumberedVersion[] = [];
        texts.forEach((text, i) => {
          // Fresh arrays start on a word; a view into a larger buffer (a work tree's file) may not.
          const bytes = bytesAt(text, shifts[i] ?? 0);
          // Each version like the one before it, or like an earlier one the picks name (blame's parents differ).
          const like = i === 0 ? undefined : versions[(picks[i - 1] ?? i - 1) % i];
          const withLike = hinted.version(bytes, like);
          const numbered = alone.version(bytes);
          assert.deepEqual(plain(withLike), plain(numbered), `version ${i}: ${JSON.stringify(text)}`);
          versions.push(withLike);
        });
      },
    ),
    { numRuns: 800 },
  );
});

Deno.test("a version numbered like an identical one, an empty one, or one with no newline at all is numbered as alone", () => {
  const cases: [string, string][] = [
    ["a\nb\n", "a\nb\n"],
    ["a\nb", "a\nb"],
    ["", "a\n"],
    ["a\n", ""],
    ["abc", "abd"],
    ["b\n", "a\nb\n"],
    ["a\nb\n", "a\nb"],
    ["a\nb", "a\nb\n"],
    ["x\ny\nz\n", "x\nq\nz\n"],
  ];
  for (const [before, after] of cases) {
    const hinted = new LineNumbering();
    const alone = new LineNumbering();
    const like = hinted.version(bytesOf(before));
    alone.version(bytesOf(before));
    assert.deepEqual(
      plain(hinted.version(bytesOf(after), like)),
      plain(alone.version(bytesOf(after))),
      `${JSON.stringify(before)} → ${JSON.stringify(after)}`,
    );
  }
});
