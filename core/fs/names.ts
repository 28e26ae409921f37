/**
 * The names in a folder, from one listing: how the kernel and the commands ask whether several
 * entries exist without a look-up per entry that throws when it is absent (a process's first
 * exception costs milliseconds: V8 re-parses the functions on the stack for their source positions).
 */

/** The names in `folder`; null when it cannot be listed (missing, not a folder, no permission). */
export function folderNames(folder: string): Set<string> | null {
  try {
    return new Set(Array.from(Deno.readDirSync(folder), (entry) => entry.name));
  } catch {
    return null;
  }
}
