/**
 * Abbreviated object names as git prints them (`index 1d91df82..6aa8150c` in a patch, merge
 * labels): `core.abbrev` when set, else a length that grows with the repository — 7 hex digits
 * up to 2^14 packed objects, 8 up to 2^16, one more for each fourfold — then lengthened until no
 * other object shares it (git's find_unique_abbrev). A fixed 7 made patches of large repositories
 * differ from git's byte for byte.
 */

import type { Repo } from "../repo/repo.ts";

const FALLBACK_LENGTH = 7;
const lengths = new WeakMap<Repo, number>();

/** The length abbreviations start from in this repository (before lengthening for uniqueness). */
export function abbrevLength(repo: Repo): number {
  const known = lengths.get(repo);
  if (known !== undefined) return known;
  const configured = (repo.config.get("core.abbrev") ?? "auto").trim().toLowerCase();
  let length: number;
  if (["no", "false", "off"].includes(configured)) length = 40;
  else if (/^\d+$/.test(configured)) length = Math.min(40, Math.max(4, Number(configured)));
  else {
    // git: the highest set bit of the packed-object count, plus two, halved; at least 7.
    const count = repo.objects.packedObjectCount();
    const highestBit = count > 0 ? 31 - Math.clz32(count) : 0;
    length = Math.max(FALLBACK_LENGTH, Math.floor((highestBit + 2) / 2));
  }
  lengths.set(repo, length);
  return length;
}

/** `oid` abbreviated as git would print it here; the null name is zeros of the starting length. */
export function abbreviate(repo: Repo, oid: string): string {
  const length = abbrevLength(repo);
  if (length >= 40) return oid;
  if (/^0{40}$/.test(oid)) return oid.slice(0, length);
  return oid.slice(0, Math.max(length, Math.min(40, repo.objects.sharedHexDigits(oid) + 1)));
}
