/**
 * XML for the OOXML parts, on top of saxes (a strict, non-validating parser that expands no
 * DTD entities, so no "billion laughs"). Small parts become a light element tree; large ones
 * (worksheets) are read as a stream of events by their reader.
 *
 * Element names are kept without their prefix: producers do not all use the same prefixes
 * (`a:`, `ns0:` or a default namespace), and the local names of the OOXML vocabularies we read
 * do not collide where we look. Attributes keep their written name, and are also reachable
 * by local name when no unprefixed attribute has it.
 */

import { type SaxesOptions, SaxesParser } from "saxes";
import { PtermError } from "../../core/errors.ts";

export interface XmlElement {
  readonly name: string;
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: XmlNode[];
}

export type XmlNode = XmlElement | string;

export function localName(qualified: string): string {
  const colon = qualified.indexOf(":");
  return colon < 0 ? qualified : qualified.slice(colon + 1);
}

export function attributesOf(raw: Record<string, string>): Record<string, string> {
  const attrs: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) attrs[name] = value;
  for (const [name, value] of Object.entries(raw)) {
    const local = localName(name);
    if (local !== name && !(local in attrs)) attrs[local] = value;
  }
  return attrs;
}

function malformed(part: string, error: unknown): PtermError {
  return new PtermError(
    "CorruptInput",
    `the document's part ${part} is not well-formed XML (${(error as Error).message.split("\n")[0]}); ` +
      "the file is damaged — re-export it from the program that made it.",
  );
}

/** Thrown by a handler to stop reading a part early (not an error: the reader has what it needs). */
export class StopParsing extends Error {
  constructor() {
    super("stop parsing");
  }
}

export interface SaxHandlers {
  /** `attrs` are keyed by their written (possibly prefixed) names: streams read only plain attributes. */
  open?(name: string, attrs: Record<string, string>): void;
  close?(name: string): void;
  text?(text: string): void;
}

/** Streams `xml` through `handlers` (local element names; text and CDATA as text). */
export function saxParse(xml: string, part: string, handlers: SaxHandlers): void {
  const parser = new SaxesParser<SaxesOptions>({});
  if (handlers.open) {
    const open = handlers.open;
    parser.on("opentag", (tag) => open(localName(tag.name), tag.attributes as Record<string, string>));
  }
  if (handlers.close) {
    const close = handlers.close;
    parser.on("closetag", (tag) => close(localName(tag.name)));
  }
  if (handlers.text) {
    parser.on("text", handlers.text);
    parser.on("cdata", handlers.text);
  }
  try {
    parser.write(xml).close();
  } catch (error) {
    if (error instanceof PtermError || error instanceof StopParsing) throw error;
    throw malformed(part, error);
  }
}

/**
 * How deep an element tree may nest. Office writes a few dozen levels at most (groups in groups,
 * tables in tables); the readers walk trees recursively, so a part nested 100,000 deep would
 * overflow the stack. Deeper is refused with its own code before any walk starts.
 */
export const MAX_XML_DEPTH = 1000;

/** Parses a whole part into an element tree. */
export function parseXml(xml: string, part: string): XmlElement {
  const root: XmlElement = { name: "#document", attrs: {}, children: [] };
  const stack: XmlElement[] = [root];
  saxParse(xml, part, {
    open(name, attrs) {
      if (stack.length > MAX_XML_DEPTH) {
        throw new PtermError(
          "InputTooLarge",
          `the document's part ${part} nests elements more than ${MAX_XML_DEPTH} deep, which no Office program ` +
            "writes; pterm does not read it — re-save the document from the program that made it.",
        );
      }
      const element: XmlElement = { name, attrs: attributesOf(attrs), children: [] };
      stack[stack.length - 1].children.push(element);
      stack.push(element);
    },
    close() {
      stack.pop();
    },
    text(text) {
      if (stack.length > 1) stack[stack.length - 1].children.push(text);
    },
  });
  const top = root.children.find((c): c is XmlElement => typeof c !== "string");
  if (!top) throw malformed(part, new Error("no root element"));
  return top;
}

export function isElement(node: XmlNode): node is XmlElement {
  return typeof node !== "string";
}

export function childElements(element: XmlElement, name?: string): XmlElement[] {
  return element.children.filter((c): c is XmlElement => isElement(c) && (name === undefined || c.name === name));
}

export function child(element: XmlElement | undefined, name: string): XmlElement | undefined {
  if (!element) return undefined;
  for (const c of element.children) if (isElement(c) && c.name === name) return c;
  return undefined;
}

/** The first element at the end of a path of child names. */
export function path(element: XmlElement | undefined, ...names: string[]): XmlElement | undefined {
  let current = element;
  for (const name of names) current = child(current, name);
  return current;
}

/** Every descendant named `name`, in document order (not looking inside matches). */
export function descendants(element: XmlElement, name: string): XmlElement[] {
  const found: XmlElement[] = [];
  const visit = (e: XmlElement) => {
    for (const c of e.children) {
      if (!isElement(c)) continue;
      if (c.name === name) found.push(c);
      else visit(c);
    }
  };
  visit(element);
  return found;
}

/** All text below `element`, concatenated. */
export function textContent(element: XmlElement | undefined): string {
  if (!element) return "";
  let text = "";
  for (const c of element.children) text += isElement(c) ? textContent(c) : c;
  return text;
}

/** A relationship id attribute (`r:id`, `r:embed`, ...) whatever prefix the producer chose. */
export function relationshipAttr(element: XmlElement, local: string): string | undefined {
  for (const [name, value] of Object.entries(element.attrs)) {
    if (name !== local && localName(name) === local) return value;
  }
  return undefined;
}
