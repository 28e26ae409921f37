/**
 * A walk's reading of a commit (commitLinks, behind ObjectStore.readCommitLinks: tree, parents,
 * committer's time from the header bytes) gives what the full parse (parseCommit) gives, on
 * random headers — names in ASCII, UTF-8 and Latin-1, odd white space and time zones, a missing
 * committer or author, repeated fields, continued fields (gpgsig, a continued committer line),
 * an `encoding` header, a bad tree — or hands the commit to the full parse; and ordinary commits
 * (ASCII names, no encoding) are read by it, not handed on. Real git's commits of a repository
 * read the same through both on top.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { commitLinks, ObjectStore, parseCommit } from "../../../../commands/git/odb/objects.ts";
import { makeRoot } from "../../../_support/helpers.ts";
import { git, gitInit, write } from "../oracle.ts";

const bytesOf = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
const hex = fc.stringMatching(/^[0-9a-f]{40}$/);
const asciiName = fc.stringMatching(/^[A-Za-z .'-]{0,12}$/);
const anyName = fc.oneof(
  asciiName,
  fc.constantFrom("Ren\xc3\xa9", "\xe9t\xe9", "\xc2\xa0x", "<>", "a>b", "x\ty"),
);
const when = fc.oneof(
  fc.tuple(
    fc.constantFrom(" ", "  ", "\t", " \r", "\xc2\xa0 ", ""),
    fc.nat({ max: 2 ** 40 }),
    fc.constantFrom(" +0000", " -0130", " +051800", "", "x"),
  )
    .map(([space, time, zone]) => `${space}${time}${zone}`),
  fc.constantFrom("", " ", " abc", " 12e3"),
);
const signature = (ascii: boolean) =>
  fc.tuple(
    ascii ? asciiName : anyName,
    ascii ? asciiName : anyName,
    ascii ? when.filter((w) => !/[\x80-\xff]/.test(w)) : when,
  )
    .map(([name, email, time]) => `${name} <${email}>${time}`);

function header(ascii: boolean) {
  return fc.record({
    tree: ascii ? hex : fc.oneof(hex, fc.constantFrom("", "abc", "ZZ".repeat(20))),
    parents: fc.array(hex, { maxLength: 3 }),
    author: fc.option(signature(ascii), { nil: undefined }),
    committer: fc.option(signature(ascii), { nil: undefined }),
    extra: fc.array(
      ascii
        ? fc.constantFrom("gpgsig -----BEGIN\n line\n -----END", "mergetag object x\n type commit")
        : fc.constantFrom(
          "gpgsig -----BEGIN\n line\n -----END",
          "encoding ISO-8859-1",
          "encoding UTF-8",
          " stray continuation",
          "tree " + "a".repeat(40),
          "committer X <y> 5 +0000\n continued",
          "parent \xe9",
        ),
      { maxLength: 2 },
    ),
    message: fc.constantFrom("", "subject\n", "subject\n\nbody\n", "\n\nx"),
    blank: fc.boolean(),
  }).map(({ tree, parents, author, committer, extra, message, blank }) => {
    const lines = [`tree ${tree}`, ...parents.map((p) => `parent ${p}`)];
    if (author !== undefined) lines.push(`author ${author}`);
    if (committer !== undefined) lines.push(`committer ${committer}`);
    lines.push(...extra);
    return lines.join("\n") + (blank ? `\n\n${message}` : "\n");
  });
}

function expected(bytes: Uint8Array) {
  const commit = parseCommit(bytes);
  return { tree: commit.tree, parents: [...commit.parents], committerTime: commit.committer.timestamp };
}

Deno.test("property: commitLinks reads what parseCommit reads, or hands the commit to it", () => {
  fc.assert(
    fc.property(header(false), (text) => {
      const bytes = bytesOf(text);
      let want: ReturnType<typeof expected> | null = null;
      try {
        want = expected(bytes);
      } catch {
        assert.equal(commitLinks(bytes), null, "a commit parseCommit refuses is handed to it");
        return;
      }
      const links = commitLinks(bytes);
      if (links) assert.deepEqual({ ...links, parents: [...links.parents] }, want, JSON.stringify(text));
    }),
    { numRuns: 2000 },
  );
});

Deno.test("property: ordinary commits (ASCII names, no encoding) are read by commitLinks itself, as parseCommit reads them", () => {
  fc.assert(
    fc.property(header(true), (text) => {
      const bytes = bytesOf(text);
      const links = commitLinks(bytes);
      assert.ok(links, JSON.stringify(text));
      assert.deepEqual({ ...links, parents: [...links.parents] }, expected(bytes));
    }),
    { numRuns: 1000 },
  );
});

Deno.test("a repository's commits (a shallow boundary among them) read the same through readCommitLinks and readCommit", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInit(dir);
  for (let i = 0; i < 6; i++) {
    await write(`${dir}/f.txt`, `${i}\n`);
    await git(dir, "add", "f.txt");
    await git(dir, "commit", "-qm", `c${i}`);
  }
  const oids = (await git(dir, "rev-list", "HEAD")).trim().split("\n");
  await Deno.writeTextFile(`${dir}/.git/shallow`, `${oids[3]}\n`);
  const links = new ObjectStore(`${dir}/.git`);
  const full = new ObjectStore(`${dir}/.git`);
  for (const oid of oids) {
    const commit = await full.readCommit(oid);
    const read = await links.readCommitLinks(oid);
    assert.deepEqual(
      { ...read, parents: [...read.parents] },
      { tree: commit.tree, parents: [...commit.parents], committerTime: commit.committer.timestamp },
      oid,
    );
  }
  assert.deepEqual((await links.readCommitLinks(oids[3])).parents, [], "the shallow boundary has no parents");
});
