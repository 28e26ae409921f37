import assert from "node:assert/strict";
import { applyHunks, HunkError, parseDiff } from "../../../commands/patch/diff.ts";
import { TextDoc } from "../../../commands/patch/text.ts";

function apply(fileText: string, diff: string) {
  const [file] = parseDiff(diff.split("\n"), 1);
  const doc = TextDoc.fromText(fileText);
  const reports = applyHunks(doc, file.hunks);
  return { text: doc.toText(), reports, file };
}

function failure(fileText: string, diff: string) {
  try {
    apply(fileText, diff);
  } catch (error) {
    if (error instanceof HunkError) return error.failure;
    throw error;
  }
  assert.fail("the diff applied");
}

const BASE = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"].join("\n") + "\n";

Deno.test("a hunk at its stated line applies exactly", () => {
  const { text, reports } = apply(
    BASE,
    `--- a/f
+++ b/f
@@ -3,3 +3,3 @@
 gamma
-delta
+DELTA
 epsilon`,
  );
  assert.equal(text, BASE.replace("delta", "DELTA"));
  assert.deepEqual(reports.map((r) => [r.strategy, r.at_line]), [["exact", 3]]);
});

Deno.test("at its stated line a hunk applies even when its text repeats elsewhere (as git does)", () => {
  const file = "x\nsame\ny\nsame\nz\n";
  const { text, reports } = apply(file, "@@ -4,1 +4,1 @@\n-same\n+SAME\n");
  assert.equal(text, "x\nsame\ny\nSAME\nz\n");
  assert.equal(reports[0].strategy, "exact");
});

Deno.test("wrong or missing counts are tolerated", () => {
  for (const header of ["@@ -3,99 +3,1 @@", "@@ -3 +3 @@", "@@ @@", "@@"]) {
    const { text } = apply(BASE, `--- a/f\n+++ b/f\n${header}\n gamma\n-delta\n+DELTA\n epsilon\n`);
    assert.equal(text, BASE.replace("delta", "DELTA"), header);
  }
});

Deno.test("whitespace differences at the stated line: strategy whitespace", () => {
  const { text, reports } = apply(BASE, "@@ -3,3 +3,3 @@\n gamma  \n-delta\t\n+DELTA\n   epsilon\n");
  assert.equal(text, BASE.replace("delta", "DELTA"));
  assert.equal(reports[0].strategy, "whitespace");
});

Deno.test("a hunk whose line number is off is found by its text when that text occurs once", () => {
  const { text, reports } = apply(BASE, "@@ -2,3 +2,3 @@\n zeta\n-eta\n+ETA\n theta\n");
  assert.equal(text, BASE.replace("\neta\n", "\nETA\n"));
  assert.deepEqual(reports.map((r) => [r.strategy, r.at_line, r.stated_line]), [["shifted", 6, 2]]);
  // Stated at line 1, as git apply reads it, the hunk must start the file: it is not moved elsewhere.
  assert.equal(failure(BASE, "@@ -1,3 +1,3 @@\n zeta\n-eta\n+ETA\n theta\n").kind, "no-match");
});

Deno.test("a shifted hunk whose text occurs twice goes to the place strictly nearest its stated line, as git apply", () => {
  const file = "a\nrepeat\nb\nend\nc\nrepeat\nb\nend\n";
  const { text, reports } = apply(file, "@@ -10,3 +10,3 @@\n repeat\n-b\n+B\n end\n");
  assert.equal(text, "a\nrepeat\nb\nend\nc\nrepeat\nB\nend\n");
  assert.deepEqual(reports.map((r) => [r.strategy, r.at_line, r.stated_line]), [["shifted", 6, 10]]);
  // Equally near (line 2 and line 5 from a stated line 3.5 cannot be; 1 and 5 from 3 are): refused.
  const tie = "repeat\nb\nend\nx\nrepeat\nb\nend\n";
  const f = failure(tie, "@@ -3,3 +3,3 @@\n repeat\n-b\n+B\n end\n");
  assert.equal(f.kind, "ambiguous");
  if (f.kind === "ambiguous") {
    assert.deepEqual(f.lines, [1, 5]);
    assert.deepEqual(f.texts, ["repeat", "repeat"]);
    assert.equal(f.stated, 3);
  }
  const g = failure(file, "@@ @@\n repeat\n-b\n+B\n end\n");
  assert.equal(g.kind, "ambiguous");
  if (g.kind === "ambiguous") assert.equal(g.stated, null);
});

Deno.test("fuzzy: changed context lines are tolerated, the removed line must match", () => {
  const file = "def f():\n    # compute the total value\n    total = a + b\n    return total\n";
  const { text, reports } = apply(
    file,
    "@@ @@\n def f():\n     # compute total\n-    total = a + b\n+    total = a + b + c\n     return total\n",
  );
  assert.equal(text, "def f():\n    # compute the total value\n    total = a + b + c\n    return total\n");
  assert.equal(reports[0].strategy, "fuzzy");
  // The file's context lines are kept as they are, not replaced by the hunk's version.
  assert.match(text, /compute the total value/);
  const f = failure(file, "@@ @@\n def f():\n     # compute the total value\n-    total = a + c\n+    total = 0\n");
  assert.equal(f.kind, "no-match");
  if (f.kind === "no-match") assert.equal(f.closest?.line, 1);
});

Deno.test("fuzzy placement that fits two places is refused", () => {
  const block = "    if ready:\n        start()\n        log('started')\n";
  const file = "def a():\n" + block + "def b():\n" + block;
  const f = failure(
    file,
    "@@ @@\n     if ready:\n-        start()\n+        start(fast=True)\n         log('begun')\n",
  );
  assert.equal(f.kind, "ambiguous");
  if (f.kind === "ambiguous") {
    assert.equal(f.strategy, "fuzzy");
    // With the changed context trimmed away (GNU patch's fuzz), the removed line fits twice.
    assert.deepEqual(f.lines, [3, 7]);
  }
});

Deno.test("a hunk written at the wrong indentation is re-indented to the file's", () => {
  const file = "class A:\n    def f(self):\n        x = 1\n        return x\n";
  const { text, reports } = apply(file, "@@ @@\n def f(self):\n-    x = 1\n+    x = 2\n+    y = 3\n     return x\n");
  assert.equal(text, "class A:\n    def f(self):\n        x = 2\n        y = 3\n        return x\n");
  assert.equal(reports[0].strategy, "whitespace");
  assert.equal(reports[0].reindent, '+"    "');
});

Deno.test("fences and prose around the diff are stripped; bare empty lines are empty context", () => {
  const file = "one\n\ntwo\nthree\n";
  const { text } = apply(
    file,
    "Here is the change:\n```diff\n--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n one\n\n-two\n+TWO\n three\n```\n",
  );
  assert.equal(text, "one\n\nTWO\nthree\n");
});

Deno.test("a removed line that starts with '-- ' is not taken for a file header while the count needs it", () => {
  const file = "a\n-- comment\n++ other\nb\n";
  const { text } = apply(file, "--- a/f\n+++ b/f\n@@ -1,4 +1,2 @@\n a\n--- comment\n-++ other\n b\n");
  assert.equal(text, "a\nb\n");
});

Deno.test("no newline at end of file, on either side", () => {
  assert.equal(apply("a\nb", "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n").text, "a\nb\n");
  assert.equal(apply("a\nb\n", "@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n").text, "a\nc");
});

Deno.test("CRLF files keep CRLF; added lines take the file's style", () => {
  const { text } = apply("a\r\nb\r\nc\r\n", "@@ -1,3 +1,4 @@\n a\n-b\n+B\n+B2\n c\n");
  assert.equal(text, "a\r\nB\r\nB2\r\nc\r\n");
});

Deno.test("several hunks: later ones follow the drift of earlier ones", () => {
  const file = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
  // Both hunks state positions 5 lines too early; the second is found by the drift, exactly.
  const { text, reports } = apply(
    file,
    "@@ -2,3 +2,3 @@\n line 7\n-line 8\n+LINE 8\n line 9\n@@ -15,3 +15,3 @@\n line 20\n-line 21\n+LINE 21\n line 22\n",
  );
  assert.match(text, /LINE 8\n/);
  assert.match(text, /LINE 21\n/);
  assert.deepEqual(reports.map((r) => r.strategy), ["shifted", "exact"]);
});

Deno.test("headers: new, deleted, renamed files and modes", () => {
  const files = parseDiff(
    `diff --git a/new.txt b/new.txt
new file mode 100755
index 0000000..e69de29
--- /dev/null
+++ b/new.txt
@@ -0,0 +1,2 @@
+hello
+world
diff --git a/old.txt b/old.txt
deleted file mode 100644
--- a/old.txt
+++ /dev/null
@@ -1 +0,0 @@
-bye
diff --git a/a.txt b/b.txt
similarity index 100%
rename from a.txt
rename to b.txt
diff --git a/m.sh b/m.sh
old mode 100644
new mode 100755`.split("\n"),
    1,
  );
  assert.deepEqual(
    files.map((f) => [f.oldPath, f.newPath, f.newMode === null ? null : f.newMode.toString(8), f.hunks.length]),
    [[null, "new.txt", "100755", 1], ["old.txt", null, null, 1], ["a.txt", "b.txt", null, 0], [
      "m.sh",
      "m.sh",
      "100755",
      0,
    ]],
  );
});

Deno.test("prose after the last hunk is dropped; text between hunks is an error", () => {
  const { text } = apply(BASE, "@@ -3,3 +3,3 @@\n gamma\n-delta\n+DELTA\n epsilon\n\nThis renames delta.\nThanks!\n");
  assert.equal(text, BASE.replace("delta", "DELTA"));
  assert.throws(
    () => apply(BASE, "@@ -1,1 +1,1 @@\n-alpha\n+ALPHA\nnote: and now\n@@ -3,1 +3,1 @@\n-gamma\n+GAMMA\n"),
    /unexpected line in the diff: `note: and now`/,
  );
});

Deno.test("a hunk retyped with spaces for a tab-indented file: added lines take the file's tabs (a Makefile stays valid)", () => {
  const makefile = "all: app\n\napp: main.o\n\t$(CC) -o app main.o\n\nclean:\n\trm -f app\n";
  const { text, reports } = apply(
    makefile,
    "@@ -3,3 +3,4 @@\n app: main.o\n-    $(CC) -o app main.o\n+    $(CC) -o app main.o util.o\n+    strip app\n \n",
  );
  assert.equal(text, "all: app\n\napp: main.o\n\t$(CC) -o app main.o util.o\n\tstrip app\n\nclean:\n\trm -f app\n");
  assert.equal(reports[0].strategy, "whitespace");
  // And tabs typed into a file indented with spaces become its spaces.
  const python = "def f():\n    if x:\n        return 1\n    return 0\n";
  assert.equal(
    apply(python, "@@ -2,3 +2,4 @@\n \tif x:\n-\t\treturn 1\n+\t\tlog(x)\n+\t\treturn 2\n \treturn 0\n").text,
    "def f():\n    if x:\n        log(x)\n        return 2\n    return 0\n",
  );
});

Deno.test("a file holding only a BOM is the one line git sees: a diff replacing it applies", () => {
  const doc = TextDoc.fromBytes(new Uint8Array([0xef, 0xbb, 0xbf]))!;
  const [file] = parseDiff(["@@ -1 +1,2 @@", "-\ufeff", "\\ No newline at end of file", "+\ufeffa", "+b"], 1);
  applyHunks(doc, file.hunks);
  assert.deepEqual(doc.toBytes(), new TextEncoder().encode("\ufeffa\nb\n"));
  const plain = TextDoc.fromBytes(new Uint8Array([0xef, 0xbb, 0xbf]))!;
  applyHunks(plain, parseDiff(["@@ -1 +1 @@", "-\ufeff", "\\ No newline at end of file", "+x"], 1)[0].hunks);
  assert.deepEqual(plain.toBytes(), new TextEncoder().encode("x\n"));
});

Deno.test("a Makefile continuation line (a tab, then spaces to align) retyped with spaces keeps its tab", () => {
  const makefile = "app: main.o\n\t$(CC) -o app \\\n\t    main.o\n";
  const { text, reports } = apply(
    makefile,
    "@@ -1,3 +1,4 @@\n app: main.o\n         $(CC) -o app \\\n-            main.o\n+            main.o \\\n+            util.o\n",
  );
  assert.equal(text, "app: main.o\n\t$(CC) -o app \\\n\t    main.o \\\n\t    util.o\n");
  assert.equal(reports[0].reindent, "spaces→tabs (8)");
});

Deno.test("a hunk whose result stands at its stated line and whose old line stands only elsewhere is already applied", () => {
  const text = ["one", "two", "three", "four", "five", "old", "seven"].join("\n") + "\n";
  const diff = "--- a/f\n+++ b/f\n@@ -2 +2 @@\n-old\n+two\n";
  assert.equal(failure(text, diff).kind, "already-applied");
  // Unless an earlier hunk of the same diff is what put the result there: then the old line is its own.
  const both = "--- a/f\n+++ b/f\n@@ -2 +2 @@\n-two\n+new\n@@ -2 +2 @@\n-old\n+new\n";
  assert.equal(apply(text, both).text, ["one", "new", "three", "four", "five", "new", "seven"].join("\n") + "\n");
});
