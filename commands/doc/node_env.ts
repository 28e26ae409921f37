/**
 * npm libraries written for Node read environment variables while they load (mammoth's
 * bluebird reads BLUEBIRD_DEBUG, jszip's readable-stream READABLE_STREAM). The sandbox grants
 * no env access, so such a read throws NotCapable. Inside the sandbox worker — which serves
 * this one call and nothing else — they are given an empty environment instead, which is what
 * the sandbox means anyway. With env access granted (a plain `deno run -A`) nothing changes.
 */

import process from "node:process";

export function hideEnvironmentFromNodeLibraries(): void {
  if (Deno.permissions.querySync({ name: "env" }).state === "granted") return;
  Object.defineProperty(process, "env", { value: {}, configurable: true, writable: true, enumerable: true });
}
