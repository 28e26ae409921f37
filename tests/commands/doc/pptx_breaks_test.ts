/**
 * Line breaks inside a PPTX paragraph (`<a:br/>`, Shift+Enter in PowerPoint) separate words in
 * titles, text frames and table cells: glued, `Internet Explorer 9` and
 * `HTML5` read as `Internet Explorer 9HTML5`. The slide is written here in PowerPoint's shape.
 */

import assert from "node:assert/strict";
import { exec, makeRoot } from "../../_support/helpers.ts";
import { writeZip } from "./zip_writer.ts";

const NS_P = "http://schemas.openxmlformats.org/presentationml/2006/main";
const NS_A = "http://schemas.openxmlformats.org/drawingml/2006/main";
const NS_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const NS_PKG_REL = "http://schemas.openxmlformats.org/package/2006/relationships";

const broken = (first: string, second: string) =>
  `<a:p><a:r><a:rPr lang="en-US"/><a:t>${first}</a:t></a:r><a:br><a:rPr lang="en-US"/></a:br>` +
  `<a:r><a:rPr lang="en-US"/><a:t>${second}</a:t></a:r></a:p>`;

const TITLE = `<p:sp><p:nvSpPr><p:cNvPr id="2" name="Title 1"/><p:cNvSpPr/><p:nvPr><p:ph type="title"/></p:nvPr>` +
  `</p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/>${broken("Internet Explorer 9", "HTML5")}</p:txBody></p:sp>`;
const TABLE = `<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="4" name="Table 3"/><p:cNvGraphicFramePr/><p:nvPr/>` +
  `</p:nvGraphicFramePr><p:xfrm><a:off x="0" y="3000000"/><a:ext cx="100" cy="100"/></p:xfrm><a:graphic>` +
  `<a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table"><a:tbl><a:tr h="100">` +
  `<a:tc><a:txBody><a:bodyPr/>${broken("17,542", "32,000")}</a:txBody></a:tc>` +
  `<a:tc><a:txBody><a:bodyPr/><a:p><a:r><a:t>total</a:t></a:r></a:p></a:txBody></a:tc>` +
  `</a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame>`;

Deno.test("doc extract: PPTX line breaks inside a paragraph separate words (title, table cell)", async () => {
  await using root = await makeRoot("pterm-doc-pptx-br-");
  await Deno.writeFile(
    `${root.path}/br.pptx`,
    await writeZip({
      "[Content_Types].xml":
        `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
      "ppt/presentation.xml": `<p:presentation xmlns:p="${NS_P}" xmlns:r="${NS_REL}"><p:sldIdLst>` +
        `<p:sldId id="256" r:id="rId1"/></p:sldIdLst></p:presentation>`,
      "ppt/_rels/presentation.xml.rels": `<Relationships xmlns="${NS_PKG_REL}"><Relationship Id="rId1" ` +
        `Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide1.xml"/>` +
        `</Relationships>`,
      "ppt/slides/slide1.xml":
        `<p:sld xmlns:p="${NS_P}" xmlns:a="${NS_A}"><p:cSld><p:spTree>${TITLE}${TABLE}</p:spTree></p:cSld></p:sld>`,
    }),
  );
  const envelope = await exec(root.path, "doc extract --in br.pptx --out br.md");
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  const md = await Deno.readTextFile(`${root.path}/br.md`);
  assert.match(md, /^# Internet Explorer 9 HTML5$/m);
  assert.match(md, /^\| 17,542<br>32,000 \| total \|$/m);
});
