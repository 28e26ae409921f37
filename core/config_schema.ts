/** The zod schema of `pterm.json`: the kernel's `limits` plus one section per command that declares one. */

import { z } from "zod";
import { PtermError } from "./errors.ts";
import { DEFAULT_LIMITS, type KernelLimits } from "./limits.ts";
import type { Registry } from "./registry.ts";

const bytes = (min: number) => z.number().int().min(min).max(1024 * 1024 * 1024);

export const limitsSchema = z.strictObject({
  stdout_bytes: bytes(256).default(DEFAULT_LIMITS.stdout_bytes)
    .describe(
      "Bytes of stdout kept in the envelope; past it head + [...TRUNCATED...] + tail, full text as an artifact.",
    ),
  stderr_bytes: bytes(256).default(DEFAULT_LIMITS.stderr_bytes).describe("Bytes of stderr kept in the envelope."),
  stdin_bytes: bytes(0).default(DEFAULT_LIMITS.stdin_bytes).describe(
    "Largest stdin a call may send (InputTooLarge past it).",
  ),
  timeout_ms_default: z.number().int().min(1).default(DEFAULT_LIMITS.timeout_ms_default)
    .describe("Timeout of a call that gives none."),
  timeout_ms_max: z.number().int().min(1).default(DEFAULT_LIMITS.timeout_ms_max)
    .describe("Largest timeout a call may ask for; larger requests are clipped."),
  memory_bytes: z.number().int().min(64 * 1024 * 1024).max(64 * 1024 * 1024 * 1024)
    .default(DEFAULT_LIMITS.memory_bytes)
    .describe("Resident memory of the pterm process past which a running command is stopped (InputTooLarge)."),
}).refine((l) => l.timeout_ms_default <= l.timeout_ms_max, {
  message: "timeout_ms_default must not exceed timeout_ms_max",
  path: ["timeout_ms_default"],
});

export const serverSchema = z.strictObject({
  autostart: z.boolean().default(false).describe(
    "`pterm exec` starts this root's session server in the background when none is up (that call runs cold, the " +
      "next ones warm). $PTERM_SERVER overrides it for one process: `off` never uses a server, `auto` starts one.",
  ),
});

/** The whole schema, built from the registry's command sections. */
export async function configSchema(registry: Registry): Promise<z.ZodType> {
  const shape: Record<string, z.ZodType> = {
    $schema: z.string().optional().describe("Editor hint; ignored."),
    limits: limitsSchema.optional(),
    server: serverSchema.optional().describe("The warm session server of `pterm exec` (docs/server.md)."),
  };
  for (const spec of await registry.loadAll()) {
    if (spec.config) shape[spec.name] = ((await spec.config()) as z.ZodType).optional();
  }
  return z.strictObject(shape);
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String).join(".");
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.map((k) => (path ? `${path}.${k}` : k));
    return `unknown key ${keys.map((k) => `\`${k}\``).join(", ")}`;
  }
  return `\`${path || "(top level)"}\`: ${issue.message}`;
}

/** What a valid `pterm.json` sets: the limits (defaults filled in) and each command's raw section. */
export interface ValidatedConfig {
  readonly limits: KernelLimits;
  readonly sections: Readonly<Record<string, unknown>>;
  /** The `server` section, when the file has one. */
  readonly server?: { readonly autostart: boolean };
}

export async function validateConfig(raw: unknown, registry: Registry): Promise<ValidatedConfig> {
  const schema = await configSchema(registry);
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(describeIssue);
    throw new PtermError(
      "InvalidConfig",
      `pterm.json is invalid: ${problems.join("; ")}. Fix these keys or remove them to use the defaults ` +
        "(`pterm schema --config` prints the full schema).",
    );
  }
  const value = parsed.data as Record<string, unknown>;
  const limits = limitsSchema.parse(value.limits ?? {}) as KernelLimits;
  const sections: Record<string, unknown> = {};
  for (const [key, section] of Object.entries(value)) {
    if (key !== "limits" && key !== "server" && key !== "$schema") sections[key] = section;
  }
  const server = value.server === undefined ? {} : { server: serverSchema.parse(value.server) };
  return { limits, sections, ...server };
}
