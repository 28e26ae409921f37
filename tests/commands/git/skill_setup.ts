/**
 * The git skill's examples start from a project folder `demo/` with two files, and — for the
 * remotes section — `app/`, a clone (made by the real git) of a repository on a local git
 * smart-HTTP server, with pterm.json allowing that server.
 */

import { git } from "./oracle.ts";
import { startGitHttpServer } from "./remote/http_server.ts";

export async function gitSkillSetup(root: string): Promise<() => Promise<void>> {
  await Deno.mkdir(`${root}/demo/src`, { recursive: true });
  await Deno.writeTextFile(`${root}/demo/README.md`, "# demo\n");
  await Deno.writeTextFile(`${root}/demo/src/app.ts`, 'console.log("hello");\n');

  const server = await startGitHttpServer();
  const bare = await server.createBare("app.git");
  const seed = await Deno.makeTempDir({ prefix: "pterm-skill-seed-" });
  await git(seed, "init", "--quiet", "--initial-branch=main", "app");
  await Deno.writeTextFile(`${seed}/app/README.md`, "# app\n");
  await git(`${seed}/app`, "add", "-A");
  await git(`${seed}/app`, "commit", "--quiet", "-m", "First");
  await git(`${seed}/app`, "push", "--quiet", server.url("app.git"), "main");
  await git(root, "clone", "--quiet", server.url("app.git"), "app");
  // Someone else pushes after the clone: the fetch and pull examples have something to bring in.
  await Deno.writeTextFile(`${seed}/app/NEWS.md`, "news\n");
  await git(`${seed}/app`, "add", "-A");
  await git(`${seed}/app`, "commit", "--quiet", "-m", "News");
  await git(`${seed}/app`, "push", "--quiet", server.url("app.git"), "main");
  await Deno.writeTextFile(
    `${root}/pterm.json`,
    JSON.stringify({ git: { default_repo: "demo", remotes: { allow: [`${server.origin}/`] } } }, null, 2) + "\n",
  );
  void bare;
  return async () => {
    await Deno.remove(seed, { recursive: true }).catch(() => {});
    await server[Symbol.asyncDispose]();
  };
}
