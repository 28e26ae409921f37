/**
 * DrawingML parts a slide points to: a chart's cached data (categories × series, as markitdown
 * writes it) and a SmartArt diagram's text (its data part, the nodes in their hierarchy).
 */

import type { Block, ListItem } from "../blocks.ts";
import type { Relationship } from "./ooxml.ts";
import { child, childElements, descendants, parseXml, textContent, type XmlElement } from "./xml.ts";
import type { ZipArchive } from "../zip.ts";

/** The chart kinds of a plot area (`c:barChart`, `c:lineChart`, `c:pieChart`, …). */
const isChartKind = (element: XmlElement) => /Chart$/.test(element.name);

/**
 * A cached number as Excel shows it in General format: 15 significant digits, so the binary
 * noise of `8.200000000000001` reads `8.2`. Text is left as it is.
 */
function shownValue(raw: string): string {
  const value = raw.trim();
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(value)) return value;
  return String(Number(Number(value).toPrecision(15)));
}

/** Cached points (`c:strCache`/`c:numCache`/multi-level caches) by index. */
function cachedPoints(reference: XmlElement | undefined): Map<number, string> {
  const points = new Map<number, string>();
  if (!reference) return points;
  const cache = descendants(reference, "strCache")[0] ?? descendants(reference, "numCache")[0] ??
    descendants(reference, "lvl")[0];
  for (const pt of childElements(cache ?? reference, "pt")) {
    const idx = Number.parseInt(pt.attrs.idx ?? "", 10);
    if (Number.isFinite(idx)) points.set(idx, shownValue(textContent(child(pt, "v"))));
  }
  // A literal (`c:strLit`/`c:numLit`) holds its points directly.
  if (points.size === 0) {
    for (const literal of [...descendants(reference, "strLit"), ...descendants(reference, "numLit")]) {
      for (const pt of childElements(literal, "pt")) {
        const idx = Number.parseInt(pt.attrs.idx ?? "", 10);
        if (Number.isFinite(idx)) points.set(idx, shownValue(textContent(child(pt, "v"))));
      }
    }
  }
  return points;
}

interface Series {
  readonly name: string;
  readonly categories: Map<number, string>;
  readonly values: Map<number, string>;
}

function seriesOf(ser: XmlElement, index: number): Series {
  const tx = child(ser, "tx");
  const name = (tx && (cachedPoints(tx).get(0) ?? textContent(child(tx, "v")).trim())) || `Series ${index + 1}`;
  return {
    name,
    categories: cachedPoints(child(ser, "cat") ?? child(ser, "xVal")),
    values: cachedPoints(child(ser, "val") ?? child(ser, "yVal")),
  };
}

/**
 * A chart as `### Chart: <title>` and a table of its cached data: one row per category, one
 * column per series (what the chart shows; formulas are not recomputed).
 */
export async function chartBlocks(zip: ZipArchive, rel: Relationship | undefined): Promise<Block[]> {
  const xml = rel && !rel.external ? await zip.readText(rel.target) : null;
  if (xml === null) return [{ type: "heading", level: 3, spans: [{ text: "Chart:" }] }];
  const chart = child(parseXml(xml, rel!.target), "chart");
  const titleElement = child(chart, "title");
  const title = titleElement ? descendants(titleElement, "t").map((t) => textContent(t)).join("").trim() : "";
  const heading: Block = { type: "heading", level: 3, spans: [{ text: `Chart: ${title}`.trim() }] };
  const plotArea = child(chart, "plotArea");
  const series = childElements(plotArea ?? { name: "", attrs: {}, children: [] }).filter(isChartKind)
    .flatMap((kind) => childElements(kind, "ser")).map(seriesOf);
  if (series.length === 0) return [heading];
  const categories = series.find((s) => s.categories.size > 0)?.categories ?? new Map<number, string>();
  const count = Math.max(
    ...series.map((s) => Math.max(-1, ...s.values.keys()) + 1),
    Math.max(-1, ...categories.keys()) + 1,
  );
  const rows: string[][] = [["Category", ...series.map((s) => s.name)]];
  for (let i = 0; i < count; i++) {
    rows.push([categories.get(i) ?? String(i + 1), ...series.map((s) => s.values.get(i) ?? "")]);
  }
  return [heading, { type: "table", rows }];
}

interface DiagramPoint {
  readonly text: string;
  readonly type: string;
}

/**
 * A SmartArt diagram's text from its data part (`dgm:dataModel`): the content nodes under the
 * document node, in their order and depth (the drawing part holds only a rendering of them).
 */
export async function diagramBlocks(zip: ZipArchive, rel: Relationship | undefined): Promise<Block[]> {
  const xml = rel && !rel.external ? await zip.readText(rel.target) : null;
  if (xml === null) return [];
  const model = parseXml(xml, rel!.target);
  const points = new Map<string, DiagramPoint>();
  for (const pt of childElements(child(model, "ptLst") ?? model, "pt")) {
    const paragraphs = descendants(child(pt, "t") ?? pt, "p")
      .map((p) => descendants(p, "t").map((t) => textContent(t)).join("").trim())
      .filter(Boolean);
    points.set(pt.attrs.modelId ?? "", { text: paragraphs.join(" "), type: pt.attrs.type ?? "node" });
  }
  const children = new Map<string, { id: string; order: number }[]>();
  for (const cxn of childElements(child(model, "cxnLst") ?? model, "cxn")) {
    if ((cxn.attrs.type ?? "parOf") !== "parOf") continue;
    const source = cxn.attrs.srcId ?? "";
    if (!children.has(source)) children.set(source, []);
    children.get(source)!.push({ id: cxn.attrs.destId ?? "", order: Number.parseInt(cxn.attrs.srcOrd ?? "0", 10) });
  }
  const items: ListItem[] = [];
  const seen = new Set<string>();
  const visit = (id: string, depth: number) => {
    if (seen.has(id)) return;
    seen.add(id);
    const point = points.get(id);
    const isContent = point !== undefined && point.type === "node" && point.text !== "";
    if (isContent) items.push({ spans: [{ text: point.text }], depth, ordered: false });
    const next = [...(children.get(id) ?? [])].sort((a, b) => a.order - b.order);
    for (const c of next) visit(c.id, isContent ? depth + 1 : depth);
  };
  const roots = [...points].filter(([, p]) => p.type === "doc").map(([id]) => id);
  for (const root of roots) visit(root, 0);
  // Nodes no connection reaches (a damaged model) still carry text: keep them, flat.
  for (const [id, point] of points) {
    if (!seen.has(id) && point.type === "node" && point.text !== "") {
      items.push({ spans: [{ text: point.text }], depth: 0, ordered: false });
    }
  }
  return items.length ? [{ type: "list", items }] : [];
}
