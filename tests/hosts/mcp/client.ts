/**
 * Real MCP clients for the mcp tests: the official SDK's Client over its StdioClientTransport,
 * in both generations — @modelcontextprotocol/client 2.x (the 2026-07-28 revision) and
 * @modelcontextprotocol/sdk 1.x (the 2025 `initialize` handshake hosts in the field still use).
 * Nobody on this project wrote either; they spawn `pterm mcp` as a host does.
 */

import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as LegacyStdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { baseEnv, ptermArgs } from "../../_support/helpers.ts";

/** The newest revision the SDK speaks (its `server/discover` era). */
export const MODERN_REVISION = "2026-07-28";

function serverParams(root: string, session: string | null, env: Record<string, string>) {
  return {
    command: Deno.execPath(),
    args: ptermArgs(["mcp", "--root", root, ...(session === null ? [] : ["--session", session])]),
    env: { ...baseEnv(), NO_COLOR: "1", ...env },
    stderr: "pipe" as const,
  };
}

function collectStderr(stream: { on(event: "data", listener: (chunk: Uint8Array | string) => void): unknown } | null) {
  let text = "";
  stream?.on("data", (chunk) => text += typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk));
  return () => text;
}

/** A 2.x client connected to a fresh `pterm mcp` (modern era unless the server refuses it). */
export async function connectModern(root: string, session = "mcp-test", env: Record<string, string> = {}) {
  const transport = new StdioClientTransport(serverParams(root, session, env));
  const stderr = collectStderr(transport.stderr as never);
  const client = new Client({ name: "pterm-test-modern", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: MODERN_REVISION } },
  });
  await client.connect(transport);
  return { client, transport, stderr, pid: transport.pid };
}

/** A 1.x client: the 2025 `initialize` handshake. A null session passes no --session. */
export async function connectLegacy(
  root: string,
  session: string | null = "mcp-test",
  env: Record<string, string> = {},
) {
  const transport = new LegacyStdioClientTransport(serverParams(root, session, env));
  const stderr = collectStderr(transport.stderr as never);
  const client = new LegacyClient({ name: "pterm-test-legacy", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport, stderr, pid: transport.pid };
}
