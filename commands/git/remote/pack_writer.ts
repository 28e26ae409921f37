/**
 * What a push sends: the objects reachable from the pushed commits and not from what the remote
 * already has (as `git pack-objects --revs <new> --not <remote refs>` counts them: history the
 * remote has is cut off at its commits, and the trees of the boundary commits are known to it),
 * written as a version 2 pack of whole objects, streamed one object at a time.
 */

import { PtermError } from "../../../core/errors.ts";
import { objectHeader, parseTree } from "../odb/objects.ts";
import type { ObjectType } from "../odb/object.ts";
import type { Repo } from "../repo/repo.ts";
import { nodeCrypto, nodeZlib } from "./node.ts";

const TYPE_CODES: Record<ObjectType, number> = { commit: 1, tree: 2, blob: 3, tag: 4 };

/** Every commit reachable from `tips` (shallow boundaries have no parents). */
async function reachableCommits(repo: Repo, tips: readonly string[], stopAt?: ReadonlySet<string>): Promise<string[]> {
  const seen = new Set<string>();
  const order: string[] = [];
  const stack = [...tips];
  while (stack.length) {
    const oid = stack.pop()!;
    if (seen.has(oid) || stopAt?.has(oid)) continue;
    seen.add(oid);
    order.push(oid);
    stack.push(...(await repo.objects.readCommit(oid)).parents);
  }
  return order;
}

/** Adds `tree` and everything under it to `into`, skipping what `skip` holds. */
async function addTree(repo: Repo, tree: string, into: Set<string>, skip: ReadonlySet<string>): Promise<void> {
  const stack = [tree];
  while (stack.length) {
    const oid = stack.pop()!;
    if (into.has(oid) || skip.has(oid)) continue;
    into.add(oid);
    const entries = parseTree((await repo.objects.read(oid)).content, oid);
    for (const entry of entries) {
      if (entry.mode === "160000") continue; // a submodule's commit is not in this repository
      if (entry.mode === "40000") stack.push(entry.oid);
      else if (!into.has(entry.oid) && !skip.has(entry.oid)) into.add(entry.oid);
    }
  }
}

export interface PushObjects {
  /** Commits the remote lacks, newest first. */
  readonly commits: string[];
  /** Every object to send: the commits, then their trees and blobs. */
  readonly objects: string[];
}

/** The objects reachable from `tips` that the remote, holding `remoteHas` (commits present here), lacks. */
export async function objectsToSend(
  repo: Repo,
  tips: readonly string[],
  remoteHas: readonly string[],
): Promise<PushObjects> {
  const known = new Set(await reachableCommits(repo, remoteHas));
  const commits = await reachableCommits(repo, tips, known);
  // The remote has every tree of its boundary commits; nothing under them is sent again.
  const excluded = new Set<string>();
  for (const oid of commits) {
    for (const parent of (await repo.objects.readCommit(oid)).parents) {
      if (known.has(parent)) await addTree(repo, (await repo.objects.readCommit(parent)).tree, excluded, new Set());
    }
  }
  const objects = new Set<string>(commits);
  for (const oid of commits) await addTree(repo, (await repo.objects.readCommit(oid)).tree, objects, excluded);
  return { commits, objects: [...objects] };
}

function entryHeader(type: ObjectType, size: number): Uint8Array {
  const bytes: number[] = [];
  let byte = (TYPE_CODES[type] << 4) | (size & 15);
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes.push(byte | 0x80);
    byte = rest & 0x7f;
    rest = Math.floor(rest / 128);
  }
  bytes.push(byte);
  return new Uint8Array(bytes);
}

export interface OutgoingPack {
  readonly stream: ReadableStream<Uint8Array>;
  /** Why the stream stopped early (a local object unreadable or damaged), once it has. */
  failure(): Error | null;
}

/** A pack of `oids` as a stream; `onObject` counts them out. Each object is read, checked and compressed as it is sent. */
export function packStream(repo: Repo, oids: readonly string[], onObject?: (sent: number) => void): OutgoingPack {
  let next = 0;
  let failure: Error | null = null;
  let hash: ReturnType<Awaited<ReturnType<typeof nodeCrypto>>["createHash"]> | null = null;
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      hash = (await nodeCrypto()).createHash("sha1");
      const header = new Uint8Array(12);
      const view = new DataView(header.buffer);
      view.setUint32(0, 0x5041434b);
      view.setUint32(4, 2);
      view.setUint32(8, oids.length);
      hash.update(header);
      controller.enqueue(header);
    },
    async pull(controller) {
      if (next === oids.length) {
        controller.enqueue(hash!.digest());
        controller.close();
        return;
      }
      const oid = oids[next++];
      let object;
      try {
        object = await repo.objects.read(oid);
        // The object is hashed again before it leaves: a damaged local object is not pushed.
        const actual = (await nodeCrypto()).createHash("sha1").update(objectHeader(object.type, object.content.length))
          .update(object.content).digest("hex");
        if (actual !== oid) {
          throw new PtermError(
            "CorruptRepository",
            `object ${oid} is damaged (its content hashes to ${actual}); nothing was pushed. Check the repository ` +
              "with the real git (`git fsck`).",
          );
        }
      } catch (error) {
        failure = error as Error;
        throw error;
      }
      const compressed = (await nodeZlib()).deflateSync(object.content, { level: 1 });
      const head = entryHeader(object.type, object.content.length);
      const chunk = new Uint8Array(head.length + compressed.length);
      chunk.set(head);
      chunk.set(compressed, head.length);
      hash!.update(chunk);
      controller.enqueue(chunk);
      onObject?.(next);
    },
  });
  return { stream, failure: () => failure };
}
