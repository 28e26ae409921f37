/**
 * `remotes`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { remoteFlags } from "../sub/remote.ts";
import { allowedRemote, parseRemoteUrl, policyOf } from "../remote/gate.ts";
import { configSubsections, removeConfigSection, removeConfigValues, setConfigValues } from "../repo/config_edit.ts";
import { deleteRef, isValidRefName, listRefs, readRawRef } from "../repo/refs.ts";
import { openFromFlags, plural } from "./common.ts";
import { reopenRepo, type Repo } from "../repo/repo.ts";
import { gitSection, rewrittenUrl } from "./remote_shared.ts";

export type RemotePositionals = readonly { name: "action" | "name" | "url"; description: string }[];

/** `git remote`: list, add, remove, set-url — .git/config and refs only, never the network. */
export const remotes: Handler<typeof remoteFlags, RemotePositionals> = async (ctx) => {
  const { repo, rel } = await openFromFlags(ctx);
  const action = (ctx.positionals.action as string | undefined) ?? "list";
  const name = ctx.positionals.name as string | undefined;
  const url = ctx.positionals.url as string | undefined;
  const policy = policyOf(gitSection(ctx));
  const describeAll = (fresh: Repo) => {
    const text = Deno.readTextFileSync(`${fresh.commondir}/config`);
    return configSubsections(text, "remote").map((remote) => {
      const configured = fresh.config.get(`remote.${remote}.url`);
      const where = configured === undefined ? null : rewrittenUrl(fresh, configured, false);
      let allowed = false;
      try {
        if (where !== null) allowed = !!allowedRemote(where, policy);
      } catch { /* not allowed, or not a URL pterm speaks */ }
      return { name: remote, url: where, fetch: fresh.config.values.get(`remote.${remote}.fetch`) ?? [], allowed };
    });
  };
  const reopened = () => reopenRepo(repo, ctx.workspace.root);
  const exists = (remote: string) => repo.config.get(`remote.${remote}.url`) !== undefined;
  const needName = (what: string) => {
    if (!name) {
      throw new PtermError("InvalidArgs", `${what} needs the remote's name: git remote --repo ${rel} ${what} <name>.`);
    }
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) || name.includes("..") || !isValidRefName(`refs/remotes/${name}`)) {
      throw new PtermError("InvalidArgs", `\`${name}\` is not a usable remote name (letters, digits, . _ -).`);
    }
    return name;
  };
  const needUrl = (what: string) => {
    if (!url) {
      throw new PtermError("InvalidArgs", `${what} needs a URL: git remote --repo ${rel} ${what} <name> <url>.`);
    }
    return parseRemoteUrl(url, "the URL").url;
  };
  if (action === "list") {
    if (name || url) throw new PtermError("InvalidArgs", "list takes no name or URL.");
    const all = describeAll(repo);
    // git's text: the names in order, or with -v each remote's fetch and push URL; nothing when there is none.
    ctx.stdout.write(
      [...all].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((r) => {
        if (!ctx.flags.verbose) return `${r.name}\n`;
        const push = repo.config.get(`remote.${r.name}.pushurl`) ?? r.url ?? "";
        return `${r.name}\t${r.url ?? ""} (fetch)\n${r.name}\t${push} (push)\n`;
      }).join(""),
    );
    const barred = all.filter((r) => !r.allowed).map((r) => r.name);
    if (barred.length) {
      ctx.stderr.write(
        `[Note] pterm fetches from and pushes to none of ${barred.join(", ")}: not in git.remotes.allow of ` +
          "pterm.json (result.remotes[].allowed).\n",
      );
    }
    return { repo_path: rel, action: "list", remotes: all };
  }
  if (action === "add") {
    const remote = needName("add");
    const where = needUrl("add");
    if (exists(remote)) {
      throw new PtermError("AlreadyExists", `remote ${remote} already exists; change its URL with set-url.`);
    }
    await setConfigValues(repo, "remote", remote, [["url", where], [
      "fetch",
      `+refs/heads/*:refs/remotes/${remote}/*`,
    ]]);
    ctx.stdout.write(
      `Added remote ${remote} (${where}); \`git fetch --repo ${rel} --remote ${remote} --confirm\` fetches it.\n`,
    );
    return { repo_path: rel, action: "add", remotes: describeAll(reopened()) };
  }
  if (action === "get-url") {
    if (url) throw new PtermError("InvalidArgs", "get-url takes only the remote's name.");
    const remote = needName("get-url");
    const described = describeAll(repo).find((r) => r.name === remote);
    if (!described || described.url === null) {
      throw new PtermError(
        "NotFound",
        `there is no remote ${remote}; list them with \`git remote --repo ${rel}\`.`,
      );
    }
    // As git's get-url: the URL after url.<base>.insteadOf.
    ctx.stdout.write(`${described.url}\n`);
    return { repo_path: rel, action: "get-url", remotes: [described] };
  }
  if (action === "set-url") {
    const remote = needName("set-url");
    const where = needUrl("set-url");
    if (!exists(remote)) throw new PtermError("NotFound", `there is no remote ${remote}; add it with add.`);
    await setConfigValues(repo, "remote", remote, [["url", where]]);
    ctx.stdout.write(`${remote} now points to ${where}.\n`);
    return { repo_path: rel, action: "set-url", remotes: describeAll(reopened()) };
  }
  if (action === "remove") {
    if (url) throw new PtermError("InvalidArgs", "remove takes only the remote's name.");
    const remote = needName("remove");
    if (!exists(remote)) throw new PtermError("NotFound", `there is no remote ${remote}.`);
    // As git: its remote-tracking branches go, and branches stop tracking it.
    let removed = 0;
    const symbolic: string[] = [];
    for (const ref of listRefs(repo, `refs/remotes/${remote}`).keys()) {
      if (readRawRef(repo, ref)?.kind === "symbolic") symbolic.push(ref);
      else {
        await deleteRef(repo, ref);
        removed++;
      }
    }
    for (const ref of symbolic) {
      await Deno.remove(`${repo.commondir}/${ref}`).catch(() => {});
      await Deno.remove(`${repo.commondir}/logs/${ref}`).catch(() => {});
      removed++;
    }
    await Deno.remove(`${repo.commondir}/refs/remotes/${remote}`, { recursive: true }).catch(() => {});
    for (const branch of configSubsections(Deno.readTextFileSync(`${repo.commondir}/config`), "branch")) {
      if (repo.config.get(`branch.${branch}.remote`) === remote) {
        await removeConfigValues(repo, "branch", branch, ["remote", "merge"]);
      }
    }
    await removeConfigSection(repo, "remote", remote);
    ctx.stdout.write(`Removed remote ${remote} and ${plural(removed, "remote-tracking ref")}.\n`);
    return { repo_path: rel, action: "remove", remotes: describeAll(reopened()), removed_refs: removed };
  }
  throw new PtermError("InvalidArgs", `unknown action ${action}: use list, add, remove, set-url or get-url.`);
};
