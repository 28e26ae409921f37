/**
 * A page's text pieces into blocks: placed on the page as displayed (/Rotate, rotated text),
 * accents drawn as glyphs of their own composed with their letters, put back into lines (PDF.js
 * marks line ends; right-to-left lines read from the right) and paragraphs (by the vertical gaps
 * between lines), with each table found on the page in the place of its first piece.
 */

import type { PageTable } from "./tables.ts";
import type { Block } from "../blocks.ts";

export interface TextPiece {
  readonly str: string;
  readonly transform: number[];
  readonly width: number;
  readonly height: number;
  readonly hasEOL: boolean;
  readonly dir?: string;
  readonly fontName?: string | null;
}

/** Spacing accents as fonts without composed glyphs draw them, and the combining marks they stand for. */
const COMBINING: Record<string, string> = {
  "\u00B4": "\u0301", // ´ acute
  "\u0060": "\u0300", // ` grave
  "\u02C6": "\u0302", // ˆ circumflex
  "\u005E": "\u0302", // ^
  "\u02DC": "\u0303", // ˜ tilde
  "\u007E": "\u0303", // ~
  "\u00A8": "\u0308", // ¨ diaeresis
  "\u00AF": "\u0304", // ¯ macron
  "\u02C9": "\u0304", // ˉ
  "\u02D8": "\u0306", // ˘ breve
  "\u02D9": "\u0307", // ˙ dot above
  "\u02DA": "\u030A", // ˚ ring
  "\u02C7": "\u030C", // ˇ caron
  "\u02DD": "\u030B", // ˝ double acute
  "\u00B8": "\u0327", // ¸ cedilla
  "\u02DB": "\u0328", // ˛ ogonek
};

const BELOW = new Set(["\u0327", "\u0328"]);

/** A letter with an accent, composed (NFC); a dotless ı or ȷ under an accent above is the plain letter. */
function composeWith(letter: string, accent: string): string {
  const mark = COMBINING[accent];
  const base = BELOW.has(mark) ? letter : letter === "\u0131" ? "i" : letter === "\u0237" ? "j" : letter;
  return (base + mark).normalize("NFC");
}

const isLetter = (char: string | undefined) => char !== undefined && /\p{L}/u.test(char);

/**
 * Accents drawn as separate glyphs over their letter (pdfTeX's Computer Modern fonts draw `´`
 * and then move back to draw `e`; other producers draw the letter first) are composed with it,
 * as pdftotext does: `M´` + `etro` → `Métro`, `avia¸` + `c˜` + `ao` → `aviação`. Only where the
 * second piece starts back over the first (the accent overlaps its letter), so a `~` or `^` that
 * stands on its own in the text is left alone.
 */
function composeAccents(items: readonly Placed[]): Placed[] {
  const out: Placed[] = [];
  for (const item of items) {
    const previous = out[out.length - 1];
    const overlaps = previous !== undefined && previous.turn === item.turn &&
      Math.abs(previous.y - item.y) < Math.max(previous.size, item.size) * 0.5 &&
      item.x < previous.x + previous.width - previous.size * 0.05 && item.x > previous.x - previous.size * 0.5;
    if (overlaps) {
      const accentBefore = previous.str.at(-1)!;
      const accentAfter = item.str[0];
      let joined: string | null = null;
      if (COMBINING[accentBefore] && isLetter(item.str[0])) {
        joined = previous.str.slice(0, -1) + composeWith(item.str[0], accentBefore) + item.str.slice(1);
      } else if (COMBINING[accentAfter] && isLetter(previous.str.at(-1))) {
        joined = previous.str.slice(0, -1) + composeWith(previous.str.at(-1)!, accentAfter) + item.str.slice(1);
      }
      if (joined !== null) {
        out[out.length - 1] = {
          ...previous,
          str: joined,
          width: Math.max(previous.x + previous.width, item.x + item.width) - previous.x,
          hasEOL: item.hasEOL,
        };
        continue;
      }
    }
    out.push(item);
  }
  return out;
}

const LATIN_LIGATURE = /[\uFB00-\uFB06]/;
const LATIN_LIGATURES = /[\uFB00-\uFB06]/g;

/** ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ as their letters. */
export function expandLatinLigatures(text: string): string {
  if (!LATIN_LIGATURE.test(text)) return text;
  return text.replace(LATIN_LIGATURES, (ligature) => ligature.normalize("NFKC"));
}

/**
 * A piece placed for reading: `x` along its baseline's direction and `y` across it (larger is
 * earlier, as PDF's own y), after the page's /Rotate and the text matrix's own rotation.
 */
export interface Placed {
  readonly str: string;
  readonly x: number;
  readonly y: number;
  readonly size: number;
  readonly width: number;
  readonly hasEOL: boolean;
  readonly rtl: boolean;
  /** The baseline's direction on the displayed page, in quarter turns clockwise (0: left to right). */
  readonly turn: number;
}

/**
 * Places each piece on the page as displayed (`view`: PDF.js's viewport transform, which applies
 * /Rotate and flips y down) and measures it along its own baseline, so rotated pages and text set
 * at 90°/180°/270° read like upright text. Latin ligatures are read as their letters.
 */
export function place(items: readonly TextPiece[], view: readonly number[]): Placed[] {
  const a = view[0], b = view[1], c = view[2], d = view[3], e = view[4], f = view[5];
  const placed: Placed[] = new Array(items.length);
  for (let k = 0; k < items.length; k++) {
    const item = items[k];
    const t = item.transform;
    const ia = t[0], ib = t[1], ic = t[2], id = t[3], ix = t[4], iy = t[5];
    // The piece's matrix on the displayed page (device space, y down).
    const ma = a * ia + c * ib;
    const mb = b * ia + d * ib;
    const mc = a * ic + c * id;
    const md = b * ic + d * id;
    const dx = a * ix + c * iy + e;
    const dy = b * ix + d * iy + f;
    const turn = ((Math.round(Math.atan2(mb, ma) / (Math.PI / 2)) % 4) + 4) % 4;
    // Along the baseline and across it, for each quarter turn (none for a matrix that is not finite).
    const along = turn === 0 ? dx : turn === 1 ? dy : turn === 2 ? -dx : turn === 3 ? -dy : NaN;
    const across = turn === 0 ? -dy : turn === 1 ? dx : turn === 2 ? dy : turn === 3 ? -dx : NaN;
    const size = Math.hypot(mc, md) || item.height || 1;
    placed[k] = {
      str: expandLatinLigatures(item.str),
      x: along,
      y: across,
      size,
      width: item.width,
      hasEOL: item.hasEOL,
      rtl: item.dir === "rtl",
      turn,
    };
  }
  return placed;
}

interface Line {
  text: string;
  /** Most of its letters are right-to-left (Arabic, Hebrew): pieces on one baseline read from the right. */
  rtl: boolean;
  /** Baseline, in PDF units from the bottom of the page. */
  y: number;
  /** Where the line starts and ends horizontally. */
  x: number;
  end: number;
  size: number;
}

const WHITE_SPACE = /\s/;

/** Whether `text` ends with white space (`/\s$/`, looking at its last character only rather than scanning it). */
const endsWithSpace = (text: string) => text !== "" && WHITE_SPACE.test(text[text.length - 1]);

const startsWithSpace = (text: string) => /^\s/.test(text);

/**
 * Items into lines. PDF.js marks line ends; in addition a jump back to the left or to another
 * baseline starts a line, and a visible gap between two items gets a space (text boxes placed
 * side by side are separate objects with no space between them).
 */
function linesOf(items: readonly Placed[]): Line[] {
  const lines: Line[] = [];
  let current: (Line & { pieces: Placed[] }) | null = null;
  const finish = () => {
    if (current !== null && current.pieces.length > 0) lines.push(lineText(current, current.pieces));
    current = null;
  };
  for (const item of items) {
    const { x, y, size } = item;
    if (item.str !== "") {
      if (current !== null && current.pieces.length > 0) {
        const otherBaseline = Math.abs(y - current.y) > Math.max(size, current.size) * 0.5;
        const jumpedBack = x < current.end - Math.max(size, current.size) * 0.5;
        if (otherBaseline || jumpedBack) finish();
      }
      current ??= { text: "", rtl: false, y, x, end: x, size, pieces: [] };
      current.pieces.push(item);
      current.end = Math.max(current.end, x + item.width);
    }
    if (item.hasEOL) finish();
  }
  finish();
  const cleaned = lines.map((l) => {
    const text = l.text.trimEnd(); // the same white space as /\s+$/, without a regular expression's backtracking
    return text === l.text ? l : { ...l, text };
  }).filter((l) => l.text !== "");
  return mergeSameBaseline(cleaned);
}

/**
 * A line's text from its pieces: in content order, or from the right when its letters are mostly
 * right-to-left (PDF.js gives each right-to-left piece in logical order, but the pieces of a line
 * in the order they were drawn, usually left to right); a visible gap between two pieces gets a
 * space (text boxes side by side are separate objects with no space between them).
 */
function lineText(line: Line, pieces: readonly Placed[]): Line {
  const rtl = pieces.some((p) => p.rtl) && readsRightToLeft([{ text: pieces.map((p) => p.str).join("") }]);
  const ordered = rtl ? [...pieces].sort((a, b) => b.x - a.x) : pieces;
  let text = "";
  ordered.forEach((piece, i) => {
    if (i > 0 && text !== "") {
      const previous = ordered[i - 1];
      const gap = rtl ? previous.x - (piece.x + piece.width) : piece.x - (previous.x + previous.width);
      if (gap > piece.size * 0.25 && !endsWithSpace(text) && !startsWithSpace(piece.str)) text += " ";
    }
    text += piece.str;
  });
  return { text, rtl, y: line.y, x: line.x, end: line.end, size: line.size };
}

/** Right-to-left letters (Hebrew, Arabic, Syriac, Thaana, N'Ko and their presentation forms). */
const RTL_LETTER = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/gu;

const LETTER = /\p{L}/gu;

/** A line whose letters are mostly right-to-left reads from the right, as pdftotext orders it. */
function readsRightToLeft(lines: readonly { text: string }[]): boolean {
  const text = lines.map((l) => l.text).join("");
  const rtl = text.match(RTL_LETTER)?.length ?? 0;
  return rtl > 0 && rtl * 2 >= (text.match(LETTER)?.length ?? 0);
}

/** Consecutive lines on one baseline (cells of a row, boxes side by side) become one line, in reading order. */
function mergeSameBaseline(lines: readonly Line[]): Line[] {
  const merged: Line[] = [];
  let group: Line[] = [];
  const flush = () => {
    if (group.length === 0) return;
    const rtl = group.some((l) => l.rtl) && readsRightToLeft(group);
    const sorted = [...group].sort((a, b) => rtl ? b.x - a.x : a.x - b.x);
    merged.push({
      ...sorted[0],
      rtl,
      text: sorted.map((l) => l.text.trim()).join(" "),
      end: Math.max(...sorted.map((l) => l.end)),
    });
    group = [];
  };
  for (const line of lines) {
    const last = group[group.length - 1];
    if (last && Math.abs(line.y - last.y) > Math.min(line.size, last.size) * 0.3) flush();
    group.push(line);
  }
  flush();
  return merged;
}

/**
 * Pieces grouped by the direction of their baselines, the page's main direction first (most
 * characters), then text set at other angles (a vertical margin note), each read on its own.
 */
function byDirection(items: readonly Placed[]): Placed[][] {
  const groups = new Map<number, Placed[]>();
  const weight = new Map<number, number>();
  for (const item of items) {
    if (!groups.has(item.turn)) groups.set(item.turn, []);
    groups.get(item.turn)!.push(item);
    weight.set(item.turn, (weight.get(item.turn) ?? 0) + item.str.trim().length);
  }
  return [...groups.keys()].sort((a, b) => weight.get(b)! - weight.get(a)! || a - b).map((turn) => groups.get(turn)!);
}

const HYPHENATED = /\p{Ll}-$/u;
const LOWER_CASE_START = /^\p{Ll}/u;

/** Joins a word hyphenated across a line break, as pdftotext does: `manip-` + `ulation.` → `manipulation.`. */
function dehyphenate(lines: string[]): string[] {
  const out = [...lines];
  for (let i = 0; i + 1 < out.length; i++) {
    // A line ending in "-" first: the test for its lower-case letter scans the whole line.
    if (!out[i].endsWith("-") || !HYPHENATED.test(out[i]) || !LOWER_CASE_START.test(out[i + 1])) continue;
    const [first, ...rest] = out[i + 1].split(/(?<=\S)\s+/);
    out[i] = out[i].slice(0, -1) + first;
    out[i + 1] = rest.join(" ");
  }
  return out.filter((line) => line !== "");
}

export function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Groups lines into paragraphs: a gap clearly wider than the usual line spacing, a jump up (next column) or a change of size starts one. */
function paragraphsOf(lines: readonly Line[]): string[] {
  const steps = lines.slice(1).map((line, i) => lines[i].y - line.y).filter((step) => step > 0);
  const typical = median(steps) || median(lines.map((l) => l.size)) * 1.2 || 12;
  const paragraphs: string[] = [];
  let current: string[] = [];
  lines.forEach((line, i) => {
    if (i > 0) {
      const previous = lines[i - 1];
      const step = previous.y - line.y;
      const resized = Math.abs(line.size - previous.size) > Math.max(line.size, previous.size) * 0.2;
      if (step > typical * 1.45 || step < -typical * 0.5 || resized) {
        paragraphs.push(dehyphenate(current).join("\n"));
        current = [];
      }
    }
    current.push(line.text);
  });
  if (current.length) paragraphs.push(dehyphenate(current).join("\n"));
  return paragraphs;
}

/**
 * The page's paragraphs, with each table in the place of its first piece: the text between
 * tables is laid out on its own, and a page without tables reads as one run, as before.
 */
export function pageContent(items: readonly Placed[], tables: readonly PageTable[], members: Int32Array): Block[] {
  const paragraphs = (run: readonly Placed[]): Block[] =>
    byDirection(composeAccents(run)).flatMap((group) => paragraphsOf(linesOf(group)))
      .map((text) => ({ type: "paragraph", spans: [{ text }] }));
  if (tables.length === 0) return paragraphs(items);
  const out: Block[] = [];
  const placed = new Set<number>();
  let run: Placed[] = [];
  items.forEach((item, i) => {
    const table = members[i];
    if (table < 0) {
      run.push(item);
      return;
    }
    if (placed.has(table)) return;
    placed.add(table);
    out.push(...paragraphs(run));
    run = [];
    out.push({ type: tables[table].uncertain ? "columns" : "table", rows: tables[table].rows });
  });
  out.push(...paragraphs(run));
  return out;
}
