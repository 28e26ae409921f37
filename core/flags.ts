/**
 * Parses the words after a command's name against its declaration. Pure: no I/O, so every
 * rule here is tested directly (`tests/core/flags_test.ts`).
 */

import type { FlagSpec, LeafSpec, PositionalSpec } from "./declaration.ts";
import { PtermError } from "./errors.ts";
import { didYouMean, suggest } from "./suggest.ts";
import { quoteWord } from "./grammar.ts";

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
export type ArgsSpec = Pick<LeafSpec, "flags" | "positionals" | "afterDoubleDash" | "refusedFlags">;

export function parseArgs(commandPath: string, spec: ArgsSpec, words: readonly string[]): ParseOutcome {
  const flagSpecs = spec.flags ?? [];
  const positionalSpecs = spec.positionals ?? [];
  const byName = new Map<string, FlagSpec>();
  for (const f of flagSpecs) {
    byName.set(f.name, f);
    for (const alias of f.aliases ?? []) byName.set(alias, f);
  }
  const byShort = new Map(flagSpecs.filter((f) => f.short).map((f) => [f.short!, f]));
  const digitsFlag = flagSpecs.find((f) => f.digits && f.type === "number");
  const knownFlagWords = new Set([
    ...[...byName.keys()].map((n) => `--${n}`),
    ...flagSpecs.filter((f) => f.short).map((f) => `-${f.short}`),
    "--help",
    "-h",
  ]);

  const flags: Record<string, FlagValue | undefined> = {};
  const seen = new Set<string>();
  const loose: string[] = [];
  const afterDashes: string[] = [];
  let onlyPositionals = false;

  const take = (flag: FlagSpec, raw: string) => {
    // An accepted no-op flag may come twice (git's `branch -vv`, `-qq`): nothing depends on how often.
    if (seen.has(flag.name) && !flag.repeatable && !flag.compat) {
      usageError(commandPath, `--${flag.name} was given twice; give it once.`);
    }
    seen.add(flag.name);
    const value = convert(commandPath, flag, raw);
    if (flag.repeatable) {
      const list = (flags[flag.name] as (string | number)[] | undefined) ?? [];
      list.push(value as string | number);
      flags[flag.name] = list as string[] | number[];
    } else {
      flags[flag.name] = value;
    }
  };
  /** The value of a flag that takes one, from the next word; `i` is the flag's own index. */
  const nextValue = (flag: FlagSpec, i: number): string => {
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
    return next;
  };

  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (onlyPositionals) {
      (spec.afterDoubleDash ? afterDashes : loose).push(word);
      continue;
    }
    if (digitsFlag && /^-\d+$/.test(word)) {
      take(digitsFlag, word.slice(1));
      continue;
    }
    // A word like `-3` is a number (a positional), unless the command declares that digit as a short flag.
    if (!word.startsWith("-") || word === "-" || (/^-\d/.test(word) && !byShort.has(word[1]))) {
      loose.push(word);
      continue;
    }
    if (word === "--") {
      onlyPositionals = true;
      continue;
    }
    // `-h` asks for help unless the command gives it a meaning of its own (`ls -h`, `git grep -h`), as they do.
    if (word === "--help" || (word === "-h" && !byShort.has("h"))) return { help: true };
    const refused = spec.refusedFlags?.[word.split("=")[0]];
    if (refused !== undefined) usageError(commandPath, `${word.split("=")[0]} is not available here: ${refused}`);

    if (word.startsWith("--")) {
      const eq = word.indexOf("=");
      const name = eq < 0 ? word.slice(2) : word.slice(2, eq);
      const inline = eq < 0 ? undefined : word.slice(eq + 1);
      const flag = byName.get(name);
      if (!flag) {
        // An alias is suggested with the flag's own name, which is what --help lists.
        const hint = didYouMean(name, [...byName.keys()], (n) => {
          const canonical = byName.get(n)!.name;
          return canonical === n ? `--${n}` : `--${n} (--${canonical})`;
        });
        const known = flagSpecs.length ? ` Its flags: ${flagList(flagSpecs)}.` : " It takes no flags.";
        // One close name: the hint is the whole corrected line, ready to run as it stands.
        const close = suggest(name, [...byName.keys()]);
        const fixed = close.length === 1
          ? ` Run \`${
            [commandPath, ...words.map((w, k) => k === i ? `--${close[0]}${eq < 0 ? "" : word.slice(eq)}` : w)]
              .map((w, k) => (k === 0 ? w : quoteWord(w))).join(" ")
          }\`.`
          : "";
        usageError(commandPath, `unknown flag --${name}.${hint || known}${fixed}`);
      }
      if (flag.type === "boolean") take(flag, inline ?? "true");
      else if (inline !== undefined) take(flag, inline);
      else if (flag.bareValue !== undefined) take(flag, flag.bareValue);
      else take(flag, nextValue(flag, i++));
      continue;
    }

    // `-message` is a long flag with one dash, not `-m essage`: refuse rather than guess.
    if (word.length > 2 && byName.has(word.slice(1).split("=")[0])) {
      usageError(commandPath, `unknown flag ${word}. Did you mean -${word}?`);
    }
    // A cluster of short flags, as getopt reads them: `-am text` is `-a -m text`, `-n3` is `-n 3`.
    for (let j = 1; j < word.length; j++) {
      const short = word[j];
      const flag = byShort.get(short);
      if (!flag) {
        const shorts = flagSpecs.filter((f) => f.short).map((f) => `-${f.short} (--${f.name})`);
        const valid = shorts.length ? ` Its short flags: ${shorts.join(", ")}.` : " It has no short flags.";
        usageError(
          commandPath,
          `unknown flag -${short}${word.length > 2 ? ` (in ${word})` : ""}.${valid}` +
            ` Its long flags: ${flagList(flagSpecs)}.`,
        );
      }
      const rest = word.slice(j + 1);
      if (flag.type === "boolean") {
        if (rest.startsWith("=")) {
          take(flag, rest.slice(1));
          break;
        }
        take(flag, "true");
        continue;
      }
      if (rest !== "") take(flag, rest.startsWith("=") ? rest.slice(1) : rest);
      else if (flag.bareValue !== undefined) take(flag, flag.bareValue);
      else take(flag, nextValue(flag, i++));
      break;
    }
  }

  if (afterDashes.length) {
    const target = byName.get(spec.afterDoubleDash!);
    if (!target) throw new Error(`afterDoubleDash names no flag: ${spec.afterDoubleDash}`);
    for (const word of afterDashes) take(target, word);
  }
  const positionals = assignPositionals(commandPath, positionalSpecs, loose, flagSpecs);
  for (const positional of positionalSpecs) {
    if (!positional.into) continue;
    const target = byName.get(positional.into);
    if (!target) throw new Error(`positional ${positional.name} lands in no flag: ${positional.into}`);
    const value = positionals[positional.name];
    for (const word of Array.isArray(value) ? value : value === undefined ? [] : [value]) take(target, word);
    delete positionals[positional.name];
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

  return { help: false, args: { flags, positionals } };
}

function flagList(flagSpecs: readonly FlagSpec[]): string {
  return flagSpecs.filter((f) => !f.compat).map((f) => `--${f.name}`).join(", ");
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
