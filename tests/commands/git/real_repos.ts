/**
 * Real projects' histories for the oracle tests, stored as git bundles in tests/fixtures (their
 * sources, commits and licences are in the READMEs there): cloned with the real git into a test's
 * temporary folder, so every machine runs the tests on the same history, with no network.
 * And the full stdout of a pterm call, which the envelope keeps only the head and tail of when long.
 */

import assert from "node:assert/strict";
import type { Envelope } from "../../../core/envelope.ts";
import { git } from "./oracle.ts";

/** Each bundle: its file under tests/fixtures, and the branch it carries. */
export const REAL_REPOS = {
  /** BurntSushi/toml: 533 commits, 89 merges, files moved twice (type-check.go → type_check.go → type_toml.go). */
  toml: { bundle: "history/toml.bundle", branch: "master" },
  /** lukeed/kleur: 125 commits, files moved with edits in the same commit (index.js → index.mjs, 99 %). */
  kleur: { bundle: "history/kleur.bundle", branch: "master" },
  /** antirez/linenoise: 152 commits of C code, 20 merges, no renames. */
  linenoise: { bundle: "diff/linenoise.bundle", branch: "master" },
} as const;

export type RealRepo = keyof typeof REAL_REPOS;

/** Clones the bundle of `name` into `into` (which must not exist yet) with the real git; returns `into`. */
export async function cloneRealRepo(name: RealRepo, into: string): Promise<string> {
  const { bundle, branch } = REAL_REPOS[name];
  const path = new URL(`../../fixtures/${bundle}`, import.meta.url).pathname;
  await git(".", "clone", "-q", "--branch", branch, path, into);
  return into;
}

/** pterm's whole stdout: the envelope's, or the artifact holding all of it when the envelope's was cut. */
export async function fullStdout(root: string, envelope: Envelope): Promise<string> {
  if (!envelope.truncated.stdout) return envelope.stdout;
  const artifact = envelope.artifacts.find((a) => a.path.endsWith("/stdout.txt"));
  assert.ok(artifact, `stdout was cut and no artifact holds it: ${JSON.stringify(envelope.artifacts)}`);
  return await Deno.readTextFile(`${root}/${artifact.path}`);
}
