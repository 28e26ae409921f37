/** A served repository with the shapes real projects have, built with the real git; and a workspace allowed to reach it. */

import { git } from "../oracle.ts";
import { makeRoot, type TempDir } from "../../../_support/helpers.ts";
import type { GitHttpServer } from "./http_server.ts";

/**
 * Pushes to `server` a repository made by the real git: 30 commits with growing files (so the pack
 * has delta chains), nested folders, an executable, a symbolic link, a second branch, a
 * lightweight and an annotated tag. Returns the work folder it was pushed from.
 */
export async function servedRepository(server: GitHttpServer, name: string, work: string): Promise<string> {
  await server.createBare(name);
  const src = `${work}/${server.port}-${name.replace(/\.git$/, "")}-src`;
  await git(work, "init", "--quiet", "--initial-branch=main", src);
  for (let i = 1; i <= 30; i++) {
    await Deno.mkdir(`${src}/src/lib`, { recursive: true });
    await Deno.writeTextFile(
      `${src}/src/lib/numbers.txt`,
      Array.from({ length: i * 40 }, (_, k) => `line ${k}`).join("\n") + "\n",
    );
    await Deno.writeTextFile(`${src}/notes-${i % 4}.md`, `# note ${i}\n`);
    if (i === 3) {
      await Deno.writeTextFile(`${src}/run.sh`, "#!/bin/sh\necho hi\n");
      await Deno.chmod(`${src}/run.sh`, 0o755);
      await Deno.symlink("src/lib/numbers.txt", `${src}/link`);
    }
    await git(src, "add", "-A");
    await git(src, "commit", "--quiet", "-m", `commit ${i}`);
    if (i === 10) await git(src, "tag", "v0.1");
    if (i === 20) await git(src, "tag", "-a", "-m", "release 1", "v1.0");
    if (i === 25) await git(src, "branch", "side");
  }
  await git(src, "push", "--quiet", server.url(name), "main", "side", "--tags");
  return src;
}

/** A workspace root whose pterm.json allows the server (plain http, loopback: listed explicitly). */
export async function allowedWorkspace(server: GitHttpServer, extra: Record<string, unknown> = {}): Promise<TempDir> {
  const root = await makeRoot();
  await Deno.writeTextFile(
    `${root.path}/pterm.json`,
    JSON.stringify({ git: { remotes: { allow: [`${server.origin}/`] }, ...extra } }, null, 2) + "\n",
  );
  return root;
}
