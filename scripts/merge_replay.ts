/**
 * Replays a real repository's merges through pterm's three-way text merge and compares each
 * merged file with git's merge-ort (`git merge-tree --write-tree`), byte for byte, with the
 * clean/conflicted verdict. For every two-parent merge commit with a single merge base, each
 * path that both parents changed (same path in base and both parents, regular text files) is
 * merged by diff3.ts's mergeText and compared with the blob merge-tree leaves at that path.
 *
 *   deno run -A scripts/merge_replay.ts <repository> [<max merges>] [<rev range>]
 *
 * Prints the counts and every disagreement (the commit, the path); exits 1 on any.
 */

import { mergeText } from "../commands/git/merge/diff3.ts";

const [repo, maxArg, range] = Deno.args;
if (!repo) {
  Deno.stderr.writeSync(new TextEncoder().encode("usage: merge_replay.ts <repository> [<max merges>] [<rev range>]\n"));
  Deno.exit(2);
}
const max = Number(maxArg ?? 200);

async function git(args: string[], allowFail = false): Promise<{ code: number; out: Uint8Array }> {
  const result = await new Deno.Command("git", {
    args: ["-C", repo, ...args],
    stdout: "piped",
    stderr: "piped",
    env: { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
  }).output();
  if (result.code !== 0 && !allowFail) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(result.stderr)}`);
  }
  return { code: result.code, out: result.stdout };
}
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
/** The report goes to standard output. */
const say = (line: string) => Deno.stdout.writeSync(new TextEncoder().encode(`${line}\n`));
const latin1 = (bytes: Uint8Array) => new TextDecoder("latin1").decode(bytes);

/** Blob ids by path of a tree (recursive), regular files only. */
async function blobs(tree: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const line of text((await git(["ls-tree", "-r", "-z", tree])).out).split("\0")) {
    const match = /^(100644|100755) blob ([0-9a-f]+)\t(.*)$/s.exec(line);
    if (match) out.set(match[3], match[2]);
  }
  return out;
}

/** Reads many blobs through one `git cat-file --batch`. */
async function readBlobs(oids: string[]): Promise<Map<string, Uint8Array>> {
  const child = new Deno.Command("git", {
    args: ["-C", repo, "cat-file", "--batch"],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(oids.map((o) => `${o}\n`).join("")));
  await writer.close();
  const all = (await child.output()).stdout;
  const out = new Map<string, Uint8Array>();
  let at = 0;
  for (const oid of oids) {
    const eol = all.indexOf(10, at);
    const size = Number(text(all.subarray(at, eol)).split(" ")[2]);
    out.set(oid, all.subarray(eol + 1, eol + 1 + size));
    at = eol + 1 + size + 1;
  }
  return out;
}

const binary = (bytes: Uint8Array) => bytes.subarray(0, 8000).includes(0);
const merges = text((await git(["rev-list", "--merges", "--max-parents=2", `--max-count=${max}`, range ?? "HEAD"])).out)
  .split("\n").filter(Boolean);
let replayed = 0;
let files = 0;
let conflicted = 0;
let skipped = 0;
const disagreements: string[] = [];
for (const merge of merges) {
  const [p1, p2] = text((await git(["rev-parse", `${merge}^1`, `${merge}^2`])).out).trim().split("\n");
  const bases = text((await git(["merge-base", "--all", p1, p2], true)).out).trim().split("\n").filter(Boolean);
  if (bases.length !== 1) {
    skipped++;
    continue;
  }
  const ort = await git(["merge-tree", "--write-tree", "--no-messages", p1, p2], true);
  const resultTree = text(ort.out).split("\n")[0];
  const [B, O, T, R] = await Promise.all([bases[0], p1, p2, resultTree].map((rev) => blobs(rev)));
  const paths = [...B.keys()].filter((path) => {
    const b = B.get(path);
    const o = O.get(path);
    const t = T.get(path);
    return o && t && o !== b && t !== b && o !== t && R.has(path);
  });
  if (paths.length === 0) continue;
  replayed++;
  const contents = await readBlobs([...new Set(paths.flatMap((p) => [B.get(p)!, O.get(p)!, T.get(p)!, R.get(p)!]))]);
  for (const path of paths) {
    const [b, o, t, r] = [B, O, T, R].map((m) => contents.get(m.get(path)!)!);
    if (binary(b) || binary(o) || binary(t)) continue;
    files++;
    const mine = mergeText(latin1(b), latin1(o), latin1(t), { ours: p1, theirs: p2 });
    if (mine.conflicts > 0) conflicted++;
    if (mine.text !== latin1(r)) disagreements.push(`${merge} ${path}`);
  }
}
say(
  `${merges.length} merges read, ${skipped} with several merge bases skipped, ${replayed} with files both sides changed: ` +
    `${files} files merged (${conflicted} with conflicts), ${disagreements.length} differ from git's merge-ort`,
);
for (const line of disagreements) say(`differs: ${line}`);
if (disagreements.length) Deno.exit(1);
