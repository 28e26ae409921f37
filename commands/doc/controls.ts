/**
 * The one filter every reader's output passes through (pterm's PDF reader, PDF.js, the Office and
 * other readers): no control character reaches the text but tab and line feed (and the form feed
 * the text rendering itself puts between pages). Carriage returns become line feeds; every other
 * C0 control, DEL and C1 control is dropped, counted, and named in one warning with the pages,
 * slides or sheets it was on.
 */

import type { Block, ListItem, Span } from "./blocks.ts";
import type { Extraction } from "./types.ts";

// deno-lint-ignore no-control-regex -- finding control characters is the point
const DROPPED = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;
// deno-lint-ignore no-control-regex -- the same class with CR, for a test that keeps no state between calls
const ANY_CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/;

/** Where dropped characters were: the unit the format is read in (page, slide, sheet), or the document. */
type Place = { readonly kind: "page" | "slide"; readonly number: number } | {
  readonly kind: "sheet";
  readonly name: string;
} | { readonly kind: "document" };

class Counter {
  total = 0;
  readonly byPlace = new Map<string, { place: Place; count: number }>();

  clean(text: string, place: Place): string {
    if (!ANY_CONTROL.test(text)) return text;
    let dropped = 0;
    const out = text.replace(/\r\n?/g, "\n").replace(DROPPED, () => {
      dropped++;
      return "";
    });
    if (dropped > 0) this.add(place, dropped);
    return out;
  }

  add(place: Place, count: number): void {
    this.total += count;
    const key = place.kind === "sheet"
      ? `sheet:${place.name}`
      : place.kind === "document"
      ? "document"
      : `${place.kind}:${place.number}`;
    const entry = this.byPlace.get(key);
    if (entry) entry.count += count;
    else this.byPlace.set(key, { place, count });
  }
}

function cleanSpans(spans: readonly Span[], place: Place, counter: Counter): Span[] {
  return spans.map((span) => {
    const text = counter.clean(span.text, place);
    const href = span.href === undefined ? undefined : counter.clean(span.href, place);
    return text === span.text && href === span.href ? span : { ...span, text, ...(href === undefined ? {} : { href }) };
  });
}

function cleanRows(rows: readonly string[][], place: Place, counter: Counter): string[][] {
  return rows.map((row) => row.map((cell) => counter.clean(cell, place)));
}

function cleanBlock(block: Block, place: Place, counter: Counter): Block {
  switch (block.type) {
    case "heading":
    case "paragraph":
      return { ...block, spans: cleanSpans(block.spans, place, counter) };
    case "list":
      return {
        ...block,
        items: block.items.map((item): ListItem => ({
          ...item,
          spans: cleanSpans(item.spans, place, counter),
          ...(item.label === undefined ? {} : { label: counter.clean(item.label, place) }),
        })),
      };
    case "table":
    case "columns":
      return { ...block, rows: cleanRows(block.rows, place, counter) };
    case "image":
      return { ...block, alt: counter.clean(block.alt, place) };
    case "code":
      return { ...block, text: counter.clean(block.text, place) };
    case "page": {
      const page: Place = { kind: "page", number: block.number };
      return { ...block, blocks: block.blocks.map((b) => cleanBlock(b, page, counter)) };
    }
    case "slide": {
      const slide: Place = { kind: "slide", number: block.number };
      return {
        ...block,
        title: block.title === null ? null : counter.clean(block.title, slide),
        blocks: block.blocks.map((b) => cleanBlock(b, slide, counter)),
        notes: block.notes.map((b) => cleanBlock(b, slide, counter)),
      };
    }
    case "sheet": {
      // Named in the warning by its name as printed, without the controls.
      const name = block.name.replace(DROPPED, "");
      const sheet: Place = { kind: "sheet", name };
      counter.clean(block.name, sheet);
      return { ...block, name, rows: cleanRows(block.rows, sheet, counter) };
    }
  }
}

/** `1-3, 5`: numbers in order, runs joined. */
export function compactRanges(numbers: readonly number[]): string {
  const sorted = [...new Set(numbers)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; i++) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push(j === i ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j;
  }
  return parts.join(", ");
}

function where(places: readonly Place[]): string {
  const pages = places.flatMap((p) => p.kind === "page" ? [p.number] : []);
  const slides = places.flatMap((p) => p.kind === "slide" ? [p.number] : []);
  const sheets = places.flatMap((p) => p.kind === "sheet" ? [`"${p.name}"`] : []);
  const parts = [
    pages.length ? `on page(s) ${compactRanges(pages)}` : "",
    slides.length ? `on slide(s) ${compactRanges(slides)}` : "",
    sheets.length ? `in sheet(s) ${sheets.join(", ")}` : "",
  ].filter(Boolean);
  return parts.length ? ` ${parts.join(" and ")}` : "";
}

/**
 * The extraction with every control character but tab and line feed dropped from its text, and
 * one warning naming how many were dropped and where — together with those a reader dropped
 * itself before laying the text out (`droppedControls`, by page), which that reader does not warn of.
 */
export function dropControlCharacters(extraction: Extraction): Extraction {
  const counter = new Counter();
  for (const [page, count] of extraction.droppedControls ?? []) counter.add({ kind: "page", number: page }, count);
  const blocks = extraction.blocks.map((block) => cleanBlock(block, { kind: "document" }, counter));
  const warnings = extraction.warnings.map((w) => counter.clean(w, { kind: "document" }));
  if (counter.total > 0) {
    const cause = extraction.format === "pdf" ? " (fonts without a Unicode map)" : "";
    warnings.push(
      `${counter.total} control character(s)${where([...counter.byPlace.values()].map((e) => e.place))} ` +
        `were dropped${cause}; the text there may be incomplete`,
    );
  }
  return { ...extraction, blocks, warnings, droppedControls: undefined };
}
