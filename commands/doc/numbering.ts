/**
 * Word's list and heading numbers as Word shows them (`4.` after an interruption, `a.` / `b.`
 * for a lettered level, `1.2.3` before a heading, a list restarted at 2). mammoth only knows
 * "ordered or not", so the labels are computed here from word/numbering.xml and word/styles.xml
 * and written into the document's paragraphs as a marked text run before mammoth reads it;
 * docx.ts then takes the marked label out again (`takeLabel`).
 */

import type { ZipArchive } from "./zip.ts";
import { child, childElements, parseXml, type XmlElement } from "./xml.ts";

/** Brackets a label inside the text mammoth passes through (private-use characters, then a tag). */
const OPEN = "\uE000pterm-num:";
const CLOSE = "\uE001";
const MARKED = /\uE000pterm-num:([^\uE001]*)\uE001/g;

interface Level {
  readonly start: number;
  readonly format: string;
  readonly text: string;
  /** `w:isLgl`: every level's number shown in decimal. */
  readonly legal: boolean;
}

interface Num {
  readonly abstractId: string;
  readonly levels: Map<number, Level>;
  readonly startOverrides: Map<number, number>;
}

interface StyleNumbering {
  readonly numId?: string;
  readonly ilvl?: number;
  readonly basedOn?: string;
}

export interface Numbering {
  readonly nums: Map<string, Num>;
  readonly styles: Map<string, StyleNumbering>;
  /** The level an abstract numbering assigns to a paragraph style (`w:lvl/w:pStyle`). */
  readonly styleLevels: Map<string, number>;
}

const val = (element: XmlElement | undefined): string | undefined => element?.attrs.val;

function integer(text: string | undefined, fallback: number): number {
  const value = Number.parseInt(text ?? "", 10);
  return Number.isFinite(value) ? value : fallback;
}

function readLevel(lvl: XmlElement): Level {
  return {
    start: integer(val(child(lvl, "start")), 0),
    format: val(child(lvl, "numFmt")) ?? "decimal",
    text: val(child(lvl, "lvlText")) ?? "",
    legal: child(lvl, "isLgl") !== undefined && val(child(lvl, "isLgl")) !== "0" &&
      val(child(lvl, "isLgl")) !== "false",
  };
}

/** numbering.xml and the numbering of styles.xml's paragraph styles; null when the document numbers nothing. */
export async function readNumbering(zip: ZipArchive): Promise<Numbering | null> {
  const xml = await zip.readText("word/numbering.xml");
  if (xml === null) return null;
  const root = parseXml(xml, "word/numbering.xml");
  const abstracts = new Map<string, Map<number, Level>>();
  const styleLevels = new Map<string, number>();
  for (const abstract of childElements(root, "abstractNum")) {
    const levels = new Map<number, Level>();
    for (const lvl of childElements(abstract, "lvl")) {
      const ilvl = integer(lvl.attrs.ilvl, 0);
      levels.set(ilvl, readLevel(lvl));
      const style = val(child(lvl, "pStyle"));
      if (style) styleLevels.set(style, ilvl);
    }
    abstracts.set(abstract.attrs.abstractNumId ?? "", levels);
  }
  const nums = new Map<string, Num>();
  for (const num of childElements(root, "num")) {
    const abstractId = val(child(num, "abstractNumId")) ?? "";
    const levels = new Map(abstracts.get(abstractId) ?? []);
    const startOverrides = new Map<number, number>();
    for (const override of childElements(num, "lvlOverride")) {
      const ilvl = integer(override.attrs.ilvl, 0);
      const start = val(child(override, "startOverride"));
      if (start !== undefined) startOverrides.set(ilvl, integer(start, 0));
      const lvl = child(override, "lvl");
      if (lvl) levels.set(ilvl, readLevel(lvl));
    }
    nums.set(num.attrs.numId ?? "", { abstractId, levels, startOverrides });
  }
  const styles = new Map<string, StyleNumbering>();
  const stylesXml = await zip.readText("word/styles.xml");
  if (stylesXml !== null) {
    for (const style of childElements(parseXml(stylesXml, "word/styles.xml"), "style")) {
      if (style.attrs.type !== "paragraph" || !style.attrs.styleId) continue;
      const numPr = child(child(style, "pPr"), "numPr");
      const ilvl = val(child(numPr, "ilvl"));
      styles.set(style.attrs.styleId, {
        numId: val(child(numPr, "numId")),
        ilvl: ilvl === undefined ? undefined : integer(ilvl, 0),
        basedOn: val(child(style, "basedOn")),
      });
    }
  }
  return { nums, styles, styleLevels };
}

const ROMAN: [number, string][] = [
  [1000, "m"],
  [900, "cm"],
  [500, "d"],
  [400, "cd"],
  [100, "c"],
  [90, "xc"],
  [50, "l"],
  [40, "xl"],
  [10, "x"],
  [9, "ix"],
  [5, "v"],
  [4, "iv"],
  [1, "i"],
];

function roman(n: number): string {
  if (n <= 0 || n >= 4000) return String(n);
  let out = "";
  for (const [value, digits] of ROMAN) {
    while (n >= value) {
      out += digits;
      n -= value;
    }
  }
  return out;
}

/** Word's letters: a…z, then aa…zz, aaa… (the letter repeated, not base 26). */
function letters(n: number): string {
  if (n <= 0) return String(n);
  return String.fromCharCode(97 + (n - 1) % 26).repeat(Math.floor((n - 1) / 26) + 1);
}

function ordinalSuffix(n: number): string {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return "th";
  return ["th", "st", "nd", "rd"][n % 10] ?? "th";
}

/** A number in one of Word's formats; formats pterm does not spell out are shown in decimal. */
export function formatNumber(n: number, format: string): string {
  switch (format) {
    case "lowerLetter":
      return letters(n);
    case "upperLetter":
      return letters(n).toUpperCase();
    case "lowerRoman":
      return roman(n);
    case "upperRoman":
      return roman(n).toUpperCase();
    case "decimalZero":
      return n < 10 && n >= 0 ? `0${n}` : String(n);
    case "ordinal":
      return `${n}${ordinalSuffix(n)}`;
    case "none":
      return "";
    default:
      return String(n);
  }
}

/** Which numbering a paragraph has, from its own numPr and its style's (through basedOn). */
function paragraphNumbering(
  numbering: Numbering,
  style: string | undefined,
  numId: string | undefined,
  ilvl: number | undefined,
): { numId: string; ilvl: number } | null {
  let styleNumId: string | undefined;
  let styleIlvl: number | undefined;
  const seen = new Set<string>();
  for (let id = style; id !== undefined && !seen.has(id); id = numbering.styles.get(id)?.basedOn) {
    seen.add(id);
    const s = numbering.styles.get(id);
    styleNumId ??= s?.numId;
    styleIlvl ??= s?.ilvl;
  }
  const chosen = numId ?? styleNumId;
  if (chosen === undefined || chosen === "0") return null;
  const level = ilvl ?? styleIlvl ?? (style !== undefined ? numbering.styleLevels.get(style) : undefined) ?? 0;
  return { numId: chosen, ilvl: Math.max(0, Math.min(8, level)) };
}

/** The counters of each abstract numbering, as Word advances them through the document. */
class Counters {
  readonly #byAbstract = new Map<string, (number | undefined)[]>();
  readonly #overridden = new Set<string>();
  constructor(private readonly numbering: Numbering) {}

  /** The label of the next paragraph numbered (numId, ilvl); null for bullets and unknown lists. */
  next(numId: string, ilvl: number): string | null {
    const num = this.numbering.nums.get(numId);
    const level = num?.levels.get(ilvl);
    if (!num || !level) return null;
    let counters = this.#byAbstract.get(num.abstractId);
    if (!counters) this.#byAbstract.set(num.abstractId, counters = []);
    const override = num.startOverrides.get(ilvl);
    const key = `${numId}/${ilvl}`;
    if (override !== undefined && !this.#overridden.has(key)) {
      this.#overridden.add(key);
      counters[ilvl] = override - 1;
    }
    counters[ilvl] = counters[ilvl] === undefined ? level.start : counters[ilvl]! + 1;
    counters.length = ilvl + 1; // deeper levels start again
    if (level.format === "bullet" || level.text === "") return null;
    return level.text.replace(/%([1-9])/g, (_, digit: string) => {
      const k = Number(digit) - 1;
      const other = num.levels.get(k);
      const value = counters[k] ?? other?.start ?? 1;
      return formatNumber(value, level.legal ? "decimal" : other?.format ?? "decimal");
    }).trim() || null;
  }
}

/** Tags, comments, CDATA and processing instructions; attribute values may hold `>`. */
const TOKEN =
  /<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<\?[\s\S]*?\?>|<(\/?)((?:[A-Za-z_][\w.-]*:)?)([A-Za-z_][\w.-]*)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/g;

function attribute(attrs: string, local: string): string | undefined {
  const match = new RegExp(`(?:^|\\s)(?:[\\w.-]+:)?${local}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`).exec(attrs);
  return match ? (match[1] ?? match[2]) : undefined;
}

interface OpenParagraph {
  readonly prefix: string;
  /** Where the label run goes: after `<w:p …>`, moved past the paragraph's own `</w:pPr>`. */
  insertAt: number;
  decided: boolean;
  style?: string;
  numId?: string;
  ilvl?: number;
}

/**
 * document.xml with each numbered paragraph's label written as a marked run at its start. The
 * paragraphs are walked in document order (text boxes and table cells included), which is the
 * order in which Word counts them.
 */
export function labelParagraphs(xml: string, numbering: Numbering): string {
  const counters = new Counters(numbering);
  const stack: string[] = [];
  const paragraphs: OpenParagraph[] = [];
  const inserts: { at: number; text: string }[] = [];
  /** Counts the paragraph once its own properties are known (Word counts in order of the paragraphs' starts). */
  const decide = (paragraph: OpenParagraph) => {
    if (paragraph.decided) return;
    paragraph.decided = true;
    const which = paragraphNumbering(numbering, paragraph.style, paragraph.numId, paragraph.ilvl);
    const label = which && counters.next(which.numId, which.ilvl);
    if (!label) return;
    const p = paragraph.prefix;
    inserts.push({
      at: paragraph.insertAt,
      text: `<${p}r><${p}t xml:space="preserve">${OPEN}${escapeXml(label)}${CLOSE}</${p}t></${p}r>`,
    });
  };
  for (const match of xml.matchAll(TOKEN)) {
    const [whole, closing, prefix, name, attrs = "", selfClosing] = match;
    if (name === undefined) continue;
    const end = match.index + whole.length;
    const parent = stack[stack.length - 1];
    const grandparent = stack[stack.length - 2];
    const paragraph = paragraphs[paragraphs.length - 1];
    if (closing) {
      stack.pop();
      if (name === "pPr" && grandparent === "p" && paragraph && !paragraph.decided) {
        paragraph.insertAt = end;
        decide(paragraph);
      }
      if (name === "p" && paragraph) decide(paragraphs.pop()!);
      continue;
    }
    if (paragraph && parent === "p" && name !== "pPr") decide(paragraph);
    // Properties of the paragraph itself: w:p/w:pPr/(w:pStyle | w:numPr/…), not a tracked change's old pPr.
    if (paragraph && grandparent === "p" && parent === "pPr" && name === "pStyle") {
      paragraph.style = attribute(attrs, "val");
    } else if (paragraph && stack.at(-3) === "p" && grandparent === "pPr" && parent === "numPr") {
      if (name === "numId") paragraph.numId = attribute(attrs, "val");
      if (name === "ilvl") paragraph.ilvl = integer(attribute(attrs, "val"), 0);
    }
    if (selfClosing) {
      if (name === "pPr" && parent === "p" && paragraph) paragraph.insertAt = end;
      continue;
    }
    stack.push(name);
    if (name === "p") paragraphs.push({ prefix, insertAt: end, decided: false });
  }
  if (inserts.length === 0) return xml;
  // A text box's paragraphs are counted before the paragraph that holds them ends; splice in position order.
  inserts.sort((a, b) => a.at - b.at);
  let out = "";
  let from = 0;
  for (const { at, text } of inserts) {
    out += xml.slice(from, at) + text;
    from = at;
  }
  return out + xml.slice(from);
}

function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Splits a marked label off the start of `text`: `{label: "a.", rest: "text"}`. */
export function takeLabel(text: string): { label: string | null; rest: string } {
  const match = /^\s*\uE000pterm-num:([^\uE001]*)\uE001\s*/.exec(text);
  if (!match) return { label: null, rest: text };
  return { label: match[1], rest: text.slice(match[0].length) };
}

/** Marked labels left inside text (headings, paragraphs, cells) become plain `label ` text. */
export function unmarkLabels(text: string): string {
  return text.replace(MARKED, (_, label: string) => `${label} `);
}
