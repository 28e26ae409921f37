/**
 * The workspace a face serves: its root (--root, PTERM_ROOT, else .agents under the caller's folder) and
 * session (--session, PTERM_SESSION, else default), checked the same way for every face.
 */

import { isAbsolute, resolve } from "../fs/path.ts";
import { PtermError } from "../errors.ts";
import { prepareRoot } from "../fs/paths.ts";
import type { CliIo } from "./io.ts";
import { isValidSessionId } from "./options.ts";

export interface Workspace {
  root: string;
  session: string;
}

/** The directory relative paths on the host are resolved from (`deno task` keeps the caller's in INIT_CWD). */
export function hostCwd(io: CliIo): string {
  return io.env("INIT_CWD") ?? io.cwd;
}

/** What the flags and the environment name: the root's absolute path (not resolved further) and the session id. */
function namedWorkspace(io: CliIo, rootFlag?: string, sessionFlag?: string): { rootPath: string; session: string } {
  const rootInput = rootFlag ?? io.env("PTERM_ROOT") ?? ".agents";
  return {
    rootPath: isAbsolute(rootInput) ? rootInput : resolve(hostCwd(io), rootInput),
    session: sessionFlag ?? io.env("PTERM_SESSION") ?? "default",
  };
}

export function resolveWorkspace(io: CliIo, rootFlag?: string, sessionFlag?: string): Workspace {
  const { rootPath, session } = namedWorkspace(io, rootFlag, sessionFlag);
  let root: string;
  try {
    root = prepareRoot(rootPath);
  } catch (error) {
    if (error instanceof PtermError) throw error;
    throw new PtermError("InvalidArgs", `the workspace root ${rootPath} cannot be used: ${(error as Error).message}`, {
      helpFor: "pterm exec",
    });
  }
  if (!isValidSessionId(session)) {
    throw new PtermError(
      "InvalidArgs",
      `the session id \`${session}\` is not valid: use 1-64 letters, digits, ., _ or -, starting with a letter or digit.`,
      { helpFor: "pterm exec" },
    );
  }
  return { root, session };
}

/**
 * The workspace of a root that exists, named as resolveWorkspace reads it, without creating the root
 * or looking for pterm's code in it: what a call needs to reach the root's session server, which
 * checks the root before every call it takes (hosts/server/session_server.ts). Null when the root
 * does not exist or cannot be resolved, or the session id is not valid: the caller then takes the
 * path that reports it (resolveWorkspace).
 */
export function locateWorkspace(io: CliIo, rootFlag?: string, sessionFlag?: string): Workspace | null {
  const { rootPath, session } = namedWorkspace(io, rootFlag, sessionFlag);
  if (!isValidSessionId(session)) return null;
  try {
    return { root: Deno.realPathSync(rootPath), session };
  } catch {
    return null;
  }
}
