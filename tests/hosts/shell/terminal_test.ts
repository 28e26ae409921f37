/**
 * The shell's one terminal boundary: a file name holding ESC/BEL sequences (an OSC 2 title, an
 * OSC 52 clipboard write) reaches the person's terminal only escaped — through Tab completion
 * (in a real terminal, tmux), through readline's own drawing, and through commands' output. New
 * names with such characters are refused at confinement; existing ones stay readable and listable.
 */

import assert from "node:assert/strict";
import readline from "node:readline";
import { PassThrough } from "node:stream";
import { join } from "../../../core/fs/path.ts";
import { exec, makeRoot } from "../../_support/helpers.ts";
import { TerminalShell } from "./tmux.ts";
import { escapeEditorWrite, TerminalOutput } from "../../../hosts/shell/terminal.ts";
import { git } from "../../commands/git/oracle.ts";

const NO_COLOR = { NO_COLOR: "1" };
const TITLE = "\x1b]2;pwned-title\x07";
const CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4=\x07";
/** ESC or a one-byte CSI/OSC: what a terminal would obey. */
// deno-lint-ignore no-control-regex
const RAW_ESCAPE = /[\x07\x1b\x9b\x9d]/;

Deno.test("an agent cannot create a name holding ESC/BEL or a bidi override; an existing one stays readable", async () => {
  await using root = await makeRoot();
  for (const name of [`evil${TITLE}.txt`, `clip${CLIPBOARD}.txt`, "txt.\u202eexe", "tab\tname.txt"]) {
    const patch = `=== file.write: "docs/${name}" ===\n\nhello\n=== end ===\n\n=== PATCH EOF ===\n`;
    const envelope = await exec(root.path, "patch apply", { stdin: patch });
    assert.equal(envelope.error_code, "InvalidPath", envelope.stderr);
    assert.match(envelope.stderr, /control character \\(x1b|u202e|x09)/);
    assert.match(envelope.stderr, /path `docs\/[^`]*\\(x1b|u202e|x09)[^`]*` would create a name/, "shown escaped");
  }
  await assert.rejects(Deno.stat(join(root.path, "docs")), "nothing was created");

  // A name that came from elsewhere (a clone, an archive) can still be changed and moved to a clean name.
  await Deno.mkdir(join(root.path, "docs"));
  await Deno.writeTextFile(join(root.path, `docs/old${TITLE}.txt`), "kept\n");
  const append = `=== file.append: "docs/old${TITLE}.txt" ===\n\nmore\n=== end ===\n\n=== PATCH EOF ===\n`;
  const appended = await exec(root.path, "patch apply", { stdin: append });
  assert.equal(appended.exit_code, 0, appended.stderr);
  const move = `=== file.move: "docs/old${TITLE}.txt" ===\nto=docs/old.txt\n=== end ===\n\n` +
    "=== PATCH EOF ===\n";
  const moved = await exec(root.path, "patch apply", { stdin: move });
  assert.equal(moved.exit_code, 0, moved.stderr + moved.stdout);
  assert.match(await Deno.readTextFile(join(root.path, "docs/old.txt")), /^kept\n+more\n$/);
});

Deno.test("Tab completion over names holding OSC 2 / OSC 52 leaves the person's title alone (tmux)", async () => {
  await using root = await makeRoot();
  const repo = join(root.path, "proj");
  await Deno.mkdir(repo);
  await git(repo, "init", "-q");
  // Names as a clone brings them, committed with real git.
  await Deno.writeTextFile(join(repo, `notes${TITLE}.txt`), "a\n");
  await Deno.writeTextFile(join(repo, `list1${CLIPBOARD}.md`), "b\n");
  await Deno.writeTextFile(join(repo, `list2${TITLE}.md`), "c\n");
  await git(repo, "add", ".");
  await git(repo, "commit", "-q", "-m", "names");
  await using shell = await TerminalShell.start({ root: root.path, env: NO_COLOR });
  await shell.waitForPrompt();
  const titleBefore = await shell.tmux("display-message", "-p", "-t", shell.target, "#{pane_title}");
  // One candidate (completed onto the line), then two (listed under it).
  await shell.type("doc info --in proj/no");
  await shell.keys("Tab");
  await shell.waitFor(/› doc info --in proj\/no/);
  await shell.keys("C-c");
  await shell.type("doc info --in proj/li");
  await shell.keys("Tab");
  await shell.waitFor(/› doc info --in proj\/li/);
  await shell.keys("Tab");
  // What the person does next: looks at the repository with git through the shell.
  await shell.keys("C-c");
  await shell.line("git status --repo proj");
  const screen = await shell.waitFor(/exit 0 · /);
  assert.ok(screen.includes("nothing to commit"), screen);
  await shell.line("git ls-files --repo proj");
  const listed = await shell.waitFor(/exit 0 · /, { count: 2 });
  // As real git quotes them (core.quotePath): visible, never obeyed.
  assert.ok(listed.includes('"notes\\033]2;pwned-title\\a.txt"'), listed);
  assert.ok(listed.includes('"list1\\033]52;c;cm0gLXJmIH4=\\a.md"'), listed);
  const title = await shell.tmux("display-message", "-p", "-t", shell.target, "#{pane_title}");
  assert.ok(!title.includes("pwned"), `the title was changed: ${title}`);
  assert.equal(title, titleBefore);
  const buffers = await shell.tmux("list-buffers", "-F", "#{buffer_sample}").catch(() => "");
  assert.ok(!buffers.includes("rm -rf"), "nothing reached the clipboard");
});

Deno.test("readline's own drawing goes through the boundary: an offered name is drawn escaped", async () => {
  const writes: string[] = [];
  const terminal = new TerminalOutput({ write: (text) => writes.push(text), columns: 80, rows: 24, isTTY: true });
  const input = new PassThrough();
  const rl = readline.createInterface({
    input,
    output: terminal.editorStream(),
    terminal: true,
    // A completer that offered the names as they are: the boundary still escapes them.
    completer: (line: string) => [[`evil${TITLE}.txt `, `evil${CLIPBOARD}.md `], line.split(" ").pop()!],
  });
  rl.setPrompt("> ");
  rl.prompt();
  const settle = () => new Promise((resolve) => setTimeout(resolve, 50));
  input.write("doc e");
  await settle();
  input.write("\t");
  await settle();
  input.write("\t");
  await settle();
  rl.close();
  const drawn = writes.join("");
  assert.ok(drawn.includes("evil\\x1b]2;pwned-title\\x07.txt"), JSON.stringify(writes));
  for (const write of writes) {
    // Only readline's own cursor moves carry ESC, each written alone.
    if (RAW_ESCAPE.test(write)) assert.equal(escapeEditorWrite(write), write, JSON.stringify(write));
    assert.ok(!write.includes("\x1b]") && !write.includes("\x07"), JSON.stringify(write));
  }
});
