// deno-lint-ignore-file no-console -- a script: printing is its output
/**
 * Differential check of `patch apply`'s codex format against the real `apply_patch` of
 * openai/codex (the `codex` binary of the npm package @openai/codex, run through a symlink named
 * `apply_patch`, which is how codex dispatches to it). Not a test: the binary is 400 MB and not a
 * project dependency. Run it by hand:
 *
 *   npm install --prefix /tmp/cx @openai/codex
 *   ln -s /tmp/cx/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex /tmp/cx/apply_patch
 *   deno run -A scripts/codex_differential.ts /tmp/cx/apply_patch 500
 *
 * Random files (few distinct lines, so chunks repeat), random patches of 1-3 chunks with and
 * without `@@` anchors, with and without a final line break. Expected differences, counted apart:
 * pterm refuses a first chunk without anchor whose lines occur twice (codex takes the first).
 * Anything else that differs is printed.
 */

import { exec, makeRoot } from "../tests/_support/helpers.ts";

const [binary, countText = "300", seedText = "1"] = Deno.args;
if (!binary) throw new Error("usage: codex_differential.ts <path of apply_patch> [cases] [seed]");

let seed = Number(seedText);
const random = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
const WORDS = ["alpha", "beta", "gamma", "  indented", "", "delta", "x = 1", "return x", "dash \u2014 here", "trail  "];
/** How a model copies a line: sometimes with ASCII punctuation and without trailing blanks. */
const copied = (line: string) => (random() < 0.3 ? line.replace("\u2014", "-").trimEnd() : line);

function makeCase() {
  const length = 3 + Math.floor(random() * 12);
  const lines = Array.from({ length }, () => pick(WORDS));
  const finalNewline = random() < 0.8;
  const eol = random() < 0.2 ? "\r\n" : "\n";
  const text = lines.join(eol) + (finalNewline ? eol : "");
  const chunks: string[] = [];
  let cursor = 0;
  const count = 1 + Math.floor(random() * 3);
  for (let c = 0; c < count && cursor < lines.length; c++) {
    const start = cursor + Math.floor(random() * Math.max(1, lines.length - cursor - 1));
    const size = 1 + Math.floor(random() * Math.min(3, lines.length - start));
    const anchorAt = start > 0 && random() < 0.5 ? Math.floor(random() * start) : -1;
    const body: string[] = [];
    for (let k = 0; k < size; k++) {
      const line = lines[start + k];
      if (random() < 0.5) body.push(`-${copied(line)}`, `+${line.toUpperCase() || "NEW"}`);
      else body.push(` ${copied(line)}`);
    }
    if (!body.some((l) => l.startsWith("-") || l.startsWith("+"))) body.push("+added");
    if (anchorAt >= 0 && lines[anchorAt].trim() === "") continue;
    chunks.push(anchorAt >= 0 ? `@@ ${copied(lines[anchorAt])}` : "@@", ...body);
    cursor = start + size;
  }
  if (random() < 0.2) {
    // A last chunk that must end the file.
    const tail = lines.slice(-1 - Math.floor(random() * 2));
    chunks.push("@@", ...tail.map((l) => ` ${copied(l)}`), "+appended", "*** End of File");
  }
  const patch = ["*** Begin Patch", "*** Update File: f.txt", ...chunks, "*** End Patch", ""].join("\n");
  return { text, patch };
}

async function runCodex(text: string, patch: string): Promise<string | null> {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/f.txt`, text);
    const out = await new Deno.Command(binary, { args: [patch], cwd: dir, stdout: "null", stderr: "null" }).output();
    return out.success ? await Deno.readTextFile(`${dir}/f.txt`) : null;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function runPterm(text: string, patch: string): Promise<{ text: string | null; code: string | null }> {
  await using root = await makeRoot();
  await Deno.writeTextFile(`${root.path}/f.txt`, text);
  const envelope = await exec(root.path, "patch apply", { stdin: patch });
  return {
    text: envelope.exit_code === 0 ? await Deno.readTextFile(`${root.path}/f.txt`) : null,
    code: envelope.error_code,
  };
}

const tally = { same: 0, bothRefused: 0, ambiguousRefused: 0, differ: 0 };
for (let i = 0; i < Number(countText); i++) {
  const { text, patch } = makeCase();
  const codex = await runCodex(text, patch);
  const pterm = await runPterm(text, patch);
  if (codex === pterm.text) {
    tally[codex === null ? "bothRefused" : "same"]++;
    if (codex === null && Deno.env.get("SHOW_REFUSED")) console.log(JSON.stringify({ text, patch, pterm }));
  } else if (pterm.text === null && pterm.code === "AmbiguousMatch") tally.ambiguousRefused++;
  else {
    tally.differ++;
    console.log(JSON.stringify({ text, patch, codex, pterm }, null, 1));
  }
}
console.log(tally);
