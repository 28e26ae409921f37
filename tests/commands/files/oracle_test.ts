/**
 * Each read-only file command against the real tool on the same tree: GNU coreutils (cat, head,
 * tail, sed, ls, wc), findutils (find), GNU grep, ripgrep (search), bash's globstar (glob). Same
 * stdout, same exit code, for the spellings agents type.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { makeRoot } from "../../_support/helpers.ts";
import { git } from "../git/oracle.ts";
import { compare, twin, writeTree } from "./oracle.ts";

const TREE = {
  "README.md": "# Proj\n\nA small project.\nSee src/ for the code.\n",
  "notes.txt": "todo: write tests\ndone: nothing\ntodo: ship\n",
  "noeol.txt": "first\nsecond",
  "empty.txt": "",
  "src/app.py":
    "import sys\n\nFEATURE = True\n\ndef main():\n    print('hi')\n    return 0\n\nif __name__ == '__main__':\n    main()\n",
  "src/util.py": "def helper():\n    return 1\n\ndef helper_two():\n    return 2\n",
  "src/lib/deep.ts": "export const deep = 1;\n// TODO: more\n",
  "src/.cache.txt": "hidden todo\n",
  ".config": "hidden = yes\n",
  "docs/guide.md": "# Guide\n\nRun it.\nTODO later\n",
  "docs/empty": null,
  "data.bin": new Uint8Array([104, 105, 0, 116, 111, 100, 111, 10]),
  "big.txt": Array.from({ length: 300 }, (_, i) => `line ${i + 1}${i % 7 === 0 ? " todo" : ""}\n`).join(""),
};

/** Lines whose output is in the same order for both; `sorted` ones print in readdir order for the real tool. */
const SAME_ORDER = [
  "cat README.md",
  "cat README.md notes.txt",
  "cat -n noeol.txt",
  "cat -n notes.txt README.md",
  "cat noeol.txt notes.txt",
  "sed -n '2,5p' notes.txt README.md",
  "sed -n '$p' notes.txt noeol.txt",
  "sed -n '1,4p' noeol.txt noeol.txt",
  "sed -n 2p noeol.txt noeol.txt",
  "cat empty.txt",
  "head README.md",
  "head -n 2 notes.txt",
  "head -2 notes.txt",
  "head -n -2 notes.txt",
  "head -n 3 README.md notes.txt",
  "head -n 2 noeol.txt",
  "tail -n 2 notes.txt",
  "tail -1 noeol.txt",
  "tail -n +2 notes.txt",
  "tail big.txt",
  "sed -n '2,3p' notes.txt",
  "sed -n 5p big.txt",
  "sed -n '295,$p' big.txt",
  "sed -n '$p' notes.txt",
  "ls",
  "ls src",
  "ls -a src",
  "ls -A src",
  "ls -1 src",
  "ls -r src",
  "ls README.md notes.txt",
  "ls src docs",
  "ls -d src",
  "ls -l src",
  "ls -la src/lib",
  "ls -lh src",
  "ls -h -l src",
  "wc README.md",
  "wc -l notes.txt",
  "wc -l README.md notes.txt src/app.py",
  "wc -w notes.txt",
  "wc -c noeol.txt",
  "wc -lw big.txt",
  "grep todo notes.txt",
  "grep -n todo notes.txt",
  "grep -c todo notes.txt",
  "grep -i TODO notes.txt",
  "grep -v todo notes.txt",
  "grep -w helper src/util.py",
  "grep -x 'done: nothing' notes.txt",
  "grep -o 'todo: [a-z]*' notes.txt",
  "grep -n 'def \\(main\\|helper\\)' src/app.py src/util.py",
  "grep -E 'return [12]' src/util.py",
  "grep -F '[x]' notes.txt",
  "grep -n -A1 def src/util.py",
  "grep -n -C 1 FEATURE src/app.py",
  "grep -B2 'line 15$' big.txt",
  "grep -m 2 todo big.txt",
  "grep -l todo notes.txt README.md",
  "grep -L todo notes.txt README.md",
  "grep -c todo notes.txt README.md",
  "grep zzz notes.txt",
  "grep -c zzz notes.txt",
  "grep -q todo notes.txt",
  "grep -n '^$' src/app.py",
  "grep -H todo notes.txt",
  "grep -e todo -e done notes.txt",
  "grep hi data.bin",
  "grep -c hi data.bin",
  "search helper",
  "search -i TODO",
  "search -w helper src",
  "search -c return src",
  "search -l todo",
  "search -C1 FEATURE src/app.py",
  "search zzz",
  "search --hidden todo",
  "search -F 'print(' src",
];

const SORTED = [
  "find .",
  "find src",
  "find . -name '*.py'",
  "find . -type d",
  "find src -type f -name '*.ts'",
  "find . -iname 'readme*'",
  "find . -maxdepth 1 -type f",
  "find . -mindepth 2",
  "find . -path '*lib*'",
  "find docs/",
  "grep -r todo",
  "grep -rn todo .",
  "grep -rl def src",
  "grep -rc todo src",
  "grep -rn --include='*.py' def .",
  "grep -rn --exclude='*.py' -i todo",
  "grep -rn --exclude-dir=lib TODO src",
  "grep -rni todo docs src",
];

Deno.test("read-only commands print what the real tools print", async (t) => {
  await using dir = await makeRoot();
  await writeTree(dir.path, TREE);
  const realRoot = await twin(dir.path);
  try {
    for (const [lines, sort] of [[SAME_ORDER, false], [SORTED, true]] as const) {
      for (const line of lines) {
        await t.step(line, async () => {
          const { pterm, real, same } = await compare(dir.path, realRoot, line, { sort });
          assert.ok(
            same,
            `pterm (exit ${pterm.code}):\n${pterm.stdout}\n${pterm.stderr}\nreal (exit ${real.code}):\n${real.stdout}${real.stderr}`,
          );
        });
      }
    }
  } finally {
    await Deno.remove(realRoot, { recursive: true });
  }
});

/** `read` is the line tools' one reader: each spelling prints exactly what its `read` line prints. */
const READ_PAIRS: readonly [string, string][] = [
  ["read notes.txt", "cat notes.txt"],
  ["read noeol.txt --numbers", "cat -n noeol.txt"],
  ["read big.txt --lines 10:20", "sed -n '10,20p' big.txt"],
  ["read big.txt --lines 290:", "sed -n '290,$p' big.txt"],
  ["read big.txt --lines :5", "head -n 5 big.txt"],
  ["read big.txt --lines -5:", "tail -n 5 big.txt"],
  ["read big.txt --lines 7", "sed -n 7p big.txt"],
];

Deno.test("read prints the lines its habitual spellings print", async (t) => {
  await using dir = await makeRoot();
  await writeTree(dir.path, TREE);
  const realRoot = await twin(dir.path);
  try {
    for (const [line, realLine] of READ_PAIRS) {
      await t.step(line, async () => {
        const { pterm, real, same } = await compare(dir.path, realRoot, line, { realLine });
        assert.ok(same, `pterm:\n${pterm.stdout}${pterm.stderr}\nreal ${realLine}:\n${real.stdout}`);
        const alias = await compare(dir.path, realRoot, realLine);
        assert.equal(alias.pterm.stdout, pterm.stdout, `${realLine} prints what ${line} prints`);
      });
    }
  } finally {
    await Deno.remove(realRoot, { recursive: true });
  }
});

Deno.test("glob matches what bash's globstar matches", async (t) => {
  await using dir = await makeRoot();
  await writeTree(dir.path, TREE);
  const realRoot = await twin(dir.path);
  try {
    for (const pattern of ["**/*.py", "*.txt", "src/**", "src/**/*.ts", "**/.*", "docs/*", "s?c/*.py", "[rn]*"]) {
      await t.step(pattern, async () => {
        const { pterm } = await compare(dir.path, realRoot, `glob '${pattern}'`, { realLine: "true" });
        const bash = await new Deno.Command("bash", {
          args: ["-c", `shopt -s globstar nullglob; for f in ${pattern}; do printf '%s\\n' "$f"; done`],
          cwd: realRoot,
          env: { LC_ALL: "C" },
        }).output();
        const expected = new TextDecoder().decode(bash.stdout).split("\n").filter(Boolean).map((p) =>
          p.replace(/\/$/, "")
        );
        assert.deepEqual(pterm.stdout.split("\n").filter(Boolean), [...new Set(expected)].sort(), pterm.stderr);
      });
    }
  } finally {
    await Deno.remove(realRoot, { recursive: true });
  }
});

Deno.test("search honours ignore files as ripgrep does, from the folders above its start too", async (t) => {
  await using dir = await makeRoot();
  await writeTree(dir.path, {
    "proj/.gitignore": "build/\n*.log\n!keep.log\n/top.txt\ndocs/**/draft*\n",
    "proj/build/out.txt": "todo build\n",
    "proj/a.log": "todo log\n",
    "proj/keep.log": "todo keep\n",
    "proj/top.txt": "todo top\n",
    "proj/src/top.txt": "todo nested top\n",
    "proj/src/app.txt": "todo app\n",
    "proj/src/.ignore": "skip*\n",
    "proj/src/skip_me.txt": "todo skipped\n",
    "proj/docs/a/draft1.md": "todo draft\n",
    "proj/docs/a/final.md": "todo final\n",
    "loose/.gitignore": "*.txt\n",
    "loose/x.txt": "todo outside a repository: .gitignore does not apply\n",
  });
  await git(join(dir.path, "proj"), "init", "-q");
  const realRoot = await twin(dir.path);
  try {
    for (
      const line of [
        "search todo",
        "search todo proj",
        "search todo proj/src",
        "search -l todo proj/docs",
        "search --no-ignore -l todo proj",
        "search --hidden -c todo",
      ]
    ) {
      await t.step(line, async () => {
        const { pterm, real, same } = await compare(dir.path, realRoot, line);
        assert.ok(
          same,
          `pterm (exit ${pterm.code}):\n${pterm.stdout}${pterm.stderr}\nrg (exit ${real.code}):\n${real.stdout}${real.stderr}`,
        );
      });
    }
  } finally {
    await Deno.remove(realRoot, { recursive: true });
  }
});

Deno.test("search where every file is hidden: ripgrep's error without a path (exit 2), no match with one (exit 1)", async (t) => {
  await using dir = await makeRoot();
  await writeTree(dir.path, { "hidden/.only.txt": "todo in a hidden file\n", ".top": "todo\n" });
  const realRoot = await twin(dir.path);
  try {
    for (const line of ["search todo", "search todo .", "search todo hidden"]) {
      await t.step(line, async () => {
        const { pterm, real, same } = await compare(dir.path, realRoot, line);
        assert.ok(
          same,
          `pterm (exit ${pterm.code}):\n${pterm.stdout}${pterm.stderr}\nrg (exit ${real.code}):\n${real.stdout}${real.stderr}`,
        );
      });
    }
  } finally {
    await Deno.remove(realRoot, { recursive: true });
  }
});
