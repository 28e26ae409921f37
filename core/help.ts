/** `--help` text and structure, rendered from the declarations (never written by hand). */

import { type CommandNode, type CommandSpec, type FlagSpec, isGroup, type LeafSpec } from "./declaration.ts";
import { didYouMean } from "./suggest.ts";

function flagUsage(flag: FlagSpec): string {
  const name = `--${flag.name}`;
  const value = flag.type === "boolean"
    ? ""
    : ` <${flag.valueName ?? (flag.choices ? flag.choices.join("|") : flag.type)}>`;
  const repeat = flag.repeatable ? "..." : "";
  return flag.required ? `${name}${value}${repeat}` : `[${name}${value}]${repeat}`;
}

/** One-line usage of a leaf: `git commit --repo <path> --message <text> [--allow-empty]`. */
export function leafUsage(path: readonly string[], leaf: LeafSpec): string {
  const parts = [path.join(" ")];
  const flags = [...(leaf.flags ?? [])].filter((f) => !f.compat).sort((a, b) =>
    Number(b.required ?? false) - Number(a.required ?? false)
  );
  for (const flag of flags) parts.push(flagUsage(flag));
  for (const p of leaf.positionals ?? []) {
    const inner = p.variadic ? `${p.name}...` : p.name;
    parts.push(p.required ? `<${inner}>` : `[${inner}]`);
  }
  return parts.join(" ");
}

function flagLines(flags: readonly FlagSpec[]): string[] {
  const rows = flags.map((flag) => {
    const label = `${flag.short ? `-${flag.short}, ` : ""}--${flag.name}` +
      (flag.type === "boolean" ? "" : ` <${flag.valueName ?? flag.type}>`);
    const notes: string[] = [];
    if (flag.required) notes.push("required");
    if (flag.repeatable) notes.push("repeatable");
    if (flag.choices) notes.push(`one of: ${flag.choices.join(", ")}`);
    if (flag.default !== undefined && flag.type !== "boolean") notes.push(`default: ${flag.default}`);
    if (flag.min !== undefined || flag.max !== undefined) notes.push(`range: ${flag.min ?? "…"}..${flag.max ?? "…"}`);
    if (flag.path) notes.push(`path under the root, ${flag.path === "write" ? "written" : "read"}`);
    if (flag.aliases?.length) notes.push(`also ${flag.aliases.map((a) => `--${a}`).join(", ")}`);
    return { label, text: flag.description + (notes.length ? ` (${notes.join("; ")})` : "") };
  });
  const width = Math.min(30, Math.max(...rows.map((r) => r.label.length), 0) + 2);
  return rows.map((r) => `  ${r.label.padEnd(width)}${r.text}`);
}

export interface HelpDocument {
  readonly command: string;
  readonly summary: string;
  readonly usage: readonly string[];
  readonly subcommands: readonly { name: string; summary: string }[];
  readonly flags: readonly { name: string; type: string; required: boolean; description: string }[];
  readonly examples: readonly { command: string; description: string }[];
  readonly text: string;
}

/** The help of a node reached by `path` (empty path: the list of all commands). */
export function renderHelp(path: readonly string[], node: CommandNode): HelpDocument {
  const lines: string[] = [`${path.join(" ")} — ${node.summary}`, ""];
  if (node.description) lines.push(node.description.trim(), "");
  const usage: string[] = [];
  let subcommands: { name: string; summary: string }[] = [];
  let flags: HelpDocument["flags"] = [];
  if (isGroup(node)) {
    for (const sub of node.subcommands) {
      usage.push(isGroup(sub) ? `${[...path, sub.name].join(" ")} <subcommand>` : leafUsage([...path, sub.name], sub));
    }
    subcommands = node.subcommands.map((s) => ({ name: s.name, summary: s.summary }));
    const width = Math.max(...subcommands.map((s) => s.name.length)) + 2;
    lines.push("Subcommands:", ...subcommands.map((s) => `  ${s.name.padEnd(width)}${s.summary}`), "");
    lines.push(`Run \`${path.join(" ")} <subcommand> --help\` for the flags of each.`, "");
    if (node.unavailable) {
      lines.push(
        `Not in pterm (each names what to run instead): ${Object.keys(node.unavailable).join(", ")}.`,
        "",
      );
    }
  } else {
    usage.push(leafUsage(path, node));
    lines.push(`Usage: ${usage[0]}`, "");
    const canonical = (node.flags ?? []).filter((f) => !f.compat);
    const compat = (node.flags ?? []).filter((f) => f.compat);
    if (canonical.length) lines.push("Flags:", ...flagLines(canonical), "");
    if (compat.length) lines.push("Also accepted (real git's spellings):", ...flagLines(compat), "");
    if (node.positionals?.length) {
      lines.push(
        "Arguments:",
        ...node.positionals.map((p) => `  <${p.name}>  ${p.description}${p.required ? " (required)" : ""}`),
        "",
      );
    }
    if (node.afterDoubleDash) lines.push(`Words after \`--\` are taken as --${node.afterDoubleDash} values.`, "");
    if (node.refusedFlags) {
      lines.push(
        `Not taken here (the error says what to do instead): ${Object.keys(node.refusedFlags).join(", ")}.`,
        "",
      );
    }
    if (node.stdin) {
      const when = node.stdin.mode === "always"
        ? "always"
        : node.stdin.mode === "whenFlag"
        ? `with ${[node.stdin.flag, ...(node.stdin.alsoFlags ?? [])].map((f) => `--${f}`).join(" or ")}`
        : `unless --${node.stdin.flag} is given`;
      const kind = node.stdin.bytes
        ? "its bytes as they are, UTF-8 or not"
        : "as UTF-8 text; other bytes are refused (StdinNotUtf8)";
      lines.push(`Reads the call's stdin ${when}: ${kind}.`, "");
    }
    flags = (node.flags ?? []).map((f) => ({
      name: f.name,
      type: f.repeatable ? `${f.type}[]` : f.type,
      required: f.required ?? false,
      description: f.description,
    }));
  }
  if (node.examples.length) {
    lines.push("Examples:");
    for (const example of node.examples) {
      lines.push(`  ${example.command}`, `      ${example.description}`);
    }
    lines.push("");
  }
  return {
    command: path.join(" "),
    summary: node.summary,
    usage,
    subcommands,
    flags,
    examples: node.examples.map((e) => ({ command: e.command, description: e.description })),
    text: lines.join("\n").trimEnd() + "\n",
  };
}

/** `help`: every command with its summary. */
export function renderCommandList(specs: readonly CommandSpec[]): HelpDocument {
  const rows = [
    {
      name: "help",
      summary: "List the commands, show one command's help (help git), or search them (help --search tag).",
    },
    ...specs.map((s) => ({ name: s.name, summary: s.summary })),
  ];
  const width = Math.max(...rows.map((r) => r.name.length)) + 2;
  const lines = [
    "pterm — a whitelist of built-in commands. No shell: one command per call; multi-line text goes through stdin.",
    "",
    "Commands:",
    ...rows.map((r) => `  ${r.name.padEnd(width)}${r.summary}`),
    "",
    "Run `<command> --help` for usage and examples before using a command for the first time;",
    "`help --search <word>` finds the commands and flags whose names, summaries or examples mention it.",
  ];
  return {
    command: "help",
    summary: "List the commands.",
    usage: ["help", "help <command> [<subcommand>]", "<command> --help", "help --search <word>"],
    subcommands: rows,
    flags: [],
    examples: [{ command: "help", description: "List the commands." }, {
      command: "git --help",
      description: "Show the git subcommands.",
    }, { command: "help --search branch", description: "Find the commands and flags about branches." }],
    text: lines.join("\n") + "\n",
  };
}

/** One hit of `help --search`: a command (or subcommand) with the flags and examples that matched. */
interface SearchHit {
  readonly path: readonly string[];
  readonly node: CommandNode;
  readonly flags: readonly FlagSpec[];
  readonly examples: readonly { command: string; description: string }[];
  readonly itself: boolean;
}

function* searchNodes(
  path: readonly string[],
  node: CommandNode,
): Generator<{ path: readonly string[]; node: CommandNode }> {
  yield { path, node };
  if (isGroup(node)) { for (const sub of node.subcommands) yield* searchNodes([...path, sub.name], sub); }
}

/**
 * `help --search <words>`: the commands, subcommands and
 * flags whose names, summaries, descriptions or examples hold every word (case ignored), each
 * with its usage.
 */
export function renderSearch(specs: readonly CommandSpec[], query: string): HelpDocument {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const matches = (...texts: (string | undefined)[]) => {
    const haystack = texts.filter(Boolean).join("\n").toLowerCase();
    return words.every((w) => haystack.includes(w));
  };
  const hits: SearchHit[] = [];
  for (const spec of specs) {
    for (const { path, node } of searchNodes([spec.name], spec)) {
      const flags = isGroup(node) ? [] : (node.flags ?? []).filter((f) =>
        matches(
          `--${f.name}`,
          f.short ? `-${f.short}` : undefined,
          ...(f.aliases ?? []).map((a) => `--${a}`),
          f.description,
        )
      );
      // A group's examples belong to its subcommands; they are searched there.
      const examples = isGroup(node) ? [] : node.examples.filter((e) => matches(e.command, e.description));
      const itself = matches(path.join(" "), node.summary, node.description);
      if (itself || flags.length || examples.length) hits.push({ path, node, flags, examples, itself });
    }
  }
  const lines: string[] = [];
  for (const hit of hits) {
    const usage = isGroup(hit.node) ? `${hit.path.join(" ")} <subcommand>` : leafUsage(hit.path, hit.node);
    lines.push(`${usage}`, `    ${hit.node.summary}`);
    for (const flag of hit.flags) {
      lines.push(`    ${flag.short ? `-${flag.short}, ` : ""}--${flag.name}: ${flag.description}`);
    }
    for (const example of hit.examples.slice(0, 2)) lines.push(`    e.g. ${example.command}`);
  }
  const text = hits.length
    ? [`Matches for "${query}" (${hits.length}):`, "", ...lines, "", "Run `<command> --help` for the details."]
    : [
      `Nothing matches "${query}".${didYouMean(query, ["help", ...specs.map((s) => s.name)])} The commands are: ` +
      `help, ${specs.map((s) => s.name).join(", ")}; \`help\` lists them with their summaries.`,
    ];
  return {
    command: "help",
    summary: `Search for "${query}".`,
    usage: hits.map((h) => isGroup(h.node) ? `${h.path.join(" ")} <subcommand>` : leafUsage(h.path, h.node)),
    subcommands: hits.map((h) => ({ name: h.path.join(" "), summary: h.node.summary })),
    flags: hits.flatMap((h) =>
      h.flags.map((f) => ({
        name: `${h.path.join(" ")} --${f.name}`,
        type: f.repeatable ? `${f.type}[]` : f.type,
        required: f.required ?? false,
        description: f.description,
      }))
    ),
    examples: hits.flatMap((h) => h.examples),
    text: text.join("\n") + "\n",
  };
}
