/** What docx, pptx and xlsx share: relationships between parts and the document properties. */

import { childElements, parseXml, textContent, type XmlElement } from "./xml.ts";
import type { ZipArchive } from "./zip.ts";

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
    title: null,
    author: null,
    subject: null,
    created: null,
    modified: null,
    producer: null,
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
