/**
 * What a command holds for the length of one call and no longer: a file it reads many times (a
 * git pack) is opened once per call instead of once per read, and closed when the call ends — a
 * worker serves call after call, and no handle may outlive the call that opened it.
 */

let depth = 0;
const releases: (() => void)[] = [];

/** Runs `work` as one call: whatever is handed to `releaseAtCallEnd` inside it is released when it ends. */
export async function withinCall<T>(work: () => Promise<T>): Promise<T> {
  depth++;
  try {
    return await work();
  } finally {
    if (--depth === 0) {
      for (const release of releases.splice(0)) {
        try {
          release();
        } catch { /* released already */ }
      }
    }
  }
}

/** Whether a call is running (outside one, nothing may be held past the operation that needs it). */
export function inCall(): boolean {
  return depth > 0;
}

/** Releases `release` when the running call ends; call only when `inCall()`. */
export function releaseAtCallEnd(release: () => void): void {
  releases.push(release);
}
