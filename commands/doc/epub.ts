/**
 * EPUB: the chapters in the order of the package's spine (META-INF/container.xml names the
 * package document, whose manifest and spine list them), each XHTML chapter read as HTML
 * (html.ts). Nothing is fetched; chapters locked by DRM (META-INF/encryption.xml) are refused.
 */

import { PtermError } from "../../core/errors.ts";
import { type Block, textLength } from "./blocks.ts";
import { htmlToBlocks } from "./html.ts";
import { resolvePartName } from "./ooxml/ooxml.ts";
import type { DocInfo, Extraction, ExtractOptions } from "./types.ts";
import { child, childElements, descendants, parseXml, textContent } from "./ooxml/xml.ts";
import type { ZipArchive } from "./zip.ts";

interface Book {
  readonly title: string | null;
  readonly author: string | null;
  readonly chapters: string[];
}

function corrupt(why: string): PtermError {
  return new PtermError("CorruptInput", `the EPUB ${why}; the file is damaged — get it again or re-export it.`);
}

async function readBook(zip: ZipArchive): Promise<Book> {
  const container = await zip.readText("META-INF/container.xml");
  if (container === null) throw corrupt("has no META-INF/container.xml");
  const rootfile = descendants(parseXml(container, "META-INF/container.xml"), "rootfile")
    .find((r) => (r.attrs["full-path"] ?? "") !== "");
  const opfPath = rootfile ? resolvePartName("", rootfile.attrs["full-path"]) : null;
  const opf = opfPath === null ? null : await zip.readText(opfPath);
  if (opfPath === null || opf === null) throw corrupt("names no package document that it holds");
  const root = parseXml(opf, opfPath);
  const metadata = child(root, "metadata");
  const manifest = new Map<string, { href: string; type: string }>();
  for (const item of childElements(child(root, "manifest") ?? root, "item")) {
    if (item.attrs.id && item.attrs.href) {
      manifest.set(item.attrs.id, {
        href: resolvePartName(opfPath, decodeURIComponentSafe(item.attrs.href)),
        type: item.attrs["media-type"] ?? "",
      });
    }
  }
  const chapters = childElements(child(root, "spine") ?? root, "itemref")
    .map((ref) => manifest.get(ref.attrs.idref ?? ""))
    .filter((item): item is { href: string; type: string } => item !== undefined && /html|xml/i.test(item.type))
    .map((item) => item.href);
  const text = (name: string) => textContent(child(metadata, name)).trim() || null;
  return { title: text("title"), author: text("creator"), chapters };
}

function decodeURIComponentSafe(href: string): string {
  try {
    return decodeURIComponent(href.split("#")[0]);
  } catch {
    return href.split("#")[0];
  }
}

/** The resources META-INF/encryption.xml says are encrypted (DRM or font obfuscation). */
async function encryptedParts(zip: ZipArchive): Promise<Set<string>> {
  const xml = await zip.readText("META-INF/encryption.xml");
  const parts = new Set<string>();
  if (xml === null) return parts;
  for (const reference of descendants(parseXml(xml, "META-INF/encryption.xml"), "CipherReference")) {
    if (reference.attrs.URI) parts.add(resolvePartName("", decodeURIComponentSafe(reference.attrs.URI)).toLowerCase());
  }
  return parts;
}

export async function extractEpub(zip: ZipArchive, options: ExtractOptions): Promise<Extraction> {
  const book = await readBook(zip);
  const encrypted = await encryptedParts(zip);
  if (book.chapters.some((part) => encrypted.has(part.toLowerCase()))) {
    throw new PtermError(
      "EncryptedDocument",
      "the EPUB's chapters are encrypted (DRM); pterm does not remove DRM — use a copy without it.",
    );
  }
  const blocks: Block[] = [];
  const warnings: string[] = [];
  const missing: string[] = [];
  let chars = 0;
  let stoppedEarly = false;
  for (const [index, part] of book.chapters.entries()) {
    options.signal.throwIfAborted();
    if (chars > options.charBudget) {
      stoppedEarly = true;
      break;
    }
    const html = await zip.readText(part);
    if (html === null) {
      missing.push(part);
      continue;
    }
    const chapter = htmlToBlocks(html, options.charBudget - chars);
    for (const block of chapter.blocks) blocks.push(block);
    chars += textLength(chapter.blocks);
    options.progress?.({ progress: index + 1, total: book.chapters.length, message: "chapters read" });
    if (chapter.stoppedEarly) {
      stoppedEarly = true;
      break;
    }
  }
  if (missing.length > 0) {
    warnings.push(`${missing.length} chapter(s) listed in the spine are missing: ${missing.join(", ")}`);
  }
  return { format: "epub", blocks, counts: {}, warnings, stoppedEarly };
}

export async function infoEpub(zip: ZipArchive): Promise<DocInfo> {
  const book = await readBook(zip);
  return {
    format: "epub",
    title: book.title,
    author: book.author,
    subject: null,
    created: null,
    modified: null,
    producer: null,
    encrypted: (await encryptedParts(zip)).size > 0,
    password_required: false,
  };
}
