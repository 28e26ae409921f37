/**
 * How closely `doc extract --mode text` agrees with poppler's `pdftotext` on the PDF fixtures,
 * word by word (needs Debian's poppler-utils):
 *
 *   deno run -A scripts/doc_agreement.ts [file.pdf ...]
 *
 * Both texts are split into words (Unicode NFKC, split on white space) and aligned in order
 * with a Myers diff; agreement = 2·matched / (words of pterm + words of pdftotext), the F1 of
 * the alignment. Recall says how much of pdftotext's text pterm has, precision how much of
 * pterm's text pdftotext has. Word order counts: a page read in the wrong order scores low.
 */

import { diffArrays } from "diff";
import { commands } from "../commands/index.ts";
import { Registry } from "../core/registry.ts";
import { execute } from "../core/runtime.ts";

export const PDF_FIXTURES = new URL("../tests/fixtures/doc/", import.meta.url);

export interface Agreement {
  readonly file: string;
  readonly ptermWords: number;
  readonly pdftotextWords: number;
  readonly matched: number;
  readonly agreement: number;
  readonly recall: number;
  readonly precision: number;
}

/**
 * Words for comparison. pdftotext wraps right-to-left lines in bidi embedding marks, which are not
 * text, and leaves a dotless ı under a combining accent (`naı̈ve`) where pterm writes `ï`.
 */
export function words(text: string): string[] {
  return text.replace(/\u0131(\p{M})/gu, "i$1").normalize("NFKC").replace(/[\u202A-\u202E\u2066-\u2069]/g, "")
    .split(/\s+/).filter((w) => w.length > 0);
}

export function compareWords(file: string, pterm: string[], reference: string[]): Agreement {
  let matched = 0;
  for (const part of diffArrays(pterm, reference)) if (!part.added && !part.removed) matched += part.count ?? 0;
  const total = pterm.length + reference.length;
  return {
    file,
    ptermWords: pterm.length,
    pdftotextWords: reference.length,
    matched,
    agreement: total === 0 ? 1 : (2 * matched) / total,
    recall: reference.length === 0 ? 1 : matched / reference.length,
    precision: pterm.length === 0 ? 1 : matched / pterm.length,
  };
}

export async function pdftotext(path: string): Promise<string> {
  const output = await new Deno.Command("pdftotext", { args: ["-enc", "UTF-8", path, "-"], stdout: "piped" }).output();
  if (!output.success) throw new Error(`pdftotext failed on ${path}`);
  return new TextDecoder().decode(output.stdout);
}

/** Runs `doc extract --mode text` through the real kernel and sandbox on a copy of `path`. */
export async function ptermText(path: string): Promise<string> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "pterm-agreement-" }));
  try {
    await Deno.copyFile(path, `${root}/input.pdf`);
    const envelope = await execute(
      { registry: new Registry(commands) },
      {
        root,
        session: "agreement",
        line: "doc extract --in input.pdf --mode text --out output.txt --max-chars 100000000",
        stdin: { kind: "none" },
        terminal: { color: false },
      },
    );
    if (envelope.exit_code !== 0) throw new Error(`doc extract failed on ${path}: ${envelope.stderr}`);
    return await Deno.readTextFile(`${root}/output.txt`);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/** Every PDF under the fixtures folder. */
export async function fixturePdfs(): Promise<string[]> {
  const found: string[] = [];
  const visit = async (dir: string) => {
    for await (const entry of Deno.readDir(dir)) {
      const path = `${dir}${entry.name}`;
      if (entry.isDirectory && entry.name !== "src") await visit(`${path}/`);
      else if (entry.isFile && entry.name.endsWith(".pdf")) found.push(path);
    }
  };
  await visit(PDF_FIXTURES.pathname);
  return found.sort();
}

/**
 * Not measured: files meant to fail (damaged, password-protected, not a PDF), the one with no text,
 * issue11656.pdf, whose 24 words include a Hebrew line with numbers in brackets that pdftotext
 * itself scrambles (`‪(15ב)(‪ )4לחוק`); tests/commands/doc/pdf_layout_test.ts checks its Hebrew word order,
 * and bug1146106.pdf, an icon font without any Unicode map whose codes PDF.js (and so pterm) reads
 * as characters and pdftotext maps otherwise (tests/commands/doc/pdf_reader_test.ts holds it to PDF.js's).
 */
const NOT_MEASURED = new Set([
  "corrupt.pdf",
  "encrypted.pdf",
  "picture.pdf",
  "scanned.pdf",
  "issue11656.pdf",
  "bug1146106.pdf",
]);

export async function measure(paths: string[]): Promise<Agreement[]> {
  const rows: Agreement[] = [];
  for (const path of paths) {
    if (NOT_MEASURED.has(path.split("/").pop()!)) continue;
    const [ours, theirs] = await Promise.all([ptermText(path), pdftotext(path)]);
    rows.push(compareWords(path.replace(PDF_FIXTURES.pathname, ""), words(ours), words(theirs)));
  }
  return rows;
}

function table(rows: readonly Agreement[]): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const lines = [
    "| PDF | pterm words | pdftotext words | agreement | recall | precision |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
    ...rows.map((r) =>
      `| ${r.file} | ${r.ptermWords} | ${r.pdftotextWords} | ${pct(r.agreement)} | ${pct(r.recall)} | ${
        pct(r.precision)
      } |`
    ),
  ];
  return lines.join("\n");
}

if (import.meta.main) {
  const paths = Deno.args.length ? Deno.args.map((a) => Deno.realPathSync(a)) : await fixturePdfs();
  // deno-lint-ignore no-console
  console.log(table(await measure(paths)));
}
