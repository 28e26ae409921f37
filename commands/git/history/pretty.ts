/**
 * git's pretty formats for `git log` and `git show`: the built-in ones (oneline, short, medium,
 * full, fuller, reference) and `format:`/`tformat:` templates with git's placeholders, dates in
 * git's --date modes, decorations (`%d`, `%D`, `--decorate`) in git's order. What pterm cannot
 * print as git would (colours, notes, column padding, mailmap) is decided here too: colours and
 * notes print nothing, as git does when piped and without notes; padding and width directives are
 * refused by the caller through `unsupportedPlaceholder`.
 */

import { PtermError } from "../../../core/errors.ts";
import { abbreviate } from "../odb/abbrev.ts";
import { type Commit, type Signature, splitMessage, type Tag } from "../odb/objects.ts";
import { listRefs, readHead, readRawRef, resolveRefOid } from "../repo/refs.ts";
import type { Repo } from "../repo/repo.ts";

export type PrettyFormat =
  | { readonly kind: "builtin"; readonly name: "oneline" | "short" | "medium" | "full" | "fuller" | "reference" }
  | { readonly kind: "template"; readonly template: string; readonly terminator: boolean };

export type DateMode = "default" | "iso" | "iso-strict" | "short" | "relative" | "unix" | "raw" | "rfc";

const BUILTIN = new Set(["oneline", "short", "medium", "full", "fuller", "reference"]);
const DATE_MODES = new Set([
  "default",
  "iso",
  "iso8601",
  "iso-strict",
  "iso8601-strict",
  "short",
  "relative",
  "unix",
  "raw",
  "rfc",
  "rfc2822",
]);

/** `--format`/`--pretty` as git reads it: a built-in name, `format:`, `tformat:`, or a template with `%`. */
export function parsePretty(spec: string): PrettyFormat {
  if (spec.startsWith("format:")) return { kind: "template", template: spec.slice(7), terminator: false };
  if (spec.startsWith("tformat:")) return { kind: "template", template: spec.slice(8), terminator: true };
  if (spec.includes("%")) return { kind: "template", template: spec, terminator: true };
  const name = spec === "" ? "medium" : spec;
  if (BUILTIN.has(name)) return { kind: "builtin", name: name as "oneline" };
  throw new PtermError(
    "InvalidArgs",
    `--format=${spec}: pterm knows git's oneline, short, medium, full, fuller and reference formats and ` +
      "`format:<template>` / `tformat:<template>` (e.g. `--format=%H`); raw, email and mboxrd are not available.",
  );
}

/** `--date=<mode>` as git names its modes (iso8601, rfc2822 as aliases); others are refused. */
export function parseDateMode(spec: string | undefined): DateMode {
  if (spec === undefined) return "default";
  const mode = spec.replace(/^format:.*/, "format");
  if (!DATE_MODES.has(mode)) {
    throw new PtermError(
      "InvalidArgs",
      `--date=${spec} is not available: pterm has git's default, iso, iso-strict, short, relative, unix, raw and ` +
        "rfc date modes.",
    );
  }
  return mode === "iso8601"
    ? "iso"
    : mode === "iso8601-strict"
    ? "iso-strict"
    : mode === "rfc2822"
    ? "rfc"
    : mode as DateMode;
}

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const two = (n: number) => String(n).padStart(2, "0");

function zone(minutes: number, colon: boolean): string {
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  return `${sign}${two(Math.floor(abs / 60))}${colon ? ":" : ""}${two(abs % 60)}`;
}

/** A signature's date in one of git's modes, in the signature's own time zone (as git shows it). */
export function formatDate(sig: Signature, mode: DateMode, now = Date.now() / 1000): string {
  if (mode === "unix") return String(sig.timestamp);
  if (mode === "raw") return `${sig.timestamp} ${zone(sig.tzOffset, false)}`;
  if (mode === "relative") return relativeDate(sig.timestamp, now);
  const local = new Date((sig.timestamp + sig.tzOffset * 60) * 1000);
  const y = local.getUTCFullYear();
  const mo = local.getUTCMonth();
  const d = local.getUTCDate();
  const time = `${two(local.getUTCHours())}:${two(local.getUTCMinutes())}:${two(local.getUTCSeconds())}`;
  switch (mode) {
    case "short":
      return `${y}-${two(mo + 1)}-${two(d)}`;
    case "iso":
      return `${y}-${two(mo + 1)}-${two(d)} ${time} ${zone(sig.tzOffset, false)}`;
    case "iso-strict":
      return `${y}-${two(mo + 1)}-${two(d)}T${time}${zone(sig.tzOffset, true)}`;
    case "rfc":
      return `${DAYS[local.getUTCDay()]}, ${d} ${MONTHS[mo]} ${y} ${time} ${zone(sig.tzOffset, false)}`;
    default:
      return `${DAYS[local.getUTCDay()]} ${MONTHS[mo]} ${d} ${time} ${y} ${zone(sig.tzOffset, false)}`;
  }
}

/** git's show_date_relative. */
function relativeDate(timestamp: number, now: number): string {
  const when = Math.floor(now);
  if (timestamp > when) return "in the future";
  let diff = when - timestamp;
  const ago = (n: number, unit: string) => `${n} ${unit}${n === 1 ? "" : "s"} ago`;
  if (diff < 90) return ago(diff, "second");
  diff = Math.floor((diff + 30) / 60);
  if (diff < 90) return ago(diff, "minute");
  diff = Math.floor((diff + 30) / 60);
  if (diff < 36) return ago(diff, "hour");
  diff = Math.floor((diff + 12) / 24);
  if (diff < 14) return ago(diff, "day");
  if (diff < 70) return ago(Math.floor((diff + 3) / 7), "week");
  if (diff < 365) return ago(Math.floor((diff + 15) / 30), "month");
  if (diff < 1825) {
    const totalMonths = Math.floor((diff * 12 * 2 + 365) / (365 * 2));
    const years = Math.floor(totalMonths / 12);
    const months = totalMonths % 12;
    if (months) {
      return `${years} ${years === 1 ? "year" : "years"}, ${months} ${months === 1 ? "month" : "months"} ago`;
    }
    return ago(years, "year");
  }
  return ago(Math.floor((diff + 183) / 365), "year");
}

/**
 * Each commit's decorations as git's `--decorate` (short) shows them: `HEAD -> main` first (or
 * `HEAD` when detached), then the other refs pointing at it, tags as `tag: v1` (annotated ones at
 * the commit they name), in the reverse of git's ref order, as git prepends each one it finds.
 */
export async function decorations(repo: Repo): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  const add = (oid: string, label: string) => found.set(oid, [label, ...(found.get(oid) ?? [])]);
  // Every ref, as git loads them: refs/stash and other refs outside heads, remotes and tags by full name.
  const refs = [...listRefs(repo, "refs")].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const head = readHead(repo);
  for (const [ref, oid] of refs) {
    let target = oid;
    if (ref.startsWith("refs/tags/")) {
      // An annotated tag decorates the commit it names (peeled), as git's decoration does.
      for (let depth = 0; depth < 10; depth++) {
        const object = await repo.objects.read(target).catch(() => null);
        if (object?.type !== "tag") break;
        const named = /^object ([0-9a-f]{40})/m.exec(new TextDecoder().decode(object.content))?.[1];
        if (!named) break;
        target = named;
      }
    }
    const raw = readRawRef(repo, ref);
    if (raw?.kind === "symbolic") {
      // refs/remotes/origin/HEAD -> origin/main: git shows it as `origin/HEAD`.
      add(resolveRefOid(repo, ref) ?? target, ref.replace(/^refs\/remotes\//, ""));
      continue;
    }
    const label = ref.startsWith("refs/heads/")
      ? ref.slice(11)
      : ref.startsWith("refs/remotes/")
      ? ref.slice(13)
      : ref.startsWith("refs/tags/")
      ? `tag: ${ref.slice(10)}`
      : ref;
    add(target, label);
  }
  if (head.oid) {
    const list = found.get(head.oid) ?? [];
    const branch = head.ref?.startsWith("refs/heads/") ? head.ref.slice(11) : null;
    const rest = list.filter((label) => label !== branch);
    found.set(head.oid, [branch ? `HEAD -> ${branch}` : "HEAD", ...rest]);
  }
  return found;
}

export interface PrettyContext {
  readonly repo: Repo;
  readonly date: DateMode;
  readonly decorations: Map<string, string[]> | null;
  /** `--abbrev-commit` (and `--oneline`): the commit line's id abbreviated. */
  readonly abbrevCommit: boolean;
}

/**
 * The message as git's medium, full and fuller formats print it (pretty.c's pp_remainder): leading blank lines
 * skipped, each line's trailing whitespace removed, each indented by four spaces, blank lines at the end dropped
 * (nothing left of a message that is empty or blank);
 * `firstParagraphOnly` (the short format) stops at the first blank line. With `tabWidth` (git's expand_tabs_in_log,
 * 8 in those formats, 0 in short), each tab becomes the spaces up to the next tab stop of the line as written (the
 * indent not counted).
 */
function indented(message: string, tabWidth: number, firstParagraphOnly: boolean): string {
  const out: string[] = [];
  for (const written of message.split("\n")) {
    const line = written.replace(/[ \t\n\r\v\f]+$/, "");
    if (line === "") {
      if (out.length === 0) continue;
      if (firstParagraphOnly) break;
    }
    out.push(`    ${tabWidth ? expandTabs(line, tabWidth) : line}`);
  }
  while (out.length && out[out.length - 1] === "    ") out.pop();
  return out.join("\n");
}

function expandTabs(line: string, tabWidth: number): string {
  if (!line.includes("\t")) return line;
  let out = "";
  let column = 0;
  for (const char of line) {
    if (char === "\t") {
      const spaces = tabWidth - (column % tabWidth);
      out += " ".repeat(spaces);
      column += spaces;
    } else {
      out += char;
      column++;
    }
  }
  return out;
}

function decorationOf(ctx: PrettyContext, oid: string, wrapped: boolean): string {
  const list = ctx.decorations?.get(oid);
  if (!list?.length) return "";
  return wrapped ? ` (${list.join(", ")})` : list.join(", ");
}

/** git's %f: the subject with runs of characters other than letters, digits, `.` and `_` made one `-`. */
function sanitized(subject: string): string {
  return subject.replace(/[^A-Za-z0-9._]+/g, "-").replace(/^[-.]+|[-.]+$/g, "").replace(/\.+/g, ".");
}

/** A placeholder git has that pterm does not print as git would (padding, width, trailers, reflog). */
export function unsupportedPlaceholder(template: string): string | null {
  const match = /%(<|>|><|w\(|\(trailers|G|g[dDnNeEsS])/.exec(template);
  return match ? match[0] : null;
}

/** Expands one template for one commit. */
function expand(ctx: PrettyContext, oid: string, commit: Commit, template: string): string {
  const { subject, body } = splitMessage(commit.message);
  const person = (sig: Signature, key: string): string | null => {
    switch (key) {
      case "n":
      case "N":
        return sig.name;
      case "e":
      case "E":
        return sig.email;
      case "l":
      case "L":
        return sig.email.split("@")[0];
      case "d":
        return formatDate(sig, ctx.date);
      case "D":
        return formatDate(sig, "rfc");
      case "r":
        return formatDate(sig, "relative");
      case "t":
        return String(sig.timestamp);
      case "i":
        return formatDate(sig, "iso");
      case "I":
        return formatDate(sig, "iso-strict");
      case "s":
        return formatDate(sig, "short");
      default:
        return null;
    }
  };
  let out = "";
  for (let i = 0; i < template.length; i++) {
    const c = template[i];
    if (c !== "%") {
      out += c;
      continue;
    }
    const next = template[i + 1];
    const rest = template.slice(i + 1);
    let used = 1;
    let value: string | null = null;
    switch (next) {
      case "%":
        value = "%";
        break;
      case "n":
        value = "\n";
        break;
      case "H":
        value = oid;
        break;
      case "h":
        value = abbreviate(ctx.repo, oid);
        break;
      case "T":
        value = commit.tree;
        break;
      case "t":
        value = abbreviate(ctx.repo, commit.tree);
        break;
      case "P":
        value = commit.parents.join(" ");
        break;
      case "p":
        value = commit.parents.map((p) => abbreviate(ctx.repo, p)).join(" ");
        break;
      case "s":
        value = subject;
        break;
      case "f":
        value = sanitized(subject);
        break;
      case "b":
        value = body ? body.replace(/\n*$/, "\n") : "";
        break;
      case "B":
        value = commit.message.replace(/\n*$/, "\n");
        break;
      case "d":
        value = decorationOf({ ...ctx, decorations: ctx.decorations }, oid, true);
        break;
      case "D":
        value = decorationOf(ctx, oid, false);
        break;
      case "e":
      case "N":
        value = "";
        break;
      case "a":
      case "c": {
        value = person(next === "a" ? commit.author : commit.committer, template[i + 2] ?? "");
        if (value !== null) used = 2;
        break;
      }
      case "x": {
        const hex = /^x([0-9a-fA-F]{2})/.exec(rest);
        if (hex) {
          value = String.fromCharCode(parseInt(hex[1], 16));
          used = 3;
        }
        break;
      }
      case "C": {
        // Colours: nothing, as git prints none when its output is not a terminal.
        const named = /^C(\([^)]*\)|red|green|blue|reset)/.exec(rest);
        if (named) {
          value = "";
          used = named[0].length;
        }
        break;
      }
    }
    if (value === null) {
      out += "%";
      continue;
    }
    out += value;
    i += used;
  }
  return out;
}

/** One commit in a built-in format or a template (without the separator between commits). */
export function prettyCommit(ctx: PrettyContext, fmt: PrettyFormat, oid: string, commit: Commit): string {
  if (fmt.kind === "template") return expand(ctx, oid, commit, fmt.template);
  const id = ctx.abbrevCommit ? abbreviate(ctx.repo, oid) : oid;
  const decorated = decorationOf(ctx, oid, true);
  const { subject } = splitMessage(commit.message);
  if (fmt.name === "oneline") return `${id}${decorated} ${subject}`;
  if (fmt.name === "reference") {
    return `${abbreviate(ctx.repo, oid)} (${subject}, ${formatDate(commit.author, "short")})`;
  }
  const lines = [`commit ${id}${decorated}`];
  if (commit.parents.length > 1) lines.push(`Merge: ${commit.parents.map((p) => abbreviate(ctx.repo, p)).join(" ")}`);
  const who = (s: Signature) => `${s.name} <${s.email}>`;
  if (fmt.name === "fuller") {
    lines.push(`Author:     ${who(commit.author)}`, `AuthorDate: ${formatDate(commit.author, ctx.date)}`);
    lines.push(`Commit:     ${who(commit.committer)}`, `CommitDate: ${formatDate(commit.committer, ctx.date)}`);
  } else if (fmt.name === "full") {
    lines.push(`Author: ${who(commit.author)}`, `Commit: ${who(commit.committer)}`);
  } else {
    lines.push(`Author: ${who(commit.author)}`);
    if (fmt.name === "medium") lines.push(`Date:   ${formatDate(commit.author, ctx.date)}`);
  }
  const short = fmt.name === "short";
  const message = indented(commit.message, short ? 0 : 8, short);
  // git trims the text's end: a commit without a message is its header alone, no blank line after it.
  return message ? `${lines.join("\n")}\n\n${message}\n` : `${lines.join("\n")}\n`;
}

/**
 * What `git show <annotated tag>` prints before the commit in a format: `tag <name>`, the tagger as
 * the format shows people (none in oneline; with its date in medium and fuller), the message, and a
 * blank line before the commit in the formats that separate commits.
 */
export function prettyTagHeader(ctx: PrettyContext, fmt: PrettyFormat, name: string, tag: Tag): string {
  const lines = [`tag ${name}`];
  const oneline = fmt.kind === "builtin" && fmt.name === "oneline";
  if (tag.tagger && !oneline) {
    const who = `${tag.tagger.name} <${tag.tagger.email}>`;
    if (fmt.kind === "builtin" && fmt.name === "fuller") {
      lines.push(`Tagger:     ${who}`, `TaggerDate: ${formatDate(tag.tagger, ctx.date)}`);
    } else {
      lines.push(`Tagger: ${who}`);
      if (fmt.kind === "builtin" && fmt.name === "medium") lines.push(`Date:   ${formatDate(tag.tagger, ctx.date)}`);
    }
  }
  const separated = fmt.kind === "template" ? !fmt.terminator : !["oneline", "reference"].includes(fmt.name);
  return `${lines.join("\n")}\n\n${tag.message}${separated ? "\n" : ""}`;
}
