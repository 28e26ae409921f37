/**
 * An embedded TrueType program whose table directory claims more bytes than the program holds:
 * one byte of OpenOffice's font program (the third byte of its `post` table's length, 0 → 173)
 * made PDF.js's `post` reader loop past the program's end, allocating ~2.6 GB over ~30 s before
 * V8's array limit stopped it. The program now reaches PDF.js with that length bounded by the
 * bytes present: the extraction's peak memory, measured in its own process, stays small and its
 * text is the undamaged document's — uncompressed, and with the program Flate-compressed and the
 * font's objects in object streams.
 */

import assert from "node:assert/strict";
import { extractWithPtermReader } from "../../../commands/doc/pdf/pdf.ts";
import { boundedSfnt, boundFontPrograms, sfntOverruns } from "../../../commands/doc/pdf/reader/font_guard.ts";
import { readerOptions, withPdfjs } from "./pdf_helpers.ts";

const OPENOFFICE = new URL("../../fixtures/doc/pdfjs/openoffice.pdf", import.meta.url).pathname;
/** Far above what reading this one-page document takes (~80 MB), far below the damaged program's ~2.6 GB. */
const PEAK_LIMIT = 400 * 1024 * 1024;

function qpdf(args: string[], input: string): Uint8Array {
  const out = Deno.makeTempFileSync({ suffix: ".pdf" });
  try {
    const run = new Deno.Command("qpdf", { args: [...args, input, out] }).outputSync();
    assert.ok(run.code === 0 || run.code === 3, new TextDecoder().decode(run.stderr));
    return Deno.readFileSync(out);
  } finally {
    Deno.removeSync(out);
  }
}

/** The TrueType program's start in an uncompressed PDF (its stream's first bytes `true` or 0x00010000). */
function trueTypeProgramAt(bytes: Uint8Array): number {
  const text = new TextDecoder("latin1").decode(bytes);
  for (const match of text.matchAll(/stream\r?\n/g)) {
    const start = match.index + match[0].length;
    const tag = text.slice(start, start + 4);
    if (tag === "true" || tag === "\x00\x01\x00\x00") return start;
  }
  throw new Error("no TrueType program");
}

/** The uncompressed document with the damage found: the third byte of the `post` table's length set to 173. */
function damagedOpenOffice(): { original: Uint8Array; damaged: Uint8Array; program: [number, number] } {
  const original = qpdf(["--stream-data=uncompress", "--object-streams=disable"], OPENOFFICE);
  const start = trueTypeProgramAt(original);
  const view = new DataView(original.buffer, original.byteOffset);
  const tables = view.getUint16(start + 4);
  let end = start;
  let postEntry = -1;
  for (let i = 0; i < tables; i++) {
    const entry = start + 12 + 16 * i;
    end = Math.max(end, start + view.getUint32(entry + 8) + view.getUint32(entry + 12));
    if (new TextDecoder().decode(original.subarray(entry, entry + 4)) === "post") postEntry = entry;
  }
  assert.ok(postEntry > 0, "the program has a post table");
  const damaged = original.slice();
  assert.equal(damaged[postEntry + 14], 0);
  damaged[postEntry + 14] = 173;
  return { original, damaged, program: [start, end] };
}

async function inChild(bytes: Uint8Array, readers: "pdfjs" | "pterm-first") {
  const path = Deno.makeTempFileSync({ suffix: ".pdf" });
  try {
    Deno.writeFileSync(path, bytes);
    const child = new URL("./pdf_peak_child.ts", import.meta.url).pathname;
    const run = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", "--no-check", child, path, readers],
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(120_000),
    }).output();
    assert.ok(run.success, new TextDecoder().decode(run.stderr));
    return JSON.parse(new TextDecoder().decode(run.stdout)) as { peakBytes: number; result: unknown };
  } finally {
    Deno.removeSync(path);
  }
}

Deno.test("pdf font guard: a TrueType table longer than its program is found and bounded", () => {
  const { original, damaged, program } = damagedOpenOffice();
  assert.deepEqual(sfntOverruns(original.subarray(...program)), []);
  const overruns = sfntOverruns(damaged.subarray(...program));
  assert.equal(overruns?.length, 1);
  assert.equal(overruns![0].tag, "post");
  assert.ok(overruns![0].offset + overruns![0].length > program[1] - program[0]);
  assert.deepEqual(sfntOverruns(boundedSfnt(damaged.subarray(...program))), []);
  // Not an sfnt program: left alone.
  assert.equal(sfntOverruns(new TextEncoder().encode("%!PS-AdobeFont-1.0")), null);
  // A document without such a program reaches PDF.js as it is.
  assert.equal(boundFontPrograms(original, 1 << 30), original);
  assert.notEqual(boundFontPrograms(damaged, 1 << 30), damaged);
});

Deno.test("pdf font guard: the damaged program's extraction stays within a bounded peak memory, with the undamaged text", async (t) => {
  const { original, damaged } = damagedOpenOffice();
  const expected = await withPdfjs(original);
  const tmp = Deno.makeTempFileSync({ suffix: ".pdf" });
  let compressed: Uint8Array;
  try {
    Deno.writeFileSync(tmp, damaged);
    // The same damaged program Flate-compressed, the font's dictionaries in object streams.
    compressed = qpdf(["--compress-streams=y", "--recompress-flate", "--object-streams=generate"], tmp);
  } finally {
    Deno.removeSync(tmp);
  }
  assert.ok(!new TextDecoder("latin1").decode(compressed).includes("stream\ntrue"), "the program is compressed");
  assert.notEqual(boundFontPrograms(compressed, 1 << 30), compressed, "the compressed program is found");
  for (const [label, bytes] of [["uncompressed", damaged], ["compressed, object streams", compressed]] as const) {
    await t.step(`${label}: through PDF.js`, async () => {
      const { peakBytes, result } = await inChild(bytes, "pdfjs");
      assert.ok(peakBytes < PEAK_LIMIT, `peak ${Math.round(peakBytes / 2 ** 20)} MiB`);
      assert.deepEqual(result, asJson(expected));
    });
  }
  await t.step("pterm's reader reads it as PDF.js now does", async () => {
    assert.deepEqual(await extractWithPtermReader(damaged, readerOptions()), expected);
    const { peakBytes, result } = await inChild(damaged, "pterm-first");
    assert.ok(peakBytes < PEAK_LIMIT, `peak ${Math.round(peakBytes / 2 ** 20)} MiB`);
    assert.deepEqual(result, asJson(expected));
  });
});

/** What an extraction becomes on its way out of the child process: JSON, its Maps as plain objects. */
function asJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_key, v) => v instanceof Map ? Object.fromEntries(v) : v));
}
