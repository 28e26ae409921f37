/**
 * Repositories of several shapes for the history text oracles (log, show, shortlog, describe),
 * built by the real git with a distinct time for each commit, so date order and topological
 * order both matter: a linear history with tags, a merge with a stash, two branches with an
 * octopus, and random histories made with `git commit-tree`.
 */

import { GIT_ENV } from "../oracle.ts";

/** Runs the real git with the oracle's environment and the author/committer date `at` (unix seconds). */
export async function gitAt(cwd: string, at: number, zone: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args,
    cwd,
    env: { ...GIT_ENV, GIT_AUTHOR_DATE: `@${at} ${zone}`, GIT_COMMITTER_DATE: `@${at} ${zone}` },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (out.code !== 0) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  return text;
}

/** A repository builder whose clock moves one step per commit. */
export class Shaper {
  #time = 1_700_000_000;
  constructor(readonly dir: string, readonly zone = "+0200") {}

  async git(...args: string[]): Promise<string> {
    return await gitAt(this.dir, this.#time, this.zone, ...args);
  }

  async commit(file: string, content: string, message: string, ...more: string[]): Promise<void> {
    this.#time += 3600 + 17;
    await Deno.writeTextFile(`${this.dir}/${file}`, content);
    await this.git("add", file);
    await this.git("commit", "-q", "-m", message, ...more);
  }

  async merge(...args: string[]): Promise<void> {
    this.#time += 3600 + 17;
    await this.git("merge", "-q", "--no-ff", ...args);
  }

  tick(seconds = 3600): void {
    this.#time += seconds;
  }
}

export type Shape = "linear" | "merge" | "branches";

/** Builds one shape in `dir` (created); every shape has an annotated and a lightweight tag. */
export async function buildShape(dir: string, shape: Shape): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  const s = new Shaper(dir);
  await s.git("init", "-q", "-b", "main");
  await s.commit("a.txt", "one\n", "First commit", "-m", "With a body line.\n\nAnd a second paragraph.");
  await s.git("tag", "v0.1");
  await s.commit("b.txt", "bee\n", "Add b");
  s.tick();
  await s.git("tag", "-a", "-m", "Release 1.0\n\nThe first release.", "v1.0");
  await s.commit("a.txt", "one\ntwo\n", "Grow a");
  if (shape === "linear") {
    await s.commit("c.txt", "sea\n", "Add c", "--author", "Other Person <other@example.com>");
    await s.commit("c.txt", "sea\nshore\n", "Extend c", "--author", "bob <bob@example.com>");
    await s.commit("e.txt", "e\n", "Add e", "--author", "\u00c1nna \u00dcmlaut <anna@example.com>");
    await s.commit("e.txt", "e\nf\n", "Grow e", "--author", "Other Person <other@work.example>");
    return;
  }
  await s.git("switch", "-q", "-c", "side");
  await s.commit("s.txt", "side\n", "Side work", "--author", "Side Author <side@example.com>");
  await s.commit("s.txt", "side\nmore\n", "More side work");
  await s.git("switch", "-q", "main");
  await s.commit("a.txt", "one\ntwo\nthree\n", "Main moves on");
  await s.merge("side", "-m", "Merge branch 'side'");
  await s.git("tag", "-a", "-m", "Release 2.0", "v2.0");
  await s.commit("d.txt", "dee\n", "After the merge");
  if (shape === "branches") {
    for (const name of ["x", "y", "z"]) {
      await s.git("switch", "-q", "-c", name, "main");
      await s.commit(`${name}.txt`, `${name}\n`, `Work on ${name}`);
    }
    await s.git("switch", "-q", "main");
    await s.commit("m.txt", "main\n", "Main alone");
    await s.merge("x", "y", "z", "-m", "Octopus of x, y and z");
    // A tag of a tag: decorations and describe peel it to the commit.
    await s.git("-c", "advice.nestedTag=false", "tag", "-a", "-m", "Nested", "v2.0-nested", "v2.0");
    await s.git("switch", "-q", "-c", "late", "main~2");
    await s.commit("l.txt", "late\n", "A late branch");
    await s.git("switch", "-q", "main");
  }
  await Deno.writeTextFile(`${dir}/a.txt`, "stashed change\n");
  s.tick();
  await s.git("stash", "push", "-q", "-m", "wip on a");
}
