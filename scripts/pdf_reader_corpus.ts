/**
 * pterm's own PDF reader against PDF.js on a list of real PDFs (one path a line; not for CI):
 * how many it accepts, and of those how many extract identically through both paths.
 *   deno run -A --no-check scripts/pdf_reader_corpus.ts <list of PDF paths> [from] [to]
 *
 * The README reports its counts on 1,044 real PDFs (the fixtures, the PDFs of a Debian machine's
 * documentation, PDF.js's and pypdf's test corpora). Differences must be 0: any one is a bug in the
 * reader or in what it accepts. Not run in CI (the corpus is not in the repository).
 */
import { isDeepStrictEqual } from "node:util";
import { extractPdf, extractWithPtermReader, pdfReaders } from "../commands/doc/pdf.ts";

const list = Deno.readTextFileSync(Deno.args[0]).split("\n").filter(Boolean);
const from = Number(Deno.args[1] ?? 0), to = Number(Deno.args[2] ?? list.length);
const options = () => ({
  signal: AbortSignal.timeout(300_000),
  charBudget: 10_000_000,
  memoryBytes: 1 << 30,
  maxInflatedBytes: 500 * 1024 * 1024,
});
const reasons = new Map<string, number>();
let accepted = 0, identical = 0, different = 0;
for (const file of list.slice(from, to)) {
  let bytes: Uint8Array;
  try {
    bytes = Deno.readFileSync(file);
  } catch {
    continue;
  }
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
for (const [reason, n] of [...reasons].sort((a, b) => b[1] - a[1])) console.log(`  refused ${n}\t${reason}`);
