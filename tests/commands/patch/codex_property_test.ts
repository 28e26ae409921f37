/**
 * Property: a codex patch made from any set of non-overlapping edits of a file (lines replaced,
 * removed or added, with the context an agent copies around them, in a file with or without a
 * final line break, LF or CRLF) turns into XGit blocks that the patch engine applies to exactly
 * the edited text — every chunk where it belongs, none lost (a lost chunk was a bug found by
 * comparing with the real apply_patch, see scripts/codex_differential.ts).
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { createWorkspace } from "../../../core/context.ts";
import { codexToXGit, parseCodexPatch } from "../../../commands/patch/codex.ts";
import { runPatch } from "../../../commands/patch/engine.ts";
import { makeRoot } from "../../_support/helpers.ts";

interface Edit {
  readonly gap: number;
  readonly removed: number;
  readonly added: number;
}

const fileArb = fc.record({
  length: fc.integer({ min: 1, max: 30 }),
  finalNewline: fc.boolean(),
  crlf: fc.boolean(),
  edits: fc.array(
    fc.record({
      gap: fc.integer({ min: 0, max: 6 }),
      removed: fc.integer({ min: 0, max: 3 }),
      added: fc.integer({ min: 0, max: 3 }),
    }),
    { minLength: 1, maxLength: 5 },
  ),
  context: fc.integer({ min: 0, max: 3 }),
});

let runs = 0;

Deno.test("codex chunks from random non-overlapping edits apply to exactly the edited text", async () => {
  await using dir = await makeRoot();
  await fc.assert(
    fc.asyncProperty(fileArb, async ({ length, finalNewline, crlf, edits, context }) => {
      const eol = crlf ? "\r\n" : "\n";
      const lines = Array.from({ length }, (_, i) => `line ${i + 1}`);
      const text = lines.join(eol) + (finalNewline ? eol : "");
      // Lay the edits out from the top; each keeps `gap` untouched lines after the previous one.
      const expected: string[] = [];
      const chunks: string[] = [];
      let at = 0;
      let made = 0;
      for (const [k, edit] of (edits as Edit[]).entries()) {
        const start = at + edit.gap;
        const removed = Math.min(edit.removed, length - start);
        if (start > length || (removed === 0 && edit.added === 0)) break;
        const before = lines.slice(Math.max(at, start - context), start);
        if (removed === 0 && before.length === 0) break; // nothing to find it by
        const added = Array.from({ length: edit.added }, (_, j) => `new ${k}.${j}`);
        expected.push(...lines.slice(at, start), ...added);
        chunks.push(
          "@@",
          ...before.map((l) => ` ${l}`),
          ...lines.slice(start, start + removed).map((l) => `-${l}`),
          ...added.map((l) => `+${l}`),
        );
        at = start + removed;
        made++;
      }
      if (made === 0) return;
      expected.push(...lines.slice(at));
      // A file with no line break at all has no style to keep: it gets LF.
      const kept = text.includes("\r\n") ? "\r\n" : "\n";
      const want = expected.length ? expected.join(kept) + kept : "";

      const path = `f${runs}.txt`;
      await Deno.writeTextFile(`${dir.path}/${path}`, text);
      const patch = ["*** Begin Patch", `*** Update File: ${path}`, ...chunks, "*** End Patch"].join("\n");
      const conversion = await codexToXGit(parseCodexPatch(patch), () => Promise.resolve(text));
      assert.deepEqual(conversion.problems, [], patch);
      await runPatch({
        mode: "apply",
        command: "patch apply",
        text: conversion.text,
        workspace: createWorkspace(dir.path),
        noCommit: false,
        config: {},
        session: { id: "prop", dir: `${dir.path}/sessions/prop` },
        runId: `run-${runs++}`,
        signal: new AbortController().signal,
        git: null,
        durable: false,
      });
      assert.equal(await Deno.readTextFile(`${dir.path}/${path}`), want, `${JSON.stringify(text)}\n${patch}`);
    }),
    { numRuns: 300 },
  );
});
