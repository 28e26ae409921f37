/**
 * A `pterm exec` process killed with SIGKILL in the middle of a clone and of a fetch (the server
 * stalls mid-pack, the process is killed while it waits): what it leaves — the clone's hidden
 * build folder, a `tmp_pack_*` — confuses nothing (no --dir appears, no ref moves, the real
 * git's fsck stays clean, the same clone and fetch then work, and remove what the dead process
 * left — never what a live one holds).
 */

import assert from "node:assert/strict";
import { assertFsck, git } from "../oracle.ts";
import { baseEnv, execOk, makeRoot, ptermArgs } from "../../../_support/helpers.ts";
import { startGitHttpServer } from "./http_server.ts";
import { allowedWorkspace, servedRepository } from "./fixture.ts";

/** Starts `pterm exec <line>`, waits until `ready()` holds (polling), then kills the process with SIGKILL. */
async function killMidway(root: string, line: string, ready: () => boolean): Promise<void> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ptermArgs(["exec", "--root", root, line]),
    clearEnv: true,
    env: { ...baseEnv(), NO_COLOR: "1" },
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const started = Date.now();
  while (!ready()) {
    if (Date.now() - started > 20_000) {
      child.kill("SIGKILL");
      await child.status;
      throw new Error(`${line} never reached the point to kill it at`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  child.kill("SIGKILL");
  const status = await child.status;
  assert.equal(status.signal, "SIGKILL");
}

/** Every file and folder below `dir` (itself included), dated two hours back: as a long-dead process leaves them. */
function age(dir: string): void {
  const then = new Date(Date.now() - 2 * 3600_000);
  const walk = (path: string) => {
    const info = Deno.lstatSync(path);
    if (info.isDirectory) { for (const entry of Deno.readDirSync(path)) walk(`${path}/${entry.name}`); }
    Deno.utimeSync(path, then, then);
  };
  walk(dir);
}

const tmpPacks = (packDir: string) => {
  try {
    return [...Deno.readDirSync(packDir)].map((e) => e.name).filter((n) => n.startsWith("tmp_pack_"));
  } catch {
    return [];
  }
};

Deno.test("kill -9 of pterm mid-clone and mid-fetch: nothing confused, the next commands work and clean up", async (t) => {
  await using server = await startGitHttpServer();
  await using work = await makeRoot();
  const src = await servedRepository(server, "app.git", work.path);
  await using root = await allowedWorkspace(server);
  const url = server.url("app.git");
  const projects = `${root.path}/projects`;
  await Deno.mkdir(projects);
  const hidden = () => [...Deno.readDirSync(projects)].map((e) => e.name).filter((n) => n.includes("pterm-clone"));

  await t.step(
    "clone killed mid-pack: no --dir; the same clone then works and removes the dead one's folder",
    async () => {
      server.stallNextFetchAfter = 2000;
      await killMidway(
        root.path,
        `git clone --url ${url} --dir projects/app --confirm`,
        () => hidden().some((name) => tmpPacks(`${projects}/${name}/.git/objects/pack`).length > 0),
      );
      assert.deepEqual([...Deno.readDirSync(projects)].map((e) => e.name).filter((n) => n === "app"), []);
      assert.equal(hidden().length, 1);
      await execOk(root.path, `git clone --url ${url} --dir projects/app --confirm`);
      await assertFsck(`${projects}/app`);
      assert.deepEqual(hidden(), []);
    },
  );

  await t.step("a clone folder without its lock file goes only once old; one a live clone holds stays", async () => {
    const bare = `${projects}/.old.pterm-clone-0123abcd`;
    await Deno.mkdir(`${bare}/.git/objects/pack`, { recursive: true });
    const live = `${projects}/.live.pterm-clone-4567cdef`;
    await Deno.mkdir(`${live}/.git`, { recursive: true });
    // This test process stands for a live pterm: it holds the lock as a clone does.
    const lock = Deno.openSync(`${live}/.git/pterm-clone.lock`, { write: true, createNew: true });
    lock.lockSync(true);
    try {
      await execOk(root.path, `git clone --url ${url} --dir projects/second --confirm`);
      assert.deepEqual(hidden().sort(), [".live.pterm-clone-4567cdef", ".old.pterm-clone-0123abcd"]);
      age(bare);
      age(live);
      await execOk(root.path, `git clone --url ${url} --dir projects/third --confirm`);
      assert.deepEqual(hidden(), [".live.pterm-clone-4567cdef"]);
    } finally {
      lock.close();
    }
    await execOk(root.path, `git clone --url ${url} --dir projects/fourth --confirm`);
    assert.deepEqual(hidden(), []);
  });

  await t.step(
    "fetch killed mid-pack: refs untouched, fsck clean; the next fetch lands and removes the leftover",
    async () => {
      const mine = `${projects}/app`;
      const packDir = `${mine}/.git/objects/pack`;
      const noise = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(60_000))));
      await Deno.writeTextFile(`${src}/noise.txt`, noise);
      await git(src, "add", "-A");
      await git(src, "commit", "--quiet", "-m", "noise");
      await git(src, "push", "--quiet", url, "main");
      const refs = await git(mine, "for-each-ref");
      server.stallNextFetchAfter = 4000;
      await killMidway(root.path, "git fetch --repo projects/app --confirm", () => tmpPacks(packDir).length > 0);
      assert.equal(await git(mine, "for-each-ref"), refs);
      assert.equal(tmpPacks(packDir).length, 1);
      await assertFsck(mine);
      // pterm's own readers see the repository as before.
      await execOk(root.path, "git log --repo projects/app --max 1");
      // A temporary pack a live process holds (this test process, as a live pterm would) is left alone.
      const live = Deno.openSync(`${packDir}/tmp_pack_89abcdef`, { write: true, createNew: true });
      live.lockSync(true);
      try {
        await execOk(root.path, "git fetch --repo projects/app --confirm");
        assert.deepEqual(tmpPacks(packDir), ["tmp_pack_89abcdef"]);
      } finally {
        live.close();
      }
      assert.equal(
        (await git(mine, "rev-parse", "refs/remotes/origin/main")).trim(),
        (await git(src, "rev-parse", "main")).trim(),
      );
      await assertFsck(mine);
      await execOk(root.path, "git fetch --repo projects/app --confirm");
      assert.deepEqual(tmpPacks(packDir), []);
    },
  );
});
