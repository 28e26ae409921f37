// deno-lint-ignore-file no-console -- a script: printing is its output
/**
 * `git.diff`'s relaxed placement at scale: 400 hunks written as a model writes
 * them — `@@ @@` without line numbers, one context line reworded — applied to a 20,000-line file,
 * so every hunk goes through the fuzzy pass. Against, in the same run: `git apply` of the exact
 * diff real git wrote for the same edits (line numbers and context intact), and pterm applying
 * that exact diff. Target: the fuzzy patch within a few times the exact one (it was 18–30 s).
 *
 *   deno run -A bench/patch_fuzzy.ts            # 20,000 lines, 400 hunks (and 5,000 / 100)
 *   deno run -A bench/patch_fuzzy.ts --quick    # 5,000 lines, 100 hunks, fewer runs
 *
 * Every pterm number includes pterm's process and sandbox-worker start-up (~35 ms; bench/startup.ts).
 */

import { ptermCommand, quick, realGitEnv, table, timeSubjects } from "./_timing.ts";

const BENCH_DIR = new URL("../.bench/patch_fuzzy/", import.meta.url).pathname;
const SIZES: [number, number][] = quick ? [[5_000, 100]] : [[5_000, 100], [20_000, 400]];
const RUNS = quick ? 2 : 3;
const GIT_ENV = realGitEnv(BENCH_DIR);

function gitSync(dir: string, ...args: string[]): string {
  const out = new Deno.Command("git", {
    args,
    cwd: dir,
    env: GIT_ENV,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  })
    .outputSync();
  if (!out.success) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}

/** Code-like lines, unique, as in a large source file. */
function sourceLine(i: number): string {
  return i % 10 === 0
    ? `def handler_${i}(request, context):`
    : `    value_${i} = compute(${i % 97}, "key-${i * 7919 % 100_003}")`;
}

interface Prepared {
  root: string;
  original: string;
  expected: string;
  exactPatch: string;
  fuzzyPatch: string;
}

function prepare(lines: number, hunks: number): Prepared {
  const root = `${BENCH_DIR}${lines}`;
  try {
    Deno.removeSync(root, { recursive: true });
  } catch { /* fresh */ }
  const repo = `${root}/r`;
  Deno.mkdirSync(repo, { recursive: true });
  const text = Array.from({ length: lines }, (_, i) => sourceLine(i));
  const original = text.join("\n") + "\n";
  Deno.writeTextFileSync(`${repo}/big.py`, original);
  gitSync(repo, "init", "-q", "-b", "main");
  gitSync(repo, "add", "-A");
  gitSync(repo, "commit", "-qm", "base");
  const step = Math.floor(lines / hunks);
  const edited = [...text];
  const fuzzy: string[] = [];
  for (let h = 0; h < hunks; h++) {
    const at = h * step + 5; // the removed line; two context lines either side
    edited[at] = `    value_${at} = compute_fast(${at % 97})`;
    fuzzy.push(
      "@@ @@",
      ` ${text[at - 2]}`,
      ` ${text[at - 1].replace("compute(", "compute (")}`, // reworded context: neither exact nor whitespace-only
      `-${text[at]}`,
      `+${edited[at]}`,
      ` ${text[at + 1]}`,
      ` ${text[at + 2]}`,
    );
  }
  Deno.writeTextFileSync(`${repo}/big.py`, edited.join("\n") + "\n");
  const diff = gitSync(repo, "diff");
  Deno.writeTextFileSync(`${root}/exact.diff`, diff);
  gitSync(repo, "checkout", "--", ".");
  const wrap = (body: string) => `=== git.diff: "big.py" ===\n${body}=== end ===\n=== PATCH EOF ===\n`;
  const exactPatch = `${root}/exact.patch`;
  const fuzzyPatch = `${root}/fuzzy.patch`;
  Deno.writeTextFileSync(exactPatch, wrap(diff.replace(/^diff --git.*\n(index.*\n)?/, "")));
  Deno.writeTextFileSync(fuzzyPatch, wrap(fuzzy.join("\n") + "\n"));
  return { root, original, expected: edited.join("\n") + "\n", exactPatch: "exact.patch", fuzzyPatch: "fuzzy.patch" };
}

const results: string[] = [];
for (const [lines, hunks] of SIZES) {
  const p = prepare(lines, hunks);
  const reset = () => Promise.resolve(Deno.writeTextFileSync(`${p.root}/r/big.py`, p.original));
  const timings = await timeSubjects(
    [
      {
        name: "git apply (exact diff)",
        cmd: ["git", "apply", "../exact.diff"],
        cwd: `${p.root}/r`,
        env: GIT_ENV,
        before: reset,
      },
      {
        name: "pterm git.diff (exact diff)",
        cmd: ptermCommand("exec", "--root", p.root, `patch apply --repo r --no-commit --file ${p.exactPatch}`),
        before: reset,
      },
      {
        name: "pterm git.diff (no line numbers, fuzzy)",
        cmd: ptermCommand("exec", "--root", p.root, `patch apply --repo r --no-commit --file ${p.fuzzyPatch}`),
        before: reset,
      },
    ],
    RUNS,
    1,
  );
  // The timed runs must have done the work: the fuzzy patch gives exactly the file git's diff describes.
  await reset();
  const check = await new Deno.Command(ptermCommand()[0], {
    args: ptermCommand("exec", "--root", p.root, `patch apply --repo r --no-commit --file ${p.fuzzyPatch}`).slice(1),
    stdout: "null",
  }).output();
  if (!check.success || Deno.readTextFileSync(`${p.root}/r/big.py`) !== p.expected) {
    throw new Error(`the fuzzy patch did not produce the expected file at ${lines} lines`);
  }
  results.push(`${lines.toLocaleString("en")} lines, ${hunks} hunks:\n\n${table(timings, "git apply (exact diff)")}`);
}
console.log(results.join("\n\n"));
