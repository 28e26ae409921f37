/**
 * Merges on git's exact bytes, conflicts included: files with a UTF-8 BOM, Latin-1 text, CRLF line
 * ends and no final newline go through a clean merge, a conflicting one (markers with CRLF where
 * git's xmerge puts them), its abort, a revert and a stash pop, in pterm and in the real git;
 * trees (hence blob bytes) and conflicted work-tree bytes must be identical.
 */

import assert from "node:assert/strict";
import { git } from "../oracle.ts";
import { Twin } from "../twin.ts";

const enc = new TextEncoder();
const BOM = [0xef, 0xbb, 0xbf];

/** Builds bytes from pieces: strings are ASCII/UTF-8, numbers are raw bytes. */
function bytes(...parts: (string | number[])[]): Uint8Array {
  const out: number[] = [];
  for (const part of parts) out.push(...(typeof part === "string" ? enc.encode(part) : part));
  return new Uint8Array(out);
}

const lines = (prefix: string, n: number, eol = "\n") =>
  Array.from({ length: n }, (_, i) => `${prefix}${i + 1}${eol}`).join("");

/** Four files with awkward bytes; `top`/`bottom` replace their first/last line. */
function files(top: string, bottom: string): Record<string, Uint8Array> {
  return {
    "bom.txt": bytes(BOM, top, "\n", lines("b", 8), bottom, "\n"),
    // Latin-1 "café" (é = 0xE9, not UTF-8) on every line.
    "latin1.txt": bytes(
      top,
      "\n",
      ...Array.from({ length: 8 }, (_, i) => ["caf", [0xe9], ` ${i}\n`]).flat(),
      bottom,
      "\n",
    ),
    "crlf.txt": bytes(top, "\r\n", lines("c", 8, "\r\n"), bottom, "\r\n"),
    "nofinal.txt": bytes(top, "\n", lines("n", 8), bottom),
  };
}

async function writeAll(twin: Twin, content: Record<string, Uint8Array>): Promise<void> {
  for (const [path, data] of Object.entries(content)) await twin.write(path, data);
}

async function commitAll(twin: Twin, message: string): Promise<void> {
  await twin.run("git add --repo R --all", ["add", "-A"]);
  await twin.run(`git commit --repo R -m ${message}`, ["commit", "-qm", message]);
}

/** The exact bytes of every work-tree file in both twins are equal. */
async function sameBytes(twin: Twin, paths: string[], note: string): Promise<void> {
  for (const path of paths) {
    const p = await Deno.readFile(`${twin.p}/${path}`);
    const g = await Deno.readFile(`${twin.g}/${path}`);
    assert.deepEqual(p, g, `${path} bytes ${note}`);
  }
}

Deno.test("merge, revert and stash keep a BOM, Latin-1, CRLF and a missing final newline byte for byte", async (t) => {
  await using twin = await Twin.create();
  const paths = Object.keys(files("", ""));
  await writeAll(twin, files("top", "bottom"));
  await commitAll(twin, "base");

  await t.step("a clean three-way merge", async () => {
    await twin.run("git branch --repo R side", ["branch", "side"]);
    await writeAll(twin, files("TOP-main", "bottom"));
    await commitAll(twin, "main-top");
    await twin.run("git checkout --repo R side", ["checkout", "-q", "side"]);
    await writeAll(twin, files("top", "BOTTOM-side"));
    await commitAll(twin, "side-bottom");
    await twin.run("git checkout --repo R main", ["checkout", "-q", "main"]);
    await twin.run('git merge --repo R --branch side -m "merge side"', ["merge", "-q", "side", "-m", "merge side"]);
    await twin.compare("clean merge");
    await sameBytes(twin, paths, "after the clean merge");
    const merged = await Deno.readFile(`${twin.p}/bom.txt`);
    assert.deepEqual([...merged.subarray(0, 3)], BOM, "the BOM survives the merge");
    assert.ok((await Deno.readFile(`${twin.p}/latin1.txt`)).includes(0xe9), "Latin-1 é stays one byte");
  });

  await t.step("a conflicting merge writes git's exact conflict bytes", async () => {
    await twin.run("git checkout --repo R --create other HEAD~2", ["checkout", "-q", "-b", "other", "HEAD~2"]);
    await writeAll(twin, files("top-other", "bottom"));
    await commitAll(twin, "other-top");
    await twin.run("git checkout --repo R main", ["checkout", "-q", "main"]);
    await twin.run("git merge --repo R --branch other", ["merge", "-q", "other"], "Conflict");
    await sameBytes(twin, paths, "in the conflict");
    await twin.run("git merge --repo R --abort", ["merge", "--abort"]);
    await twin.compare("aborted");
  });

  await t.step("revert merges the inverse change on the bytes", async () => {
    // HEAD^1 is main-top (the merge's first parent): revert it while side's bottom change stays.
    const mainTop = (await git(twin.g, "rev-parse", "HEAD^1")).trim();
    const ptermMainTop = (await git(twin.p, "rev-parse", "HEAD^1")).trim();
    await twin.run(`git revert --repo R --ref ${ptermMainTop}`, ["revert", "--no-edit", mainTop]);
    await twin.compare("reverted");
    await sameBytes(twin, paths, "after revert");
  });

  await t.step("stash pop merges a stashed change with a newer commit", async () => {
    await writeAll(twin, files("stashed-top", "BOTTOM-side"));
    await twin.run("git stash push --repo R", ["stash", "push", "-q"]);
    await writeAll(twin, files("top", "bottom-new"));
    await commitAll(twin, "bottom-new");
    await twin.run("git stash pop --repo R", ["stash", "pop", "-q"]);
    await twin.compare("popped");
    await sameBytes(twin, paths, "after stash pop");
  });
});
