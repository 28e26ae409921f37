/**
 * The built-in SKILL.md documents: front matter (name, description) and runnable examples.
 * An example is a fenced block tagged `terminal_exec` holding one tool call as JSON:
 *
 *     ```terminal_exec
 *     {"command": "hello"}
 *     ```
 */

import type { ExecRequest } from "./envelope.ts";
import { PtermError } from "./errors.ts";
import { parseRequest } from "./request.ts";

export interface SkillSummary {
  readonly name: string;
  readonly description: string;
  /** Where it lives in pterm's source tree, e.g. skills/hello-world/SKILL.md. */
  readonly path: string;
}

export interface Skill extends SkillSummary {
  readonly content: string;
  readonly examples: readonly ExecRequest[];
}

/** Reads the `---` front matter block: `key: value` lines (values may be quoted). */
export function parseFrontMatter(markdown: string): Record<string, string> {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n/.exec(markdown);
  if (!match) return {};
  const fields: Record<string, string> = {};
  for (const line of match[1].split(/\r?\n/)) {
    const m = /^([A-Za-z0-9_-]+):\s*(.*)$/.exec(line);
    if (!m) continue;
    let value = m[2].trim();
    if ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'"))) {
      value = value.slice(1, -1);
    }
    fields[m[1]] = value;
  }
  return fields;
}

/** Every `terminal_exec` example in a document, in order. */
export function extractExamples(markdown: string, source = "SKILL.md"): ExecRequest[] {
  const examples: ExecRequest[] = [];
  const fence = /^```terminal_exec[ \t]*\r?\n([\s\S]*?)^```[ \t]*$/gm;
  for (const match of markdown.matchAll(fence)) {
    try {
      examples.push(parseRequest(JSON.parse(match[1])));
    } catch (error) {
      throw new Error(`${source}: a terminal_exec example is not a valid tool call: ${(error as Error).message}`);
    }
  }
  return examples;
}

async function readSkill(skillsDir: URL, name: string): Promise<Skill | null> {
  let content: string;
  try {
    content = await Deno.readTextFile(new URL(`${name}/SKILL.md`, skillsDir));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  const front = parseFrontMatter(content);
  return {
    name: front.name ?? name,
    description: front.description ?? "",
    path: `skills/${name}/SKILL.md`,
    content,
    examples: extractExamples(content, `skills/${name}/SKILL.md`),
  };
}

export async function listSkills(skillsDir: URL): Promise<Skill[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(skillsDir)) if (entry.isDirectory) names.push(entry.name);
  const skills = await Promise.all(names.sort().map((name) => readSkill(skillsDir, name)));
  return skills.filter((s): s is Skill => s !== null);
}

export async function showSkill(skillsDir: URL, name: string): Promise<Skill> {
  const all = await listSkills(skillsDir);
  const found = all.find((s) => s.name === name);
  if (!found) {
    throw new PtermError(
      "NotFound",
      `no skill named \`${name}\`; the skills are: ${all.map((s) => s.name).join(", ")}.`,
    );
  }
  return found;
}
