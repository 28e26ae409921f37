import assert from "node:assert/strict";
import { parsePatch } from "../../../commands/patch/format.ts";

const SEED_EXAMPLE = `repo: xgit
commitmsg: Fix login timeout bug
author: Zhang San zhangsan@example.com
=== file.write: "src/utils/auth.py" ===
func check_token(token string) bool {
timeout := 60  // Extend timeout to 60s
token_expire_check := true
// Token validation logic
return true
}
=== end ===
=== line.replace: "docs/login_guide.md" ===
keys=Note: Login timeout is 30 seconds.
Note: Login timeout is 60 seconds.
=== end ===
=== PATCH EOF ===
`;

Deno.test("the protocol's worked example parses into its header and two blocks", () => {
  const { patch, problems } = parsePatch(SEED_EXAMPLE);
  assert.deepEqual(problems, []);
  assert.equal(patch.header.repo?.value, "xgit");
  assert.equal(patch.header.commitmsg?.value, "Fix login timeout bug");
  assert.equal(patch.header.author?.value, "Zhang San zhangsan@example.com");
  assert.equal(patch.blocks.length, 2);
  const [write, replace] = patch.blocks;
  assert.equal(write.op, "file.write");
  assert.equal(write.path, "src/utils/auth.py");
  assert.equal(write.body.length, 6);
  assert.equal(write.body[1], "timeout := 60  // Extend timeout to 60s");
  assert.equal(replace.op, "line.replace");
  assert.equal(replace.params.get("keys")?.value, "Note: Login timeout is 30 seconds.");
  assert.deepEqual(replace.body, ["Note: Login timeout is 60 seconds."]);
  assert.equal(replace.line, 12);
  assert.equal(replace.bodyLine, 14);
});

Deno.test("multi-line parameters drop one leading space; keys are lower-cased and _ means -", () => {
  const { patch, problems } = parsePatch(`=== block.replace: "a.py" ===
START-KEYS<
 def foo
  class Bar
>start-keys
End_Keys=return
new body
=== end ===
=== PATCH EOF ===`);
  assert.deepEqual(problems, []);
  const block = patch.blocks[0];
  assert.equal(block.params.get("start-keys")?.value, "def foo\n class Bar");
  assert.equal(block.params.get("end-keys")?.value, "return");
  assert.deepEqual(block.body, ["new body"]);
});

Deno.test("one blank line may separate parameters from the body; a second one is body", () => {
  const { patch } = parsePatch(`=== line.insert: "a" ===
lineno=1

x
=== end ===
=== line.insert: "a" ===
lineno=1


y
=== end ===
=== file.write: "b" ===

z
=== end ===
=== PATCH EOF ===`);
  assert.deepEqual(patch.blocks[0].body, ["x"]);
  assert.deepEqual(patch.blocks[1].body, ["", "y"]);
  // Without parameters there is no separator: the blank line is content.
  assert.deepEqual(patch.blocks[2].body, ["", "z"]);
});

Deno.test("a body line that is an unknown key=value stays body; a near-miss of a parameter is flagged", () => {
  const { patch } = parsePatch(`=== file.write: ".env.example" ===
PORT=8080
=== end ===
=== line.insert: "a" ===
keys=foo
nth=2
text
=== end ===
=== PATCH EOF ===`);
  assert.deepEqual(patch.blocks[0].body, ["PORT=8080"]);
  assert.deepEqual(patch.blocks[1].body, ["nth=2", "text"]);
  assert.deepEqual(patch.blocks[1].suspiciousFirstBodyLine, { key: "nth", suggestion: "nthl" });
});

Deno.test("every problem is reported with its line, and later blocks still parse", () => {
  const { patch, problems } = parsePatch(`repo: a
colour: blue
=== file.wirte: "a" ===
x
=== end ===
=== file.write: b ===
y
=== end ===
=== file.delete: "c" ===
leftover=1
=== end ===
=== line.replace: "d" ===
keys=k
=== end ===
=== file.write: "e" ===
ok
=== end ===
trailing junk
`);
  const byLine = problems.map((p) => [p.line, p.message]);
  assert.equal(problems.length, 7, JSON.stringify(byLine, null, 1));
  assert.match(problems[0].message, /line 2: .*header field/);
  assert.match(problems[1].message, /line 3: unknown op `file.wirte`; did you mean `file.write`/);
  assert.equal(problems[1].block_index, 1);
  assert.match(problems[2].message, /line 6: expected the path in double quotes: `=== file.write: "b" ===`/);
  assert.equal(problems[3].line, 10);
  assert.match(problems[3].message, /`leftover` is not a parameter of file.delete/);
  assert.match(problems[4].message, /line 14: line.replace needs a body .*use line.delete/);
  assert.match(
    problems[5].message,
    /line 18: expected `=== PATCH EOF ===` or a block header|line 18: expected a block header/,
  );
  assert.match(problems[6].message, /must end with `=== PATCH EOF ===`/);
  // Block numbers follow the text even past broken blocks.
  assert.deepEqual(patch.blocks.map((b) => [b.index, b.path]), [[5, "e"]]);
});

Deno.test("a block missing its end is reported where the next block starts", () => {
  const { patch, problems } = parsePatch(`=== file.write: "a" ===
x
=== file.write: "b" ===
y
=== end ===
=== PATCH EOF ===`);
  assert.equal(problems.length, 1);
  assert.equal(problems[0].line, 3);
  assert.match(problems[0].message, /block 1 \(file.write, line 1\) is not closed; add `=== end ===` before/);
  assert.deepEqual(patch.blocks.map((b) => b.path), ["b"]);
});

Deno.test("an unterminated multi-line parameter names its opening line", () => {
  const { problems } = parsePatch(`=== block.delete: "a" ===
start-keys<
 foo
=== end ===
=== PATCH EOF ===`);
  assert.equal(problems.length, 1);
  assert.equal(problems[0].line, 2);
  assert.match(problems[0].expected, />start-keys/);
});

Deno.test("a patch wrapped in a code fence, or sent with CRLF line breaks, parses the same", () => {
  const fenced = parsePatch("```\n" + SEED_EXAMPLE + "```\n");
  assert.deepEqual(fenced.problems, []);
  assert.equal(fenced.patch.blocks.length, 2);
  assert.equal(fenced.patch.blocks[1].line, 13, "line numbers stay those of the text sent");
  const crlf = parsePatch(SEED_EXAMPLE.replaceAll("\n", "\r\n"));
  assert.deepEqual(crlf.problems, []);
  assert.deepEqual(crlf.patch.blocks[1].body, ["Note: Login timeout is 60 seconds."]);
});

Deno.test("git blocks may omit the path; other blocks may not", () => {
  const { patch, problems } = parsePatch(`=== git.commit ===
=== end ===
=== file.write ===
x
=== end ===
=== PATCH EOF ===`);
  assert.equal(patch.blocks.length, 1);
  assert.equal(patch.blocks[0].op, "git.commit");
  assert.equal(problems.length, 1);
  assert.match(problems[0].message, /line 3: expected a path/);
});

Deno.test("header fields after a block, or repeated, are errors that say what to do", () => {
  const { problems } = parsePatch(`commitmsg: a
commitmsg: b
=== file.write: "a" ===
x
=== end ===
author: Me <me@x>
=== PATCH EOF ===`);
  assert.equal(problems.length, 2);
  assert.match(problems[0].message, /line 2: expected one `commitmsg:` line \(already given at line 1\)/);
  assert.match(problems[1].message, /line 6: header fields .* go before the first block/);
});

Deno.test("a patch copied with a uniform indentation (markers included) is dedented", () => {
  const indented = SEED_EXAMPLE.split("\n").map((l) => (l ? "    " + l : l)).join("\n");
  const { patch, problems } = parsePatch(indented);
  assert.deepEqual(problems, []);
  assert.equal(patch.blocks[0].body[1], "timeout := 60  // Extend timeout to 60s");
  // A body indented on its own stays as written.
  const body = parsePatch('=== file.write: "a" ===\n  x\n=== end ===\n=== PATCH EOF ===\n');
  assert.deepEqual(body.patch.blocks[0].body, ["  x"]);
});

Deno.test("code such as `offset = 0` in a body is body: a parameter is written key=value, = right after the key", () => {
  const { patch, problems } = parsePatch(
    '=== line.replace: "x.py" ===\nkeys=a = 1\noffset = 0\n=== end ===\n' +
      '=== line.insert: "x.py" ===\nlineno=1\nnthl = 2\nmode = "fast"\n=== end ===\n=== PATCH EOF ===\n',
  );
  assert.deepEqual(problems, []);
  const [replace, insert] = patch.blocks;
  assert.deepEqual([...replace.params.keys()], ["keys"]);
  assert.equal(replace.params.get("keys")?.value, "a = 1");
  assert.deepEqual(replace.body, ["offset = 0"]);
  assert.deepEqual([...insert.params.keys()], ["lineno"]);
  assert.deepEqual(insert.body, ["nthl = 2", 'mode = "fast"']);
});
