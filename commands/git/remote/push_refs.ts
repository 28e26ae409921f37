/**
 * Pushes that are not a branch's commits: tags (`git push --tags`, `git push origin <tag>`) and
 * deleting a remote branch or tag (`git push origin --delete <name>`). As git's send-pack: the
 * remote's refs are read first, every update is checked before anything is sent (a tag that
 * exists there with another value is refused, nothing is pushed), the updates go in one request
 * (atomic where the server offers it), and local refs change only after the remote said `ok`.
 */

import { PtermError } from "../../../core/errors.ts";
import { parseTag } from "../odb/objects.ts";
import { deleteRef, resolveRefOid } from "../repo/refs.ts";
import type { Repo } from "../repo/repo.ts";
import { connect, type Connection, type PushCommand, sendPack, ZERO_OID } from "./transport.ts";
import { trackingRef } from "./operations.ts";

const TAGS = "refs/tags/";
const HEADS = "refs/heads/";

export interface RefPushed {
  readonly ref: string;
  readonly old: string | null;
  /** null: the ref was deleted. */
  readonly new: string | null;
  readonly status: "new" | "up-to-date" | "deleted";
}

export interface RefsPushOutcome {
  readonly refs: RefPushed[];
  readonly commits: number;
  readonly objects: number;
  readonly elapsed_ms: number;
}

function rejectedByRemote(ref: string, why: string, repoLabel: string): PtermError {
  return new PtermError(
    "Rejected",
    `the remote refused ${ref}: ${why}; nothing was pushed. Look at the remote's refs with ` +
      `\`git ls-remote --repo ${repoLabel} --confirm\`.`,
    { result: { ref } },
  );
}

/** The remote's answer to the updates: throws unless every one of them was accepted. */
async function send(
  connection: Connection,
  remote: Awaited<ReturnType<typeof connect>>,
  commands: PushCommand[],
  pack: { stream: ReadableStream<Uint8Array>; failure(): Error | null } | null,
  repoLabel: string,
): Promise<void> {
  let report;
  try {
    report = await sendPack(remote, commands, pack?.stream ?? null);
  } catch (error) {
    throw pack?.failure() ?? error;
  }
  if (report.unpack !== "ok") {
    throw new PtermError(
      "RemoteError",
      `${connection.remote.url} could not store the pushed objects (unpack ${report.unpack}); nothing was changed there.`,
    );
  }
  for (const command of commands) {
    const refusal = report.refs.get(command.ref);
    if (refusal !== null) throw rejectedByRemote(command.ref, refusal ?? "no status reported", repoLabel);
  }
}

/** The tag's objects down to the commit it names: [tag objects], commit. */
async function peelTag(repo: Repo, name: string, oid: string): Promise<{ tagObjects: string[]; commit: string }> {
  const tagObjects: string[] = [];
  let current = oid;
  for (let depth = 0; depth < 10; depth++) {
    const object = await repo.objects.read(current);
    if (object.type === "commit") return { tagObjects, commit: current };
    if (object.type !== "tag") break;
    tagObjects.push(current);
    current = parseTag(object.content).object;
  }
  throw new PtermError(
    "UnsupportedFormat",
    `${name} does not name a commit (a tag of a tree or a blob); pterm pushes tags of commits only. Push it with ` +
      "the real git. Nothing was pushed.",
  );
}

/**
 * Sends `tags` (full names, refs/tags/...) to the remote: new ones are created, ones already
 * there with the same value are left; one there with another value refuses the whole push
 * (git's "already exists": a tag is not moved without force, which pterm does not offer).
 */
export async function pushTags(
  connection: Connection,
  repo: Repo,
  tags: readonly string[],
): Promise<RefsPushOutcome> {
  const started = Date.now();
  using remote = await connect(connection, "git-receive-pack");
  const advertised = new Map((remote.advertisement.refs ?? []).map((r) => [r.name, r.oid]));
  const refs: RefPushed[] = [];
  const commands: PushCommand[] = [];
  const clashes: string[] = [];
  for (const tag of tags) {
    const local = resolveRefOid(repo, tag);
    if (!local) throw new PtermError("NotFound", `there is no tag ${tag.slice(TAGS.length)} to push.`);
    const there = advertised.get(tag) ?? null;
    if (there === local) refs.push({ ref: tag, old: there, new: local, status: "up-to-date" });
    else if (there !== null) clashes.push(tag.slice(TAGS.length));
    else {
      refs.push({ ref: tag, old: null, new: local, status: "new" });
      commands.push({ ref: tag, old: ZERO_OID, new: local });
    }
  }
  if (clashes.length > 0) {
    throw new PtermError(
      "Rejected",
      `the remote already has ${clashes.length === 1 ? "a tag" : "tags"} ${clashes.join(", ")} pointing elsewhere; ` +
        "pterm does not move a remote tag (git needs --force for that). Nothing was pushed. Delete it there first " +
        "(`git push --delete <tag> --confirm`) if replacing it is really meant.",
      { result: { refs: clashes.map((name) => `${TAGS}${name}`) } },
    );
  }
  if (commands.length === 0) return { refs, commits: 0, objects: 0, elapsed_ms: Date.now() - started };

  // What the remote has, peeled to commits this repository knows: history not sent again.
  const remoteHas: string[] = [];
  for (const oid of advertised.values()) {
    if (!(await repo.objects.has(oid))) continue;
    try {
      remoteHas.push((await peelTag(repo, "a remote ref", oid)).commit);
    } catch { /* a remote ref that is not a commit: nothing to exclude by it */ }
  }
  const tips: string[] = [];
  const tagObjects: string[] = [];
  for (const command of commands) {
    const peeled = await peelTag(repo, command.ref.slice(TAGS.length), command.new);
    tips.push(peeled.commit);
    tagObjects.push(...peeled.tagObjects);
  }
  const { objectsToSend, packStream } = await import("./pack_writer.ts");
  const { commits, objects } = await objectsToSend(repo, tips, remoteHas);
  const all = [...new Set([...tagObjects, ...objects])];
  const pack = packStream(repo, all, (sent) => connection.onProgress?.("sending", sent, all.length));
  await send(connection, remote, commands, pack, repo.label);
  return { refs, commits: commits.length, objects: all.length, elapsed_ms: Date.now() - started };
}

/**
 * Deletes `name` on the remote: a branch (refs/heads/<name>) or else a tag (refs/tags/<name>), as
 * git resolves `git push --delete`. The local remote-tracking branch goes with it, as in git.
 */
export async function deleteRemoteRef(
  connection: Connection,
  repo: Repo,
  remoteName: string,
  name: string,
): Promise<RefsPushOutcome> {
  const started = Date.now();
  using remote = await connect(connection, "git-receive-pack");
  const advertised = new Map((remote.advertisement.refs ?? []).map((r) => [r.name, r.oid]));
  const candidates = name.startsWith("refs/") ? [name] : [HEADS + name, TAGS + name];
  const found = candidates.filter((ref) => advertised.has(ref));
  if (found.length === 0) {
    throw new PtermError(
      "NotFound",
      `${connection.remote.url} has no branch or tag ${name}; nothing was deleted. Its refs: ` +
        `\`git ls-remote --repo ${repo.label} --confirm\`.`,
    );
  }
  if (found.length > 1) {
    throw new PtermError(
      "InvalidArgs",
      `${name} is both a branch and a tag at ${connection.remote.url}; say which: --delete refs/heads/${name} or ` +
        `--delete refs/tags/${name}. Nothing was deleted.`,
    );
  }
  const ref = found[0];
  if (!remote.advertisement.capabilities.has("delete-refs")) {
    throw new PtermError(
      "UnsupportedFormat",
      `${connection.remote.url} does not accept deleting refs (no delete-refs capability); nothing was deleted.`,
    );
  }
  const old = advertised.get(ref)!;
  await send(connection, remote, [{ ref, old, new: ZERO_OID }], null, repo.label);
  const tracking = trackingRef(remoteName, ref);
  if (tracking && resolveRefOid(repo, tracking) !== null) await deleteRef(repo, tracking);
  return {
    refs: [{ ref, old, new: null, status: "deleted" }],
    commits: 0,
    objects: 0,
    elapsed_ms: Date.now() - started,
  };
}
