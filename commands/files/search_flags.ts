/** The flags `grep` and `search` share, declared once so both spell and describe them alike. */

import type { FlagSpec } from "../../core/declaration.ts";

/** A boolean flag; `compat` marks one accepted for habit whose meaning is already the default. */
export function boolFlag(
  name: string,
  short: string | undefined,
  description: string,
  options: { aliases?: string[]; compat?: boolean } = {},
): FlagSpec {
  return {
    name,
    ...(short ? { short } : {}),
    ...(options.aliases ? { aliases: options.aliases } : {}),
    ...(options.compat ? { compat: true } : {}),
    type: "boolean",
    description,
  };
}

/** `-A`, `-B`, `-C`: context lines around each match. */
export const CONTEXT_FLAGS: readonly FlagSpec[] = [
  {
    name: "after-context",
    short: "A",
    type: "number",
    min: 0,
    valueName: "N",
    description: "N lines after each match",
  },
  {
    name: "before-context",
    short: "B",
    type: "number",
    min: 0,
    valueName: "N",
    description: "N lines before each match",
  },
  {
    name: "context",
    short: "C",
    type: "number",
    min: 0,
    digits: true,
    valueName: "N",
    description: "N lines around each match",
  },
];

/** `-e pattern`, repeatable: patterns that may begin with `-`. */
export const REGEXP_FLAG: FlagSpec = {
  name: "regexp",
  short: "e",
  type: "string",
  repeatable: true,
  valueName: "pattern",
  description: "A pattern (repeatable)",
};

/** `-m N`: the per-file cap on matching lines. */
export const MAX_COUNT_FLAG: FlagSpec = {
  name: "max-count",
  short: "m",
  type: "number",
  min: 0,
  valueName: "N",
  description: "Stop after N matching lines per file",
};
