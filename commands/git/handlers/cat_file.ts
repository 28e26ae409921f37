/**
 * `catFile`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { catFileFlags } from "../sub/cat_file.ts";
import type { GitObject, ObjectType } from "../odb/object.ts";
import type { Repo } from "../repo/repo.ts";
import type { PathPolicy } from "../worktree/worktree.ts";
import { peel, peelTo, resolveRevision } from "../history/revparse.ts";
import { strictUtf8 } from "./history_shared.ts";
import { openFromFlags } from "./common.ts";
import {
  notAnObject,
  refuseHiddenRevPath,
  treeLine,
  visibleEntries,
  withheldBlob,
  withheldBlobs,
} from "./plumbing_shared.ts";

const TYPES: readonly ObjectType[] = ["blob", "tree", "commit", "tag"];

async function lookUp(repo: Repo, name: string): Promise<string | null> {
  try {
    return await resolveRevision(repo, name);
  } catch (error) {
    if (error instanceof PtermError && (error.code === "NotFound" || error.code === "InvalidArgs")) return null;
    throw error;
  }
}

/** The object's content as git prints it with -p: a tree as ls-tree lines (withheld entries left out). */
function pretty(repo: Repo, policy: PathPolicy, object: GitObject, oid: string, dir: string): Uint8Array | string {
  if (object.type !== "tree") return object.content;
  return visibleEntries(policy, dir, object.content, oid).map((e) => treeLine(e, e.name, repo.quotePath) + "\n").join(
    "",
  );
}

/** What a --batch/--batch-check format says of one object. */
interface BatchFormat {
  readonly usesRest: boolean;
  expand(object: { oid: string; type: string; size: number; rest: string }): string;
}

const BATCH_ATOMS = new Set(["objectname", "objecttype", "objectsize", "rest"]);

/**
 * A --batch/--batch-check format as git cat-file reads it (strbuf_expand): `%(atom)` for
 * objectname, objecttype, objectsize and rest, `%%` for a percent sign, any other `%` as it stands.
 * %(objectsize:disk) and %(deltabase) describe git's packs, which pterm does not report: refused by
 * name; an unknown atom is git's fatal error.
 */
function parseBatchFormat(ctx: { stderr: { write(text: string): void } }, format: string): BatchFormat {
  const parts: ({ text: string } | { atom: string })[] = [];
  let text = "";
  for (let i = 0; i < format.length; i++) {
    if (format[i] !== "%") {
      text += format[i];
      continue;
    }
    if (format[i + 1] === "%") {
      text += "%";
      i++;
      continue;
    }
    if (format[i + 1] !== "(") {
      text += "%";
      continue;
    }
    const end = format.indexOf(")", i + 2);
    if (end < 0) {
      ctx.stderr.write(`fatal: format element '${format.slice(i + 1)}' does not end in ')'\n`);
      throw new PtermError("InvalidArgs", `the format's \`${format.slice(i)}\` does not end in \`)\`.`);
    }
    const atom = format.slice(i + 2, end);
    if (atom === "objectsize:disk" || atom === "deltabase") {
      throw new PtermError(
        "InvalidArgs",
        `%(${atom}) describes how git stores the object in its packs, which pterm's cat-file does not report; ` +
          "use %(objectname) %(objecttype) %(objectsize) %(rest).",
      );
    }
    if (!BATCH_ATOMS.has(atom)) {
      ctx.stderr.write(`fatal: unknown format element: ${atom}\n`);
      throw new PtermError(
        "InvalidArgs",
        `%(${atom}) is not a cat-file format element; use %(objectname) %(objecttype) %(objectsize) %(rest).`,
      );
    }
    parts.push({ text }, { atom });
    text = "";
    i = end;
  }
  parts.push({ text });
  return {
    usesRest: parts.some((p) => "atom" in p && p.atom === "rest"),
    expand: (object) =>
      parts.map((p) =>
        "text" in p
          ? p.text
          : p.atom === "objectname"
          ? object.oid
          : p.atom === "objecttype"
          ? object.type
          : p.atom === "objectsize"
          ? String(object.size)
          : object.rest
      ).join(""),
  };
}

export const catFile: Handler<typeof catFileFlags, readonly [{ name: "args"; description: string; variadic: true }]> =
  async (ctx) => {
    const { repo, policy, rel } = await openFromFlags(ctx, "read");
    const { flags } = ctx;
    let secrets: Set<string> | null = null;
    const refuseWithheld = async (oid: string, name: string, type: ObjectType) => {
      if (type !== "blob") return;
      secrets ??= await withheldBlobs(repo, policy);
      if (secrets.has(oid)) throw withheldBlob(name);
    };
    const texts: string[] = [];
    const write = (content: Uint8Array | string) => {
      if (typeof content === "string") return void texts.push(content);
      const text = strictUtf8(content);
      if (text === null || content.includes(0)) {
        throw new PtermError(
          "InvalidArgs",
          "the object is binary (or not UTF-8); `git show <rev>:<path>` saves such a file as an artifact.",
        );
      }
      texts.push(text);
    };
    const batchFormat = flags.batch ?? flags["batch-check"];
    if (batchFormat !== undefined) {
      if (flags.batch !== undefined && flags["batch-check"] !== undefined) {
        throw new PtermError("InvalidArgs", "give --batch or --batch-check, not both (as git).");
      }
      const format = parseBatchFormat(ctx, batchFormat);
      const withContent = flags.batch !== undefined;
      const objects: { name: string; id: string | null; type: string | null; size: number | null }[] = [];
      // As git: each line is an object name as it stands (spaces included), unless the format has
      // %(rest), which takes what follows the first whitespace.
      const lines = (ctx.stdin ?? "").split("\n");
      if (lines[lines.length - 1] === "") lines.pop();
      for (const line of lines) {
        const split = format.usesRest ? /^([^ \t]*)[ \t]*(.*)$/s.exec(line)! : null;
        const name = split ? split[1] : line;
        const rest = split ? split[2] : "";
        refuseHiddenRevPath(policy, name);
        const oid = name === "" ? null : await lookUp(repo, name);
        if (!oid) {
          texts.push(`${name} missing\n`);
          objects.push({ name, id: null, type: null, size: null });
          continue;
        }
        const object = await repo.objects.read(oid);
        texts.push(format.expand({ oid, type: object.type, size: object.content.length, rest }) + "\n");
        if (withContent) {
          await refuseWithheld(oid, name, object.type);
          write(object.content);
          texts.push("\n");
        }
        objects.push({ name, id: oid, type: object.type, size: object.content.length });
      }
      ctx.stdout.write(texts.join(""));
      return { repo_path: rel, objects };
    }
    const words = ctx.positionals.args;
    const asType = words.length === 2 && (TYPES as readonly string[]).includes(words[0])
      ? words[0] as ObjectType
      : null;
    const modes = [flags.type, flags.size, flags.pretty, flags.exists, asType].filter(Boolean).length;
    if (modes !== 1 || words.length !== (asType ? 2 : 1)) {
      throw new PtermError(
        "InvalidArgs",
        "git cat-file takes one of -t, -s, -p, -e (or a type) and one object: `git cat-file -p HEAD`.",
      );
    }
    const name = words[words.length - 1];
    refuseHiddenRevPath(policy, name);
    const oid = await lookUp(repo, name);
    if (!oid) {
      if (flags.exists) throw new PtermError("NoMatch", `there is no object ${name}.`);
      throw notAnObject(name);
    }
    let object = await repo.objects.read(oid);
    let shown = oid;
    if (asType && object.type !== asType) {
      // git peels a tag or commit to the type asked for (`git cat-file tree HEAD`).
      const peeled = asType === "tree" || asType === "commit"
        ? await peelTo(repo, oid, asType, name).catch(() => null)
        : (await peel(repo, oid)).oid;
      const target = peeled ? await repo.objects.read(peeled) : null;
      if (!peeled || !target || target.type !== asType) {
        throw new PtermError(
          "InvalidArgs",
          `${name} is a ${object.type}, not a ${asType}: \`git cat-file -t ${name}\`.`,
        );
      }
      object = target;
      shown = peeled;
    }
    const dir = name.includes(":") ? name.slice(name.indexOf(":") + 1).replace(/^\/+|\/+$/g, "") : "";
    if (flags.type) write(`${object.type}\n`);
    else if (flags.size) write(`${object.content.length}\n`);
    else if (flags.pretty) {
      await refuseWithheld(shown, name, object.type);
      write(pretty(repo, policy, object, shown, dir));
    } else if (asType) {
      await refuseWithheld(shown, name, object.type);
      write(object.content);
    }
    ctx.stdout.write(texts.join(""));
    return { repo_path: rel, objects: [{ name, id: shown, type: object.type, size: object.content.length }] };
  };
