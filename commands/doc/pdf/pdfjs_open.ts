/**
 * Opening a document with PDF.js (unpdf's serverless build), loaded only when it is needed: the
 * font programs bounded first (font_guard.ts), the vendored CMaps as the only data PDF.js may
 * read, PDF.js's document side on a port in this thread, and PDF.js's failures told as pterm's
 * errors (a password-protected PDF, a damaged one).
 */

import type { getDocumentProxy } from "unpdf";
import { PtermError } from "../../../core/errors.ts";
import { boundFontPrograms } from "./reader/font_guard.ts";

export type PdfDocument = Awaited<ReturnType<typeof getDocumentProxy>>;

type Unpdf = typeof import("unpdf");

let unpdfModule: Promise<Unpdf> | null = null;

/** unpdf (PDF.js), loaded only when PDF.js reads the document: ~60–75 ms pterm's own reader does not pay. */
export function unpdf(): Promise<Unpdf> {
  return unpdfModule ??= import("unpdf");
}

/**
 * PDF.js's predefined CMaps (UniGB-UCS2-H, 90ms-RKSJ-H, …: CJK fonts that are not embedded or
 * carry no ToUnicode map), vendored from pdfjs-dist 6.1.200 — the PDF.js build unpdf 1.8.1
 * bundles — into pterm's own code folder: the sandbox worker may read it, the compiled binary
 * includes it, and nothing is fetched at run time. Without them such a PDF loses all its text.
 */
const CMAP_DIR = new URL("./cmaps/", import.meta.url);

/** CMap names are PDF names chosen by the document: only plain file names are looked up. */
const CMAP_FILE = /^[A-Za-z0-9_.+-]+\.bcmap$/;

/** PDF.js's binary-data hook (its `BinaryDataFactory` option): reads CMaps from CMAP_DIR only. */
class VendoredBinaryData {
  constructor(_options: unknown) {}
  async fetch({ kind, filename }: { kind: string; filename: string }): Promise<Uint8Array> {
    if (kind !== "cMapUrl" || !CMAP_FILE.test(filename)) {
      throw new Error(`no ${kind} data "${filename}" is shipped with pterm`);
    }
    try {
      return await Deno.readFile(new URL(filename, CMAP_DIR));
    } catch {
      throw new Error(`no CMap "${filename}" is shipped with pterm`);
    }
  }
}

/**
 * A copy of a message as `structuredClone` makes it, for the data PDF.js sends between its two
 * sides: plain objects and arrays copied member by member (class instances become plain objects
 * of their own enumerable properties), Maps and Sets copied, binary data passed as it is (PDF.js
 * sends it transferred or never touches it again). Anything else (errors, dates) goes through
 * `structuredClone`, and so does a message this cannot copy (a cycle).
 */
function copyMessage(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    const copy = new Array(value.length);
    for (let i = 0; i < value.length; i++) copy[i] = copyMessage(value[i]);
    return copy;
  }
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return value;
  if (value instanceof Map) return new Map([...value].map(([k, v]) => [copyMessage(k), copyMessage(v)]));
  if (value instanceof Set) return new Set([...value].map(copyMessage));
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null && !isPlainClass(prototype)) return structuredClone(value);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) copy[key] = copyMessage((value as Record<string, unknown>)[key]);
  return copy;
}

/** An instance of a class of PDF.js's own (not a built-in such as Error, Date or RegExp), cloned as a plain object. */
function isPlainClass(prototype: object): boolean {
  for (let p: object | null = prototype; p !== null; p = Object.getPrototypeOf(p)) {
    if (p === Object.prototype) return true;
    if (BUILT_IN_PROTOTYPES.has(p)) return false;
  }
  return true;
}

const BUILT_IN_PROTOTYPES = new Set<object>([
  Error.prototype,
  Date.prototype,
  RegExp.prototype,
  Promise.prototype,
  Number.prototype,
  String.prototype,
  Boolean.prototype,
]);

/**
 * The port between PDF.js's document side and its API side, both in this thread (pterm runs no
 * PDF.js worker of its own: the sandbox worker is the thread). PDF.js's own in-thread port
 * (`LoopbackPort`) copies each message with `structuredClone`, which costs ~10–15% of the CPU of
 * a long document (every text item goes through Deno's serializer); this one copies in
 * JavaScript (`copyMessage`), at the same moment, so a sender that reuses an object after
 * posting it (PDF.js empties its operator-list arrays in place) still cannot reach the copy.
 * Messages are delivered in order, each in its own microtask, as `LoopbackPort` does.
 */
class InThreadPort {
  #listeners = new Set<(event: { data: unknown }) => void>();
  #delivered = Promise.resolve();
  postMessage(message: unknown): void {
    let data: unknown;
    try {
      data = copyMessage(message);
    } catch {
      data = structuredClone(message);
    }
    const event = { data };
    this.#delivered.then(() => {
      for (const listener of this.#listeners) listener.call(this, event);
    });
  }
  addEventListener(_type: string, listener: (event: { data: unknown }) => void): void {
    this.#listeners.add(listener);
  }
  removeEventListener(_type: string, listener: (event: { data: unknown }) => void): void {
    this.#listeners.delete(listener);
  }
  terminate(): void {
    this.#listeners.clear();
  }
}

/**
 * pterm's two shortcuts through PDF.js, each giving what PDF.js's plain path gives at less cost:
 * its `InThreadPort` instead of PDF.js's `LoopbackPort`, and one `getAnnotationsByType` call
 * instead of each page's `getAnnotations` (`textAnnotationsByPage`). Turned off only by the test
 * that compares both ways on real PDFs.
 */
export const pdfjsShortcuts = { inThreadPort: true, annotationsByType: true };

/** PDF.js's `VerbosityLevel.ERRORS`: nothing of PDF.js's own reaches the console unless it fails. */
const PDFJS_ERRORS_ONLY = 0;

/** PDF.js's document side on an `InThreadPort`, as a `worker` for `getDocument`; null to let PDF.js set up its own. */
async function inThreadWorker(): Promise<unknown> {
  if (!pdfjsShortcuts.inThreadPort) return null;
  const pdfjs = await (await unpdf()).getResolvedPDFJS() as unknown as {
    PDFWorker?: new (options: { port: unknown; verbosity: number }) => unknown;
  };
  // The bundle registers its document side here (what PDF.js's own in-thread set-up uses).
  const documentSide =
    (globalThis as { pdfjsWorker?: { WorkerMessageHandler?: { initializeFromPort(port: unknown): void } } })
      .pdfjsWorker?.WorkerMessageHandler;
  if (!pdfjs.PDFWorker || !documentSide) return null;
  const port = new InThreadPort();
  documentSide.initializeFromPort(port);
  // The document side takes its verbosity from this object (its `configure` message), not from
  // getDocument's: without it, PDF.js's warnings went to the process's stderr, past the envelope.
  return new pdfjs.PDFWorker({ port, verbosity: PDFJS_ERRORS_ONLY });
}

export async function open(bytes: Uint8Array, maxInflatedBytes: number): Promise<PdfDocument> {
  // No embedded font program reaches PDF.js with a table longer than the program (font_guard.ts).
  const bounded = boundFontPrograms(bytes, maxInflatedBytes);
  try {
    const worker = await inThreadWorker();
    // PDF.js takes over (detaches) the buffer it is given; the caller keeps its own.
    return await (await unpdf()).getDocumentProxy(
      bounded === bytes ? bytes.slice() : bounded,
      {
        // Text only: no font faces, system fonts, image decoders or WASM assets (the sandbox can
        // fetch none of them), and no console noise.
        useSystemFonts: false,
        disableFontFace: true,
        useWasm: false,
        isImageDecoderSupported: false,
        isOffscreenCanvasSupported: false,
        // Drawing operators are read for table rules only: every image is skipped, never decoded
        // (a JBIG2 or JPEG bomb costs nothing).
        maxImageSize: 1,
        verbosity: PDFJS_ERRORS_ONLY,
        // CMaps are read by the main thread's factory (there is no separate PDF.js worker here).
        useWorkerFetch: false,
        cMapUrl: "pterm-cmaps/",
        cMapPacked: true,
        BinaryDataFactory: VendoredBinaryData,
        ...(worker ? { worker } : {}),
      } as Parameters<typeof getDocumentProxy>[1],
    );
  } catch (error) {
    throw classify(error);
  }
}

function classify(error: unknown): PtermError {
  const name = (error as { name?: string })?.name ?? "";
  const message = (error as Error)?.message ?? String(error);
  if (name === "PasswordException") {
    return new PtermError(
      "EncryptedDocument",
      "the PDF is password-protected; pterm takes no passwords — open it with its password elsewhere, " +
        "save an unprotected copy into the workspace and extract that.",
    );
  }
  return new PtermError(
    "CorruptInput",
    `the PDF cannot be read (${message}); it may be truncated or damaged — re-export or re-download it.`,
  );
}

export async function metadata(pdf: PdfDocument): Promise<Record<string, unknown>> {
  try {
    return ((await pdf.getMetadata()).info ?? {}) as Record<string, unknown>;
  } catch {
    return {};
  }
}
