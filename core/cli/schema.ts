/** `pterm schema`: the tool definition and the JSON Schemas behind the contract. */

import { z } from "zod";
import { TOOL_NAME, toolDescription } from "../agent_surface.ts";
import { configSchema } from "../config_schema.ts";
import { isGroup } from "../declaration.ts";
import { envelopeSchema, requestSchema } from "../envelope_schema.ts";
import { PtermError } from "../errors.ts";
import type { Registry } from "../registry.ts";

export interface SchemaOptions {
  format?: string;
  envelope?: boolean;
  config?: boolean;
  result?: string;
}

function jsonSchema(schema: z.ZodType, io: "input" | "output" = "output"): Record<string, unknown> {
  return z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;
}

/** The zod schema of a leaf's result, found by its command path ("git status"). */
export async function resultSchemaFor(registry: Registry, commandPath: string): Promise<z.ZodType> {
  const words = commandPath.trim().split(/\s+/);
  const resolution = await registry.resolve(words);
  if (resolution.kind !== "leaf" || resolution.rest.length > 0 || isGroup(resolution.leaf)) {
    throw new PtermError(
      "InvalidArgs",
      `\`${commandPath}\` is not a runnable command; give its full path, e.g. "git status".`,
    );
  }
  return (await resolution.leaf.result()) as z.ZodType;
}

export async function schemaDocument(registry: Registry, options: SchemaOptions): Promise<unknown> {
  if (options.envelope) return jsonSchema(envelopeSchema());
  if (options.config) return jsonSchema(await configSchema(registry), "input");
  if (options.result) return jsonSchema(await resultSchemaFor(registry, options.result));
  const description = toolDescription(await registry.loadAll());
  const parameters = jsonSchema(requestSchema, "input");
  delete parameters.$schema;
  switch (options.format ?? "openai") {
    case "openai":
      return { type: "function", function: { name: TOOL_NAME, description, parameters } };
    case "anthropic":
      return { name: TOOL_NAME, description, input_schema: parameters };
    case "json-schema":
      return { title: TOOL_NAME, description, ...parameters };
    default:
      throw new PtermError(
        "InvalidArgs",
        `--format must be openai, anthropic or json-schema, not \`${options.format}\`.`,
      );
  }
}
