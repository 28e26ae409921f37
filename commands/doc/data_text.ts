/**
 * JSON and XML files as text: shown as they are, in one code block (fenced in Markdown), never
 * evaluated — no XML entity is expanded, no DTD, schema or stylesheet loaded, nothing fetched.
 * Long files are cut at a line boundary at the output budget, and the reader says it stopped.
 */

import type { Block } from "./blocks.ts";
import { declaredXmlEncoding, decodeDocumentText } from "./text_decode.ts";
import { type DocInfo, type Extraction, type ExtractOptions, NO_METADATA } from "./types.ts";

function bounded(text: string, charBudget: number): { text: string; stoppedEarly: boolean } {
  if (text.length <= charBudget) return { text, stoppedEarly: false };
  const cut = text.lastIndexOf("\n", charBudget);
  return { text: text.slice(0, cut > 0 ? cut : charBudget), stoppedEarly: true };
}

export function extractDataText(format: "json" | "xml", bytes: Uint8Array, options: ExtractOptions): Extraction {
  options.signal.throwIfAborted();
  const text = decodeDocumentText(
    bytes,
    format === "json" ? "the JSON file" : "the XML file",
    format === "xml" ? declaredXmlEncoding(bytes) : null,
  );
  const kept = bounded(text, options.charBudget);
  const blocks: Block[] = [{ type: "code", language: format, text: kept.text }];
  return { format, blocks, counts: {}, warnings: [], stoppedEarly: kept.stoppedEarly };
}

export function infoDataText(format: "json" | "xml" | "csv"): DocInfo {
  return {
    format,
    ...NO_METADATA,
    encrypted: false,
    password_required: false,
  };
}
