/**
 * git's `verify_path` for the names inside trees and the index: a name that would leave its
 * folder (`..`), name a folder itself (`.`, empty), carry a separator or enter a `.git` folder —
 * in any spelling a Windows or macOS checkout resolves to `.git` (core's `isGitDirName`) — makes
 * the whole tree or index unusable. Checked when the object is parsed, so nothing is read,
 * stat'ed or removed on the strength of such a name.
 */

import { PtermError } from "../../../core/errors.ts";
import { isGitDirName } from "../../../core/paths.ts";

/**
 * Names that cannot be unsafe: not empty, no leading dot, and none of `/`, `\`, `~`, NUL or a
 * non-ASCII character (HFS ignores some code points). Almost every real name; checked first so
 * parsing a large index or tree pays one regular expression per name.
 */
const PLAINLY_SAFE_NAME = /^[^./\\~\0\u0080-\uffff][^/\\~\0\u0080-\uffff]*$/;
const PLAINLY_SAFE_PATH =
  /^(?:[^./\\~\0\u0080-\uffff][^/\\~\0\u0080-\uffff]*\/)*[^./\\~\0\u0080-\uffff][^/\\~\0\u0080-\uffff]*$/;

/** Why `name`, one component of a path in a tree, is unsafe; null when it is fine. */
export function unsafeComponent(name: string): string | null {
  if (PLAINLY_SAFE_NAME.test(name)) return null;
  if (name === "") return "an empty name";
  if (name.includes("/")) return "a `/` inside a name";
  if (name.includes("\0")) return "a NUL byte";
  // A Windows checkout splits on `\` as well: `..\x` or `.git\hooks` must not get through there.
  for (const part of name.split("\\")) {
    if (part === "." || part === "..") return `the name \`${part}\``;
    if (isGitDirName(part)) return "a `.git` folder name";
  }
  return null;
}

/** Throws `InvalidPath` for a tree entry name git's verify_path would refuse. */
export function verifyTreeEntryName(name: string, where: string): void {
  const reason = unsafeComponent(name);
  if (reason === null) return;
  throw new PtermError(
    "InvalidPath",
    `${where} has an entry ${JSON.stringify(name)} with ${reason}; git refuses such paths (verify_path) and so ` +
      "does pterm: nothing of that tree is read, checked out or removed. The commit was made by a tool other than " +
      "git; remove it from history with the real git.",
  );
}

/** Throws `InvalidPath` for an index path with a component git's verify_path would refuse. */
export function verifyIndexPath(path: string): void {
  if (PLAINLY_SAFE_PATH.test(path)) return;
  for (const component of path.split("/")) {
    const reason = unsafeComponent(component);
    if (reason === null) continue;
    throw new PtermError(
      "InvalidPath",
      `the index (.git/index) holds the path ${JSON.stringify(path)} with ${reason}; git refuses such paths and so ` +
        "does pterm. Rebuild the index with the real git (`git read-tree HEAD`).",
    );
  }
}
