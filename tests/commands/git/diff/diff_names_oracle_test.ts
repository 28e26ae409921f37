/**
 * File names in `git diff` output, against the real git: names with spaces, tabs, quotes,
 * backslashes, control characters, UTF-8 and bytes that are not UTF-8 are quoted as git quotes
 * them (`"caf\351.txt"`, a tab after a name with a space on the ---/+++ lines), in the patch, the
 * rename lines, `--stat` (with git's widths, name cutting and graph scaling), `--name-only` and
 * `--name-status`. An unquoted tab or a raw byte written as U+FFFD made a patch that applies to
 * another file, or to none.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { makeRoot } from "../../../_support/helpers.ts";
import { git, gitBytes, gitInit, pterm } from "../oracle.ts";
import { concatBytes } from "../../../../core/bytes.ts";

const encoder = new TextEncoder();

/** Pieces of names: each a byte sequence (0xe9 alone is Latin-1 "é", not UTF-8). */
const NAME_PIECES: Uint8Array[] = [
  "a",
  "b",
  "src",
  "x",
  " ",
  "\t",
  '"',
  "\\",
  "é",
  "日本",
  "-",
  "_",
  "\r",
  "\x01",
  "\x7f",
].map((s) => encoder.encode(s)).concat([Uint8Array.of(0xe9), Uint8Array.of(0xff, 0x41)]);

const nameArb = fc.array(fc.constantFrom(...NAME_PIECES), { minLength: 1, maxLength: 6 }).map((pieces) => {
  const bytes = concatBytes(pieces);
  return bytes;
});

const key = (bytes: Uint8Array) => Array.from(bytes).join(",");

interface FileSpec {
  name: Uint8Array;
  lines: number;
  binary: boolean;
}

/** A commit of exactly these files, made with git's plumbing (any name bytes but NUL and /). */
async function commitOf(dir: string, files: FileSpec[], salt: number, parent?: string): Promise<string> {
  const entries: Uint8Array[] = [];
  for (const file of files) {
    const content = file.binary
      ? Uint8Array.from({ length: 20 + file.lines }, (_, i) => (i === 3 ? 0 : (i * 7 + salt) & 0xff))
      : encoder.encode(Array.from({ length: file.lines }, (_, i) => `line ${i} ${i % 5 === 0 ? salt : 0}\n`).join(""));
    const oid = new TextDecoder().decode(await gitBytes(dir, ["hash-object", "-w", "--stdin"], content)).trim();
    entries.push(encoder.encode(`100644 blob ${oid}\t`), file.name, Uint8Array.of(0));
  }
  const input = concatBytes(entries);
  const tree = new TextDecoder().decode(await gitBytes(dir, ["mktree", "-z"], input)).trim();
  const args = ["commit-tree", tree, "-m", `c${salt}`, ...(parent ? ["-p", parent] : [])];
  return (await git(dir, ...args)).trim();
}

Deno.test("git diff names: quoted as the real git quotes them in patch, --stat, --name-only, --name-status", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInit(dir);
  const fileArb = fc.record({
    name: nameArb,
    lines: fc.integer({ min: 1, max: 200 }),
    binary: fc.boolean(),
  });
  let run = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.uniqueArray(fileArb, { minLength: 1, maxLength: 6, selector: (f) => key(f.name) }),
      fc.array(fc.constantFrom("keep", "edit", "delete", "rename", "grow"), { minLength: 6, maxLength: 6 }),
      fc.array(nameArb, { minLength: 6, maxLength: 6 }),
      async (files, actions, newNames) => {
        run++;
        const before = await commitOf(dir, files, 1);
        const taken = new Set(files.map((f) => key(f.name)));
        const after: FileSpec[] = [];
        for (const [i, file] of files.entries()) {
          const action = actions[i];
          if (action === "delete") continue;
          if (action === "rename" && !taken.has(key(newNames[i]))) {
            taken.add(key(newNames[i]));
            after.push({ ...file, name: newNames[i] });
            continue;
          }
          // "edit" changes the salted lines; "grow" makes a long change for the graph's scaling.
          after.push({ ...file, lines: action === "grow" ? file.lines + 150 : file.lines });
        }
        const target = await commitOf(dir, after, actions.includes("edit") ? 2 : 1, before);
        for (const view of ["", "--stat", "--name-only", "--name-status"]) {
          const real = await git(dir, "diff", ...(view ? [view] : []), before, target);
          const envelope = await pterm(root.path, `git diff ${before} ${target} ${view} --repo r`);
          const ours = envelope.stdout;
          assert.equal(ours, real, `run ${run}, git diff ${view}`);
        }
      },
    ),
    { numRuns: 40 },
  );
});
