/**
 * git's `verify_path` for the names inside trees and the index: a name that would leave its
 * folder (`..`), name a folder itself (`.`, empty), carry a separator or enter a `.git` folder —
 * in any spelling a Windows or macOS checkout resolves to `.git` (core's `isGitDirName`) — makes
 * the whole tree or index unusable. Checked when the object is parsed, so nothing is read,
 * stat'ed or removed on the strength of such a name.
 */

import { PtermError } from "../../../core/errors.ts";
import { isGitDirName } from "../../../core/fs/paths.ts";

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

const HFS_IGNORABLE = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/gu;

/**
 * `.gitmodules` as a Windows or macOS checkout resolves it (git's is_ntfs_dotgitmodules and
 * is_hfs_dotgitmodules): case folded, HFS's ignorable code points dropped, trailing dots and
 * spaces and an alternate stream ignored, the 8.3 short names `gitmod~1`..`~4` and `gi7eba~N`.
 */
export function isGitmodulesName(name: string): boolean {
  return /^(?:\.gitmodules|gitmod~[1-4]|gi7eba~[1-9])[. ]*(?::.*)?$/.test(
    name.replace(HFS_IGNORABLE, "").toLowerCase(),
  );
}

/**
 * Throws `InvalidPath` for a tree entry name git's verify_path would refuse; `isLink`: the entry
 * is a symbolic link, and a link named `.gitmodules` is refused too (git's fsck calls it
 * gitmodulesSymlink: a checkout would let the link's target be read as the submodule config).
 */
export function verifyTreeEntryName(name: string, where: string, isLink = false): void {
  const reason = isLink && isGitmodulesName(name) ? "a symbolic link named .gitmodules" : unsafeComponent(name);
  if (reason === null) return;
  throw new PtermError(
    "InvalidPath",
    `${where} has an entry ${JSON.stringify(name)} with ${reason}; git refuses such paths (verify_path) and so ` +
      "does pterm: nothing of that tree is read, checked out or removed. The commit was made by a tool other than " +
      "git; remove it from history with the real git.",
  );
}

/** Throws `InvalidPath` for an index path with a component git's verify_path would refuse. */
export function verifyIndexPath(path: string, isLink = false): void {
  if (PLAINLY_SAFE_PATH.test(path)) return;
  const components = path.split("/");
  for (const [i, component] of components.entries()) {
    const reason = isLink && i === components.length - 1 && isGitmodulesName(component)
      ? "a symbolic link named .gitmodules"
      : unsafeComponent(component);
    if (reason === null) continue;
    throw new PtermError(
      "InvalidPath",
      `the index (.git/index) holds the path ${JSON.stringify(path)} with ${reason}; git refuses such paths and so ` +
        "does pterm. Rebuild the index with the real git (`git read-tree HEAD`).",
    );
  }
}
