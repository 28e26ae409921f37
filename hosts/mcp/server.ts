/**
 * `pterm mcp`: one agent session served over MCP on stdio. The kernel, the declarations and the
 * schemas load once; each `terminal_exec` call is one `execute` — the same grammar, confinement,
 * sandbox worker, audit record and artifacts as `pterm exec`, with origin `mcp`. The server runs the
 * session services the commands declare (irc's daemon and its connection) in this process for as
 * long as it runs, and stops them when the client disconnects (stdin ends) or on SIGINT/SIGTERM.
 *
 * stdout carries protocol messages only; everything else goes to stderr.
 */

import { McpServer, ResourceTemplate } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { mcpInstructions, renderPrompt, sessionLine, TOOL_NAME, toolDescription } from "../../core/agent_surface.ts";
import { artifactRelDir, ARTIFACTS_DIR, safeArtifactName } from "../../core/artifacts.ts";
import { listAuditRecords, readAuditRecord, stateOf } from "../../core/audit.ts";
import { resolveWorkspace } from "../../core/host/workspace.ts";
import type { App } from "../../core/host/app.ts";
import type { CliIo } from "../../core/host/io.ts";
import { isValidSessionId } from "../../core/host/options.ts";
import { type Envelope, renderText } from "../../core/envelope.ts";
import { envelopeSchema, requestSchema } from "../../core/envelope_schema.ts";
import { join } from "../../core/fs/path.ts";
import type { CommandSpec } from "../../core/declaration.ts";
import { errorCodesOf, Registry } from "../../core/registry.ts";
import type { SessionService } from "../../core/session_service.ts";
import { newRunId } from "../../core/run_id.ts";
import { execute, type Kernel } from "../../core/runtime.ts";
import { listSkills } from "../../core/skills.ts";
import type { ProgressReport } from "../../core/context.ts";
import { LineTransport } from "./transport.ts";
import { SandboxPool } from "./sandbox_pool.ts";

export interface McpOptions {
  readonly root?: string;
  readonly session?: string;
}

export const SERVER_NAME = "pterm";
export const PROMPT_NAME = "terminal_exec_rules";
/** Progress notifications of one call are sent at most this often (the last one always). */
const PROGRESS_INTERVAL_MS = 50;
const RUN_ID = /^\d{8}T\d{9}Z-[0-9a-f]{8}$/;

/** The session: --session, else the host's (Claude Code passes its own), else $PTERM_SESSION, else a fresh id. */
export function chooseSession(io: CliIo, flag: string | undefined): string {
  if (flag !== undefined) return flag;
  for (const name of ["CLAUDE_CODE_SESSION_ID", "PTERM_SESSION"]) {
    const value = io.env(name);
    if (value && isValidSessionId(value)) return value;
  }
  return `mcp-${newRunId()}`;
}

/** The tool result: the envelope as structured content and as the text `pterm exec --text` prints. */
export function toolResult(envelope: Envelope) {
  const links = envelope.artifacts
    .filter((a) => a.path.startsWith(`${ARTIFACTS_DIR}/`))
    .map((a) => ({
      type: "resource_link" as const,
      uri: `pterm://${a.path}`,
      name: a.path.slice(a.path.lastIndexOf("/") + 1),
      mimeType: a.mime,
      description: a.description,
    }));
  return {
    content: [{ type: "text" as const, text: renderText(envelope) }, ...links],
    structuredContent: envelope as unknown as Record<string, unknown>,
    isError: envelope.exit_code !== 0,
  };
}

function progressSender(
  notify: (report: ProgressReport) => void,
): (report: ProgressReport) => void {
  let last = 0;
  let lastProgress = -Infinity;
  return (report) => {
    // MCP requires progress to increase with each notification.
    if (!(report.progress > lastProgress)) return;
    const now = Date.now();
    const final = report.total !== undefined && report.progress >= report.total;
    if (!final && now - last < PROGRESS_INTERVAL_MS) return;
    last = now;
    lastProgress = report.progress;
    notify(report);
  };
}

/** What every part of one MCP session shares: the workspace, the session and its log. */
export interface McpSession {
  readonly root: string;
  readonly session: string;
  readonly log: (line: string) => void;
}

export async function runMcpServer(io: CliIo, app: Omit<App, "hostCommands">, options: McpOptions): Promise<number> {
  const { root, session } = resolveWorkspace(io, options.root, chooseSession(io, options.session));
  let logChain: Promise<void> = Promise.resolve();
  const log = (line: string) => {
    const text = `pterm mcp [${session}] ${line}\n`;
    logChain = logChain.then(() => io.writeErr(text)).catch(() => {});
  };
  const mcp: McpSession = { root, session, log };

  const registry = new Registry(app.commands);
  const specs = await registry.loadAll();
  const pool = new SandboxPool();
  const kernel: Kernel = { registry, codeDirs: app.codeDirs, version: app.version, sandboxes: pool };
  // The session services the commands declare (irc's daemon), served for this session.
  const services = await Promise.all(specs.flatMap((spec) => spec.sessionService ? [spec.sessionService()] : []));
  const serving = sessionServices(io, mcp, services);
  const tool = terminalTool(mcp, kernel, serving.ensure);
  const factory = serverFactory({
    version: app.version,
    session,
    specs,
    // A configured service reaches beyond the workspace (irc, a real server): then the tool is open-world.
    openWorld: services.some((service) => service.configured(root)),
    tool: tool.handle,
    root,
    skillsDir: app.skillsDir,
  });

  const connection = serveOnStdio(io, mcp, factory);
  log(`serving ${SERVER_NAME} ${app.version} on stdio (root ${root})`);
  log(sessionLine(session));

  await connection.closed;
  log("stopping");
  await connection.close();
  // Calls still running were cancelled with the connection; their records are written as they end.
  await tool.settled();
  await serving.stop();
  pool.close();
  connection.dispose();
  log("stopped");
  await logChain;
  return 0;
}

type ToolArgs = { command: string; stdin?: string | null; timeout_ms?: number | null };
/** The part of the SDK's request context a tool call uses. */
export interface ToolCallContext {
  readonly mcpReq: {
    readonly _meta?: { readonly progressToken?: string | number };
    readonly signal: AbortSignal;
    notify(notification: { method: "notifications/progress"; params: Record<string, unknown> }): Promise<void>;
  };
}

/**
 * The `terminal_exec` handler: each call is one `execute` with origin `mcp`, its progress sent as
 * MCP notifications; `settled` waits for the calls still running.
 */
export function terminalTool(mcp: McpSession, kernel: Kernel, ensureServices: () => Promise<unknown>) {
  const inFlight = new Set<Promise<unknown>>();
  const handle = async (args: ToolArgs, ctx: ToolCallContext) => {
    await ensureServices();
    const token = ctx.mcpReq._meta?.progressToken;
    const onProgress = token === undefined ? undefined : progressSender((report) => {
      ctx.mcpReq.notify({
        method: "notifications/progress",
        params: { progressToken: token, ...report },
      }).catch(() => {});
    });
    const running = execute(kernel, {
      root: mcp.root,
      session: mcp.session,
      line: args.command,
      stdin: args.stdin == null ? { kind: "none" } : { kind: "text", text: args.stdin },
      timeoutMs: args.timeout_ms ?? undefined,
      terminal: { color: false },
      origin: "mcp",
      signal: ctx.mcpReq.signal,
      onProgress,
    });
    inFlight.add(running);
    try {
      return toolResult(await running);
    } finally {
      inFlight.delete(running);
    }
  };
  return { handle, settled: () => Promise.allSettled([...inFlight]) };
}

/**
 * The session's services (irc's connection), in this process, for the server's lifetime. Started
 * with the first tool call, not at start-up: a host's probe (the SDK's client spawns a short-lived
 * sibling to ask `server/discover`) must not take the session's lock.
 */
export function sessionServices(io: CliIo, mcp: McpSession, services: readonly SessionService[]) {
  const stopServices = new AbortController();
  let serving: Promise<unknown> | null = null;
  let servicesReady: Promise<unknown> = Promise.resolve();
  const ensure = (): Promise<unknown> => {
    if (serving !== null) return servicesReady;
    const started = services.map((service) => {
      let ready!: () => void;
      const readiness = new Promise<void>((resolve) => (ready = resolve));
      const run = service.serve(io, { root: mcp.root, session: mcp.session, signal: stopServices.signal, ready })
        .catch((error) => {
          // Another process serving this session is fine: the commands reach it the same way.
          mcp.log(`the session's ${service.label} service is not running here: ${(error as Error).message}`);
        }).finally(ready);
      return { readiness, run };
    });
    servicesReady = Promise.all(started.map((s) => s.readiness));
    serving = Promise.all(started.map((s) => s.run));
    return servicesReady;
  };
  const stop = async (): Promise<void> => {
    stopServices.abort();
    await serving;
  };
  return { ensure, stop };
}

export interface ServerParts {
  readonly version: string;
  readonly session: string;
  readonly specs: readonly CommandSpec[];
  readonly openWorld: boolean;
  readonly tool: (args: ToolArgs, ctx: ToolCallContext) => Promise<ReturnType<typeof toolResult>>;
  readonly root: string;
  readonly skillsDir: URL;
}

/** A new McpServer per connection: the tool, the resources and the prompt. */
export function serverFactory(parts: ServerParts): () => McpServer {
  const description = `${toolDescription(parts.specs)}\n\n${renderPrompt(parts.specs)}`;
  const prompt = renderPrompt(parts.specs);
  const outputSchema = envelopeSchema(errorCodesOf(parts.specs));
  return () => {
    const server = new McpServer(
      { name: SERVER_NAME, version: parts.version },
      {
        capabilities: { tools: {}, resources: {}, prompts: {} },
        instructions: mcpInstructions(PROMPT_NAME, parts.session),
      },
    );
    server.registerTool(TOOL_NAME, {
      title: "pterm terminal",
      description,
      inputSchema: requestSchema,
      outputSchema,
      annotations: {
        title: "pterm terminal",
        readOnlyHint: false,
        // git reset/checkout/rm and patch apply change and remove files in the workspace.
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: parts.openWorld,
      },
    }, parts.tool);
    registerResources(server, parts.root, parts.skillsDir);
    server.registerPrompt(PROMPT_NAME, {
      title: "pterm usage rules",
      description: "The usage rules of terminal_exec for an agent's system prompt (`pterm prompt`).",
    }, () => ({
      messages: [{ role: "user" as const, content: { type: "text" as const, text: prompt } }],
    }));
    return server;
  };
}

/** The resources: the skills, the audit log's runs, and the files runs left behind. */
export function registerResources(server: McpServer, root: string, skillsDir: URL): void {
  server.registerResource(
    "skill",
    new ResourceTemplate("pterm://skills/{name}", {
      list: async () => ({
        resources: (await listSkills(skillsDir)).map((s) => ({
          uri: `pterm://skills/${s.name}`,
          name: s.name,
          description: s.description,
          mimeType: "text/markdown",
        })),
      }),
    }),
    { description: "A SKILL.md: how to use one pterm command, with examples.", mimeType: "text/markdown" },
    async (uri, variables) => {
      const skill = (await listSkills(skillsDir)).find((s) => s.name === variables.name);
      if (!skill) throw new Error(`no skill named ${String(variables.name)}`);
      return { contents: [{ uri: uri.href, mimeType: "text/markdown", text: skill.content }] };
    },
  );

  server.registerResource(
    "runs",
    "pterm://runs",
    {
      description: "The newest 100 runs of the audit log (all sessions), newest first.",
      mimeType: "application/json",
    },
    async (uri) => {
      const now = Date.now();
      const runs = (await listAuditRecords(root, { limit: 100 })).map((r) => ({
        run_id: r.run_id,
        uri: `pterm://runs/${r.run_id}`,
        timestamp: r.timestamp,
        session: r.session,
        origin: r.origin ?? "exec",
        command: r.command,
        state: stateOf(r, now),
        exit_code: r.exit_code,
        error_code: r.error_code,
        duration_ms: r.duration_ms,
      }));
      return { contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(runs, null, 2) }] };
    },
  );

  server.registerResource(
    "run",
    new ResourceTemplate("pterm://runs/{run_id}", {
      list: async () => ({
        resources: (await listAuditRecords(root, { limit: 50 })).map((r) => ({
          uri: `pterm://runs/${r.run_id}`,
          name: r.run_id,
          description: `${r.command} (${r.error_code ?? `exit ${r.exit_code ?? "?"}`})`,
          mimeType: "application/json",
        })),
      }),
    }),
    { description: "One run's audit record.", mimeType: "application/json" },
    async (uri, variables) => {
      const runId = String(variables.run_id);
      if (!RUN_ID.test(runId)) throw new Error(`${runId} is not a run id`);
      const record = await readAuditRecord(root, runId);
      return { contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(record, null, 2) }] };
    },
  );

  server.registerResource(
    "artifact",
    new ResourceTemplate(`pterm://${ARTIFACTS_DIR}/{run_id}/{name}`, { list: undefined }),
    { description: "A file a run left behind (e.g. the full text of a truncated stdout)." },
    (uri, variables) => readArtifact(root, uri, String(variables.run_id), String(variables.name)),
  );
}

/** One artifact as resource contents: text when it is UTF-8, else base64; only names a run could have written. */
export async function readArtifact(root: string, uri: URL, runId: string, name: string) {
  if (!RUN_ID.test(runId) || safeArtifactName(name) !== name) throw new Error(`no artifact ${uri.href}`);
  const path = join(root, ...artifactRelDir(runId).split("/"), name);
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch {
    throw new Error(`no artifact ${uri.href}`);
  }
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return { contents: [{ uri: uri.href, mimeType: "text/plain", text }] };
  } catch {
    return {
      contents: [{ uri: uri.href, mimeType: "application/octet-stream", blob: encodeBase64(bytes) }],
    };
  }
}

/**
 * The connection on stdio, and the process around it: `closed` settles when the client
 * disconnects (stdin ends) or on SIGINT/SIGTERM. A stray error must not end the session: it is
 * logged, and the call it belonged to still gets its answer. `dispose` removes the listeners.
 */
export function serveOnStdio(io: CliIo, mcp: McpSession, factory: () => McpServer) {
  const { log } = mcp;
  let onClosed!: () => void;
  const closed = new Promise<void>((resolve) => (onClosed = resolve));
  const onUnhandled = (event: PromiseRejectionEvent) => {
    event.preventDefault();
    log(`error: ${(event.reason as Error)?.stack ?? event.reason}`);
  };
  const onError = (event: ErrorEvent) => {
    event.preventDefault();
    log(`error: ${(event.error as Error)?.stack ?? event.message}`);
  };
  globalThis.addEventListener("unhandledrejection", onUnhandled);
  globalThis.addEventListener("error", onError);
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  for (const signal of signals) Deno.addSignalListener(signal, onClosed);

  const transport = new LineTransport({ input: io.stdin.stream, write: (text) => io.writeOut(text), log });
  const handle = serveStdio(factory, { transport, onerror: (error) => log(`error: ${error.message}`) });
  // serveStdio sets the transport's onclose; the connection's end (stdin closed) ends the session.
  const servedClose = transport.onclose;
  transport.onclose = () => {
    servedClose?.();
    onClosed();
  };
  return {
    closed,
    close: () => handle.close().catch(() => {}),
    dispose: () => {
      for (const signal of signals) Deno.removeSignalListener(signal, onClosed);
      globalThis.removeEventListener("unhandledrejection", onUnhandled);
      globalThis.removeEventListener("error", onError);
    },
  };
}

function encodeBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
