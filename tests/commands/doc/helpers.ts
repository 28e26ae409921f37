/** Shared by the doc tests: fixture documents copied into fresh workspace roots. */

import { exec, makeRoot, type TempDir } from "../../_support/helpers.ts";
import type { Envelope } from "../../../core/envelope.ts";

export const FIXTURES = new URL("../../fixtures/doc/", import.meta.url).pathname;

/** A fresh root holding the named fixtures (`{"docs/r.pdf": "report.pdf"}`: destination → fixture). */
export async function rootWith(files: Record<string, string>, config?: unknown): Promise<TempDir> {
  const dir = await makeRoot("pterm-doc-");
  for (const [destination, fixture] of Object.entries(files)) {
    const target = `${dir.path}/${destination}`;
    await Deno.mkdir(target.slice(0, target.lastIndexOf("/")), { recursive: true });
    await Deno.copyFile(`${FIXTURES}${fixture}`, target);
  }
  if (config !== undefined) await Deno.writeTextFile(`${dir.path}/pterm.json`, JSON.stringify(config));
  return dir;
}

/** Runs a doc command that must succeed; returns the envelope and the output file's text. */
export async function extractOk(root: string, line: string): Promise<{ envelope: Envelope; text: string }> {
  const envelope = await exec(root, line);
  if (envelope.exit_code !== 0) throw new Error(`\`${line}\` failed (${envelope.error_code}):\n${envelope.stderr}`);
  const output = (envelope.result as { output: string }).output;
  return { envelope, text: await Deno.readTextFile(`${root}/${output}`) };
}

/** Every file under `dir`, relative to it (to show that a failure wrote nothing). */
export async function listFiles(dir: string, prefix = ""): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(`${dir}/${prefix}`)) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory) found.push(...await listFiles(dir, rel));
    else found.push(rel);
  }
  return found.sort();
}
