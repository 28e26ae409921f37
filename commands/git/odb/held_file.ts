/**
 * A temporary file its maker holds: created exclusively and kept under an exclusive flock until its
 * handle is closed, so that a clean-up (remote/leftovers.ts) removes only files whose maker is gone.
 */

/** Creates `path` (it must not exist) and holds an exclusive flock on it until the handle is closed. */
export function createHeld(path: string): Deno.FsFile {
  const file = Deno.openSync(path, { read: true, write: true, createNew: true, mode: 0o644 });
  try {
    file.lockSync(true);
  } catch (error) {
    file.close();
    throw error;
  }
  return file;
}
