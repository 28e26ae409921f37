/**
 * Writes ZIP packages for tests (OOXML shapes that shipped fixtures do not have, and hostile
 * ones): every entry deflated with the runtime's own `CompressionStream`, a plain central
 * directory, no ZIP64.
 */

const encoder = new TextEncoder();

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

async function deflateRaw(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/**
 * A ZIP holding `entries` (name → text or bytes), in the given order. `claimedSizes` makes the
 * headers lie about an entry's uncompressed size, as a zip bomb does.
 */
export async function writeZip(
  entries: Record<string, string | Uint8Array>,
  options: { claimedSizes?: Record<string, number> } = {},
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(entries)) {
    const data = typeof content === "string" ? encoder.encode(content) : content;
    const packed = await deflateRaw(data);
    const nameBytes = encoder.encode(name);
    const crc = crc32(data);
    const size = options.claimedSizes?.[name] ?? data.length;
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    local.setUint16(4, 20, true);
    local.setUint16(8, 8, true);
    local.setUint32(14, crc, true);
    local.setUint32(18, packed.length, true);
    local.setUint32(22, size, true);
    local.setUint16(26, nameBytes.length, true);
    const record = new DataView(new ArrayBuffer(46));
    record.setUint32(0, 0x02014b50, true);
    record.setUint16(4, 20, true);
    record.setUint16(6, 20, true);
    record.setUint16(10, 8, true);
    record.setUint32(16, crc, true);
    record.setUint32(20, packed.length, true);
    record.setUint32(24, size, true);
    record.setUint16(28, nameBytes.length, true);
    record.setUint32(42, offset, true);
    chunks.push(new Uint8Array(local.buffer), nameBytes, packed);
    central.push(new Uint8Array(record.buffer), nameBytes);
    offset += 30 + nameBytes.length + packed.length;
  }
  const centralSize = central.reduce((sum, c) => sum + c.length, 0);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, Object.keys(entries).length, true);
  end.setUint16(10, Object.keys(entries).length, true);
  end.setUint32(12, centralSize, true);
  end.setUint32(16, offset, true);
  const all = [...chunks, ...central, new Uint8Array(end.buffer)];
  const out = new Uint8Array(all.reduce((sum, c) => sum + c.length, 0));
  let at = 0;
  for (const c of all) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** Every entry of a ZIP written by Office or LibreOffice, read with pterm's own reader. */
export async function readZipEntries(bytes: Uint8Array): Promise<Record<string, Uint8Array>> {
  const { ZipArchive, InflateBudget } = await import("../../../commands/doc/zip.ts");
  const zip = ZipArchive.open(bytes, new InflateBudget(1 << 30));
  const out: Record<string, Uint8Array> = {};
  for (const name of zip.names) out[name] = (await zip.read(name))!;
  return out;
}
