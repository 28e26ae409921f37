/**
 * Reading the ZIP container of OOXML files (docx, pptx, xlsx) without trusting it.
 *
 * The central directory is only used to find entries: every byte an entry inflates to is
 * counted while it is produced, against one budget shared by the whole document, so a zip
 * bomb is stopped by what it really expands to, never by the sizes it claims. Inflation is the
 * runtime's native `DecompressionStream`, fed in small slices so that one slice can never
 * expand to more than a few MiB past the budget before the count sees it.
 */

import { PtermError } from "../../core/errors.ts";
import { concatBytes } from "../../core/bytes.ts";

const EOCD_SIGNATURE = 0x06054b50;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_EOCD_SIGNATURE = 0x06064b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
const ZIP64_EXTRA_ID = 0x0001;
const METHOD_STORED = 0;
const METHOD_DEFLATE = 8;
const FLAG_ENCRYPTED = 0x0001;
/** Deflate expands at most ~1032:1, so a 16 KiB slice yields at most ~16 MiB before it is counted. */
const INFLATE_SLICE_BYTES = 16 * 1024;

export interface ZipEntry {
  /** The name as stored, `/`-separated, without a leading `/`. */
  readonly name: string;
  readonly method: number;
  readonly flags: number;
  readonly compressedSize: number;
  readonly localHeaderOffset: number;
}

/** The inflation allowance of one document; every entry read spends from it. */
export class InflateBudget {
  #spent = 0;
  constructor(readonly limit: number) {}

  get spent(): number {
    return this.#spent;
  }

  spend(bytes: number, entry: string): void {
    this.#spent += bytes;
    if (this.#spent > this.limit) {
      throw new PtermError(
        "InputTooLarge",
        `the document expands to more than ${this.limit} bytes when unpacked (stopped while inflating ${entry}); ` +
          "it is either a zip bomb or larger than `doc.max_inflated_bytes` in pterm.json allows.",
      );
    }
  }
}

function corrupt(detail: string): PtermError {
  return new PtermError(
    "CorruptInput",
    `the file is not a readable ZIP container (${detail}); it may be truncated or damaged — ` +
      "re-export or re-download it.",
  );
}

export class ZipArchive {
  readonly #bytes: Uint8Array;
  readonly #view: DataView;
  readonly #byName = new Map<string, ZipEntry>();
  readonly #byLowerName = new Map<string, ZipEntry>();
  readonly budget: InflateBudget;

  private constructor(bytes: Uint8Array, entries: ZipEntry[], budget: InflateBudget) {
    this.#bytes = bytes;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.budget = budget;
    for (const entry of entries) {
      if (!this.#byName.has(entry.name)) this.#byName.set(entry.name, entry);
      // OPC part names are case-insensitive; producers disagree on case in relationship targets.
      const lower = entry.name.toLowerCase();
      if (!this.#byLowerName.has(lower)) this.#byLowerName.set(lower, entry);
    }
  }

  /** Reads the central directory; throws CorruptInput when it is missing or inconsistent. */
  static open(bytes: Uint8Array, budget: InflateBudget): ZipArchive {
    return new ZipArchive(bytes, readCentralDirectory(bytes), budget);
  }

  get names(): string[] {
    return [...this.#byName.keys()];
  }

  entry(name: string): ZipEntry | undefined {
    const clean = name.replace(/^\/+/, "");
    return this.#byName.get(clean) ?? this.#byLowerName.get(clean.toLowerCase());
  }

  has(name: string): boolean {
    return this.entry(name) !== undefined;
  }

  /** The entry's bytes, inflated under the budget; null when there is no such entry. */
  async read(name: string): Promise<Uint8Array | null> {
    const entry = this.entry(name);
    if (!entry) return null;
    if (entry.flags & FLAG_ENCRYPTED) {
      throw new PtermError(
        "EncryptedDocument",
        `the document's part ${entry.name} is encrypted; remove the password in the program that made it and retry.`,
      );
    }
    const data = this.#compressedData(entry);
    if (entry.method === METHOD_STORED) {
      this.budget.spend(data.length, entry.name);
      return data;
    }
    if (entry.method !== METHOD_DEFLATE) {
      throw corrupt(`${entry.name} uses compression method ${entry.method}, which Office files never use`);
    }
    return await inflateRaw(data, this.budget, entry.name);
  }

  /** The entry as UTF-8 (or UTF-16 with a BOM) text; null when absent. */
  async readText(name: string): Promise<string | null> {
    const bytes = await this.read(name);
    return bytes === null ? null : decodeXmlText(bytes);
  }

  #compressedData(entry: ZipEntry): Uint8Array {
    const offset = entry.localHeaderOffset;
    if (offset + 30 > this.#bytes.length || this.#view.getUint32(offset, true) !== LOCAL_SIGNATURE) {
      throw corrupt(`the local header of ${entry.name} is missing`);
    }
    const nameLength = this.#view.getUint16(offset + 26, true);
    const extraLength = this.#view.getUint16(offset + 28, true);
    const start = offset + 30 + nameLength + extraLength;
    const end = start + entry.compressedSize;
    if (end > this.#bytes.length) throw corrupt(`${entry.name} runs past the end of the file`);
    return this.#bytes.subarray(start, end);
  }
}

export function decodeXmlText(bytes: Uint8Array): string {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes);
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes);
  return new TextDecoder().decode(bytes);
}

async function inflateRaw(data: Uint8Array, budget: InflateBudget, name: string): Promise<Uint8Array> {
  let offset = 0;
  const source = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= data.length) {
        controller.close();
        return;
      }
      const end = Math.min(data.length, offset + INFLATE_SLICE_BYTES);
      controller.enqueue(data.slice(offset, end));
      offset = end;
    },
  }, { highWaterMark: 0 });
  const inflater = new DecompressionStream("deflate-raw") as unknown as ReadableWritablePair<Uint8Array, Uint8Array>;
  const reader = source.pipeThrough(inflater).getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      budget.spend(value.length, name);
      chunks.push(value);
      total += value.length;
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    if (error instanceof PtermError) throw error;
    throw corrupt(`${name} does not inflate: ${(error as Error).message}`);
  }
  return chunks.length === 1 ? chunks[0] : concatBytes(chunks);
}

function findEndOfCentralDirectory(bytes: Uint8Array, view: DataView): number {
  // The record is 22 bytes plus a comment of at most 65535 bytes, at the very end.
  const lowest = Math.max(0, bytes.length - 22 - 0xffff);
  for (let at = bytes.length - 22; at >= lowest; at--) {
    if (bytes[at] === 0x50 && view.getUint32(at, true) === EOCD_SIGNATURE) return at;
  }
  return -1;
}

function readCentralDirectory(bytes: Uint8Array): ZipEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const eocd = findEndOfCentralDirectory(bytes, view);
  if (eocd < 0) throw corrupt("no end-of-central-directory record");
  let count = view.getUint16(eocd + 10, true);
  let size = view.getUint32(eocd + 12, true);
  let offset = view.getUint32(eocd + 16, true);
  const locator = eocd - 20;
  if (locator >= 0 && view.getUint32(locator, true) === ZIP64_LOCATOR_SIGNATURE) {
    const zip64 = Number(view.getBigUint64(locator + 8, true));
    if (zip64 + 56 > bytes.length || view.getUint32(zip64, true) !== ZIP64_EOCD_SIGNATURE) {
      throw corrupt("a broken ZIP64 end record");
    }
    count = Number(view.getBigUint64(zip64 + 32, true));
    size = Number(view.getBigUint64(zip64 + 40, true));
    offset = Number(view.getBigUint64(zip64 + 48, true));
  }
  if (offset + size > bytes.length) throw corrupt("the central directory lies past the end of the file");
  const decoder = new TextDecoder();
  const entries: ZipEntry[] = [];
  let at = offset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== CENTRAL_SIGNATURE) {
      throw corrupt(`central directory entry ${i + 1} of ${count} is damaged`);
    }
    const flags = view.getUint16(at + 8, true);
    const method = view.getUint16(at + 10, true);
    let compressedSize = view.getUint32(at + 20, true);
    const uncompressedSize = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    let localHeaderOffset = view.getUint32(at + 42, true);
    const nameEnd = at + 46 + nameLength;
    if (nameEnd + extraLength + commentLength > bytes.length) throw corrupt("a central directory entry is cut off");
    const name = decoder.decode(bytes.subarray(at + 46, nameEnd)).replaceAll("\\", "/").replace(/^\/+/, "");
    // ZIP64: values saturated at 0xFFFFFFFF are in the extra field, in a fixed order.
    if (compressedSize === 0xffffffff || localHeaderOffset === 0xffffffff || uncompressedSize === 0xffffffff) {
      let extra = nameEnd;
      const extraEnd = nameEnd + extraLength;
      while (extra + 4 <= extraEnd) {
        const id = view.getUint16(extra, true);
        const length = view.getUint16(extra + 2, true);
        if (id === ZIP64_EXTRA_ID) {
          let field = extra + 4;
          if (uncompressedSize === 0xffffffff) field += 8;
          if (compressedSize === 0xffffffff) {
            compressedSize = Number(view.getBigUint64(field, true));
            field += 8;
          }
          if (localHeaderOffset === 0xffffffff) localHeaderOffset = Number(view.getBigUint64(field, true));
          break;
        }
        extra += 4 + length;
      }
    }
    entries.push({ name, method, flags, compressedSize, localHeaderOffset });
    at = nameEnd + extraLength + commentLength;
  }
  return entries;
}
