/**
 * The npm package, as someone with only Node and npm gets it: `npm pack` of the assembled folder
 * (scripts/npm_package.ts), installed from the tarball into an empty folder, run with a PATH that
 * has node and no deno, a fresh HOME and a fresh Deno cache — exec hello, doc extract, git
 * init/add/commit/log, and mcp tools/list with the official SDK client (scripts/smoke.ts).
 *
 * npm install fetches the `deno` package from the registry, and Deno fetches pterm's npm
 * dependencies on the first run: this test needs the npm registry, as CI has.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { assemble, DENO_VERSION, pack, PACKAGE_NAME } from "../scripts/npm_package.ts";
import { smoke } from "../scripts/smoke.ts";
import { makeRoot, PTERM_FLAGS } from "./_support/helpers.ts";

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

async function which(program: string): Promise<string> {
  const output = await new Deno.Command("sh", {
    args: ["-c", `command -v ${program}`],
    stdout: "piped",
  }).output();
  assert.ok(output.success, `${program} is on PATH`);
  return decode(output.stdout).trim();
}

/** What a process needs to reach the npm registry here: the proxy and certificate settings, if any. */
function networkEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (
    const name of [
      "NODE_EXTRA_CA_CERTS",
      "HTTPS_PROXY",
      "https_proxy",
      "HTTP_PROXY",
      "http_proxy",
      "NO_PROXY",
    ]
  ) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

Deno.test({
  name: "the npm package runs pterm with only node on PATH: exec, doc extract, git, mcp; exit codes and signals pass",
  ignore: Deno.build.os === "windows",
  sanitizeResources: false,
  sanitizeOps: false,
}, async (t) => {
  await using dir = await makeRoot("pterm-npm-");
  const folder = join(dir.path, "package");
  const packageJson = await assemble(folder);
  assert.equal(packageJson.name, PACKAGE_NAME);
  assert.deepEqual(packageJson.dependencies, { deno: DENO_VERSION });
  const launch = JSON.parse(
    await Deno.readTextFile(join(folder, "launch.json")),
  );
  assert.deepEqual(
    launch.flags,
    PTERM_FLAGS,
    "the launcher starts Deno with the pterm task's flags",
  );

  const tarball = await pack(folder, dir.path);
  const listed = await new Deno.Command("tar", {
    args: ["tzf", tarball],
    stdout: "piped",
  }).output();
  const files = decode(listed.stdout).trim().split("\n").map((line) => line.replace(/^package\//, ""));
  for (
    const file of [
      "bin/pterm.cjs",
      "launch.json",
      "deno.json",
      "deno.lock",
      "LICENSE",
      "main.bundle.js",
    ]
  ) {
    assert.ok(files.includes(file), file);
  }
  assert.ok(
    files.some((file) => file.startsWith("bundles/git-spec/")),
    "the bundles travel",
  );
  assert.ok(
    files.some((file) => file.startsWith("skills/")),
    "the skills travel",
  );
  assert.ok(!files.some((file) => file.startsWith("tests/")), "no tests");

  const project = join(dir.path, "project");
  await Deno.mkdir(project);
  await Deno.writeTextFile(
    join(project, "package.json"),
    '{ "private": true }\n',
  );
  const installed = await new Deno.Command("npm", {
    args: ["install", "--no-audit", "--no-fund", "--loglevel=error", tarball],
    cwd: project,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(
    installed.success,
    `npm install of the tarball:\n${decode(installed.stderr)}`,
  );

  // A PATH with node and nothing else: no deno anywhere on it.
  const bin = join(dir.path, "bin");
  await Deno.mkdir(bin);
  await Deno.symlink(await which("node"), join(bin, "node"));
  const home = join(dir.path, "home");
  await Deno.mkdir(home);
  const env = {
    PATH: bin,
    HOME: home,
    DENO_DIR: join(dir.path, "deno-cache"),
    ...networkEnv(),
  };
  const noDeno = await new Deno.Command("/bin/sh", {
    args: ["-c", "command -v deno"],
    env,
    clearEnv: true,
    stdout: "piped",
  }).output();
  assert.equal(
    noDeno.success,
    false,
    "deno is not on the PATH the package runs with",
  );
  const launcher = {
    command: join(project, "node_modules/.bin", PACKAGE_NAME),
    args: [],
    env,
  };
  const lockBefore = await Deno.readTextFile(
    join(project, "node_modules", PACKAGE_NAME, "deno.lock"),
  );

  await t.step(
    "exec hello, doc extract, git init/add/commit/log, mcp tools/list",
    async () => {
      const steps: string[] = [];
      await smoke(launcher, dir.path, (line) => steps.push(line));
      assert.equal(steps.length, 4, steps.join("\n"));
    },
  );

  await t.step(
    "a failing command's exit code is the launcher's; the package's lock is untouched",
    async () => {
      const output = await new Deno.Command(launcher.command, {
        args: ["exec", "--root", join(dir.path, "empty"), "git log"],
        env,
        clearEnv: true,
        stdout: "piped",
        stderr: "piped",
      }).output();
      const envelope = JSON.parse(decode(output.stdout));
      assert.equal(envelope.exit_code, 1, decode(output.stderr));
      assert.equal(output.code, 1);
      assert.equal(
        await Deno.readTextFile(
          join(project, "node_modules", PACKAGE_NAME, "deno.lock"),
        ),
        lockBefore,
      );
    },
  );

  await t.step(
    "SIGTERM to the launcher reaches pterm mcp, which ends; the launcher ends with it",
    async () => {
      const server = new Deno.Command(launcher.command, {
        args: [
          "mcp",
          "--root",
          join(dir.path, "mcp-root"),
          "--session",
          "signal",
        ],
        env,
        clearEnv: true,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const writer = server.stdin.getWriter();
      const initialize = {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "signal-test", version: "1" },
        },
      };
      await writer.write(
        new TextEncoder().encode(JSON.stringify(initialize) + "\n"),
      );
      const reader = server.stdout.getReader();
      const first = await reader.read();
      assert.match(
        decode(first.value!),
        /"id":1/,
        "the server answered initialize",
      );
      const children = (await Deno.readTextFile(
        `/proc/${server.pid}/task/${server.pid}/children`,
      )).trim();
      assert.match(children, /^\d+$/, "the launcher has one child, Deno");
      server.kill("SIGTERM");
      const status = await server.status;
      // pterm mcp ends on SIGTERM by closing its session and exiting; the launcher ends with Deno's own
      // status (an exit code, or the signal itself when Deno died of it).
      assert.ok(
        status.signal === "SIGTERM" || status.code === 0,
        JSON.stringify(status),
      );
      const gone = await Deno.stat(`/proc/${children}`).then(
        () => false,
        () => true,
      );
      assert.ok(gone, "Deno ended with the launcher");
      reader.releaseLock();
      await writer.close().catch(() => {});
      await server.stderr.cancel();
      await server.stdout.cancel();
    },
  );
});
