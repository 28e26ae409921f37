/**
 * Spreadsheet number formats, enough to show a cell's value as a reader sees it: fixed
 * decimals, thousands separators, percentages, scientific notation, currency and other
 * literal text, dates and times. Locale-dependent built-in date formats are shown in ISO
 * form (2024-03-14), which reads the same everywhere; fractions fall back to General.
 */

/** The built-in formats of ECMA-376 Part 1 §18.8.30 (ids without a format code in the file). */
const BUILTIN_FORMATS: Record<number, string> = {
  0: "General",
  1: "0",
  2: "0.00",
  3: "#,##0",
  4: "#,##0.00",
  9: "0%",
  10: "0.00%",
  11: "0.00E+00",
  12: "# ?/?",
  13: "# ??/??",
  14: "yyyy-mm-dd",
  15: "d-mmm-yy",
  16: "d-mmm",
  17: "mmm-yy",
  18: "h:mm AM/PM",
  19: "h:mm:ss AM/PM",
  20: "h:mm",
  21: "h:mm:ss",
  22: "yyyy-mm-dd h:mm",
  37: "#,##0 ;(#,##0)",
  38: "#,##0 ;(#,##0)",
  39: "#,##0.00;(#,##0.00)",
  40: "#,##0.00;(#,##0.00)",
  45: "mm:ss",
  46: "[h]:mm:ss",
  47: "mm:ss.0",
  48: "##0.0E+0",
  49: "@",
};

/** Ids 27-36 and 50-58 are East Asian locale dates; they show as ISO dates here. */
export function builtinFormat(id: number): string {
  if ((id >= 27 && id <= 36) || (id >= 50 && id <= 58)) return "yyyy-mm-dd";
  return BUILTIN_FORMATS[id] ?? "General";
}

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

type Token =
  | { kind: "literal"; text: string }
  | { kind: "code"; text: string }
  | { kind: "elapsed"; unit: "h" | "m" | "s"; width: number };

/** Splits a format into sections at `;` outside quotes, escapes and brackets. */
function sections(format: string): string[] {
  const parts: string[] = [];
  let current = "";
  let quoted = false;
  let bracket = false;
  for (let i = 0; i < format.length; i++) {
    const ch = format[i];
    if (ch === "\\" && !quoted && i + 1 < format.length) {
      current += ch + format[++i];
      continue;
    }
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === "[") bracket = true;
    else if (!quoted && ch === "]") bracket = false;
    if (ch === ";" && !quoted && !bracket) {
      parts.push(current);
      current = "";
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

function tokenize(section: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < section.length; i++) {
    const ch = section[i];
    if (ch === '"') {
      const end = section.indexOf('"', i + 1);
      tokens.push({ kind: "literal", text: section.slice(i + 1, end < 0 ? undefined : end) });
      i = end < 0 ? section.length : end;
    } else if (ch === "\\" && i + 1 < section.length) {
      tokens.push({ kind: "literal", text: section[++i] });
    } else if (ch === "_" && i + 1 < section.length) {
      tokens.push({ kind: "literal", text: " " });
      i++;
    } else if (ch === "*" && i + 1 < section.length) {
      i++; // fill character: nothing in plain text
    } else if (ch === "[") {
      const end = section.indexOf("]", i);
      const inner = section.slice(i + 1, end < 0 ? undefined : end);
      i = end < 0 ? section.length : end;
      const elapsed = /^(h+|m+|s+)$/i.exec(inner);
      if (elapsed) {
        tokens.push({ kind: "elapsed", unit: inner[0].toLowerCase() as "h" | "m" | "s", width: inner.length });
      } else if (inner.startsWith("$")) {
        const symbol = inner.slice(1).split("-")[0];
        if (symbol) tokens.push({ kind: "literal", text: symbol });
      } // colours and conditions show nothing
    } else {
      tokens.push({ kind: "code", text: ch });
    }
  }
  return tokens;
}

function isDateFormat(tokens: readonly Token[]): boolean {
  return tokens.some((t) => t.kind === "elapsed" || (t.kind === "code" && /[ymdhs]/i.test(t.text)));
}

/** Like Excel's General: integers as they are, others to at most 10 significant digits. */
export function formatGeneral(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Number.isInteger(value) && Math.abs(value) < 1e15) return String(value);
  const abs = Math.abs(value);
  if (abs !== 0 && (abs >= 1e11 || abs < 1e-9)) {
    return value.toExponential(5).replace(/\.?0+e/, "e").replace("e", "E").replace(/E([+-])(\d)$/, "E$10$2");
  }
  return String(Number(value.toPrecision(10)));
}

function groupThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

function formatPlainNumber(value: number, tokens: readonly Token[]): string {
  const codes = tokens.map((t) => (t.kind === "code" ? t.text : "\u0000")).join("");
  const percent = (codes.match(/%/g) ?? []).length;
  let scaled = value * 100 ** percent;
  const first = codes.search(/[0#?]/);
  if (first < 0) {
    // No digit placeholders: the section is all literal text.
    const literal = tokens.map((t) =>
      t.kind === "literal" ? t.text : t.kind === "code" ? (t.text === "@" ? formatGeneral(value) : t.text) : ""
    ).join("");
    return literal || formatGeneral(value);
  }
  // The number pattern: from the first digit placeholder through the last of `0 # ? . ,` and an exponent.
  let last = first;
  for (let i = first; i < codes.length; i++) {
    if (/[0#?.,]/.test(codes[i])) last = i;
    else if (/[Ee]/.test(codes[i]) && /[+-]/.test(codes[i + 1] ?? "")) last = ++i;
    else break;
  }
  const pattern = codes.slice(first, last + 1);
  const exponent = /[Ee][+-]/.exec(pattern);
  const mantissa = exponent ? pattern.slice(0, exponent.index) : pattern;
  const [integerPattern, fractionPattern = ""] = mantissa.split(".");
  const trailingCommas = /,+$/.exec(integerPattern)?.[0].length ?? 0;
  scaled /= 1000 ** trailingCommas;
  const grouping = integerPattern.slice(0, integerPattern.length - trailingCommas).includes(",");
  const maxDecimals = (fractionPattern.match(/[0#?]/g) ?? []).length;
  const minDecimals = (fractionPattern.match(/0/g) ?? []).length;
  const minInteger = (integerPattern.match(/0/g) ?? []).length;
  let number: string;
  if (exponent) {
    const [m, e] = Math.abs(scaled).toExponential(maxDecimals).split("e");
    const expDigits = (pattern.slice(exponent.index + 2).match(/0/g) ?? []).length || 1;
    const sign = e.startsWith("-") ? "-" : exponent[0].endsWith("+") ? "+" : "";
    number = `${m}E${sign}${e.replace(/^[+-]/, "").padStart(expDigits, "0")}`;
  } else {
    let fixed = Math.abs(scaled).toFixed(maxDecimals);
    if (maxDecimals > minDecimals) {
      fixed = fixed.replace(new RegExp(`0{1,${maxDecimals - minDecimals}}$`), "").replace(/\.$/, "");
    }
    let [integer, fraction] = fixed.split(".");
    if (integer === "0" && minInteger === 0) integer = "";
    integer = integer.padStart(minInteger, "0");
    if (grouping) integer = groupThousands(integer);
    number = fraction !== undefined ? `${integer}.${fraction}` : integer;
  }
  // `codes` has one character per token, so its indexes are token indexes.
  const before = tokens.slice(0, first);
  const after = tokens.slice(last + 1);
  const literal = (list: readonly Token[]) =>
    list.map((t) => (t.kind === "literal" ? t.text : t.kind === "code" && t.text !== "@" ? t.text : "")).join("");
  return literal(before) + number + literal(after);
}

function serialToParts(serial: number, date1904: boolean) {
  let days = Math.floor(serial);
  let seconds = Math.round((serial - days) * 86400 * 1000) / 1000;
  if (seconds >= 86400) {
    days += 1;
    seconds -= 86400;
  }
  let year: number, month: number, day: number, weekday: number;
  if (!date1904 && days === 60) {
    // The 1900 date system keeps Lotus 1-2-3's nonexistent 29 February 1900.
    [year, month, day, weekday] = [1900, 2, 29, 3];
  } else {
    const epoch = date1904 ? Date.UTC(1904, 0, 1) : days < 60 ? Date.UTC(1899, 11, 31) : Date.UTC(1899, 11, 30);
    const date = new Date(epoch + days * 86400000);
    [year, month, day, weekday] = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), date.getUTCDay()];
  }
  const whole = Math.floor(seconds);
  return {
    year,
    month,
    day,
    weekday,
    hours: Math.floor(whole / 3600),
    minutes: Math.floor((whole % 3600) / 60),
    seconds: whole % 60,
    fraction: seconds - whole,
  };
}

function codeAt(tokens: readonly Token[], index: number): string | null {
  const token = tokens[index];
  return token?.kind === "code" ? token.text : null;
}

function formatDate(serial: number, tokens: readonly Token[], date1904: boolean): string {
  const p = serialToParts(serial, date1904);
  const codes = tokens.map((t) => (t.kind === "code" ? t.text : "\u0000")).join("");
  const twelveHour = /AM\/PM|A\/P/i.test(codes);
  let out = "";
  let lastWasHour = false;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.kind === "literal") {
      out += token.text;
      continue;
    }
    if (token.kind === "elapsed") {
      const total = serial * 86400;
      const value = token.unit === "h" ? Math.floor(total / 3600) : token.unit === "m" ? Math.floor(total / 60) : total;
      out += String(Math.floor(value)).padStart(token.width, "0");
      lastWasHour = token.unit === "h";
      continue;
    }
    const ch = token.text;
    const lower = ch.toLowerCase();
    if (/^[ymdhs]$/.test(lower)) {
      let run = 1;
      while (codeAt(tokens, i + run)?.toLowerCase() === lower) run++;
      i += run - 1;
      if (lower === "y") out += run <= 2 ? String(p.year % 100).padStart(2, "0") : String(p.year);
      else if (lower === "d") {
        out += run === 1
          ? String(p.day)
          : run === 2
          ? String(p.day).padStart(2, "0")
          : run === 3
          ? DAYS[p.weekday].slice(0, 3)
          : DAYS[p.weekday];
      } else if (lower === "h") {
        const hours = twelveHour ? ((p.hours + 11) % 12) + 1 : p.hours;
        out += run >= 2 ? String(hours).padStart(2, "0") : String(hours);
        lastWasHour = true;
        continue;
      } else if (lower === "s") {
        out += run >= 2 ? String(p.seconds).padStart(2, "0") : String(p.seconds);
        // Fractional seconds: `.0`, `.00` right after the seconds.
        if (codeAt(tokens, i + 1) === ".") {
          let zeros = 0;
          while (codeAt(tokens, i + 2 + zeros) === "0") zeros++;
          if (zeros > 0) {
            out += "." + p.fraction.toFixed(zeros).slice(2);
            i += 1 + zeros;
          }
        }
      } else if (lower === "m") {
        const rest = codes.slice(i + 1).replace(/[^a-z]/gi, "");
        const isMinutes = (lastWasHour || /^s/i.test(rest)) && run <= 2;
        if (isMinutes) out += run === 2 ? String(p.minutes).padStart(2, "0") : String(p.minutes);
        else {
          out += run === 1
            ? String(p.month)
            : run === 2
            ? String(p.month).padStart(2, "0")
            : run === 3
            ? MONTHS[p.month - 1].slice(0, 3)
            : run === 5
            ? MONTHS[p.month - 1][0]
            : MONTHS[p.month - 1];
        }
      }
      lastWasHour = false;
      continue;
    }
    if ((ch === "A" || ch === "a") && /^AM\/PM/i.test(codes.slice(i, i + 5))) {
      out += p.hours < 12 ? "AM" : "PM";
      i += 4;
      continue;
    }
    if ((ch === "A" || ch === "a") && /^A\/P/i.test(codes.slice(i, i + 3))) {
      out += p.hours < 12 ? "A" : "P";
      i += 2;
      continue;
    }
    if (ch === "@" || ch === "E" || ch === "e" || ch === "G" || ch === "B") continue;
    out += ch;
  }
  return out;
}

/** Shows `value` the way the number format `format` displays it. */
export function formatNumber(value: number, format: string, date1904 = false): string {
  if (!Number.isFinite(value)) return String(value);
  if (!format || /^general$/i.test(format.trim())) return formatGeneral(value);
  const parts = sections(format);
  let section = parts[0];
  let signPrefix = "";
  let shown = value;
  if (value < 0 && parts.length >= 2 && parts[1] !== "") {
    section = parts[1];
    shown = -value;
  } else if (value === 0 && parts.length >= 3 && parts[2] !== "") {
    section = parts[2];
  } else if (value < 0) {
    signPrefix = "-";
    shown = -value;
  }
  if (/^general$/i.test(section.replace(/\[[^\]]*\]/g, "").trim())) return signPrefix + formatGeneral(shown);
  const tokens = tokenize(section);
  if (isDateFormat(tokens)) {
    if (value < 0) return formatGeneral(value);
    return formatDate(value, tokens, date1904);
  }
  if (tokens.some((t) => t.kind === "code" && t.text === "/")) return signPrefix + formatGeneral(shown);
  const text = formatPlainNumber(shown, tokens);
  return /[1-9]/.test(text) ? signPrefix + text : text;
}
