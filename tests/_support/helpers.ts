/**
 * Test helpers shared by every command's tests.
 *
 * - `exec` runs a command line through the real kernel (grammar, registry, config, paths,
 *   sandbox worker with narrowed permissions, audit) in this process, and validates the
 *   envelope and the command's result against their zod schemas.
 * - `cli` runs the real `pterm` process, as a user would.
 */

import { z } from "zod";
import { commands } from "../../commands/index.ts";
import type { Envelope } from "../../core/envelope.ts";
import { envelopeSchema, resultBaseSchema } from "../../core/envelope_schema.ts";
import { isGroup } from "../../core/declaration.ts";
import { Registry } from "../../core/registry.ts";
import { execute } from "../../core/runtime.ts";
import { tokenize } from "../../core/grammar.ts";
import { fromFileUrl } from "../../core/fs/path.ts";
import type { CommandLoaders } from "../../core/registry.ts";
import type { CallOrigin } from "../../core/audit.ts";
import type { ProgressReport } from "../../core/context.ts";

export const REPO_ROOT = new URL("../../", import.meta.url);
/** What the `pterm` task runs: main.ts bundled (scripts/bundle.ts; tests/bundle_test.ts keeps it fresh). */
export const PTERM_ENTRY = new URL("../../main.bundle.js", import.meta.url).pathname;
/** pterm's code folders plus the test fixtures (the probe command lives there). */
export const CODE_DIRS = ["../../core/", "../../commands/", "../../lib/", "../fixtures/"].map((p) =>
  fromFileUrl(new URL(p, import.meta.url)).replace(/\/$/, "")
);

export interface TempDir extends AsyncDisposable {
  /** Canonical absolute path. */
  readonly path: string;
}

/** A fresh, canonical folder (a workspace root, usually); removed on dispose: `await using dir = await makeRoot()`. */
export async function makeRoot(prefix = "pterm-test-", dir?: string): Promise<TempDir> {
  const path = await Deno.realPath(await Deno.makeTempDir({ prefix, dir }));
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }).catch(() => {}) };
}

/**
 * A folder for temporary roots on a file system whose changes this machine's inotify sees (one
 * backed by a block device), or null: the warm git status cache watches only those
 * (commands/git/worktree/fsmonitor.ts `changesSeenHere`), and many machines mount /tmp as a tmpfs. The
 * system's temporary folder when it qualifies, else `.test-tmp/` in this checkout.
 */
export async function watchedTempBase(): Promise<string | null> {
  const { changesSeenHere } = await import("../../commands/git/worktree/fsmonitor.ts");
  const system = await Deno.makeTempDir({ prefix: "pterm-probe-" });
  const systemSeen = changesSeenHere(system);
  await Deno.remove(system);
  if (systemSeen) return system.slice(0, system.lastIndexOf("/"));
  const local = new URL("../../.test-tmp/", import.meta.url).pathname;
  await Deno.mkdir(local, { recursive: true });
  return changesSeenHere(local) ? local : null;
}

export interface ExecOptions {
  /** Text (as a JSON tool call's `stdin`), or bytes (as `--stdin-file` or a pipe gives them). */
  stdin?: string | Uint8Array;
  timeoutMs?: number;
  session?: string;
  /** Another command table (e.g. with probe commands). */
  commands?: CommandLoaders;
  /** Cancels the call, as an MCP cancellation or Ctrl-C in the shell does. */
  signal?: AbortSignal;
  onProgress?: (report: ProgressReport) => void;
  origin?: CallOrigin;
}

/** The zod schema a successful result of `line` must match. */
async function resultSchemaOf(registry: Registry, line: string): Promise<z.ZodType | null> {
  let words: string[];
  try {
    words = tokenize(line);
  } catch {
    return null;
  }
  try {
    const resolution = await registry.resolve(words);
    if (resolution.kind !== "leaf" || isGroup(resolution.leaf)) return null;
    if (resolution.rest.includes("--help") || resolution.rest.includes("-h")) return null;
    return (await resolution.leaf.result()) as z.ZodType;
  } catch {
    return null;
  }
}

/** Runs `line` through the real kernel in-process; the envelope and result are schema-checked. */
export async function exec(root: string, line: string, options: ExecOptions = {}): Promise<Envelope> {
  const registry = new Registry(options.commands ?? commands);
  const envelope = await execute(
    { registry, codeDirs: CODE_DIRS },
    {
      root,
      session: options.session ?? "default",
      line,
      stdin: options.stdin === undefined
        ? { kind: "none" }
        : typeof options.stdin === "string"
        ? { kind: "text", text: options.stdin }
        : { kind: "bytes", bytes: options.stdin },
      timeoutMs: options.timeoutMs,
      terminal: { color: false },
      signal: options.signal,
      onProgress: options.onProgress,
      origin: options.origin,
    },
  );
  envelopeSchema(await registry.errorCodes()).parse(envelope);
  if (envelope.exit_code === 0) {
    const schema = await resultSchemaOf(registry, line);
    if (schema) {
      const checked = schema.safeParse(envelope.result);
      if (!checked.success) {
        throw new Error(
          `result of \`${line}\` does not match its schema: ${z.prettifyError(checked.error)}\n${
            JSON.stringify(envelope.result)
          }`,
        );
      }
    } else resultBaseSchema.nullable().parse(envelope.result);
  }
  return envelope;
}

/** Like `exec`, but throws with the envelope's stderr unless it succeeded. */
export async function execOk(root: string, line: string, options: ExecOptions = {}): Promise<Envelope> {
  const envelope = await exec(root, line, options);
  if (envelope.exit_code !== 0) {
    throw new Error(`\`${line}\` failed (${envelope.error_code}):\n${envelope.stderr}`);
  }
  return envelope;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** The envelope, when stdout is one. */
  envelope: Envelope | null;
}

export interface CliOptions {
  stdin?: string | Uint8Array;
  env?: Record<string, string>;
  cwd?: string;
  /** The entry module (default: the bundle the `pterm` task runs). */
  entry?: string;
}

/**
 * The flags `deno task pterm` runs with (permissions, V8 flags), read from deno.json, so the
 * process-level tests and the benchmarks start pterm exactly as users do.
 */
export const PTERM_FLAGS: readonly string[] = (() => {
  const config = JSON.parse(Deno.readTextFileSync(new URL("../../deno.json", import.meta.url)));
  const words = (config.tasks.pterm as string).split(/\s+/);
  return words.filter((word) => word.startsWith("--") && !word.startsWith("--config"));
})();

/**
 * The configuration the `pterm` task runs with (its `--config=`, relative to the repository):
 * runtime.deno.json, which imports only what pterm needs at run time (scripts/runtime_config.ts).
 */
export const PTERM_CONFIG: string = (() => {
  const config = JSON.parse(Deno.readTextFileSync(new URL("../../deno.json", import.meta.url)));
  const flag = (config.tasks.pterm as string).split(/\s+/).find((word) => word.startsWith("--config="));
  return fromFileUrl(new URL(`../../${flag!.slice("--config=".length)}`, import.meta.url));
})();

/** The arguments of `deno` that start pterm (or another `entry`) as `deno task pterm` does, then `args`. */
export function ptermArgs(args: readonly string[], entry = PTERM_ENTRY): string[] {
  return ["run", ...PTERM_FLAGS, "--config", PTERM_CONFIG, entry, ...args];
}

/** What a process needs from the environment to run Deno: its path and its cache. */
export function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ["PATH", "HOME", "DENO_DIR", "TMPDIR", "SYSTEMROOT", "USERPROFILE", "APPDATA", "LOCALAPPDATA"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** Runs the real pterm process: `deno run <permissions> main.ts <args>`. */
export async function cli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  const command = new Deno.Command(Deno.execPath(), {
    args: ptermArgs(args, options.entry),
    cwd: options.cwd,
    // A clean environment: nothing of the machine's (PTERM_ROOT, INIT_CWD from `deno task`, ...) leaks in.
    clearEnv: true,
    env: { ...baseEnv(), NO_COLOR: "1", ...options.env },
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  });
  const child = command.spawn();
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(typeof options.stdin === "string" ? new TextEncoder().encode(options.stdin) : options.stdin);
    await writer.close();
  }
  const output = await child.output();
  const stdout = new TextDecoder().decode(output.stdout);
  let envelope: Envelope | null = null;
  try {
    const parsed = JSON.parse(stdout);
    if (parsed && typeof parsed === "object" && "run_id" in parsed) {
      envelope = envelopeSchema(await new Registry(commands).errorCodes()).parse(parsed) as Envelope;
    }
  } catch { /* not an envelope */ }
  return { code: output.code, stdout, stderr: new TextDecoder().decode(output.stderr), envelope };
}

/**
 * Makes `path` impossible to replace or delete for real: `chattr +i` (immutable, refused even to
 * root with EPERM) where the file system and privileges allow it, else a read-only folder
 * (EACCES for anyone but root). Returns the undo, or null when neither works here.
 */
export async function pin(path: string): Promise<(() => Promise<void>) | null> {
  const chattr = await new Deno.Command("chattr", { args: ["+i", path], stderr: "null" }).output().catch(() => null);
  if (chattr?.success) {
    return async () => void await new Deno.Command("chattr", { args: ["-i", path] }).output();
  }
  if (Deno.uid() === 0) return null;
  const dir = path.slice(0, path.lastIndexOf("/"));
  await Deno.chmod(dir, 0o555);
  return async () => await Deno.chmod(dir, 0o755);
}
