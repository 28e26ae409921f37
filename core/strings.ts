/**
 * The strings inside a value (a command's result): one walk, shared by every rule that rewrites them
 * (redaction of credentials, well-formed Unicode), which keeps untouched parts as the same objects.
 */

/** `value` with every string inside it passed through `rewrite`; parts with no change are returned as they were. */
export function mapStrings<T>(value: T, rewrite: (text: string) => string): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return rewrite(v);
    if (Array.isArray(v)) {
      let out: unknown[] | null = null;
      for (let i = 0; i < v.length; i++) {
        const item = walk(v[i]);
        if (item !== v[i]) (out ??= v.slice())[i] = item;
      }
      return out ?? v;
    }
    if (v !== null && typeof v === "object") {
      // Copied only once a string in it changes: a result of 10,000 entries is walked without allocating.
      const object = v as Record<string, unknown>;
      let out: Record<string, unknown> | null = null;
      for (const key in object) {
        if (!Object.hasOwn(object, key)) continue;
        const item = walk(object[key]);
        if (item !== object[key]) (out ??= { ...object })[key] = item;
      }
      return out ?? v;
    }
    return v;
  };
  return walk(value) as T;
}

/**
 * Text as every reader of an envelope can decode it: a lone surrogate (how pterm keeps a byte that is not
 * UTF-8, e.g. a Latin-1 line quoted from a diff) is shown as U+FFFD, as git's own output read as UTF-8 shows it.
 * JSON would otherwise carry it as an escape (`\udce9`) that many JSON readers refuse or cannot print.
 */
export function wellFormed(text: string): string {
  return text.isWellFormed() ? text : text.toWellFormed();
}
