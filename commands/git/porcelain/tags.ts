/** Listing, describing, creating and deleting tags. */

import { PtermError } from "../../../core/errors.ts";
import { type GitAuthor, signatureNow } from "../repo/identity.ts";
import { cleanupMessage, parseTag, serializeTag } from "../odb/objects.ts";
import { checkTagName, deleteRef, listRefs, resolveRefOid, updateRef } from "../repo/refs.ts";
import type { Repo } from "../repo/repo.ts";
import { peel, resolveRevision } from "../history/revparse.ts";

export interface TagInfo {
  name: string;
  target: string;
  type: "lightweight" | "annotated";
  object: string;
  message: string | null;
}

export async function describeTag(repo: Repo, name: string, object: string): Promise<TagInfo> {
  const raw = await repo.objects.read(object);
  if (raw.type === "tag") {
    const tag = parseTag(raw.content);
    const peeled = await peel(repo, object);
    return { name, target: peeled.oid, type: "annotated", object, message: tag.message.replace(/\n+$/, "") };
  }
  return { name, target: object, type: "lightweight", object, message: null };
}

export async function listTags(repo: Repo): Promise<TagInfo[]> {
  const out: TagInfo[] = [];
  for (const [ref, oid] of listRefs(repo, "refs/tags")) out.push(await describeTag(repo, ref.slice(10), oid));
  return out;
}

export async function createTag(
  repo: Repo,
  name: string,
  options: { ref?: string; message?: string; author: GitAuthor; force?: boolean },
): Promise<{ name: string; target: string }> {
  checkTagName(name);
  const refName = `refs/tags/${name}`;
  const existing = resolveRefOid(repo, refName);
  if (existing && !options.force) {
    throw new PtermError(
      "AlreadyExists",
      `the tag \`${name}\` already exists; pick another name or pass --force to move it.`,
    );
  }
  const object = await resolveRevision(repo, options.ref ?? "HEAD");
  let pointTo = object;
  if (options.message !== undefined) {
    const message = cleanupMessage(options.message, true);
    if (message === "") throw new PtermError("InvalidArgs", "the tag message is empty; give --message some text.");
    const type = (await repo.objects.read(object)).type;
    pointTo = await repo.objects.write(
      "tag",
      serializeTag({ object, type, tag: name, tagger: signatureNow(options.author), message }),
    );
  }
  await updateRef(repo, refName, pointTo, {
    expected: existing,
    message: `tag: ${name}`,
    who: signatureNow(options.author),
  });
  const target = (await peel(repo, object)).oid;
  return { name, target };
}

export async function deleteTag(repo: Repo, name: string): Promise<string> {
  const refName = `refs/tags/${name}`;
  const oid = resolveRefOid(repo, refName);
  if (!oid) throw new PtermError("NotFound", `there is no tag ${name}; list tags with \`git tag\`.`);
  await deleteRef(repo, refName, oid);
  return oid;
}
