/**
 * `lsRemote`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import type { lsRemoteFlags } from "../sub/ls_remote.ts";
import { lsRemote as listRemote } from "../remote/operations.ts";
import { connectionFor, gate } from "./remote_shared.ts";

export const lsRemote: Handler<typeof lsRemoteFlags> = async (ctx) => {
  const remote = gate(ctx, ctx.flags.url, (url) => `ls-remote: listing the branches and tags of ${url}`);
  const refs = await listRemote(await connectionFor(ctx, remote));
  for (const ref of refs) ctx.stdout.write(`${ref.oid}\t${ref.name}\n`);
  if (refs.length === 0) ctx.stdout.write(`${remote.url} is empty (no branches or tags).\n`);
  return {
    url: remote.url,
    refs: refs.map((r) => ({
      name: r.name,
      oid: r.oid,
      ...(r.peeled ? { peeled: r.peeled } : {}),
      ...(r.symref ? { symref: r.symref } : {}),
    })),
  };
};
