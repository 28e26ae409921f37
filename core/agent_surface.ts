/**
 * What an agent host needs from pterm: the `terminal_exec` tool definition and the usage
 * rules for the system prompt (Zone A: commands shown with their full syntax; Zone B: commands
 * to run `--help` on first), both generated from the registry.
 */

import { type CommandNode, type CommandSpec, isGroup } from "./declaration.ts";
import { leafUsage } from "./help.ts";

export const TOOL_NAME = "terminal_exec";

export function toolDescription(specs: readonly CommandSpec[]): string {
  return [
    "Run one command of pterm, a pseudo terminal with a whitelist of built-in commands (no shell, no external programs).",
    `Commands: help, ${specs.map((s) => s.name).join(", ")}. Paths are relative to the workspace root.`,
    "Returns a JSON envelope: exit_code (0 ok, 1 failed, 2 usage error, 124 timeout), stdout (summary), stderr, result (structured), artifacts, error_code.",
    "Run `<command> --help` before using a command for the first time, and after any failure.",
  ].join(" ");
}

/**
 * The MCP server's `instructions`. The usage rules travel once, in the tool's description (every
 * host shows a tool's description to the model; not every host passes `instructions` on); these
 * only say where they are.
 */
export function mcpInstructions(promptName: string, session: string): string {
  return `pterm: one tool, \`${TOOL_NAME}\`, runs whitelisted commands in a workspace (no shell). ` +
    `Its usage rules are in the tool's description, and in the prompt \`${promptName}\`.\n` +
    sessionLine(session);
}

/**
 * The line naming an MCP server's session and how a person follows it, on the server's stderr at
 * start-up and in its `instructions`: a session id the host made up is otherwise never seen.
 */
export function sessionLine(session: string): string {
  return `This is pterm session ${session}; a person follows its runs with \`pterm shell\` then \`:watch ${session}\`, ` +
    `or \`pterm runs list --session ${session}\`.`;
}

function leaves(path: string[], node: CommandNode): { path: string[]; node: CommandNode }[] {
  if (!isGroup(node)) return [{ path, node }];
  return node.subcommands.flatMap((sub) => leaves([...path, sub.name], sub));
}

/** The usage rules for an agent's system prompt. */
export function renderPrompt(specs: readonly CommandSpec[]): string {
  const ready = specs.filter((s) => s.zone === "ready");
  const helpFirst = specs.filter((s) => s.zone === "help-first");
  const lines: string[] = [
    `# ${TOOL_NAME} usage rules`,
    "",
    `You have one tool, \`${TOOL_NAME}\`. Each call runs exactly one command line from a fixed whitelist;`,
    "there is no shell. Pipes, redirections, `;`, `&&`, globs, `$()` and `~` are refused, as are line breaks:",
    "send multi-line text in the call's `stdin` field. Quote arguments that contain spaces.",
    "All paths are relative to the workspace root; `..`, absolute paths, secrets/ folders and .env files are refused.",
    "Read the workspace with pterm itself: `read <file> --lines A:B --numbers` (or cat, head, tail, `sed -n 'A,Bp'`), `ls`, `glob`, `find`, `search` or `grep -rn`, `wc`; artifacts are files too (`read artifacts/<run>/<name>`).",
    "",
    "## Zone A: Ready to use",
    "The full syntax of these commands is below; use them directly.",
    "",
    "- `help` — list the commands; `help <command>` is the same as `<command> --help`.",
    "- `help --search <word>` — the commands, subcommands and flags whose names, summaries or examples mention it,",
    "  each with its usage, e.g. `help --search commit`.",
  ];
  for (const spec of ready) {
    for (const { path, node } of leaves([spec.name], spec)) {
      if (isGroup(node)) continue;
      lines.push(`- \`${leafUsage(path, node)}\` — ${node.summary}`);
      if (node.examples[0]) lines.push(`  e.g. \`${node.examples[0].command}\``);
    }
  }
  lines.push(
    "",
    "## Zone B: Help first",
    "Run `<command> --help` (and `<command> <subcommand> --help`) before the first use of these; their flags are not listed here.",
    "",
  );
  for (const spec of helpFirst) {
    const names = isGroup(spec) ? spec.subcommands.map((s) => s.name) : [];
    // Listed only when the summary does not already name them all.
    const listed = names.every((name) => new RegExp(`\\b${name}\\b`).test(spec.summary));
    const subs = names.length && !listed ? ` (subcommands: ${names.join(", ")})` : "";
    lines.push(`- \`${spec.name}\` — ${spec.summary}${subs}`);
  }
  lines.push(
    "",
    "## When a call fails",
    "Read `stderr`: it starts with `[Error] <message>` and ends with a hint to run `<command> --help`.",
    "Follow the hint before retrying: read the usage, fix the call, then run it again. `error_code` names the failure",
    "(e.g. InvalidArgs, PathEscape, NotFound); exit_code is 2 for a usage error, 1 for a failed command, 124 for a timeout.",
    "Large output is cut to head + [...TRUNCATED...] + tail; the full text is in the listed artifact file,",
    "which `read <artifact path> --lines A:B` reads part by part.",
    "",
  );
  return lines.join("\n");
}
