#!/usr/bin/env node
// Starts pterm on the Deno runtime the `deno` npm package brings, with the permissions and V8 flags
// of the repository's `pterm` task (launch.json, written by scripts/npm_package.ts), and this
// package's own deno.json and deno.lock whatever folder it is started in. Standard input, output
// and error are the child's own; its exit code is this process's; a signal sent here reaches it.
"use strict";

const { spawn } = require("node:child_process");
const { readFileSync } = require("node:fs");
const path = require("node:path");

const packageDir = path.join(__dirname, "..");
const launch = JSON.parse(
  readFileSync(path.join(packageDir, "launch.json"), "utf8"),
);

let deno;
try {
  deno = require(require.resolve("deno/install_api.cjs")).runInstall();
} catch (error) {
  process.stderr.write(
    `pterm: the Deno runtime of the \`deno\` package is missing: ${error.message}\n`,
  );
  process.exit(1);
}

// This package's package.json describes the npm package, not pterm's imports: Deno must not read it.
const env = {
  ...process.env,
  DENO_NO_UPDATE_CHECK: "1",
  DENO_NO_PACKAGE_JSON: "1",
};
// Deno fetches pterm's npm dependencies on the first run: let it trust what Node was told to trust.
if (env.DENO_CERT === undefined && env.NODE_EXTRA_CA_CERTS) {
  env.DENO_CERT = env.NODE_EXTRA_CA_CERTS;
}

const child = spawn(
  deno,
  [
    "run",
    ...launch.flags,
    "--frozen",
    "--config",
    path.join(packageDir, "deno.json"),
    path.join(packageDir, launch.entry),
    ...process.argv.slice(2),
  ],
  { stdio: "inherit", env },
);

const forwarded = ["SIGINT", "SIGTERM", "SIGHUP"];
for (const signal of forwarded) {
  process.on(signal, () => {
    if (child.exitCode === null) child.kill(signal);
  });
}

child.on("error", (error) => {
  process.stderr.write(`pterm: could not start ${deno}: ${error.message}\n`);
  process.exit(1);
});

child.on("exit", (code, signal) => {
  if (signal !== null) {
    for (const name of forwarded) process.removeAllListeners(name);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
