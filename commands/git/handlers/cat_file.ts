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
function pretty(policy: PathPolicy, object: GitObject, oid: string, dir: string): Uint8Array | string {
  if (object.type !== "tree") return object.content;
  return visibleEntries(policy, dir, object.content, oid).map((e) => treeLine(e, e.name) + "\n").join("");
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
    if (flags["batch-check"]) {
      const objects: { name: string; id: string | null; type: string | null; size: number | null }[] = [];
      for (const name of (ctx.stdin ?? "").split("\n").map((l) => l.trim()).filter(Boolean)) {
        refuseHiddenRevPath(policy, name);
        const oid = await lookUp(repo, name);
        if (!oid) {
          texts.push(`${name} missing\n`);
          objects.push({ name, id: null, type: null, size: null });
          continue;
        }
        const object = await repo.objects.read(oid);
        texts.push(`${oid} ${object.type} ${object.content.length}\n`);
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
      write(pretty(policy, object, shown, dir));
    } else if (asType) {
      await refuseWithheld(shown, name, object.type);
      write(object.content);
    }
    ctx.stdout.write(texts.join(""));
    return { repo_path: rel, objects: [{ name, id: shown, type: object.type, size: object.content.length }] };
  };
