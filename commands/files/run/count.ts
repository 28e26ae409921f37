/** `wc` (coreutils' counts and column widths) and `pwd` (the root is `.`). */

import type { CommandContext } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import { quoteWord } from "../../../core/grammar.ts";
import { named } from "../visible.ts";
import { MAX_READ_BYTES } from "../visible.ts";

export interface WcOptions {
  readonly lines: boolean;
  readonly words: boolean;
  readonly bytes: boolean;
  readonly chars: boolean;
}

interface Counts {
  lines: number;
  words: number;
  chars: number;
  bytes: number;
}

function count(data: Uint8Array): Counts {
  let lines = 0;
  let words = 0;
  let chars = 0;
  let inWord = false;
  for (const byte of data) {
    if (byte === 10) lines++;
    if ((byte & 0xc0) !== 0x80) chars++;
    const space = byte === 32 || (byte >= 9 && byte <= 13);
    if (space) inWord = false;
    else if (!inWord) {
      inWord = true;
      words++;
    }
  }
  return { lines, words, chars, bytes: data.length };
}

export function wc(
  ctx: CommandContext,
  paths: readonly string[],
  options: WcOptions,
): Promise<Record<string, unknown>> {
  const chosen = options.lines || options.words || options.bytes || options.chars
    ? options
    : { lines: true, words: true, bytes: true, chars: false };
  const rows: { name: string; counts: Counts }[] = [];
  for (const path of paths) {
    const file = named(ctx.workspace.root, path, "wc");
    if (file.info.isDirectory) {
      throw new PtermError(
        "InvalidPath",
        `wc: ${path}: Is a directory. Count its files' lines with \`grep -rc '' ${quoteWord(path)}\`.`,
      );
    }
    if (file.info.size > MAX_READ_BYTES && (chosen.lines || chosen.words || chosen.chars)) {
      throw new PtermError(
        "InputTooLarge",
        `wc: ${path} is ${file.info.size} bytes, more than a count reads; \`wc -c ${quoteWord(path)}\` gives its size.`,
      );
    }
    const counts = chosen.lines || chosen.words || chosen.chars
      ? count(Deno.readFileSync(file.abs))
      : { lines: 0, words: 0, chars: 0, bytes: file.info.size };
    rows.push({ name: path, counts });
  }
  if (rows.length > 1) {
    const total = { lines: 0, words: 0, chars: 0, bytes: 0 };
    for (const { counts } of rows) for (const key of Object.keys(total) as (keyof Counts)[]) total[key] += counts[key];
    rows.push({ name: "total", counts: total });
  }
  const fields = (["lines", "words", "chars", "bytes"] as const).filter((key) => chosen[key]);
  const totalSize = rows.slice(0, paths.length).reduce((sum, row) => sum + row.counts.bytes, 0);
  const width = fields.length === 1 && paths.length === 1 ? 1 : Math.max(1, String(totalSize).length);
  ctx.stdout.write(
    rows.map(({ name, counts }) => `${fields.map((f) => String(counts[f]).padStart(width)).join(" ")} ${name}\n`)
      .join(""),
  );
  return Promise.resolve({
    files: rows.slice(0, paths.length).map(({ name, counts }) => ({ path: name, ...counts })),
  });
}

export function pwd(ctx: CommandContext): Promise<Record<string, unknown>> {
  ctx.stdout.write(".\n");
  return Promise.resolve({ path: "." });
}
