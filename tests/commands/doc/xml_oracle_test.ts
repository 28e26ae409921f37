/**
 * pterm's own XML tokenizer (commands/doc/ooxml/xml.ts) against saxes, the conforming parser it
 * replaced, on random documents: on every well-formed document both report the same elements,
 * attributes and text; on a document damaged at a random place pterm refuses whenever saxes
 * does, and otherwise reads exactly what saxes reads. saxes is only the oracle here: the
 * readers do not load it (its load cost each Office document 20–30 ms).
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { SaxesParser } from "saxes";
import { localName, saxParse } from "../../../commands/doc/ooxml/xml.ts";
import { PtermError } from "../../../core/errors.ts";

type Event = ["open", string, Record<string, string>] | ["close", string] | ["text", string];

/** Adjacent text events joined: parsers may cut text anywhere (around references, CDATA). */
function pushText(events: Event[], text: string): void {
  if (text === "") return;
  const last = events[events.length - 1];
  if (last?.[0] === "text") last[1] += text;
  else events.push(["text", text]);
}

function ptermEvents(xml: string): Event[] | "refused" {
  const events: Event[] = [];
  try {
    saxParse(xml, "part.xml", {
      open: (name, attrs) => events.push(["open", name, { ...attrs }]),
      close: (name) => events.push(["close", name]),
      text: (text) => pushText(events, text),
    });
  } catch (error) {
    if (error instanceof PtermError && error.code === "CorruptInput") return "refused";
    throw error;
  }
  return events;
}

/** saxes's events, and whether it found the document not well-formed (it reads on past an error). */
function saxesRead(xml: string): { events: Event[]; failed: boolean } {
  const events: Event[] = [];
  const parser = new SaxesParser({ xmlns: false });
  let failed = false;
  parser.on("error", () => {
    failed = true;
  });
  parser.on("opentag", (tag) => {
    const attrs: Record<string, string> = {};
    for (const [name, value] of Object.entries(tag.attributes)) attrs[name] = value as string;
    events.push(["open", localName(tag.name), attrs]);
  });
  parser.on("closetag", (tag) => events.push(["close", localName(tag.name)]));
  parser.on("text", (text) => {
    if (events.length > 0) pushText(events, text);
  });
  parser.on("cdata", (text) => pushText(events, text));
  try {
    parser.write(xml).close();
  } catch {
    failed = true;
  }
  return { events, failed };
}

function saxesEvents(xml: string): Event[] | "refused" {
  const { events, failed } = saxesRead(xml);
  return failed ? "refused" : events;
}

/** Text as Office writes it: letters, CJK, spaces and line ends, the five escapes, character references. */
const textPiece = fc.oneof(
  fc.constantFrom("a", "Zz", " ", "  ", "\n", "\r\n", "\t", "é", "中文", "😀", "1,234", ">", "'", '"', "] x"),
  fc.constantFrom("&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&#65;", "&#x4E2D;", "&#x1F600;", "&#10;"),
);
const text = fc.array(textPiece, { maxLength: 6 }).map((parts) => parts.join(""));
const attrValue = fc.array(
  fc.oneof(textPiece.filter((p) => p !== "'" && p !== '"')),
  { maxLength: 4 },
).map((parts) => parts.join(""));
const name = fc.constantFrom("w:p", "w:r", "w:t", "a:t", "p", "row", "c", "v", "ns0:tbl", "x_y", "é", "中");
const attrName = fc.constantFrom("w:val", "r:id", "val", "xml:space", "t", "s", "ref");

interface Tree {
  readonly name: string;
  readonly attrs: Array<[string, string, "'" | '"']>;
  readonly children: Array<Tree | { text: string } | { cdata: string } | { comment: string }>;
}

const tree: fc.Arbitrary<Tree> = fc.letrec<{ node: Tree }>((tie) => ({
  node: fc.record({
    name,
    attrs: fc.uniqueArray(fc.tuple(attrName, attrValue, fc.constantFrom<"'" | '"'>("'", '"')), {
      maxLength: 3,
      selector: ([n]) => n,
    }),
    children: fc.array(
      fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        text.map((t) => ({ text: t })),
        fc.string({ maxLength: 8 }).map((s) => s.replaceAll("]]>", "")).chain((s) =>
          fc.constantFrom(s, `${s}\r\n`, `\r${s}`).map((cdata) => ({ cdata }))
        ),
        fc.constantFrom("note", " x ").map((c) => ({ comment: c })),
        tie("node"),
      ),
      { maxLength: 4 },
    ),
  }),
})).node;

function render(node: Tree): string {
  const attrs = node.attrs.map(([n, v, q]) => ` ${n}=${q}${v}${q}`).join("");
  if (node.children.length === 0) return `<${node.name}${attrs}/>`;
  const inner = node.children.map((c) =>
    "name" in c ? render(c) : "text" in c ? c.text : "cdata" in c ? `<![CDATA[${c.cdata}]]>` : `<!--${c.comment}-->`
  ).join("");
  return `<${node.name}${attrs}>${inner}</${node.name}>`;
}

const document = fc.tuple(tree, fc.boolean(), fc.boolean()).map(([root, declaration, bom]) =>
  `${bom ? "\uFEFF" : ""}${declaration ? '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n' : ""}${
    render(root)
  }`
);

Deno.test("pterm's XML tokenizer reads every well-formed document as saxes does", () => {
  fc.assert(
    fc.property(document, (xml) => {
      const expected = saxesEvents(xml.replace(/^\uFEFF/, ""));
      assert.notEqual(expected, "refused", `the generator made a document saxes refuses: ${xml}`);
      assert.deepEqual(ptermEvents(xml), expected, xml);
    }),
    { numRuns: 5000 },
  );
});

Deno.test("on a damaged document pterm refuses where saxes does, else reads what saxes reads", () => {
  const damage = fc.constantFrom(
    "<",
    "&",
    "&bogus;",
    "</x>",
    "<a>",
    ">",
    '"',
    "]]>",
    "<!--",
    "&#0;",
    "&#xD800;",
    "&#x110000;",
    "<?pi x?>",
    "<!DOCTYPE x>",
    "\u0001",
    "\u0000",
    "\uFFFE",
    '<a b="1" b="2"/>',
  );
  fc.assert(
    fc.property(document, fc.nat(), damage, fc.boolean(), (xml, at, insert, cut) => {
      let place = at % (xml.length + 1);
      // Parts are decoded from UTF-8, so a string never holds half a surrogate pair: damage whole characters.
      const before = xml.charCodeAt(place - 1);
      if (before >= 0xD800 && before <= 0xDBFF) place++;
      const damaged = cut ? xml.slice(0, place) : xml.slice(0, place) + insert + xml.slice(place);
      const ours = ptermEvents(damaged);
      if (ours === "refused") return;
      const theirs = saxesEvents(damaged.replace(/^\uFEFF/, ""));
      assert.notEqual(theirs, "refused", `pterm read what saxes refuses: ${JSON.stringify(damaged)}`);
      assert.deepEqual(ours, theirs, JSON.stringify(damaged));
    }),
    { numRuns: 10000 },
  );
});
