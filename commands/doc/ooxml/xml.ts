/**
 * XML for the OOXML parts: a small streaming tokenizer of pterm's own (tags, attributes, text,
 * CDATA; comments, processing instructions and a DOCTYPE skipped). It expands only XML's five
 * predefined entities and character references — never a DTD's entities, so no "billion laughs"
 * — and refuses what is not well-formed (a mismatched or unclosed tag, an unknown entity, text
 * outside the root) as CorruptInput. It replaced saxes, whose loading as an npm module cost each
 * Office document ~20–30 ms before the first byte was read. Small parts become a light element
 * tree; large ones (worksheets, the Word body) are read as a stream of events by their reader.
 *
 * Element names are kept without their prefix: producers do not all use the same prefixes
 * (`a:`, `ns0:` or a default namespace), and the local names of the OOXML vocabularies we read
 * do not collide where we look. Attributes keep their written name, and are also reachable
 * by local name when no unprefixed attribute has it.
 */

import { PtermError } from "../../../core/errors.ts";

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

/** Why a part is not well-formed; turned into CorruptInput by `saxParse`. */
class NotWellFormed extends Error {}

const NAME = "[A-Za-z_:\\u00C0-\\uFFFF][\\w.:\\-\\u00B7\\u00C0-\\uFFFF]*";
const TAG_NAME = new RegExp(`<(${NAME})`, "y");
const ATTRIBUTE = new RegExp(`\\s+(${NAME})\\s*=\\s*(?:"([^"<]*)"|'([^'<]*)')`, "y");
const TAG_END = /\s*(\/?)>/y;
/** A processing instruction's target: a name, then white space or its end. */
const PI_TARGET = new RegExp(`(${NAME})(?:\\s|\\?>)`, "y");
const XML_DECLARATION =
  /<\?xml\s+version\s*=\s*(?:"1\.[0-9]+"|'1\.[0-9]+')(?:\s+encoding\s*=\s*(?:"[A-Za-z][\w.-]*"|'[A-Za-z][\w.-]*'))?(?:\s+standalone\s*=\s*(?:"(?:yes|no)"|'(?:yes|no)'))?\s*\?>/y;
const END_TAG = new RegExp(`</(${NAME})\\s*>`, "y");
const REFERENCE = /&([^;&\s]*);?/g;
const LAYOUT_WHITESPACE = /[\t\n\r]/;
/** Characters XML does not allow anywhere (its `Char` production); Office never writes them raw. */
// deno-lint-ignore no-control-regex -- finding control characters is the point
const NOT_XML_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;
/** XML's white space (its `S` production): JavaScript's trim() would also pass U+FEFF and others. */
const XML_SPACE = /^[ \t\r\n]*$/;
const PREDEFINED: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

/** Text with its entity and character references expanded (only XML's predefined entities exist here). */
function unescape(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(REFERENCE, (whole, name: string) => {
    if (!whole.endsWith(";")) throw new NotWellFormed(`"&" not followed by a reference (${whole.slice(0, 12)})`);
    if (name.startsWith("#")) {
      const hex = name[1] === "x";
      const digits = name.slice(hex ? 2 : 1);
      const code = /^[0-9A-Fa-f]+$/.test(digits) ? Number.parseInt(digits, hex ? 16 : 10) : NaN;
      if (!(code >= 1 && code <= 0x10FFFF) || (code >= 0xD800 && code <= 0xDFFF)) {
        throw new NotWellFormed(`invalid character reference ${whole}`);
      }
      return String.fromCodePoint(code);
    }
    const value = PREDEFINED[name];
    if (value === undefined) throw new NotWellFormed(`undefined entity ${whole}`);
    return value;
  });
}

/** Text between tags: line ends as XML normalizes them, references expanded. */
function textOf(raw: string): string {
  return unescape(raw.includes("\r") ? raw.replace(/\r\n?/g, "\n") : raw);
}

/** The attributes of the start tag at `from` (after its name); where they end is left in ATTRIBUTE.lastIndex. */
function attributesAt(xml: string, from: number): { attrs: Record<string, string>; end: number } {
  const attrs: Record<string, string> = {};
  let at = from;
  for (;;) {
    ATTRIBUTE.lastIndex = at;
    const match = ATTRIBUTE.exec(xml);
    if (match === null) break;
    at = ATTRIBUTE.lastIndex;
    const name = match[1];
    if (name in attrs) throw new NotWellFormed(`attribute ${name} given twice`);
    let value = match[2] ?? match[3];
    // Line ends are normalized first (CR LF and a lone CR become LF), then attribute-value
    // normalization makes each literal tab and line end one space.
    if (LAYOUT_WHITESPACE.test(value)) value = value.replace(/\r\n?/g, "\n").replace(/[\t\n]/g, " ");
    attrs[name] = value.includes("&") ? unescape(value) : value;
  }
  return { attrs, end: at };
}

/** Streams `xml` through `handlers` (local element names; text and CDATA as text). */
export function saxParse(xml: string, part: string, handlers: SaxHandlers): void {
  try {
    tokenize(xml, handlers);
  } catch (error) {
    if (error instanceof PtermError || error instanceof StopParsing) throw error;
    throw malformed(part, error);
  }
}

function tokenize(xml: string, handlers: SaxHandlers): void {
  const { open, close, text } = handlers;
  const stack: string[] = [];
  let rootSeen = false;
  const invalid = NOT_XML_CHAR.exec(xml);
  if (invalid) {
    const code = invalid[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
    throw new NotWellFormed(`the character U+${code} at ${invalid.index} is not allowed in XML`);
  }
  const start = xml.charCodeAt(0) === 0xFEFF ? 1 : 0;
  let i = start;
  const n = xml.length;
  while (i < n) {
    const lt = xml.indexOf("<", i);
    const end = lt < 0 ? n : lt;
    if (end > i) {
      const raw = xml.slice(i, end);
      if (raw.includes("]]>")) throw new NotWellFormed(`"]]>" in text at ${i}`);
      if (stack.length > 0) text?.(textOf(raw));
      else if (!XML_SPACE.test(raw)) throw new NotWellFormed("text outside the root element");
    }
    if (lt < 0) break;
    const next = xml.charCodeAt(lt + 1);
    if (next === 0x2F /* / */) {
      END_TAG.lastIndex = lt;
      const match = END_TAG.exec(xml);
      if (!match) throw new NotWellFormed(`malformed end tag at ${lt}`);
      const open = stack.pop();
      if (open !== match[1]) {
        throw new NotWellFormed(`</${match[1]}> closes ${open === undefined ? "nothing" : `<${open}>`}`);
      }
      close?.(localName(match[1]));
      i = END_TAG.lastIndex;
    } else if (next === 0x3F /* ? */) {
      const close = xml.indexOf("?>", lt + 2);
      if (close < 0) throw new NotWellFormed("unterminated processing instruction");
      PI_TARGET.lastIndex = lt + 2;
      const target = PI_TARGET.exec(xml);
      if (!target) throw new NotWellFormed(`malformed processing instruction at ${lt}`);
      if (target[1].toLowerCase() === "xml") {
        // The XML declaration: only first, and only with its own pseudo-attributes.
        XML_DECLARATION.lastIndex = lt;
        if (lt !== start || !XML_DECLARATION.test(xml)) {
          throw new NotWellFormed(`misplaced or malformed <?xml?> at ${lt}`);
        }
      }
      i = close + 2;
    } else if (next === 0x21 /* ! */) {
      if (xml.startsWith("<!--", lt)) {
        const close = xml.indexOf("-->", lt + 4);
        if (close < 0) throw new NotWellFormed("unterminated comment");
        if (xml.indexOf("--", lt + 4) !== close) throw new NotWellFormed(`"--" inside the comment at ${lt}`);
        i = close + 3;
      } else if (xml.startsWith("<![CDATA[", lt)) {
        const close = xml.indexOf("]]>", lt + 9);
        if (close < 0) throw new NotWellFormed("unterminated CDATA section");
        if (stack.length === 0) throw new NotWellFormed("CDATA outside the root element");
        const cdata = xml.slice(lt + 9, close);
        // Line ends are normalized everywhere in the document, CDATA included.
        text?.(cdata.includes("\r") ? cdata.replace(/\r\n?/g, "\n") : cdata);
        i = close + 3;
      } else if (xml.startsWith("<!DOCTYPE", lt) && !rootSeen) {
        // Skipped whole, internal subset included: its entities are never defined, so never expanded.
        let depth = 0;
        let j = lt + 9;
        for (; j < n; j++) {
          const c = xml[j];
          if (c === "[") depth++;
          else if (c === "]") depth--;
          else if (c === ">" && depth <= 0) break;
        }
        if (j >= n) throw new NotWellFormed("unterminated DOCTYPE");
        i = j + 1;
      } else throw new NotWellFormed(`unexpected markup at ${lt}`);
    } else {
      TAG_NAME.lastIndex = lt;
      const named = TAG_NAME.exec(xml);
      if (!named) throw new NotWellFormed(`malformed start tag at ${lt}`);
      const { attrs, end } = attributesAt(xml, TAG_NAME.lastIndex);
      TAG_END.lastIndex = end;
      const ending = TAG_END.exec(xml);
      if (!ending) throw new NotWellFormed(`malformed start tag at ${lt}`);
      if (stack.length === 0 && rootSeen) throw new NotWellFormed("a second root element");
      rootSeen = true;
      const name = named[1];
      open?.(localName(name), attrs);
      if (ending[1]) close?.(localName(name));
      else stack.push(name);
      i = TAG_END.lastIndex;
    }
  }
  if (stack.length > 0) throw new NotWellFormed(`<${stack[stack.length - 1]}> is never closed`);
  if (!rootSeen) throw new NotWellFormed("no root element");
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
