/**
 * Twin repositories for comparing git's texts: a history made by the real git, copied to `p` (driven by pterm) and
 * `g` (driven by git), each step run in both and its stdout (and, asked, stderr) compared byte for byte, commit ids
 * read as the subjects of the commits they name.
 */

import assert from "node:assert/strict";
import { git, gitRaw, ptermTry, write } from "../oracle.ts";

/** Every abbreviated or whole commit id of `dir`'s history (reflogs included) in `text`, as `<subject>`. */
export async function byName(dir: string, text: string): Promise<string> {
  const lines = (await git(dir, "log", "--all", "--reflog", "--format=%H%x09%s")).split("\n").filter(Boolean);
  let out = text;
  for (const line of lines) {
    const [id, subject] = line.split("\t");
    out = out.replace(new RegExp(`\\b${id.slice(0, 7)}[0-9a-f]{0,33}\\b`, "g"), `<${subject}>`);
  }
  return out;
}

const NOW_DATE = /^ Date: (Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2} \d{1,2} \d\d:\d\d:\d\d \d{4} [+-]\d{4}$/m;

export class Twins {
  constructor(readonly root: string) {}
  get p() {
    return `${this.root}/p`;
  }
  get g() {
    return `${this.root}/g`;
  }

  /** The same step through pterm (in p) and the real git (in g): the same exit, the same text. */
  async step(
    line: string,
    gitArgs: string[],
    options: {
      nowDate?: boolean;
      fails?: boolean;
      stderr?: boolean;
      /** Object ids no ref names any more (a dropped stash entry), each side's own, read as one name. */
      gone?: { p: string; g: string; name: string };
    } = {},
  ): Promise<void> {
    const ours = await ptermTry(this.root, `git -C p ${line}`);
    const theirs = await gitRaw(this.g, gitArgs);
    if (options.fails) {
      assert.notEqual(ours.exit_code, 0, `pterm ${line} succeeded where git failed`);
      assert.notEqual(theirs.code, 0);
    } else {
      assert.equal(ours.exit_code, 0, `pterm ${line}: ${ours.stderr}`);
      assert.equal(theirs.code, 0, `git ${gitArgs.join(" ")}: ${theirs.stderr}`);
    }
    let mine = await byName(this.p, ours.stdout);
    let real = await byName(this.g, theirs.stdout);
    if (options.gone) {
      mine = mine.replaceAll(options.gone.p, options.gone.name);
      real = real.replaceAll(options.gone.g, options.gone.name);
    }
    if (options.nowDate) {
      assert.match(mine, NOW_DATE, `pterm ${line}: its Date line`);
      mine = mine.replace(NOW_DATE, " Date: <now>");
      real = real.replace(NOW_DATE, " Date: <now>");
    }
    assert.equal(mine, real, `git ${line}: stdout`);
    if (options.stderr) {
      assert.equal(await byName(this.p, ours.stderr), await byName(this.g, theirs.stderr), `git ${line}: stderr`);
    }
  }

  async write(path: string, text: string): Promise<void> {
    await write(`${this.p}/${path}`, text);
    await write(`${this.g}/${path}`, text);
  }

  async both(...args: string[]): Promise<void> {
    await git(this.p, ...args);
    await git(this.g, ...args);
  }
}

/** A history made by the real git, copied to p and g so that both start from the same commits. */
export async function twins(root: string): Promise<Twins> {
  const base = `${root}/base`;
  await Deno.mkdir(base);
  await git(base, "init", "-q", "-b", "main");
  await git(base, "config", "user.name", "Oracle");
  await git(base, "config", "user.email", "oracle@example.com");
  await write(`${base}/a.txt`, "one\ntwo\nthree\nfour\nfive\n");
  await write(`${base}/b.sh`, "echo b\n");
  await write(`${base}/dir/x.txt`, "x\n".repeat(20));
  await git(base, "add", "-A");
  await git(base, "commit", "-qm", "root");
  await git(base, "checkout", "-qb", "side");
  await write(`${base}/a.txt`, "ONE\ntwo\nthree\nfour\nfive\n");
  await write(`${base}/new.txt`, "new\n");
  await git(base, "add", "-A");
  await git(base, "commit", "-qm", "side change");
  await git(base, "checkout", "-qb", "topick", "main");
  await write(`${base}/p.txt`, "picked\n");
  await git(base, "update-index", "--chmod=+x", "b.sh");
  await git(base, "mv", "dir/x.txt", "dir/y.txt");
  await git(base, "add", "-A");
  await git(base, "commit", "-qm", "to pick");
  await git(base, "checkout", "-q", "main");
  await write(`${base}/a.txt`, "one\ntwo\nthree\nfour\nFIVE\n");
  await git(base, "commit", "-qam", "main change");
  await git(base, "branch", "behind", "main~1");
  await git(root, "clone", "-q", "base", "p");
  await git(root, "clone", "-q", "base", "g");
  const t = new Twins(root);
  for (const branch of ["side", "topick", "behind"]) await t.both("branch", "-q", branch, `origin/${branch}`);
  await t.both("config", "user.name", "Oracle");
  await t.both("config", "user.email", "oracle@example.com");
  return t;
}
