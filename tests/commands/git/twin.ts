/**
 * Twin repositories: the same scenario runs through pterm (in `p/`) and through the real git
 * (in `g/`), and the outcomes are compared — trees, index and work tree status, work-tree
 * files, branches, tags, stash, history shape. Commit ids differ (pterm stamps the current
 * time), so commits are compared by tree, subject and parent count.
 */

import assert from "node:assert/strict";
import type { Envelope } from "../../../core/envelope.ts";
import { makeRoot, type TempDir } from "../../_support/helpers.ts";
import { assertFsck, git, gitRaw, porcelainFiles, ptermTry, write } from "./oracle.ts";

export class Twin implements AsyncDisposable {
  readonly root: TempDir;
  readonly p: string;
  readonly g: string;

  private constructor(root: TempDir) {
    this.root = root;
    this.p = `${root.path}/p`;
    this.g = `${root.path}/g`;
  }

  static async create(): Promise<Twin> {
    const twin = new Twin(await makeRoot("pterm-twin-"));
    const init = await ptermTry(twin.root.path, "git init --dir p --initial-branch main");
    assert.equal(init.exit_code, 0, init.stderr);
    await Deno.mkdir(twin.g, { recursive: true });
    await git(twin.g, "init", "-q", "-b", "main");
    return twin;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.root[Symbol.asyncDispose]();
  }

  /** Writes the same file in both work trees. */
  async write(path: string, text: string | Uint8Array): Promise<void> {
    await write(`${this.p}/${path}`, text);
    await write(`${this.g}/${path}`, text);
  }

  async remove(path: string): Promise<void> {
    await Deno.remove(`${this.p}/${path}`, { recursive: true });
    await Deno.remove(`${this.g}/${path}`, { recursive: true });
  }

  /**
   * Runs `line` through pterm (R stands for the repository) and `args` through git; both must
   * succeed, or both fail (then pterm's error code must be `failCode`).
   */
  async run(line: string, args: string[], failCode?: string): Promise<Envelope> {
    const envelope = await ptermTry(this.root.path, line.replace(/ R\b/, " p"));
    const real = await gitRaw(this.g, args);
    if (failCode) {
      assert.equal(envelope.error_code, failCode, `pterm \`${line}\`: ${envelope.stderr}`);
      assert.notEqual(real.code, 0, `git ${args.join(" ")} was expected to fail too:\n${real.stdout}`);
    } else {
      assert.equal(envelope.exit_code, 0, `pterm \`${line}\` failed: ${envelope.stderr}`);
      assert.equal(real.code, 0, `git ${args.join(" ")} failed: ${real.stderr}`);
    }
    return envelope;
  }

  /** Both sides must agree on everything observable. */
  async compare(note = ""): Promise<void> {
    const treeOf = async (dir: string) => (await gitRaw(dir, ["rev-parse", "HEAD^{tree}"])).stdout.trim();
    assert.equal(await treeOf(this.p), await treeOf(this.g), `HEAD tree ${note}`);
    assert.deepEqual(await porcelainFiles(this.p), await porcelainFiles(this.g), `status ${note}`);
    assert.deepEqual(await worktreeFiles(this.p), await worktreeFiles(this.g), `work tree ${note}`);
    const refs = async (dir: string) => {
      const text = await git(
        dir,
        "for-each-ref",
        "--format=%(refname) %(objecttype) %(*objecttype)",
        "refs/heads",
        "refs/tags",
      );
      return text.trim();
    };
    assert.equal(await refs(this.p), await refs(this.g), `refs ${note}`);
    const head = async (dir: string) => (await gitRaw(dir, ["symbolic-ref", "-q", "HEAD"])).stdout.trim();
    assert.equal(await head(this.p), await head(this.g), `HEAD ${note}`);
    const history = async (dir: string) =>
      (await gitRaw(dir, ["log", "--format=%T %s %P", "--all"])).stdout
        .split("\n").map((l) => l.replace(/ [0-9a-f]{40}/g, " P").replace(/\b[0-9a-f]{7}\b/g, "X")).sort().join("\n");
    assert.equal(await history(this.p), await history(this.g), `history ${note}`);
    const stash = async (dir: string) =>
      (await gitRaw(dir, ["stash", "list", "--format=%gs %T"])).stdout
        .replace(/[0-9a-f]{7} /g, "");
    assert.equal(await stash(this.p), await stash(this.g), `stash ${note}`);
    await assertFsck(this.p);
  }
}

/** Every work-tree file (outside .git) with its content, conflict-marker labels normalized. */
export async function worktreeFiles(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (rel: string) => {
    for await (const entry of Deno.readDir(rel ? `${dir}/${rel}` : dir)) {
      if (entry.name === ".git") continue;
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory) await walk(path);
      else {
        const text = entry.isSymlink
          ? `-> ${await Deno.readLink(`${dir}/${path}`)}`
          : await Deno.readTextFile(`${dir}/${path}`);
        out[path] = text.replace(/parent of [0-9a-f]{7}/g, "parent of X");
      }
    }
  };
  await walk("");
  return out;
}
