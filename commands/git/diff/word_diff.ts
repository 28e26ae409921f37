/**
 * git's `--word-diff` (plain): each hunk's removed and added lines are compared word by word (a word is a
 * run of non-space characters) and printed as the new text with `[-removed-]{+added+}` marks, context lines
 * without their leading space — diff.c's diff_words, as a rewrite of the unified patch git would print.
 */

import { encoder } from "../odb/bytes.ts";
import { lineChanges } from "./line_diff.ts";

interface Words {
  readonly text: string;
  /** 1-based: `[0]` is the empty word before the text, as git's orig[0]. */
  readonly spans: { begin: number; end: number }[];
}

const SPACE = /[ \t\n\v\f\r]/;

function wordsOf(text: string): Words {
  const spans = [{ begin: 0, end: 0 }];
  let i = 0;
  while (i < text.length) {
    while (i < text.length && SPACE.test(text[i])) i++;
    if (i >= text.length) break;
    const begin = i;
    while (i < text.length && !SPACE.test(text[i])) i++;
    spans.push({ begin, end: i });
  }
  return { text, spans };
}

/** `text` in git's style element: each line's piece wrapped in prefix and suffix, newlines kept bare. */
function styled(text: string, prefix: string, suffix: string): string {
  return text.split("\n").map((piece) => piece === "" ? "" : `${prefix}${piece}${suffix}`).join("\n");
}

/** The word diff of one run of removed and added lines (each text with its newlines). */
function wordsShown(minus: string, plus: string): string {
  if (plus === "") return minus === "" ? "" : styled(minus, "[-", "-]");
  const a = wordsOf(minus);
  const b = wordsOf(plus);
  const lines = (w: Words) => encoder.encode(w.spans.slice(1).map((s) => w.text.slice(s.begin, s.end) + "\n").join(""));
  const changes = lineChanges(lines(a), lines(b));
  let out = "";
  let current = 0;
  for (let k = 0; k < changes.length; k += 4) {
    const [i1, i2, chg1, chg2] = [changes[k], changes[k + 1], changes[k + 2], changes[k + 3]];
    const minusBegin = chg1 ? a.spans[i1 + 1].begin : a.spans[i1].end;
    const minusEnd = chg1 ? a.spans[i1 + chg1].end : minusBegin;
    const plusBegin = chg2 ? b.spans[i2 + 1].begin : b.spans[i2].end;
    const plusEnd = chg2 ? b.spans[i2 + chg2].end : plusBegin;
    if (current !== plusBegin) out += b.text.slice(current, plusBegin);
    if (minusBegin !== minusEnd) out += styled(a.text.slice(minusBegin, minusEnd), "[-", "-]");
    if (plusBegin !== plusEnd) out += styled(b.text.slice(plusBegin, plusEnd), "{+", "+}");
    current = plusEnd;
  }
  return out + b.text.slice(current);
}

/** The unified patch `patch` (git's bytes as text) with its hunks shown as git's plain word diff. */
export function wordDiffPatch(patch: string): string {
  const lines = patch.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  let out = "";
  let minus = "";
  let plus = "";
  let inHunk = false;
  const flush = () => {
    out += wordsShown(minus, plus);
    minus = plus = "";
  };
  for (const line of lines) {
    if (line.startsWith("@@ ")) {
      flush();
      inHunk = true;
      out += line + "\n";
    } else if (inHunk && line.startsWith("-")) minus += line.slice(1) + "\n";
    else if (inHunk && line.startsWith("+")) plus += line.slice(1) + "\n";
    else if (inHunk && line.startsWith("\\")) {
      // "\ No newline at end of file" is eaten, as git's word diff does: the line keeps its newline.
      continue;
    } else if (inHunk && line.startsWith(" ")) {
      flush();
      out += line.slice(1) + "\n";
    } else {
      flush();
      inHunk = line.startsWith("@@");
      out += line + "\n";
    }
  }
  flush();
  return out;
}
