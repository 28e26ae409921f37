// deno-lint-ignore-file no-console -- a script: printing is its output
/**
 * pterm's own PDF reader against PDF.js on a list of real PDFs (one path a line; not for CI):
 * how many it accepts, and of those how many extract identically through both paths; the same
 * for `doc info`; and on every page the reader reads, whether its drawing (what ruled-table
 * detection reads) is PDF.js's operator list's.
 *   deno run -A --no-check scripts/pdf_reader_corpus.ts <list of PDF paths> [from] [to]
 *
 * The README reports its counts on 1,044 real PDFs (the fixtures, the PDFs of a Debian machine's
 * documentation, PDF.js's and pypdf's test corpora). Differences must be 0: any one is a bug in the
 * reader or in what it accepts. Not run in CI (the corpus is not in the repository).
 */
import { isDeepStrictEqual } from "node:util";
import { extractPdf, extractWithPtermReader, infoPdf, pdfReaders } from "../commands/doc/pdf/pdf.ts";
import { openPdf, readPdfInfo } from "../commands/doc/pdf/reader/reader.ts";
import { drawingOf, type DrawingOp, type Ops } from "../commands/doc/pdf/tables.ts";
import { getResolvedPDFJS } from "unpdf";

const list = Deno.readTextFileSync(Deno.args[0]).split("\n").filter(Boolean);
const from = Number(Deno.args[1] ?? 0), to = Number(Deno.args[2] ?? list.length);
const options = () => ({
  signal: AbortSignal.timeout(300_000),
  charBudget: 10_000_000,
  memoryBytes: 1 << 30,
  maxInflatedBytes: 500 * 1024 * 1024,
});
const reasons = new Map<string, number>();
const pdfjs = await getResolvedPDFJS();
let drawn = 0, drawnIdentical = 0, drawnDifferent = 0, drawnUncertain = 0;

/** A drawing spelled out, `save` right before `restore` dropped (an image's mask: no rule between). */
function comparable(drawing: readonly DrawingOp[]): string {
  const out: DrawingOp[] = [];
  for (const op of drawing) {
    if (op.op === "restore" && out[out.length - 1]?.op === "save") out.pop();
    else out.push(op);
  }
  return JSON.stringify(out, (_, value) => ArrayBuffer.isView(value) ? Array.from(value as Float32Array) : value);
}

/** Every page the reader reads (accepted document or not): its drawing against PDF.js's operator list. */
async function compareDrawings(file: string, bytes: Uint8Array): Promise<void> {
  let pdf;
  try {
    pdf = openPdf(bytes, 500 * 1024 * 1024);
  } catch {
    return;
  }
  let doc: Awaited<ReturnType<typeof pdfjs.getDocument>["promise"]> | null = null;
  try {
    for (let number = 1; number <= pdf.numPages; number++) {
      let page;
      try {
        page = pdf.page(number);
      } catch {
        continue;
      }
      drawn++;
      if (page.drawingUncertain !== null) {
        drawnUncertain++;
        continue;
      }
      doc ??= await pdfjs.getDocument({ data: bytes.slice(), verbosity: 0 }).promise;
      const list = await (await doc.getPage(number)).getOperatorList();
      if (comparable(page.drawing) === comparable(drawingOf(list, pdfjs.OPS as unknown as Ops))) drawnIdentical++;
      else {
        drawnDifferent++;
        console.log(`DRAWING DIFFERENT\t${file}\tpage ${number}`);
      }
    }
  } catch (error) {
    console.log(`DRAWING THREW\t${file}\t${(error as Error).message}`);
  } finally {
    await doc?.loadingTask.destroy();
  }
}
let accepted = 0, identical = 0, different = 0;
let infoAccepted = 0, infoIdentical = 0, infoDifferent = 0;
for (const file of list.slice(from, to)) {
  let bytes: Uint8Array;
  try {
    bytes = Deno.readFileSync(file);
  } catch {
    continue;
  }
  if (!("unsupported" in readPdfInfo(bytes, 500 * 1024 * 1024))) {
    infoAccepted++;
    const mine = await infoPdf(bytes).catch((error) => ({ error: String(error) }));
    pdfReaders.ptermFirst = false;
    const theirs = await infoPdf(bytes).catch((error) => ({ error: String(error) }));
    pdfReaders.ptermFirst = true;
    if (isDeepStrictEqual(mine, theirs)) infoIdentical++;
    else {
      infoDifferent++;
      console.log(`INFO DIFFERENT\t${file}\t${JSON.stringify(mine)}\t${JSON.stringify(theirs)}`);
    }
  }
  await compareDrawings(file, bytes);
  let fast;
  try {
    fast = await extractWithPtermReader(bytes, options());
  } catch (error) {
    console.log(`THREW\t${file}\t${(error as Error).message}`);
    different++;
    continue;
  }
  if ("unsupported" in fast) {
    const reason = fast.unsupported.replace(/\(.*\)/, "").replace(/\d+/g, "N").trim();
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    continue;
  }
  accepted++;
  pdfReaders.ptermFirst = false;
  let slow;
  try {
    slow = await extractPdf(bytes, options());
  } catch (error) {
    slow = { error: (error as { code?: string }).code ?? String(error) };
  } finally {
    pdfReaders.ptermFirst = true;
  }
  if (isDeepStrictEqual(fast, slow)) identical++;
  else {
    different++;
    console.log(`DIFFERENT\t${file}`);
  }
}
console.log(`files ${to - from}, accepted ${accepted}, identical ${identical}, different ${different}`);
console.log(`doc info: accepted ${infoAccepted}, identical ${infoIdentical}, different ${infoDifferent}`);
console.log(
  `drawing (pages the reader reads): ${drawn}, identical ${drawnIdentical}, different ${drawnDifferent}, ` +
    `uncertain ${drawnUncertain} (table pages among these go to PDF.js)`,
);
for (const [reason, n] of [...reasons].sort((a, b) => b[1] - a[1])) console.log(`  refused ${n}\t${reason}`);
