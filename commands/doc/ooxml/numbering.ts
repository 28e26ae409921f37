/**
 * Word's list and heading numbers as Word shows them (`4.` after an interruption, `a.` / `b.`
 * for a lettered level, `1.2.3` before a heading, a list restarted at 2), computed from
 * word/numbering.xml and word/styles.xml as docx.ts meets the paragraphs in document order.
 */

import type { ZipArchive } from "../zip.ts";
import { child, childElements, parseXml, type XmlElement } from "./xml.ts";

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

/**
 * numbering.xml (`part`) and the numbering of the paragraph styles in styles.xml (`styles`, its
 * root element); null when the document numbers nothing.
 */
export async function readNumbering(
  zip: ZipArchive,
  part: string,
  styles: XmlElement | null,
): Promise<Numbering | null> {
  const xml = await zip.readText(part);
  if (xml === null) return null;
  const root = parseXml(xml, part);
  const abstracts = new Map<string, Map<number, Level>>();
  /** `w:numStyleLink`: an abstract numbering whose levels are a numbering style's (that style's numId). */
  const links = new Map<string, string>();
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
    const link = val(child(abstract, "numStyleLink"));
    if (link) links.set(abstract.attrs.abstractNumId ?? "", link);
  }
  const styleElements = styles ? childElements(styles, "style") : [];
  const numIdOfStyle = new Map<string, string>();
  for (const style of styleElements) {
    const numId = val(child(child(child(style, "pPr"), "numPr"), "numId"));
    if (style.attrs.styleId && numId !== undefined) numIdOfStyle.set(style.attrs.styleId, numId);
  }
  const abstractOfNum = new Map<string, string>();
  for (const num of childElements(root, "num")) {
    abstractOfNum.set(num.attrs.numId ?? "", val(child(num, "abstractNumId")) ?? "");
  }
  /** The abstract numbering that holds the levels, through at most a few numStyleLinks. */
  const levelsOf = (abstractId: string): { id: string; levels: Map<number, Level> } => {
    let id = abstractId;
    for (let hops = 0; hops < 8 && links.has(id) && (abstracts.get(id)?.size ?? 0) === 0; hops++) {
      const numId = numIdOfStyle.get(links.get(id)!);
      const next = numId === undefined ? undefined : abstractOfNum.get(numId);
      if (next === undefined || next === id) break;
      id = next;
    }
    return { id, levels: abstracts.get(id) ?? new Map() };
  };
  const nums = new Map<string, Num>();
  for (const num of childElements(root, "num")) {
    const linked = levelsOf(val(child(num, "abstractNumId")) ?? "");
    const abstractId = linked.id;
    const levels = new Map(linked.levels);
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
  const styleNumbering = new Map<string, StyleNumbering>();
  for (const style of styleElements) {
    if (style.attrs.type !== "paragraph" || !style.attrs.styleId) continue;
    const numPr = child(child(style, "pPr"), "numPr");
    const ilvl = val(child(numPr, "ilvl"));
    styleNumbering.set(style.attrs.styleId, {
      numId: val(child(numPr, "numId")),
      ilvl: ilvl === undefined ? undefined : integer(ilvl, 0),
      basedOn: val(child(style, "basedOn")),
    });
  }
  return { nums, styles: styleNumbering, styleLevels };
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
export function paragraphNumbering(
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

/** A numbered paragraph's number as Word shows it (null for bullets), and whether its list is ordered. */
export interface Numbered {
  readonly label: string | null;
  readonly ordered: boolean;
}

/** The counters of each abstract numbering, as Word advances them through the document. */
export class Counters {
  readonly #byAbstract = new Map<string, (number | undefined)[]>();
  readonly #overridden = new Set<string>();
  constructor(private readonly numbering: Numbering) {}

  /** The next paragraph numbered (numId, ilvl); null when the document defines no such list level. */
  next(numId: string, ilvl: number): Numbered | null {
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
    const ordered = level.format !== "bullet";
    if (!ordered || level.text === "") return { label: null, ordered };
    const label = level.text.replace(/%([1-9])/g, (_, digit: string) => {
      const k = Number(digit) - 1;
      const other = num.levels.get(k);
      const value = counters[k] ?? other?.start ?? 1;
      return formatNumber(value, level.legal ? "decimal" : other?.format ?? "decimal");
    }).trim() || null;
    return { label, ordered };
  }
}
