/**
 * Random trees and random spellings: every line pterm accepts prints what the real tool prints in
 * a copy of the same tree, with the same exit code (GNU coreutils, findutils, grep; ripgrep for
 * `search`; `cat -n`/`sed -n` for `read`).
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { makeRoot } from "../../_support/helpers.ts";
import { quoteWord } from "../../../core/grammar.ts";
import { compare, twin, writeTree } from "./oracle.ts";

const WORDS = ["alpha", "beta", "Gamma", "todo", "TODO", "x", "a_b", "end.", "  indented", ""];
const NAMES = ["a", "b.txt", "c.md", "Dd", "e.py", ".hid", "f-g", "h_1"];

const line = fc.array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: 4 }).map((ws) => ws.join(" "));
const content = fc.tuple(fc.array(line, { maxLength: 12 }), fc.boolean()).map(([lines, eol]) =>
  lines.length === 0 ? "" : lines.join("\n") + (eol ? "\n" : "")
);
const path = fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 3 }).map((s) => s.join("/"));
const tree = fc.dictionary(path, content, { minKeys: 1, maxKeys: 8 });

/** A tree with no path that is both a file and a folder. */
function consistent(files: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  const keys = Object.keys(files).sort((a, b) => a.length - b.length);
  for (const key of keys) {
    const clash = Object.keys(out).some((other) => key.startsWith(`${other}/`) || other.startsWith(`${key}/`));
    if (!clash) out[key] = files[key];
  }
  return out;
}

/** A line pterm accepts, the real tool's line for it, and whether to compare sorted lines. */
interface Spelling {
  readonly line: string;
  readonly realLine?: string;
  readonly sort?: boolean;
}

function spellings(files: readonly string[], dirs: readonly string[]): fc.Arbitrary<Spelling> {
  const file = fc.constantFrom(...files).map(quoteWord);
  const dir = fc.constantFrom(".", ...dirs).map(quoteWord);
  const n = fc.integer({ min: 0, max: 14 });
  const word = fc.constantFrom("alpha", "todo", "x", "a_b", "Gamma", "end\\.", "^$", "^ ");
  return fc.oneof(
    file.map((f) => ({ line: `cat ${f}` })),
    file.map((f) => ({ line: `cat -n ${f}` })),
    fc.tuple(file, file).map(([a, b]) => ({ line: `cat -n ${a} ${b}` })),
    fc.tuple(n, n, file, file).map(([a, b, f, g]) => ({ line: `sed -n '${a + 1},${b + 1}p' ${f} ${g}` })),
    fc.tuple(n, file, file).map(([k, f, g]) => ({ line: `head -n ${k} ${f} ${g}` })),
    fc.tuple(n, file).map(([k, f]) => ({ line: `head -n ${k} ${f}` })),
    fc.tuple(n, file).map(([k, f]) => ({ line: `head -${k + 1} ${f}` })),
    fc.tuple(n, file).map(([k, f]) => ({ line: `tail -n ${k} ${f}` })),
    fc.tuple(n, file).map(([k, f]) => ({ line: `tail -n +${k + 1} ${f}` })),
    fc.tuple(n, n, file).map(([a, b, f]) => ({ line: `sed -n '${a + 1},${b + 1}p' ${f}` })),
    fc.tuple(n, n, file).map(([a, b, f]) => ({
      line: `read ${f} --lines ${a + 1}:${a + 1 + b}`,
      realLine: `sed -n '${a + 1},${a + 1 + b}p' ${f}`,
    })),
    file.map((f) => ({ line: `read ${f} --numbers`, realLine: `cat -n ${f}` })),
    fc.tuple(fc.constantFrom("", "-a ", "-A ", "-r "), dir).map(([flags, d]) => ({ line: `ls ${flags}${d}` })),
    fc.tuple(fc.constantFrom("", "-l", "-w", "-c", "-lw"), fc.uniqueArray(file, { minLength: 1, maxLength: 3 }))
      .map(([flags, fs]) => ({ line: `wc ${flags} ${fs.join(" ")}`.replace("  ", " ") })),
    fc.tuple(
      fc.constantFrom("", "-n ", "-c ", "-i ", "-w ", "-v ", "-l ", "-in ", "-A1 ", "-B1 -n ", "-C2 "),
      word,
      file,
    )
      .map(([flags, w, f]) => ({ line: `grep ${flags}${quoteWord(w)} ${f}` })),
    fc.tuple(fc.constantFrom("-r ", "-rn ", "-rl ", "-rc ", "-rni "), word, dir)
      .map(([flags, w, d]) => ({ line: `grep ${flags}${quoteWord(w)} ${d}`, sort: true })),
    fc.tuple(dir, fc.constantFrom("", " -type f", " -type d", " -name '*.txt'", " -name '[a-c]*'", " -maxdepth 1"))
      .map(([d, tests]) => ({ line: `find ${d}${tests}`, sort: true })),
    fc.tuple(
      fc.constantFrom("", "-i ", "-w ", "-c ", "-l ", "--hidden "),
      fc.constantFrom("alpha", "todo", "a_b", "Gamma"),
    )
      .map(([flags, w]) => ({ line: `search ${flags}${w}` })),
  );
}

Deno.test("random trees and spellings print what the real tools print", async () => {
  await fc.assert(
    fc.asyncProperty(
      tree.map(consistent).chain((files) => {
        const paths = Object.keys(files);
        const dirs = [
          ...new Set(paths.flatMap((p) => {
            const parts = p.split("/");
            return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join("/"));
          })),
        ];
        return fc.tuple(fc.constant(files), fc.array(spellings(paths, dirs), { minLength: 1, maxLength: 4 }));
      }),
      async ([files, lines]) => {
        await using dir = await makeRoot();
        await writeTree(dir.path, files);
        const realRoot = await twin(dir.path);
        try {
          for (const spelling of lines) {
            const { pterm, real, same } = await compare(dir.path, realRoot, spelling.line, spelling);
            assert.ok(
              same,
              `${spelling.line} (real: ${
                spelling.realLine ?? spelling.line
              })\npterm exit ${pterm.code}:\n${pterm.stdout}${pterm.stderr}\n` +
                `real exit ${real.code}:\n${real.stdout}${real.stderr}\ntree: ${JSON.stringify(files)}`,
            );
          }
        } finally {
          await Deno.remove(realRoot, { recursive: true });
        }
      },
    ),
    { numRuns: 40 },
  );
});
