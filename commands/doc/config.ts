/**
 * The `doc` section of pterm.json as the handler uses it. The kernel has already validated the
 * section against `docConfigSchema` (schema.ts) before the call, so the handler only fills in the
 * defaults and does not load zod (~30 ms of every `doc` call).
 */

const MiB = 1024 * 1024;

export const DOC_DEFAULTS = {
  max_input_bytes: 50 * MiB,
  max_inflated_bytes: 500 * MiB,
  max_chars: 1_000_000,
  max_output_chars: 50_000_000,
} as const;

export interface DocConfig {
  readonly max_input_bytes: number;
  readonly max_inflated_bytes: number;
  readonly max_chars: number;
  readonly max_output_chars: number;
}

/** The validated section (or none) with its defaults. */
export function docConfig(section: unknown): DocConfig {
  return { ...DOC_DEFAULTS, ...(section as Partial<DocConfig> | undefined) };
}
