/** Files a run leaves behind, under `<root>/artifacts/<run_id>/`, listed in the envelope. */

import { lazyImport } from "./lazy.ts";
import type { ArtifactRef } from "./envelope.ts";

export const ARTIFACTS_DIR = "artifacts";

export interface SaveOptions {
  readonly mime: string;
  readonly description: string;
}

export interface ArtifactStore {
  /** Writes `data` as `artifacts/<run_id>/<name>` and lists it in the envelope. */
  save(name: string, data: Uint8Array | string, options: SaveOptions): Promise<ArtifactRef>;
  /** Lists a file the command wrote elsewhere under the root (e.g. `doc extract --out`). */
  add(ref: ArtifactRef): void;
  list(): readonly ArtifactRef[];
}

/** Keeps artifact names to one plain file name, so a name can never point elsewhere. */
export function safeArtifactName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^\.+/, "_");
  return cleaned.slice(0, 120) || "artifact";
}

export function artifactRelDir(runId: string): string {
  return `${ARTIFACTS_DIR}/${runId}`;
}

export function createArtifactStore(
  root: string,
  runId: string,
  onAdd: (ref: ArtifactRef) => void = () => {},
): ArtifactStore {
  const refs: ArtifactRef[] = [];
  const used = new Set<string>();
  const record = (ref: ArtifactRef) => {
    refs.push(ref);
    onAdd(ref);
  };
  return {
    async save(name, data, options) {
      let file = safeArtifactName(name);
      for (let n = 2; used.has(file); n++) file = `${n}-${safeArtifactName(name)}`;
      used.add(file);
      const rel = `${artifactRelDir(runId)}/${file}`;
      // Loaded on first use: most calls save no artifact, and a sandbox worker starts faster without it.
      // Never through a symlink (`artifacts -> /elsewhere`): see core/fs/safe_fs.ts.
      const { safeWriteFileSync } = await lazyImport<typeof import("./fs/safe_fs.ts")>(
        new URL("./fs/safe_fs.ts", import.meta.url),
      );
      safeWriteFileSync(root, rel, data, { mkdirs: true });
      const ref = { path: rel, mime: options.mime, description: options.description };
      record(ref);
      return ref;
    },
    add(ref) {
      record(ref);
    },
    list() {
      return refs;
    },
  };
}
