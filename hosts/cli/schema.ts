/** `pterm schema`: the tool definition and the JSON Schemas behind the contract. */

import { z } from "zod";
import { TOOL_NAME, toolDescription } from "../../core/agent_surface.ts";
import { configSchema } from "../../core/config_schema.ts";
import { isGroup } from "../../core/declaration.ts";
import { envelopeSchema, requestSchema } from "../../core/envelope_schema.ts";
import { PtermError } from "../../core/errors.ts";
import type { Registry } from "../../core/registry.ts";

export interface SchemaOptions {
  format?: string;
  /** The tool definition for OpenAI's strict mode (`"strict": true`): see `strictSchema`. */
  strict?: boolean;
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

/**
 * The keywords OpenAI's strict mode (Structured Outputs, function calling with `"strict": true`)
 * supports; a schema with any other is refused. Strings: pattern, format; numbers: multipleOf,
 * (exclusive) minimum and maximum; arrays: minItems, maxItems; no minLength/maxLength, allOf, not,
 * if/then/else, patternProperties, uniqueItems...
 */
export const STRICT_KEYWORDS: ReadonlySet<string> = new Set([
  "type",
  "description",
  "title",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "anyOf",
  "$defs",
  "$ref",
  "pattern",
  "format",
  "multipleOf",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minItems",
  "maxItems",
]);

/**
 * `schema` as OpenAI's strict mode requires it: every object closed (`additionalProperties: false`)
 * with every property required, a property that was optional made nullable instead (pterm reads
 * null as not given), and only supported keywords. A constraint strict mode cannot express (a
 * string's minLength) or a bound that constrains nothing (a maximum at 2^53 - 1) is dropped: pterm
 * still checks every call against the full schema.
 */
export function strictSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const strict: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (!STRICT_KEYWORDS.has(key)) continue;
    if ((key === "maximum" || key === "minimum") && Math.abs(value as number) >= Number.MAX_SAFE_INTEGER) continue;
    strict[key] = value;
  }
  if (Array.isArray(schema.anyOf)) strict.anyOf = schema.anyOf.map((s) => strictSchema(s as Record<string, unknown>));
  if (schema.items !== undefined) strict.items = strictSchema(schema.items as Record<string, unknown>);
  if (schema.$defs !== undefined) {
    strict.$defs = Object.fromEntries(
      Object.entries(schema.$defs as Record<string, Record<string, unknown>>).map(([k, s]) => [k, strictSchema(s)]),
    );
  }
  if (schema.type === "object" || schema.properties !== undefined) {
    const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
    const required = new Set((schema.required ?? []) as string[]);
    strict.properties = Object.fromEntries(
      Object.entries(properties).map(([name, property]) => {
        const closed = strictSchema(property);
        return [name, required.has(name) ? closed : nullable(closed)];
      }),
    );
    strict.required = Object.keys(properties);
    strict.additionalProperties = false;
  }
  return strict;
}

/** `schema` also accepting null (once). */
function nullable(schema: Record<string, unknown>): Record<string, unknown> {
  const isNull = (s: Record<string, unknown>) => s.type === "null";
  if (Array.isArray(schema.anyOf)) {
    const options = schema.anyOf as Record<string, unknown>[];
    return options.some(isNull) ? schema : { ...schema, anyOf: [...options, { type: "null" }] };
  }
  if (typeof schema.type === "string") {
    return schema.type === "null" ? schema : { ...schema, type: [schema.type, "null"] };
  }
  if (Array.isArray(schema.type)) {
    return schema.type.includes("null") ? schema : { ...schema, type: [...schema.type, "null"] };
  }
  return { anyOf: [schema, { type: "null" }] };
}

export const SCHEMA_FORMATS = ["openai", "responses", "anthropic", "json-schema"] as const;

export async function schemaDocument(registry: Registry, options: SchemaOptions): Promise<unknown> {
  if (options.envelope) return jsonSchema(envelopeSchema(await registry.errorCodes()));
  if (options.config) return jsonSchema(await configSchema(registry), "input");
  if (options.result) return jsonSchema(await resultSchemaFor(registry, options.result));
  const format = options.format ?? "openai";
  if (options.strict && format !== "openai" && format !== "responses") {
    throw new PtermError(
      "InvalidArgs",
      `--strict shapes the tool for OpenAI's strict mode: use it with --format openai or responses, e.g. \`pterm schema --format responses --strict\`.`,
    );
  }
  const description = toolDescription(await registry.loadAll());
  const written = jsonSchema(requestSchema, "input");
  delete written.$schema;
  const parameters = options.strict ? strictSchema(written) : written;
  const strict = options.strict === true;
  switch (format) {
    case "openai":
      return { type: "function", function: { name: TOOL_NAME, description, parameters, strict } };
    case "responses":
      // The Responses API's tools are flat, and strict unless they say otherwise.
      return { type: "function", name: TOOL_NAME, description, parameters, strict };
    case "anthropic":
      return { name: TOOL_NAME, description, input_schema: parameters };
    case "json-schema":
      return { title: TOOL_NAME, description, ...parameters };
    default:
      throw new PtermError(
        "InvalidArgs",
        `--format must be ${SCHEMA_FORMATS.join(", ")}, not \`${format}\`; e.g. \`pterm schema --format openai\`.`,
      );
  }
}
