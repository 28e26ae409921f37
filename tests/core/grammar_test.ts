import assert from "node:assert/strict";
import fc from "fast-check";
import { PtermError } from "../../core/errors.ts";
import { quoteWord, tokenize } from "../../core/grammar.ts";

function refusal(line: string): string {
  try {
    tokenize(line);
  } catch (error) {
    if (error instanceof PtermError) return error.code;
    throw error;
  }
  return "accepted";
}

const METACHARS = [";", "|", "&", ">", "<", "`", "*", "?", "[", "]"];

Deno.test("tokenize splits words and honours both quote styles", async (t) => {
  await t.step("spaces and tabs separate words", () => {
    assert.deepEqual(tokenize("git  status\t--repo proj"), ["git", "status", "--repo", "proj"]);
  });
  await t.step('double quotes group, with \\" and \\\\ as the only escapes', () => {
    assert.deepEqual(tokenize('git commit --message "fix: a \\"b\\" c\\\\d"'), [
      "git",
      "commit",
      "--message",
      'fix: a "b" c\\d',
    ]);
    assert.deepEqual(tokenize('echo "a\\nb"'), ["echo", "a\\nb"]);
  });
  await t.step("single quotes are literal", () => {
    assert.deepEqual(tokenize(`x 'a "b" \\ c'`), ["x", 'a "b" \\ c']);
  });
  await t.step("quoted parts join the word around them", () => {
    assert.deepEqual(tokenize(`x --message="hello world" a'b c'd`), ["x", "--message=hello world", "ab cd"]);
  });
  await t.step("empty quotes are an empty word", () => {
    assert.deepEqual(tokenize(`x "" ''`), ["x", "", ""]);
  });
  await t.step("metacharacters inside quotes are plain text", () => {
    assert.deepEqual(tokenize(`x "a;b|c&d>e<f\`g*h?i[j]k $(l) \${m}" '~n'`), [
      "x",
      "a;b|c&d>e<f`g*h?i[j]k $(l) ${m}",
      "~n",
    ]);
  });
  await t.step("$ alone and ~ inside a word are plain text", () => {
    assert.deepEqual(tokenize("x $HOME a~b price$5"), ["x", "$HOME", "a~b", "price$5"]);
  });
});

Deno.test("tokenize refuses shell syntax outside quotes with InvalidCommandLine", async (t) => {
  for (const ch of METACHARS) {
    await t.step(`refuses ${ch}`, () => assert.deepEqual(refusal(`hello ${ch} x`), "InvalidCommandLine"));
  }
  for (const line of ["hello $(whoami)", "hello ${HOME}", "hello ~", "git status --repo ~/x", "a&&b", "a||b"]) {
    await t.step(`refuses ${line}`, () => assert.deepEqual(refusal(line), "InvalidCommandLine"));
  }
  await t.step("refuses line breaks and NUL anywhere, even inside quotes", () => {
    assert.deepEqual(refusal('hello "a\nb"'), "InvalidCommandLine");
    assert.deepEqual(refusal("hello\r"), "InvalidCommandLine");
    assert.deepEqual(refusal("hello 'a\0'"), "InvalidCommandLine");
  });
  await t.step("refuses unterminated quotes and empty lines", () => {
    assert.deepEqual(refusal('hello "abc'), "InvalidCommandLine");
    assert.deepEqual(refusal("hello 'abc"), "InvalidCommandLine");
    assert.deepEqual(refusal("   "), "InvalidCommandLine");
    assert.deepEqual(refusal(""), "InvalidCommandLine");
  });
  await t.step("the message names the character, its column and what to do", () => {
    assert.throws(() => tokenize("git status | cat"), (error: PtermError) => {
      assert.match(error.message, /`\|` at column 12 is a pipe/);
      assert.match(error.message, /stdin/);
      return true;
    });
  });
});

// A model of a command line: a sequence of words, each a sequence of segments whose quoting we choose.
type Segment = { kind: "bare" | "single" | "double"; text: string };

const bareChar = fc.constantFrom(..."abcXYZ019-_=./:,@%+$~!#(){}".split(""), ...METACHARS);
const anyChar = fc.constantFrom(..."ab Z9 -_=./:,@%+$~!#(){}'\"\\".split(""), ...METACHARS);
const segment: fc.Arbitrary<Segment> = fc.oneof(
  fc.record({
    kind: fc.constant("bare" as const),
    text: fc.array(bareChar, { minLength: 1, maxLength: 6 }).map((a) => a.join("")),
  }),
  fc.record({
    kind: fc.constant("single" as const),
    text: fc.array(anyChar, { maxLength: 6 }).map((a) => a.join("").replaceAll("'", "")),
  }),
  fc.record({ kind: fc.constant("double" as const), text: fc.array(anyChar, { maxLength: 6 }).map((a) => a.join("")) }),
);
const words = fc.array(fc.array(segment, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 5 });

function render(segment: Segment): string {
  if (segment.kind === "bare") return segment.text;
  if (segment.kind === "single") return `'${segment.text}'`;
  return `"${segment.text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/** The oracle: unquoted text with a metacharacter, `$(`/`${`, or a word-leading `~` must be refused. */
function shouldRefuse(line: Segment[][]): boolean {
  return line.some((word) => {
    // Adjacent bare segments are one run of unquoted text (`$` + `(` together make `$(`).
    const runs: string[] = [];
    let run = "";
    for (const segment of word) {
      if (segment.kind === "bare") run += segment.text;
      else if (run) {
        runs.push(run);
        run = "";
      }
    }
    if (run) runs.push(run);
    if (runs.some((text) => METACHARS.some((m) => text.includes(m)) || /\$[({]/.test(text))) return true;
    return word[0].kind === "bare" && word[0].text.startsWith("~");
  });
}

Deno.test("property: no input makes tokenize crash; it returns words or InvalidCommandLine", () => {
  fc.assert(
    fc.property(fc.string({ unit: "binary", maxLength: 80 }), (line) => {
      const outcome = refusal(line);
      return outcome === "accepted" || outcome === "InvalidCommandLine";
    }),
    { numRuns: 3000 },
  );
});

Deno.test("property: a metacharacter reaches a command only from inside quotes", () => {
  fc.assert(
    fc.property(words, (line) => {
      const text = line.map((word) => word.map(render).join("")).join(" ");
      const expectRefusal = shouldRefuse(line);
      if (expectRefusal) return refusal(text) === "InvalidCommandLine";
      assert.deepEqual(tokenize(text), line.map((word) => word.map((s) => s.text).join("")));
      return true;
    }),
    { numRuns: 3000 },
  );
});

Deno.test("property: quoteWord round-trips any word without line breaks or NUL", () => {
  fc.assert(
    fc.property(
      fc.array(fc.string({ maxLength: 12 }).filter((w) => !/[\n\r\0]/.test(w)), { minLength: 1, maxLength: 4 }),
      (list) => {
        const line = ["cmd", ...list].map(quoteWord).join(" ");
        assert.deepEqual(tokenize(line), ["cmd", ...list]);
      },
    ),
    { numRuns: 2000 },
  );
});
