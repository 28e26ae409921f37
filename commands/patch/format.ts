/**
 * The XGit patch text: header fields, `=== <op>: "<path>" ===` blocks with `K=V`
 * and `K< ... >K` parameters and a body up to `=== end ===`, and a final `=== PATCH EOF ===`.
 *
 * The parser never stops at the first mistake: it records each problem with its line number
 * and what was expected, resynchronises at the next block, and goes on, so `patch check` can
 * report everything at once.
 */

export const OPS = [
  "file.write",
  "file.append",
  "file.prepend",
  "file.delete",
  "file.move",
  "file.chmod",
  "file.eol",
  "file.binary",
  "file.image",
  "line.insert",
  "line.append",
  "line.replace",
  "line.delete",
  "block.delete",
  "block.replace",
  "git.diff",
  "git.reset",
  "git.revert",
  "git.tag",
  "git.commit",
] as const;

export type Op = typeof OPS[number];

const LINE_PARAMS = ["keys", "lineno", "nthl", "offset", "start-keys", "end-keys", "nthb"] as const;
const BLOCK_PARAMS = ["start-keys", "end-keys", "nthb"] as const;

/** The parameters each op knows (keys lower-case, `_` written as `-`). */
export const OP_PARAMS: Record<Op, readonly string[]> = {
  "file.write": [],
  "file.append": [],
  "file.prepend": [],
  "file.delete": [],
  "file.move": ["to"],
  "file.chmod": ["mode"],
  "file.eol": ["style", "ensure-nl"],
  "file.binary": [],
  "file.image": [],
  "line.insert": LINE_PARAMS,
  "line.append": LINE_PARAMS,
  "line.replace": LINE_PARAMS,
  "line.delete": LINE_PARAMS,
  "block.delete": BLOCK_PARAMS,
  "block.replace": BLOCK_PARAMS,
  "git.diff": [],
  "git.reset": ["ref", "mode"],
  "git.revert": ["ref", "no-commit"],
  "git.tag": ["name", "ref", "message", "force", "push"],
  "git.commit": [],
};

/** What a block's body holds: required text, optional text (may be empty), or nothing at all. */
export const OP_BODY: Record<Op, "required" | "optional" | "none"> = {
  "file.write": "optional",
  "file.append": "required",
  "file.prepend": "required",
  "file.delete": "none",
  "file.move": "none",
  "file.chmod": "none",
  "file.eol": "none",
  "file.binary": "required",
  "file.image": "required",
  "line.insert": "required",
  "line.append": "required",
  "line.replace": "required",
  "line.delete": "none",
  "block.delete": "none",
  "block.replace": "required",
  "git.diff": "required",
  "git.reset": "none",
  "git.revert": "none",
  "git.tag": "none",
  "git.commit": "none",
};

/** Ops whose quoted header value is not a file: it may be omitted. */
export function pathOptional(op: Op): boolean {
  return op.startsWith("git.");
}

export const HEADER_FIELDS = ["repo", "commitmsg", "author"] as const;
export type HeaderField = typeof HEADER_FIELDS[number];

export interface Param {
  readonly value: string;
  /** 1-based line of the patch where the parameter starts. */
  readonly line: number;
}

export interface Block {
  /** 1-based position among the patch's blocks. */
  readonly index: number;
  readonly op: Op;
  /** The quoted value of the block header, "" when absent. */
  readonly path: string;
  readonly params: ReadonlyMap<string, Param>;
  /** Body lines without their line breaks. */
  readonly body: readonly string[];
  /** 1-based line of the block header, and of the first body line. */
  readonly line: number;
  readonly bodyLine: number;
  /**
   * Set when the body's first line came right after the parameters and looks like a misspelled
   * parameter (`nth=2` for `nthl=2`); the op decides whether that is an error.
   */
  readonly suspiciousFirstBodyLine?: { readonly key: string; readonly suggestion: string };
}

export interface Patch {
  readonly header: Partial<Record<HeaderField, { value: string; line: number }>>;
  readonly blocks: readonly Block[];
}

export interface ParseProblem {
  readonly line: number;
  readonly expected: string;
  readonly found: string;
  readonly message: string;
  /** The block the problem is in, when it is inside one. */
  readonly block_index?: number;
  readonly op?: string;
}

export interface ParseOutcome {
  readonly patch: Patch;
  readonly problems: readonly ParseProblem[];
}

const BLOCK_HEADER = /^===\s*([A-Za-z][\w.-]*)\s*(?::\s*(.*?))?\s*===\s*$/;
const END_LINE = /^===\s*end\s*===\s*$/i;
const EOF_LINE = /^===\s*patch\s+eof\s*===\s*$/i;
const HEADER_LINE = /^([A-Za-z][\w-]*)\s*:\s?(.*)$/;
const PARAM_LINE = /^([A-Za-z][\w-]*)=(.*)$/;
const MULTI_OPEN = /^([A-Za-z][\w-]*)\s*<\s*$/;
const FENCE = /^\s*(```|~~~)/;

/** Parameter keys are case-insensitive and `_` and `-` are the same (`no_commit` = `no-commit`). */
export function canonicalKey(key: string): string {
  return key.toLowerCase().replaceAll("_", "-");
}

function clip(text: string, max = 80): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length];
}

/** The closest known word, when one is close enough to be a likely typo. */
export function closestWord(word: string, known: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  const limit = word.length <= 4 ? 1 : 2;
  return bestDistance <= limit ? best : null;
}

interface BlockHeader {
  op: string;
  rawPath: string | undefined;
}

function blockHeader(line: string): BlockHeader | null {
  if (END_LINE.test(line) || EOF_LINE.test(line)) return null;
  const m = BLOCK_HEADER.exec(line);
  return m ? { op: m[1], rawPath: m[2] } : null;
}

function isKnownOp(op: string): op is Op {
  return (OPS as readonly string[]).includes(op);
}

/** A block header naming a real op: a body line like this means a missing `=== end ===`. */
function startsKnownBlock(line: string): boolean {
  const header = blockHeader(line);
  return header !== null && isKnownOp(header.op);
}

/**
 * The lines of the patch, with an outer code fence removed (agents often wrap the whole patch
 * in ``` … ```). Line numbers stay those of the text as given.
 */
function patchLines(text: string): { text: string; line: number }[] {
  const split = text.split("\n");
  // A patch sent with CRLF line breaks loses one `\r` per line; in an LF patch a `\r` is content
  // (a diff of a CRLF file carries its line endings that way). The patch's own `=== … ===`
  // lines tell which it is.
  const markers = split.filter((t) => /^===.*===\s*$/.test(t));
  const crlfPatch = markers.filter((t) => t.endsWith("\r")).length * 2 > markers.length;
  const raw = split.map((t, i) => ({ text: crlfPatch && t.endsWith("\r") ? t.slice(0, -1) : t, line: i + 1 }));
  const firstUsed = raw.findIndex((l) => l.text.trim() !== "");
  let lastUsed = raw.length - 1;
  while (lastUsed >= 0 && raw[lastUsed].text.trim() === "") lastUsed--;
  let lines = raw;
  if (firstUsed >= 0 && lastUsed > firstUsed && FENCE.test(raw[firstUsed].text) && FENCE.test(raw[lastUsed].text)) {
    lines = raw.slice(firstUsed + 1, lastUsed);
  }
  return dedented(lines);
}

/**
 * A patch copied with an indentation (from help text, a list, a quote) has every line
 * indented, its `===` markers included — which a real patch never has: strip the common prefix.
 */
function dedented(lines: { text: string; line: number }[]): { text: string; line: number }[] {
  let prefix: string | null = null;
  for (const { text } of lines) {
    if (text.trim() === "") continue;
    const indent = /^[ \t]*/.exec(text)![0];
    if (prefix === null || !indent.startsWith(prefix)) {
      prefix = prefix === null ? indent : commonPrefix(prefix, indent);
    }
    if (prefix === "") return lines;
  }
  if (!prefix) return lines;
  const cut = prefix.length;
  return lines.map((l) => ({ text: l.text.trim() === "" ? "" : l.text.slice(cut), line: l.line }));
}

function commonPrefix(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return a.slice(0, i);
}

export function parsePatch(text: string): ParseOutcome {
  const lines = patchLines(text);
  const problems: ParseProblem[] = [];
  const header: Patch["header"] = {};
  const blocks: Block[] = [];
  const problem = (p: Omit<ParseProblem, "message"> & { message?: string }) => {
    problems.push({
      ...p,
      message: p.message ??
        `line ${p.line}: expected ${p.expected}, found ${p.found === "" ? "an empty line" : `\`${clip(p.found)}\``}`,
    });
  };

  let i = 0;
  // ---- header ----
  for (; i < lines.length; i++) {
    const { text: t, line } = lines[i];
    if (t.trim() === "") continue;
    if (blockHeader(t) || END_LINE.test(t) || EOF_LINE.test(t)) break;
    const m = HEADER_LINE.exec(t.trim());
    const field = m ? m[1].toLowerCase() : "";
    if (!m || !(HEADER_FIELDS as readonly string[]).includes(field)) {
      const suggestion = m ? closestWord(m[1], HEADER_FIELDS) : null;
      problem({
        line,
        expected: `a header field (${HEADER_FIELDS.map((f) => `\`${f}: …\``).join(", ")}) or the first block ` +
          '`=== <op>: "<path>" ===`',
        found: t,
        message: `line ${line}: expected a header field (repo:, commitmsg:, author:) or a block header ` +
          `\`=== <op>: "<path>" ===\`, found \`${clip(t)}\`${suggestion ? ` (did you mean \`${suggestion}:\`?)` : ""}`,
      });
      continue;
    }
    const key = field as HeaderField;
    if (header[key]) {
      problem({
        line,
        expected: `one \`${key}:\` line (already given at line ${header[key]!.line})`,
        found: t,
      });
      continue;
    }
    header[key] = { value: m[2].trim(), line };
  }

  // ---- blocks ----
  let sawEof = false;
  // Every block header takes a number, also one that fails to parse, so messages match the text.
  let blockCount = 0;
  while (i < lines.length) {
    const { text: t, line } = lines[i];
    if (t.trim() === "") {
      i++;
      continue;
    }
    if (EOF_LINE.test(t)) {
      sawEof = true;
      i++;
      break;
    }
    const head = blockHeader(t);
    if (!head) {
      const headerLike = HEADER_LINE.exec(t.trim());
      const isHeaderField = headerLike && (HEADER_FIELDS as readonly string[]).includes(headerLike[1].toLowerCase());
      problem({
        line,
        expected: 'a block header `=== <op>: "<path>" ===` or `=== PATCH EOF ===`',
        found: t,
        message: isHeaderField
          ? `line ${line}: header fields (repo:, commitmsg:, author:) go before the first block; move \`${
            clip(t)
          }\` to the top`
          : END_LINE.test(t)
          ? `line ${line}: \`=== end ===\` without an open block; remove it or add the block header before it`
          : undefined,
      });
      i++;
      continue;
    }
    blockCount++;
    i = parseBlock(lines, i, head, blockCount, blocks, problem);
  }

  if (!sawEof) {
    const last = lines.length > 0 ? lines[lines.length - 1].line : 1;
    problem({
      line: last,
      expected: "`=== PATCH EOF ===` as the last line",
      found: "the end of the text",
      message: `line ${last}: the patch must end with \`=== PATCH EOF ===\`; it is missing, so the patch may have ` +
        "been cut off. Add it after the last `=== end ===`.",
    });
  } else {
    for (; i < lines.length; i++) {
      const { text: t, line } = lines[i];
      if (t.trim() === "" || FENCE.test(t)) continue;
      problem({ line, expected: "nothing after `=== PATCH EOF ===`", found: t });
      break;
    }
  }
  return { patch: { header, blocks }, problems };
}

type ProblemSink = (p: Omit<ParseProblem, "message"> & { message?: string }) => void;

/** Parses one block starting at its header line; returns the index of the line after it. */
function parseBlock(
  lines: readonly { text: string; line: number }[],
  start: number,
  head: BlockHeader,
  index: number,
  blocks: Block[],
  problem: ProblemSink,
): number {
  const headerLine = lines[start].line;
  let ok = true;
  const fail = (p: Omit<ParseProblem, "message" | "block_index" | "op"> & { message?: string }) => {
    ok = false;
    problem({ ...p, block_index: index, op: head.op });
  };

  // Find the end of the block first, so that a bad header still skips the whole block.
  let end = start + 1;
  let closed = false;
  for (; end < lines.length; end++) {
    const t = lines[end].text;
    if (END_LINE.test(t)) {
      closed = true;
      break;
    }
    if (EOF_LINE.test(t) || startsKnownBlock(t)) break;
  }
  const next = closed ? end + 1 : end;
  if (!closed) {
    const at = end < lines.length ? lines[end] : lines[lines.length - 1];
    fail({
      line: at.line,
      expected: `\`=== end ===\` to close block ${index} (${head.op}, opened at line ${headerLine})`,
      found: end < lines.length ? at.text : "the end of the text",
      message: `line ${at.line}: block ${index} (${head.op}, line ${headerLine}) is not closed; add \`=== end ===\` ` +
        `before ${end < lines.length ? `\`${clip(at.text)}\`` : "the end of the patch"}`,
    });
  }

  if (!isKnownOp(head.op)) {
    const suggestion = closestWord(head.op, OPS);
    fail({
      line: headerLine,
      expected: `an op (${OPS.join(", ")}); ops are case-sensitive`,
      found: head.op,
      message: `line ${headerLine}: unknown op \`${head.op}\`${
        suggestion ? `; did you mean \`${suggestion}\`?` : `; the ops are ${OPS.join(", ")}`
      }`,
    });
    return next;
  }
  const op: Op = head.op;

  let path = "";
  if (head.rawPath !== undefined && head.rawPath !== "") {
    const quoted = /^"(.*)"$/.exec(head.rawPath);
    if (!quoted) {
      fail({
        line: headerLine,
        expected: `the path in double quotes: \`=== ${op}: "${head.rawPath.replace(/^["']|["']$/g, "")}" ===\``,
        found: lines[start].text,
      });
      return next;
    }
    path = quoted[1];
  }
  if (path === "" && !pathOptional(op)) {
    fail({
      line: headerLine,
      expected: `a path: \`=== ${op}: "<path>" ===\``,
      found: lines[start].text,
    });
    return next;
  }

  // ---- parameters ----
  const known = OP_PARAMS[op];
  const params = new Map<string, Param>();
  let i = start + 1;
  for (; i < end; i++) {
    const t = lines[i].text;
    const single = PARAM_LINE.exec(t);
    if (single && known.includes(canonicalKey(single[1]))) {
      const key = canonicalKey(single[1]);
      if (params.has(key)) {
        fail({ line: lines[i].line, expected: `one \`${key}\` parameter (already given)`, found: t });
      }
      params.set(key, { value: single[2].trim(), line: lines[i].line });
      continue;
    }
    const multi = MULTI_OPEN.exec(t);
    if (multi && known.includes(canonicalKey(multi[1]))) {
      const key = canonicalKey(multi[1]);
      const closeAt = findMultiClose(lines, i + 1, end, multi[1]);
      if (closeAt === -1) {
        fail({
          line: lines[i].line,
          expected: `\`>${multi[1]}\` to close the multi-line parameter opened here`,
          found: "no closing line before the end of the block",
        });
        return next;
      }
      const value = lines.slice(i + 1, closeAt).map((l) => (l.text.startsWith(" ") ? l.text.slice(1) : l.text));
      if (params.has(key)) {
        fail({ line: lines[i].line, expected: `one \`${key}\` parameter (already given)`, found: t });
      }
      params.set(key, { value: value.join("\n"), line: lines[i].line });
      i = closeAt;
      continue;
    }
    break;
  }

  // ---- body ----
  let bodyStart = i;
  // One blank line may separate the parameters from the body; it is not part of the body.
  if (params.size > 0 && bodyStart < end && lines[bodyStart].text.trim() === "") bodyStart++;
  const body = lines.slice(bodyStart, end).map((l) => l.text);
  const bodyLine = bodyStart < lines.length ? lines[bodyStart].line : headerLine + 1;
  const hasText = body.some((l) => l.trim() !== "");
  let suspicious: Block["suspiciousFirstBodyLine"];

  if (bodyStart === i && body.length > 0) {
    const looks = PARAM_LINE.exec(body[0]) ?? MULTI_OPEN.exec(body[0]);
    if (looks && known.length > 0) {
      const suggestion = closestWord(canonicalKey(looks[1]), known);
      if (suggestion) suspicious = { key: looks[1], suggestion };
    }
  }

  if (OP_BODY[op] === "none" && hasText) {
    const firstText = body.findIndex((l) => l.trim() !== "");
    const t = body[firstText];
    const looks = PARAM_LINE.exec(t) ?? MULTI_OPEN.exec(t);
    const suggestion = looks ? closestWord(canonicalKey(looks[1]), known) : null;
    fail({
      line: lines[bodyStart + firstText].line,
      expected: known.length > 0
        ? `only parameters (${known.map((k) => `\`${k}=…\``).join(", ")}); ${op} takes no body`
        : `nothing: ${op} takes no parameters and no body`,
      found: t,
      message: looks
        ? `line ${lines[bodyStart + firstText].line}: \`${looks[1]}\` is not a parameter of ${op}${
          suggestion ? ` (did you mean \`${suggestion}\`?)` : ""
        }; its parameters are ${known.length ? known.join(", ") : "none"}`
        : undefined,
    });
  }
  // Blank lines are text a line op may insert; the encoded and diff bodies need real content.
  const needsText = op === "file.binary" || op === "file.image" || op === "git.diff";
  if (OP_BODY[op] === "required" && (body.length === 0 || (needsText && !hasText))) {
    fail({
      line: bodyLine,
      expected: `a body for ${op} (${bodyWhat(op)}) before \`=== end ===\``,
      found: body.length ? "only blank lines" : "`=== end ===`",
      message: `line ${bodyLine}: ${op} needs a body (${bodyWhat(op)}) between its parameters and \`=== end ===\`${
        op === "line.replace"
          ? "; to remove the line use line.delete"
          : op === "block.replace"
          ? "; to remove the block use block.delete"
          : ""
      }`,
    });
  }

  if (ok) {
    blocks.push({
      index,
      op,
      path,
      params,
      body: OP_BODY[op] === "none" ? [] : body,
      line: headerLine,
      bodyLine,
      suspiciousFirstBodyLine: suspicious,
    });
  }
  return next;
}

function bodyWhat(op: Op): string {
  switch (op) {
    case "file.binary":
    case "file.image":
      return "the content in Base64";
    case "git.diff":
      return "a unified diff";
    case "file.append":
    case "file.prepend":
      return "the text to add";
    default:
      return "the new text";
  }
}

function findMultiClose(
  lines: readonly { text: string; line: number }[],
  from: number,
  end: number,
  key: string,
): number {
  const close = new RegExp(`^>\\s*${key.replace(/[-]/g, "\\-")}\\s*$`, "i");
  const closeCanonical = canonicalKey(key);
  for (let j = from; j < end; j++) {
    const t = lines[j].text;
    if (close.test(t)) return j;
    const m = /^>\s*([A-Za-z][\w-]*)\s*$/.exec(t);
    if (m && canonicalKey(m[1]) === closeCanonical) return j;
  }
  return -1;
}
