/**
 * Writes small PDFs for tests whose shape no shipped fixture has (a non-embedded CJK font that
 * relies on a predefined CMap): objects in order, a correct xref table and trailer.
 */

const encoder = new TextEncoder();

/** `objects[i]` is the body of object `i + 1`; object 1 must be the catalog. */
export function buildPdf(objects: string[]): Uint8Array {
  let body = "%PDF-1.7\n%\xE2\xE3\xCF\xD3\n";
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(encoder.encode(body).length);
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = encoder.encode(body).length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, "0")} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return encoder.encode(body);
}

/** A content stream object. */
export function stream(content: string): string {
  return `<< /Length ${encoder.encode(content).length} >>\nstream\n${content}\nendstream`;
}

/**
 * One page of text in a non-embedded CJK font addressed through a predefined CMap, as iText and
 * Acrobat write them for the Asian font packs (`STSong-Light` + `UniGB-UCS2-H`, `HeiseiMin-W3` +
 * `UniJIS-UCS2-H`, …): no ToUnicode map, so the text exists only through the CMap files.
 */
export function cjkPdf(font: string, cmap: string, registry: string, ordering: string, hexText: string): Uint8Array {
  return buildPdf([
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
    stream(`BT /F1 24 Tf 72 700 Td <${hexText}> Tj ET`),
    `<< /Type /Font /Subtype /Type0 /BaseFont /${font} /Encoding /${cmap} /DescendantFonts [6 0 R] >>`,
    `<< /Type /Font /Subtype /CIDFontType0 /BaseFont /${font} ` +
    `/CIDSystemInfo << /Registry (${registry}) /Ordering (${ordering}) /Supplement 2 >> /FontDescriptor 7 0 R /DW 1000 >>`,
    `<< /Type /FontDescriptor /FontName /${font} /Flags 6 /FontBBox [0 -200 1000 900] /ItalicAngle 0 ` +
    "/Ascent 880 /Descent -120 /CapHeight 880 /StemV 80 >>",
  ]);
}

/**
 * One page whose font's ToUnicode map sends codes to control characters (U+0001, U+0000), as
 * fonts converted without a real Unicode map do: the text is `A`, two controls, `B`.
 */
export function controlCharacterPdf(): Uint8Array {
  const cmap = "/CIDInit /ProcSet findresource begin 12 dict begin begincmap " +
    "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def /CMapName /Adobe-Identity-UCS def " +
    "/CMapType 2 def\n1 begincodespacerange <0000> <FFFF> endcodespacerange\n" +
    "4 beginbfchar <0001> <0001> <0002> <0000> <0041> <0041> <0042> <0042> endbfchar\n" +
    "endcmap CMapName currentdict /CMap defineresource pop end end";
  return buildPdf([
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
    stream("BT /F1 12 Tf 72 700 Td <0041000100020042> Tj ET"),
    "<< /Type /Font /Subtype /Type0 /BaseFont /Arial /Encoding /Identity-H /DescendantFonts [6 0 R] /ToUnicode 7 0 R >>",
    "<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Arial " +
    "/CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /DW 600 >>",
    stream(cmap),
  ]);
}
