/**
 * Property: random edits on two branches, merged by pterm and by the real git, give the same
 * outcome — the same merged tree when clean, the same conflicted paths otherwise. Files are LF
 * or CRLF (inserted lines are LF, so CRLF files become mixed) and may lack a final newline: the
 * conflict markers' line ends and the merged bytes must be git's.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { result } from "../oracle.ts";
import { Twin } from "../twin.ts";

const FILES = ["a.txt", "b.txt", "dir/c.txt"];
const BASE = Array.from({ length: 12 }, (_, i) => `line ${i}`);

type Edit =
  | { kind: "replace"; file: number; line: number; text: string }
  | { kind: "insert"; file: number; line: number; text: string }
  | { kind: "remove"; file: number; line: number }
  | { kind: "delete-file"; file: number };

const editArb: fc.Arbitrary<Edit> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("replace" as const),
      file: fc.nat(2),
      line: fc.nat(11),
      text: fc.constantFrom("X", "Y", "Z"),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("insert" as const),
      file: fc.nat(2),
      line: fc.nat(12),
      text: fc.constantFrom("new", "added"),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("remove" as const), file: fc.nat(2), line: fc.nat(11) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("delete-file" as const), file: fc.nat(2) }) },
);

function apply(files: (string[] | null)[], edits: Edit[]): (string[] | null)[] {
  const out = files.map((f) => (f ? [...f] : null));
  for (const edit of edits) {
    const lines = out[edit.file];
    if (!lines) continue;
    if (edit.kind === "delete-file") out[edit.file] = null;
    else if (edit.kind === "replace" && edit.line < lines.length) {
      const line = lines[edit.line];
      const cr = line.endsWith("\r") ? "\r" : "";
      lines[edit.line] = `${line.slice(0, line.length - cr.length)} ${edit.text}${cr}`;
    } else if (edit.kind === "insert") lines.splice(Math.min(edit.line, lines.length), 0, edit.text);
    else if (edit.kind === "remove" && edit.line < lines.length) lines.splice(edit.line, 1);
  }
  return out;
}

async function commitState(
  twin: Twin,
  state: (string[] | null)[],
  message: string,
  finalNewline: boolean,
): Promise<void> {
  for (const [i, lines] of state.entries()) {
    if (lines) await twin.write(FILES[i], lines.join("\n") + (finalNewline || lines.length === 0 ? "\n" : ""));
    else await twin.remove(FILES[i]).catch(() => {});
  }
  await twin.run("git add --repo R --all", ["add", "-A"]);
  await twin.run(`git commit --repo R -m ${message} --allow-empty`, ["commit", "-qm", message, "--allow-empty"]);
}

Deno.test("property: three-way merges agree with git", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(editArb, { maxLength: 4 }),
      fc.array(editArb, { maxLength: 4 }),
      fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
      fc.boolean(),
      async (ours, theirs, crlf, finalNewline) => {
        await using twin = await Twin.create();
        const base = FILES.map((_, i) => BASE.map((line) => crlf[i] ? `${line}\r` : line));
        await commitState(twin, base, "base", finalNewline);
        await twin.run("git branch --repo R other", ["branch", "other"]);
        await commitState(twin, apply(base, ours), "ours", finalNewline);
        await twin.run("git checkout --repo R other", ["checkout", "-q", "other"]);
        await commitState(twin, apply(base, theirs), "theirs", finalNewline);
        await twin.run("git checkout --repo R main", ["checkout", "-q", "main"]);
        const { ptermTry, gitRaw } = await import("../oracle.ts");
        const mine = await ptermTry(twin.root.path, "git merge --repo p --branch other --no-ff -m merged");
        const real = await gitRaw(twin.g, ["merge", "--no-ff", "-m", "merged", "other"]);
        const note = JSON.stringify({ ours, theirs, crlf, finalNewline, stderr: mine.stderr, git: real.stdout });
        assert.equal(mine.exit_code === 0, real.code === 0, `same outcome: ${note}`);
        if (mine.exit_code === 0) {
          await twin.compare(`clean merge ${note}`);
        } else {
          assert.equal(mine.error_code, "Conflict", note);
          const conflicted = (await gitRaw(twin.g, ["diff", "--name-only", "--diff-filter=U"])).stdout.trim().split(
            "\n",
          )
            .filter(Boolean);
          assert.deepEqual([...result(mine).conflicts].sort(), conflicted.sort(), note);
          // Conflict markers, index stages and every file: exactly what git left.
          await twin.compare(`conflicted merge ${note}`);
        }
      },
    ),
    { numRuns: 40 },
  );
});
