// deno-lint-ignore-file no-console -- a script: printing is its output
/**
 * Builds the single-binary pterm with `deno compile`.
 *
 *   deno task compile                      # this machine's platform → dist/pterm
 *   deno task compile --target <triple>    # one release target
 *   deno task compile --all                # every release target
 *
 * The binary runs what `deno task pterm` runs, with its permissions: main.bundle.js, which loads
 * the commands' declarations and starts their sandbox workers from the bundles under bundles/
 * (scripts/bundle.ts, core/bundles.ts). Those, the modules pterm loads lazily from source (see
 * core/lazy.ts) and the built-in skills are invisible to deno's graph, so their folders are
 * included explicitly. Before building, every dynamic import in what the binary carries is checked
 * to load something `deno compile` embeds (scripts/compile_imports.ts); the build stops otherwise.
 */

import { embeddingProblems, REPO_PATH } from "./compile_imports.ts";

export const TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
] as const;

// The pterm task's flags (deno.json), plus the unstable option deno.json turns on for `deno run`.
const RUN_FLAGS = [
  // The task's configuration: only the npm packages pterm runs with are embedded (scripts/runtime_config.ts).
  "--config=runtime.deno.json",
  "--allow-read",
  "--allow-write",
  "--allow-net",
  "--allow-env",
  // Its own user id only: `pterm exec` talks to a session server's socket only when it is this user's.
  "--allow-sys=uid",
  // Only `pterm shell` starts a program: `sh -c "$EDITOR file"`; command workers never may (run: false).
  "--allow-run=sh",
  // The same V8 flags as the pterm task (deno.json): see docs/benchmarks.md "What keeps `pterm exec` lean".
  "--v8-flags=--no-lazy,--max-semi-space-size=2",
  "--unstable-worker-options",
];
export const INCLUDED_DIRS = [
  "core",
  "commands",
  "lib",
  "bundles",
  "hosts",
  "skills",
];
const INCLUDES = INCLUDED_DIRS.flatMap((dir) => ["--include", dir]);
/** The pterm task's entry (scripts/bundle.ts `BUNDLE`). */
export const ENTRY = "main.bundle.js";

/** Refuses a build whose binary could not load one of its modules (scripts/compile_imports.ts). */
async function assertEverythingEmbedded(): Promise<void> {
  const problems = await embeddingProblems(REPO_PATH, ENTRY, INCLUDED_DIRS);
  if (problems.length > 0) {
    throw new Error(
      `the binary would miss modules it loads:\n${problems.join("\n")}`,
    );
  }
}

export function compileArgs(target: string | null): string[] {
  const suffix = target === null ? "" : `-${target}`;
  const exe = target?.includes("windows") ? ".exe" : "";
  return [
    "compile",
    ...RUN_FLAGS,
    ...INCLUDES,
    ...(target === null ? [] : ["--target", target]),
    "--output",
    `dist/pterm${suffix}${exe}`,
    ENTRY,
  ];
}

if (import.meta.main) {
  const all = Deno.args.includes("--all");
  const targetIndex = Deno.args.indexOf("--target");
  const target = targetIndex >= 0 ? Deno.args[targetIndex + 1] : null;
  if (target !== null && !(TARGETS as readonly string[]).includes(target)) {
    console.error(
      `unknown target ${target}; the release targets are: ${TARGETS.join(", ")}`,
    );
    Deno.exit(2);
  }
  try {
    await assertEverythingEmbedded();
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    Deno.exit(1);
  }
  const builds: (string | null)[] = all ? [...TARGETS] : [target];
  for (const build of builds) {
    const args = compileArgs(build);
    console.log(`deno ${args.join(" ")}`);
    const status = await new Deno.Command(Deno.execPath(), {
      args,
      cwd: new URL("../", import.meta.url).pathname,
      stdout: "inherit",
      stderr: "inherit",
    }).spawn().status;
    if (!status.success) Deno.exit(status.code || 1);
  }
}
