/** What every layer of the object database hands around — packs, loose objects, callers: a typed object. */

/** The four kinds of git object (a pack's type numbers 1 to 4, a loose object's header word). */
export type ObjectType = "blob" | "tree" | "commit" | "tag";

export interface GitObject {
  readonly type: ObjectType;
  readonly content: Uint8Array;
}
