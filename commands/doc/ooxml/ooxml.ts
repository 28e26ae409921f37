/** What docx, pptx and xlsx share: relationships between parts and the document properties. */

import { childElements, parseXml, textContent, type XmlElement } from "./xml.ts";
import type { ZipArchive } from "../zip.ts";
import { NO_METADATA } from "../types.ts";

export type OfficeFormat = "docx" | "pptx" | "xlsx";

/** An OPC package with the part its root relationship names as the document (`officeDocument`). */
export interface OfficePackage {
  readonly zip: ZipArchive;
  readonly mainPart: string;
}

export interface Relationship {
  readonly id: string;
  readonly type: string;
  /** The target part's name in the package (resolved against the source part), or the raw URL when external. */
  readonly target: string;
  readonly external: boolean;
}

/** `a/b/../c.xml` → `a/c.xml`; targets may be absolute (`/xl/x.xml`) or relative to the source's folder. */
export function resolvePartName(sourcePart: string, target: string): string {
  const base = target.startsWith("/") ? [] : sourcePart.split("/").slice(0, -1);
  for (const segment of target.replace(/^\/+/, "").split("/")) {
    if (segment === "..") base.pop();
    else if (segment !== "." && segment !== "") base.push(segment);
  }
  return base.join("/");
}

function relsPartOf(part: string): string {
  const slash = part.lastIndexOf("/");
  return `${part.slice(0, slash + 1)}_rels/${part.slice(slash + 1)}.rels`;
}

/** The relationships of `part` (empty when it has none), by id. */
export async function readRelationships(zip: ZipArchive, part: string): Promise<Map<string, Relationship>> {
  const relsPart = part === "" ? "_rels/.rels" : relsPartOf(part);
  const xml = await zip.readText(relsPart);
  const rels = new Map<string, Relationship>();
  if (xml === null) return rels;
  for (const rel of childElements(parseXml(xml, relsPart), "Relationship")) {
    const id = rel.attrs.Id ?? "";
    const type = rel.attrs.Type ?? "";
    const rawTarget = rel.attrs.Target ?? "";
    const external = rel.attrs.TargetMode === "External";
    rels.set(id, { id, type, target: external ? rawTarget : resolvePartName(part, rawTarget), external });
  }
  return rels;
}

/** The first relationship of `part` whose type ends with `/kind` (e.g. `notesSlide`). */
export function relationshipOfKind(rels: Map<string, Relationship>, kind: string): Relationship | undefined {
  for (const rel of rels.values()) if (rel.type.endsWith(`/${kind}`)) return rel;
  return undefined;
}

export interface DocumentProperties {
  title: string | null;
  author: string | null;
  subject: string | null;
  created: string | null;
  modified: string | null;
  /** docProps/app.xml's Application: the program that wrote the file (`Microsoft Office Word`, `LibreOffice/7.4…`). */
  producer: string | null;
  /** From docProps/app.xml: what the producing program last counted (Word's page count, for one). */
  appCounts: { pages?: number; slides?: number; words?: number };
}

function nonEmpty(text: string): string | null {
  const trimmed = text.trim();
  return trimmed ? trimmed : null;
}

function firstChild(root: XmlElement, name: string): XmlElement | undefined {
  return childElements(root, name)[0];
}

/** docProps/core.xml and docProps/app.xml, when present. */
export async function readProperties(zip: ZipArchive): Promise<DocumentProperties> {
  const props: DocumentProperties = {
    ...NO_METADATA,
    appCounts: {},
  };
  const core = await zip.readText("docProps/core.xml");
  if (core !== null) {
    const root = parseXml(core, "docProps/core.xml");
    props.title = nonEmpty(textContent(firstChild(root, "title")));
    props.author = nonEmpty(textContent(firstChild(root, "creator")));
    props.subject = nonEmpty(textContent(firstChild(root, "subject")));
    props.created = nonEmpty(textContent(firstChild(root, "created")));
    props.modified = nonEmpty(textContent(firstChild(root, "modified")));
  }
  const app = await zip.readText("docProps/app.xml");
  if (app !== null) {
    const root = parseXml(app, "docProps/app.xml");
    props.producer = nonEmpty(textContent(firstChild(root, "Application")));
    for (const [key, name] of [["pages", "Pages"], ["slides", "Slides"], ["words", "Words"]] as const) {
      const value = Number.parseInt(textContent(firstChild(root, name)), 10);
      if (Number.isFinite(value)) props.appCounts[key] = value;
    }
  }
  return props;
}

const MAIN_PART_KINDS: readonly { format: OfficeFormat; contentType: RegExp; usualPart: string; label: string }[] = [
  {
    format: "docx",
    contentType: /wordprocessingml\.(document|template)\.main\+xml|ms-word\.[\w.]*main\+xml/,
    usualPart: "word/document.xml",
    label: "Word document",
  },
  {
    format: "pptx",
    contentType: /presentationml\.(presentation|slideshow|template)\.main\+xml|ms-powerpoint\.[\w.]*main\+xml/,
    usualPart: "ppt/presentation.xml",
    label: "PowerPoint presentation",
  },
  {
    format: "xlsx",
    contentType: /spreadsheetml\.(sheet|template)\.main\+xml|ms-excel\.[\w.]*main\+xml/,
    usualPart: "xl/workbook.xml",
    label: "Excel workbook",
  },
];

/** `[Content_Types].xml`: each part's declared type (Override) and each extension's (Default). */
interface ContentTypes {
  readonly overrides: Map<string, string>;
  readonly defaults: Map<string, string>;
}

async function readContentTypes(zip: ZipArchive): Promise<ContentTypes> {
  const overrides = new Map<string, string>();
  const defaults = new Map<string, string>();
  const xml = await zip.readText("[Content_Types].xml");
  if (xml === null) return { overrides, defaults };
  for (const entry of childElements(parseXml(xml, "[Content_Types].xml"))) {
    const type = entry.attrs.ContentType ?? "";
    if (entry.name === "Override" && entry.attrs.PartName) {
      overrides.set(resolvePartName("", entry.attrs.PartName).toLowerCase(), type);
    } else if (entry.name === "Default" && entry.attrs.Extension) {
      defaults.set(entry.attrs.Extension.toLowerCase(), type);
    }
  }
  return { overrides, defaults };
}

function contentTypeOf(types: ContentTypes, part: string): string {
  const override = types.overrides.get(part.toLowerCase());
  if (override !== undefined) return override;
  const extension = part.includes(".") ? part.slice(part.lastIndexOf(".") + 1).toLowerCase() : "";
  return types.defaults.get(extension) ?? "";
}

/** What an OPC package holds as its document, found the way Office finds it. */
export type MainPart =
  | { readonly kind: "found"; readonly format: OfficeFormat; readonly part: string }
  /** The package names (or declares) a Word/PowerPoint/Excel main part that it does not hold: a damaged document. */
  | { readonly kind: "missing"; readonly label: string; readonly part: string }
  | { readonly kind: "none" };

/**
 * The package's main part, as Office finds it: the target of the root relationship
 * (`_rels/.rels`, type officeDocument) — wherever it lives — whose kind is its declared content
 * type; then, for packages whose relationships are missing or wrong, a part whose content type
 * declares a document, then the usual part names (word/document.xml, ppt/presentation.xml,
 * xl/workbook.xml). "missing" only when one of those names a document part the zip does not hold
 * (or the package has a word/, ppt/ or xl/ folder but no main part).
 */
export async function findMainPart(zip: ZipArchive): Promise<MainPart> {
  const types = await readContentTypes(zip);
  const root = relationshipOfKind(await readRelationships(zip, ""), "officeDocument");
  const candidates: string[] = [];
  if (root && !root.external) candidates.push(root.target);
  for (const [part, type] of types.overrides) {
    if (MAIN_PART_KINDS.some((k) => k.contentType.test(type))) candidates.push(part);
  }
  for (const kind of MAIN_PART_KINDS) candidates.push(kind.usualPart);
  const kindOf = (part: string) =>
    MAIN_PART_KINDS.find((k) => k.contentType.test(contentTypeOf(types, part))) ??
      MAIN_PART_KINDS.find((k) => k.usualPart === part.toLowerCase());
  for (const part of candidates) {
    const kind = kindOf(part);
    if (kind && zip.has(part)) return { kind: "found", format: kind.format, part };
  }
  for (const part of candidates) {
    const kind = kindOf(part);
    if (kind && (part !== kind.usualPart || types.overrides.has(part) || root?.target === part)) {
      return { kind: "missing", label: kind.label, part };
    }
  }
  const names = zip.names;
  for (const kind of MAIN_PART_KINDS) {
    const folder = kind.usualPart.slice(0, kind.usualPart.indexOf("/") + 1);
    if (names.some((n) => n.startsWith(folder))) return { kind: "missing", label: kind.label, part: kind.usualPart };
  }
  return { kind: "none" };
}
