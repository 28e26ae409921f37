/**
 * Commits written under `i18n.commitEncoding` (an `encoding` header, the author and message in that
 * encoding, as older projects and some locales have them): pterm's log and show read them as git
 * log shows them, re-encoded to UTF-8 — they showed U+FFFD for every byte that was not UTF-8.
 * The texts are converted by iconv and committed by the real git; git log is the oracle.
 */

import assert from "node:assert/strict";
import { exec, makeRoot } from "../../../_support/helpers.ts";
import { git, gitInit } from "../oracle.ts";

const CASES: { encoding: string; name: string; subject: string; body: string }[] = [
  { encoding: "ISO-8859-1", name: "José Müller", subject: "café au lait, naïve Ærø", body: "détails ½ ¿sí?" },
  { encoding: "ISO-8859-2", name: "Łukasz Żółć", subject: "zażółć gęślą jaźń", body: "Příliš žluťoučký kůň" },
  { encoding: "SHIFT_JIS", name: "山田太郎", subject: "日本語のコミット", body: "本文です。" },
  { encoding: "EUC-JP", name: "鈴木", subject: "ログの表示", body: "漢字とかな" },
  { encoding: "GBK", name: "张伟", subject: "中文提交说明", body: "正文内容" },
  { encoding: "KOI8-R", name: "Иван", subject: "исправлена ошибка", body: "подробности" },
];

async function run(cmd: string, args: string[], cwd: string, input?: Uint8Array): Promise<Uint8Array> {
  const child = new Deno.Command(cmd, { args, cwd, stdin: input ? "piped" : "null", stdout: "piped", stderr: "piped" })
    .spawn();
  if (input) {
    const writer = child.stdin.getWriter();
    await writer.write(input);
    await writer.close();
  }
  const out = await child.output();
  assert.ok(out.success, `${cmd} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  return out.stdout;
}

Deno.test("commits with an encoding header read as git log shows them", async (t) => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInit(dir);
  for (const [i, c] of CASES.entries()) {
    await t.step(c.encoding, async () => {
      const iconv = (text: string) =>
        run("iconv", ["-f", "UTF-8", "-t", c.encoding], dir, new TextEncoder().encode(text));
      await Deno.writeFile(`${root.path}/msg`, await iconv(`${c.subject}\n\n${c.body}\n`));
      await Deno.writeFile(`${root.path}/name`, await iconv(c.name));
      await Deno.writeTextFile(`${dir}/f.txt`, `${i}\n`);
      await git(dir, "add", "f.txt");
      // The author's name as bytes in that encoding: only a shell can pass them to git.
      await run("sh", [
        "-c",
        `GIT_AUTHOR_NAME="$(cat ../name)" git -c i18n.commitEncoding=${c.encoding} commit -q -F ../msg`,
      ], dir);
      const raw = new TextDecoder("latin1").decode(await run("git", ["cat-file", "commit", "HEAD"], dir));
      assert.match(raw, new RegExp(`^encoding ${c.encoding}$`, "m"), "the real git wrote the header");

      const real = (await git(dir, "log", "-1", "--format=%an%x00%s%x00%b")).split("\0");
      assert.deepEqual(real.map((s) => s.trim()), [c.name, c.subject, c.body], "git log re-encodes");
      const envelope = await exec(root.path, "git log -n 1 --repo r");
      assert.equal(envelope.exit_code, 0, envelope.stderr);
      const commit = (envelope.result as { commits: { author: { name: string }; subject: string; body: string }[] })
        .commits[0];
      assert.deepEqual([commit.author.name, commit.subject, commit.body.trim()], [c.name, c.subject, c.body]);
      const shown = await exec(root.path, "git show -s --repo r");
      assert.ok(shown.stdout.includes(c.subject) && shown.stdout.includes(c.name), shown.stdout);
    });
  }
});
