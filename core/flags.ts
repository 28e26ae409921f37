/**
 * Parses the words after a command's name against its declaration. Pure: no I/O, so every
 * rule here is tested directly (`tests/core/flags_test.ts`).
 */

import type { FlagSpec, LeafSpec, PositionalSpec } from "./declaration.ts";
import { PtermError } from "./errors.ts";
import { didYouMean } from "./suggest.ts";

export type FlagValue = string | number | boolean | string[] | number[];

export interface ParsedArgs {
  flags: Record<string, FlagValue | undefined>;
  positionals: Record<string, string | string[] | undefined>;
}

export type ParseOutcome = { help: true } | { help: false; args: ParsedArgs };

function usageError(commandPath: string, message: string): never {
  throw new PtermError("InvalidArgs", `${commandPath}: ${message}`, { helpFor: commandPath });
}

function flagLabel(flag: FlagSpec): string {
  return flag.type === "boolean" ? `--${flag.name}` : `--${flag.name} <${flag.valueName ?? flag.type}>`;
}

function convert(commandPath: string, flag: FlagSpec, raw: string): string | number | boolean {
  if (flag.type === "boolean") {
    if (raw === "true") return true;
    if (raw === "false") return false;
    usageError(commandPath, `--${flag.name} is a switch; write --${flag.name} alone (or --${flag.name}=false).`);
  }
  if (flag.type === "number") {
    if (!/^-?\d+$/.test(raw)) {
      usageError(commandPath, `--${flag.name} takes a whole number, not \`${raw}\`.`);
    }
    const value = Number(raw);
    if (!Number.isSafeInteger(value)) usageError(commandPath, `--${flag.name} \`${raw}\` is too large.`);
    if (flag.min !== undefined && value < flag.min) {
      usageError(commandPath, `--${flag.name} must be at least ${flag.min}, not ${value}.`);
    }
    if (flag.max !== undefined && value > flag.max) {
      usageError(commandPath, `--${flag.name} must be at most ${flag.max}, not ${value}.`);
    }
    return value;
  }
  if (flag.choices && !flag.choices.includes(raw)) {
    usageError(
      commandPath,
      `--${flag.name} must be one of ${flag.choices.join(", ")}, not \`${raw}\`.${didYouMean(raw, flag.choices)}`,
    );
  }
  return raw;
}

/** Parses `words` for the leaf command `spec`, reached as `commandPath` (e.g. "git commit"). */
/** What parsing needs of a declaration: its flags and positionals. */
export type ArgsSpec = Pick<LeafSpec, "flags" | "positionals">;

export function parseArgs(commandPath: string, spec: ArgsSpec, words: readonly string[]): ParseOutcome {
  const flagSpecs = spec.flags ?? [];
  const positionalSpecs = spec.positionals ?? [];
  const byName = new Map(flagSpecs.flatMap((f) => [f.name, ...(f.aliases ?? [])].map((n) => [n, f] as const)));
  const byShort = new Map(flagSpecs.filter((f) => f.short).map((f) => [f.short!, f]));
  const knownFlagWords = new Set([
    ...[...byName.keys()].map((n) => `--${n}`),
    ...flagSpecs.filter((f) => f.short).map((f) => `-${f.short}`),
    "--help",
    "-h",
  ]);

  const flags: Record<string, FlagValue | undefined> = {};
  const seen = new Set<string>();
  const loose: string[] = [];
  let onlyPositionals = false;

  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (onlyPositionals || !word.startsWith("-") || word === "-" || /^-\d/.test(word)) {
      loose.push(word);
      continue;
    }
    if (word === "--") {
      onlyPositionals = true;
      continue;
    }
    if (word === "--help" || word === "-h") return { help: true };

    let flag: FlagSpec | undefined;
    let inline: string | undefined;
    if (word.startsWith("--")) {
      const eq = word.indexOf("=");
      const name = eq < 0 ? word.slice(2) : word.slice(2, eq);
      inline = eq < 0 ? undefined : word.slice(eq + 1);
      flag = byName.get(name);
      if (!flag) {
        const hint = didYouMean(name, flagSpecs.map((f) => f.name), (n) => `--${n}`);
        const known = flagSpecs.length
          ? ` Its flags: ${flagSpecs.map((f) => `--${f.name}`).join(", ")}.`
          : " It takes no flags.";
        usageError(commandPath, `unknown flag --${name}.${hint || known}`);
      }
    } else {
      const short = word.slice(1, 2);
      flag = byShort.get(short);
      if (!flag || (word.length > 2 && word[2] !== "=")) {
        const longGuess = byName.get(word.slice(1)) ? ` Did you mean --${word.slice(1)}?` : "";
        usageError(commandPath, `unknown flag ${word}.${longGuess}`);
      }
      inline = word.length > 2 ? word.slice(3) : undefined;
    }

    if (seen.has(flag.name) && !flag.repeatable) {
      usageError(commandPath, `--${flag.name} was given twice; give it once.`);
    }
    seen.add(flag.name);

    let raw: string;
    if (flag.type === "boolean") {
      raw = inline ?? "true";
    } else if (inline !== undefined) {
      raw = inline;
    } else {
      const next = words[i + 1];
      if (next === undefined) {
        usageError(commandPath, `${flagLabel(flag)} needs a value.`);
      }
      if (knownFlagWords.has(next.split("=")[0])) {
        usageError(
          commandPath,
          `${flagLabel(flag)} needs a value, but the next word \`${next}\` is a flag. ` +
            `If the value really is \`${next}\`, write --${flag.name}=${next}.`,
        );
      }
      raw = next;
      i++;
    }
    const value = convert(commandPath, flag, raw);
    if (flag.repeatable) {
      const list = (flags[flag.name] as (string | number)[] | undefined) ?? [];
      list.push(value as string | number);
      flags[flag.name] = list as string[] | number[];
    } else {
      flags[flag.name] = value;
    }
  }

  for (const flag of flagSpecs) {
    if (flags[flag.name] !== undefined) continue;
    if (flag.required) {
      usageError(commandPath, `missing ${flagLabel(flag)} (${flag.description}).`);
    }
    if (flag.repeatable) flags[flag.name] = [];
    else if (flag.default !== undefined) flags[flag.name] = flag.default;
    else if (flag.type === "boolean") flags[flag.name] = false;
  }

  return {
    help: false,
    args: { flags, positionals: assignPositionals(commandPath, positionalSpecs, loose, flagSpecs) },
  };
}

function assignPositionals(
  commandPath: string,
  specs: readonly PositionalSpec[],
  words: string[],
  flagSpecs: readonly FlagSpec[],
): Record<string, string | string[] | undefined> {
  const out: Record<string, string | string[] | undefined> = {};
  let index = 0;
  for (const spec of specs) {
    if (spec.variadic) {
      out[spec.name] = words.slice(index);
      index = words.length;
      if (spec.required && (out[spec.name] as string[]).length === 0) {
        usageError(commandPath, `missing <${spec.name}> (${spec.description}).`);
      }
      continue;
    }
    if (index < words.length) {
      out[spec.name] = words[index++];
    } else if (spec.required) {
      usageError(commandPath, `missing <${spec.name}> (${spec.description}).`);
    }
  }
  if (index < words.length) {
    const extra = words[index];
    const asFlag = didYouMean(extra, flagSpecs.map((f) => f.name), (n) => `--${n}`);
    const takes = specs.length
      ? `it takes ${specs.map((s) => `<${s.name}>`).join(" ")}`
      : "it takes no positional arguments";
    usageError(
      commandPath,
      `unexpected argument \`${extra}\`: ${takes}.${asFlag}` +
        (extra.includes(" ") ? "" : " Values belong after their flag, e.g. --name value."),
    );
  }
  return out;
}
