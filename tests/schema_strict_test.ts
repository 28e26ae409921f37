/**
 * `pterm schema` against what each host documents for tool definitions, and the strict-mode calls
 * those definitions lead to, run for real:
 *
 * - OpenAI strict mode (Structured Outputs / function calling with `"strict": true`): the root is an
 *   object; every object has `additionalProperties: false` and lists every property in `required`
 *   (an optional field is a union with null); only the supported keywords — strings: pattern,
 *   format; numbers: multipleOf, minimum, maximum, exclusiveMinimum, exclusiveMaximum; arrays:
 *   minItems, maxItems; plus type, description, properties, required, additionalProperties, items,
 *   enum, const, anyOf, $defs, $ref — and at most 10 levels of nesting. Chat Completions nests the
 *   definition under `function`; the Responses API's is flat and strict unless it says otherwise.
 * - Anthropic: `name` matches ^[a-zA-Z0-9_-]{1,64}$ and `input_schema` is an object schema.
 * - MCP: the rules reach the model once, in the tool's description; `instructions` point at them.
 */

import assert from "node:assert/strict";
import { commands } from "../commands/index.ts";
import { TOOL_NAME } from "../core/agent_surface.ts";
import { schemaDocument } from "../hosts/cli/schema.ts";
import { parseRequest } from "../core/request.ts";
import { Registry } from "../core/registry.ts";
import { cli, makeRoot } from "./_support/helpers.ts";
import { connectModern } from "./hosts/mcp/client.ts";

const registry = new Registry(commands);
type Schema = Record<string, unknown>;

/** The keywords OpenAI documents as supported in strict mode (written here from its documentation). */
const OPENAI_STRICT_KEYWORDS = new Set([
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
const OPENAI_TYPES = new Set(["string", "number", "boolean", "integer", "object", "array", "null"]);

/** Every way `schema` breaks OpenAI's strict-mode rules, one line each. */
function openAIStrictViolations(schema: Schema, at = "$", depth = 0): string[] {
  const found: string[] = [];
  if (depth === 0 && (schema.type !== "object" || schema.anyOf !== undefined)) found.push(`${at}: root not an object`);
  if (depth > 10) found.push(`${at}: nested deeper than 10 levels`);
  for (const [key, value] of Object.entries(schema)) {
    if (!OPENAI_STRICT_KEYWORDS.has(key)) found.push(`${at}: unsupported keyword ${key}`);
    if ((key === "maximum" || key === "minimum") && Math.abs(value as number) > 2 ** 53 - 2) {
      found.push(`${at}: ${key} ${value} beyond what a model can produce`);
    }
  }
  for (const type of [schema.type ?? []].flat() as string[]) {
    if (!OPENAI_TYPES.has(type)) found.push(`${at}: unsupported type ${type}`);
  }
  if (schema.type === "object" || schema.properties !== undefined) {
    if (schema.additionalProperties !== false) found.push(`${at}: additionalProperties is not false`);
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    const required = new Set((schema.required ?? []) as string[]);
    for (const name of Object.keys(properties)) {
      if (!required.has(name)) found.push(`${at}.${name}: not required`);
      found.push(...openAIStrictViolations(properties[name], `${at}.${name}`, depth + 1));
    }
  }
  for (const [index, option] of ((schema.anyOf ?? []) as Schema[]).entries()) {
    found.push(...openAIStrictViolations(option, `${at}.anyOf[${index}]`, depth + 1));
  }
  if (schema.items !== undefined) found.push(...openAIStrictViolations(schema.items as Schema, `${at}[]`, depth + 1));
  return found;
}

/** Whether `schema` lets a property be null (type list or anyOf). */
function acceptsNull(schema: Schema): boolean {
  return [schema.type].flat().includes("null") || ((schema.anyOf ?? []) as Schema[]).some((s) => s.type === "null");
}

Deno.test("--strict (Chat Completions): OpenAI's strict-mode rules hold, optional fields are nullable", async () => {
  const tool = await schemaDocument(registry, { format: "openai", strict: true }) as {
    type: string;
    function: { name: string; description: string; parameters: Schema; strict: boolean };
  };
  assert.equal(tool.type, "function");
  assert.equal(tool.function.strict, true);
  assert.match(tool.function.name, /^[a-zA-Z0-9_-]{1,64}$/);
  assert.deepEqual(openAIStrictViolations(tool.function.parameters), []);
  const properties = tool.function.parameters.properties as Record<string, Schema>;
  assert.deepEqual(Object.keys(properties), ["command", "stdin", "timeout_ms"]);
  assert.equal(acceptsNull(properties.command), false, "command stays required and non-null");
  assert.ok(acceptsNull(properties.stdin) && acceptsNull(properties.timeout_ms));
});

Deno.test("--format responses: flat, strict with --strict and explicitly not strict without", async () => {
  const strict = await schemaDocument(registry, { format: "responses", strict: true }) as Schema;
  assert.deepEqual(Object.keys(strict).sort(), ["description", "name", "parameters", "strict", "type"]);
  assert.equal(strict.name, TOOL_NAME);
  assert.equal(strict.strict, true);
  assert.deepEqual(openAIStrictViolations(strict.parameters as Schema), []);
  // The Responses API treats a function as strict unless told: the plain schema must say it is not.
  const plain = await schemaDocument(registry, { format: "responses" }) as Schema;
  assert.equal(plain.strict, false);
});

Deno.test("the plain OpenAI schema is what strict mode refuses, and says so", async () => {
  const tool = await schemaDocument(registry, {}) as { function: { parameters: Schema; strict: boolean } };
  assert.equal(tool.function.strict, false);
  const violations = openAIStrictViolations(tool.function.parameters);
  assert.ok(violations.includes("$.command: unsupported keyword minLength"), violations.join("\n"));
  assert.ok(violations.includes("$.stdin: not required"), violations.join("\n"));
  assert.ok(violations.some((line) => /maximum 9007199254740991/.test(line)), violations.join("\n"));
});

Deno.test("--strict with a host that has no such mode is refused with a line that runs", async () => {
  await assert.rejects(schemaDocument(registry, { format: "anthropic", strict: true }), /--format openai or responses/);
  await using dir = await makeRoot();
  const refused = await cli(["schema", "--format", "anthropic", "--strict"], { cwd: dir.path });
  assert.equal(refused.code, 2);
  const suggested = /`pterm (schema [^`]+)`/.exec(refused.stderr)![1].split(" ");
  const ran = await cli(suggested, { cwd: dir.path });
  assert.equal(ran.code, 0, ran.stderr);
  assert.equal(JSON.parse(ran.stdout).strict, true);
});

Deno.test("Anthropic: the tool's name and input schema are what its API accepts", async () => {
  const tool = await schemaDocument(registry, { format: "anthropic" }) as { name: string; input_schema: Schema };
  assert.match(tool.name, /^[a-zA-Z0-9_-]{1,64}$/);
  assert.equal(tool.input_schema.type, "object");
});

Deno.test("a strict-mode call (every field, null for the ones left out) runs as the minimal one", async () => {
  const call = { command: "hello", stdin: null, timeout_ms: null };
  assert.deepEqual(parseRequest(call), { command: "hello" });
  await using dir = await makeRoot();
  const ran = await cli(["exec", "--root", dir.path, "--request", "-"], { stdin: JSON.stringify(call) });
  assert.equal(ran.code, 0, ran.stderr);
  assert.equal(ran.envelope?.exit_code, 0);
  assert.equal(ran.envelope?.result?.command, "hello");
});

Deno.test("MCP: the rules reach the model once, in the tool's description; strict-mode nulls are accepted", async () => {
  await using dir = await makeRoot();
  const { client } = await connectModern(dir.path, "strict-schema");
  try {
    const { tools } = await client.listTools();
    const description = tools[0].description ?? "";
    const instructions = client.getInstructions() ?? "";
    const rulesHeading = "# terminal_exec usage rules";
    assert.equal(description.split(rulesHeading).length - 1, 1, "the description holds the rules");
    assert.ok(!instructions.includes(rulesHeading) && !instructions.includes("## Zone A"), instructions);
    assert.match(instructions, /terminal_exec/);
    const called = await client.callTool({
      name: TOOL_NAME,
      arguments: { command: "hello", stdin: null, timeout_ms: null },
    });
    assert.equal(called.isError ?? false, false, JSON.stringify(called));
    assert.equal((called.structuredContent as { exit_code: number }).exit_code, 0);
  } finally {
    await client.close();
  }
});
