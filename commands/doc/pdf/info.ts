/** A PDF's document information (page count, Info dictionary strings) as `doc info` reports it. */

import type { DocInfo } from "../types.ts";

function infoString(info: Record<string, unknown>, key: string): string | null {
  const value = info[key];
  return typeof value === "string" && value.trim() ? value.trim() : null;
}

/** `D:20220429171908Z` / `D:20080522102541+02'00'` → ISO 8601, or the raw string when it does not parse. */
export function pdfDate(raw: string | null): string | null {
  if (!raw) return null;
  const m = /^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?([Zz]|[+-]\d{2}'?\d{2}'?)?/.exec(raw);
  if (!m) return raw;
  const [, y, mo = "01", d = "01", h = "00", mi = "00", s = "00", zone] = m;
  let offset = "";
  if (zone && /^[+-]/.test(zone)) offset = `${zone.slice(0, 3)}:${zone.replace(/'/g, "").slice(3, 5) || "00"}`;
  else if (zone) offset = "Z";
  return `${y}-${mo}-${d}T${h}:${mi}:${s}${offset}`;
}

export function docInfo(pages: number, info: Record<string, unknown>): DocInfo {
  return {
    format: "pdf",
    pages,
    title: infoString(info, "Title"),
    author: infoString(info, "Author"),
    subject: infoString(info, "Subject"),
    created: pdfDate(infoString(info, "CreationDate")),
    modified: pdfDate(infoString(info, "ModDate")),
    encrypted: Boolean(info.EncryptFilterName),
    password_required: false,
    producer: infoString(info, "Producer"),
  };
}
