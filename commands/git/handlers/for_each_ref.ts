/**
 * `forEachRef`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { forEachRefFlags } from "../sub/for_each_ref.ts";
import { type Commit, parseCommit, parseTag, type Signature, splitMessage, type Tag } from "../odb/objects.ts";
import type { GitObject } from "../odb/object.ts";
import { abbreviate } from "../odb/abbrev.ts";
import type { Repo } from "../repo/repo.ts";
import { listRefs, readHead } from "../repo/refs.ts";
import { configuredUpstream, upstreamRef } from "../repo/upstream_config.ts";
import { formatDate, parseDateMode } from "../history/pretty.ts";
import { peel } from "../history/revparse.ts";
import { wildmatch } from "../worktree/wildmatch.ts";
import { openFromFlags } from "./common.ts";
import { shortRefName } from "./plumbing_shared.ts";

interface RefObject {
  readonly oid: string;
  readonly object: GitObject;
  readonly commit: Commit | null;
  readonly tag: Tag | null;
}

interface RefInfo extends RefObject {
  readonly refname: string;
  /** What an annotated tag points to (`%(*objectname)`), else null. */
  readonly peeled: RefObject | null;
}

async function describeObject(repo: Repo, oid: string): Promise<RefObject> {
  const object = await repo.objects.read(oid);
  return {
    oid,
    object,
    commit: object.type === "commit" ? parseCommit(object.content) : null,
    tag: object.type === "tag" ? parseTag(object.content) : null,
  };
}

/** An atom's value is text, or a number where git sorts numerically (dates, sizes). */
type Value = { text: string; number?: number };

const FORMAT_HELP = "`git for-each-ref --help` lists the atoms pterm knows";

/** `refs/heads/a/b` with lstrip=1 → `heads/a/b`; a negative count keeps that many from the end. */
function strip(name: string, count: number, fromLeft: boolean): string {
  const parts = name.split("/");
  if (fromLeft) return (count >= 0 ? parts.slice(count) : parts.slice(Math.max(0, parts.length + count))).join("/");
  return (count >= 0 ? parts.slice(0, Math.max(0, parts.length - count)) : parts.slice(0, -count)).join("/");
}

function messageParts(message: string): { subject: string; body: string } {
  const { subject } = splitMessage(message);
  const text = message.replace(/^\n+/, "");
  const blank = text.search(/\n[ \t\r]*\n/);
  const body = blank < 0 ? "" : text.slice(blank).replace(/^(\n[ \t\r]*)+\n/, "");
  return { subject, body };
}

function personAtom(who: Signature | null, field: string, modifier: string | undefined): Value {
  if (!who) return { text: "" };
  if (field === "name") return { text: who.name };
  if (field === "email") {
    return {
      text: modifier === "trim" || modifier === "localpart"
        ? (modifier === "trim" ? who.email : who.email.split("@")[0])
        : `<${who.email}>`,
    };
  }
  if (field === "date") return { text: formatDate(who, parseDateMode(modifier)), number: who.timestamp };
  if (field === "") {
    return { text: `${who.name} <${who.email}> ${formatDate(who, "raw")}`, number: who.timestamp };
  }
  throw new PtermError("InvalidArgs", `unknown field name: ${field}; ${FORMAT_HELP}.`);
}

function atomValue(repo: Repo, ref: RefInfo, atom: string, head: string | null): Value {
  const deref = atom.startsWith("*");
  const colon = atom.indexOf(":");
  const name = (colon < 0 ? atom : atom.slice(0, colon)).replace(/^\*/, "");
  const modifier = colon < 0 ? undefined : atom.slice(colon + 1);
  const target: RefObject | null = deref ? ref.peeled : ref;
  if (name === "refname") {
    if (deref) return { text: "" };
    if (modifier === undefined) return { text: ref.refname };
    if (modifier === "short") return { text: shortRefName(repo, ref.refname) };
    const m = /^(lstrip|strip|rstrip)=(-?\d+)$/.exec(modifier);
    if (m) return { text: strip(ref.refname, Number(m[2]), m[1] !== "rstrip") };
    throw new PtermError("InvalidArgs", `unrecognized %(refname) argument: ${modifier}; ${FORMAT_HELP}.`);
  }
  if (name === "HEAD") return { text: ref.refname === head ? "*" : " " };
  if (name === "upstream" || name === "push") {
    const branch = ref.refname.startsWith("refs/heads/") ? ref.refname.slice("refs/heads/".length) : null;
    const upstream = branch && name === "upstream" ? configuredUpstream(repo, branch) : null;
    const full = upstream ? upstreamRef(repo, upstream) ?? "" : "";
    if (!full || modifier === undefined) return { text: full };
    if (modifier === "short") return { text: shortRefName(repo, full) };
    throw new PtermError("InvalidArgs", `unrecognized %(${name}) argument: ${modifier}; ${FORMAT_HELP}.`);
  }
  if (!target) return { text: "" };
  const { commit, tag, object } = target;
  switch (name) {
    case "objectname":
      if (modifier === "short") return { text: abbreviate(repo, target.oid) };
      if (modifier?.startsWith("short=")) return { text: target.oid.slice(0, Math.max(4, Number(modifier.slice(6)))) };
      return { text: target.oid };
    case "objecttype":
      return { text: object.type };
    case "objectsize":
      return { text: String(object.content.length), number: object.content.length };
    case "tree":
      return { text: commit?.tree ?? "" };
    case "parent":
      return { text: commit?.parents.join(" ") ?? "" };
    case "numparent":
      return { text: commit ? String(commit.parents.length) : "", number: commit?.parents.length };
    case "type":
      return { text: tag?.type ?? "" };
    case "object":
      return { text: tag?.object ?? "" };
    case "tag":
      return { text: tag?.tag ?? "" };
  }
  const message = commit?.message ?? tag?.message ?? "";
  if (name === "subject") return { text: messageParts(message).subject };
  if (name === "body") return { text: messageParts(message).body };
  if (name === "contents") {
    if (modifier === undefined) return { text: message };
    if (modifier === "subject") return { text: messageParts(message).subject };
    if (modifier === "body") return { text: messageParts(message).body };
    throw new PtermError("InvalidArgs", `unrecognized %(contents) argument: ${modifier}; ${FORMAT_HELP}.`);
  }
  const person = /^(author|committer|tagger|creator)(name|email|date|)$/.exec(name);
  if (person) {
    const who = person[1] === "author"
      ? commit?.author ?? null
      : person[1] === "committer"
      ? commit?.committer ?? null
      : person[1] === "tagger"
      ? tag?.tagger ?? null
      : commit?.committer ?? tag?.tagger ?? null;
    return personAtom(who, person[2], modifier);
  }
  throw new PtermError("InvalidArgs", `unknown field name: ${name}; ${FORMAT_HELP}.`);
}

/** The format's pieces: literal text and atoms (`%xx` hex and `%%` decoded as git does). */
function parseFormat(format: string): ({ text: string } | { atom: string })[] {
  const out: ({ text: string } | { atom: string })[] = [];
  let text = "";
  for (let i = 0; i < format.length; i++) {
    if (format[i] !== "%") {
      text += format[i];
      continue;
    }
    if (format.startsWith("%(", i)) {
      const end = format.indexOf(")", i);
      if (end < 0) throw new PtermError("InvalidArgs", `malformed format string ${format}: an atom lacks its \`)\`.`);
      if (text) out.push({ text });
      text = "";
      out.push({ atom: format.slice(i + 2, end) });
      i = end;
    } else if (format[i + 1] === "%") {
      text += "%";
      i++;
    } else if (/^[0-9a-fA-F]{2}$/.test(format.slice(i + 1, i + 3))) {
      text += String.fromCharCode(parseInt(format.slice(i + 1, i + 3), 16));
      i += 2;
    } else text += "%";
  }
  if (text) out.push({ text });
  return out;
}

/** git's version sort: runs of digits compare as numbers. */
function versionCompare(a: string, b: string): number {
  const split = (s: string) => s.match(/\d+|\D+/g) ?? [];
  const x = split(a);
  const y = split(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] === y[i]) continue;
    if (/^\d/.test(x[i]) && /^\d/.test(y[i])) return Number(x[i]) - Number(y[i]) || (x[i] < y[i] ? -1 : 1);
    return x[i] < y[i] ? -1 : 1;
  }
  return x.length - y.length;
}

/** Whether `refname` is selected by a pattern: a glob, or a prefix ending at a `/`. */
export function refMatches(patterns: readonly string[], refname: string): boolean {
  if (patterns.length === 0) return true;
  return patterns.some((p) =>
    wildmatch(p, refname, { pathname: true }) ||
    (refname.startsWith(p) && (refname.length === p.length || p.endsWith("/") || refname[p.length] === "/"))
  );
}

export const forEachRef: Handler<
  typeof forEachRefFlags,
  readonly [{ name: "patterns"; description: string; variadic: true }]
> = async (ctx) => {
  const { repo, rel } = await openFromFlags(ctx, "read");
  const format = parseFormat(ctx.flags.format ?? "%(objectname) %(objecttype)\t%(refname)");
  const head = readHead(repo).ref ?? null;
  const refs: RefInfo[] = [];
  for (const [refname, oid] of listRefs(repo, "refs")) {
    if (!refMatches(ctx.positionals.patterns, refname)) continue;
    const described = await describeObject(repo, oid);
    const peeled = described.tag ? await describeObject(repo, (await peel(repo, oid)).oid) : null;
    refs.push({ refname, ...described, peeled });
  }
  const keys = [...(ctx.flags.sort ?? [])].reverse().map((k) => ({
    descending: k.startsWith("-"),
    version: /^-?(version|v):/.test(k),
    atom: k.replace(/^-/, "").replace(/^(version|v):/, ""),
  }));
  const valued = refs.map((ref) => ({
    ref,
    keys: keys.map((k) => atomValue(repo, ref, k.atom, head)),
    text: format.map((piece) => "text" in piece ? piece.text : atomValue(repo, ref, piece.atom, head).text).join(""),
  }));
  valued.sort((a, b) => {
    for (let i = 0; i < keys.length; i++) {
      const x = a.keys[i];
      const y = b.keys[i];
      const order = keys[i].version
        ? versionCompare(x.text, y.text)
        : x.number !== undefined && y.number !== undefined
        ? x.number - y.number
        : x.text < y.text
        ? -1
        : x.text > y.text
        ? 1
        : 0;
      if (order !== 0) return keys[i].descending ? -order : order;
    }
    return a.ref.refname < b.ref.refname ? -1 : a.ref.refname > b.ref.refname ? 1 : 0;
  });
  const shown = valued.slice(0, ctx.flags.count ?? valued.length);
  ctx.stdout.write(shown.map((v) => v.text + "\n").join(""));
  return { repo_path: rel, refs: shown.map((v) => ({ name: v.ref.refname, id: v.ref.oid, type: v.ref.object.type })) };
};
