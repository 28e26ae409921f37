/**
 * Keyword location: which line a `keys`, `start-keys` or `end-keys` parameter
 * names. Keys are alternatives split on `|`, `,` and line breaks; a line matches a key when it
 * contains it, ignoring case and indentation. The rules, in the protocol's order: one key that
 * hits exactly one line → every pair of keys hitting one line together → all keys on one line
 * → the `nthl`/`nthb` choice among the matching lines → an error listing them.
 */

import { normalizeForMatch, type TextDoc } from "./text.ts";

/** Splits a keys parameter into its alternatives, lower-cased and trimmed; blanks are dropped. */
export function parseKeys(raw: string): string[] {
  const keys: string[] = [];
  for (const part of raw.split(/[|,\n]/)) {
    const key = normalizeForMatch(part.trim());
    if (key !== "" && !keys.includes(key)) keys.push(key);
  }
  return keys;
}

/** The same alternatives as `parseKeys`, as the patch wrote them (for messages: echo, never lower-case). */
export function keysAsGiven(raw: string): string[] {
  const seen = new Set<string>();
  const shown: string[] = [];
  for (const part of raw.split(/[|,\n]/)) {
    const key = normalizeForMatch(part.trim());
    if (key === "" || seen.has(key)) continue;
    seen.add(key);
    shown.push(part.trim());
  }
  return shown;
}

/** A 0-based range of lines, both ends included. */
export interface Scope {
  readonly first: number;
  readonly last: number;
}

export function wholeDoc(doc: TextDoc): Scope {
  return { first: 0, last: doc.length - 1 };
}

export type Location =
  | { readonly kind: "unique"; readonly line: number; readonly rule: MatchRule }
  | { readonly kind: "many"; readonly lines: readonly number[] }
  | { readonly kind: "none" };

/** Which of the keyword rules decided a match. */
export type MatchRule = "single-key" | "key-pair" | "all-keys";

function linesMatching(doc: TextDoc, scope: Scope, keys: readonly string[]): number[] {
  const hits: number[] = [];
  const lines = doc.normalizedLines();
  if (keys.length === 1) {
    // The common case, kept free of closures: it runs once per line of the scope.
    const key = keys[0];
    for (let i = scope.first; i <= scope.last; i++) if (lines[i].includes(key)) hits.push(i);
    return hits;
  }
  for (let i = scope.first; i <= scope.last; i++) {
    const line = lines[i];
    if (keys.every((key) => line.includes(key))) hits.push(i);
  }
  return hits;
}

/**
 * The "宽松唯一命中" cascade. Two different keys that each hit one line but disagree on which
 * are not a unique answer: the keys are alternatives, so that is two candidate lines.
 */
export function locate(doc: TextDoc, scope: Scope, keys: readonly string[]): Location {
  const single = keys.map((key) => linesMatching(doc, scope, [key]));
  const uniqueSingles = new Set(single.filter((hits) => hits.length === 1).map((hits) => hits[0]));
  if (uniqueSingles.size === 1) return { kind: "unique", line: [...uniqueSingles][0], rule: "single-key" };

  const pairHits = new Set<number>();
  if (keys.length >= 2) {
    const uniquePairs = new Set<number>();
    for (let i = 0; i < keys.length; i++) {
      for (let j = i + 1; j < keys.length; j++) {
        const hits = intersect(single[i], single[j]);
        for (const hit of hits) pairHits.add(hit);
        if (hits.length === 1) uniquePairs.add(hits[0]);
      }
    }
    if (uniquePairs.size === 1) return { kind: "unique", line: [...uniquePairs][0], rule: "key-pair" };
  }

  let all: number[] = [];
  if (keys.length >= 3) {
    all = single.reduce((acc, hits) => intersect(acc, hits));
    if (all.length === 1) return { kind: "unique", line: all[0], rule: "all-keys" };
  }

  // Several candidates: the most specific non-empty level is the list `nthl`/`nthb` counts in.
  if (all.length > 1) return { kind: "many", lines: all };
  if (pairHits.size > 0) return { kind: "many", lines: [...pairHits].sort((a, b) => a - b) };
  const union = new Set<number>();
  for (const hits of single) for (const hit of hits) union.add(hit);
  if (union.size === 0) return { kind: "none" };
  return { kind: "many", lines: [...union].sort((a, b) => a - b) };
}

function intersect(a: readonly number[], b: readonly number[]): number[] {
  const set = new Set(b);
  return a.filter((x) => set.has(x));
}

function firstHitAfter(doc: TextDoc, after: number, last: number, key: string): number | null {
  const lines = doc.normalizedLines();
  for (let i = after + 1; i <= last; i++) if (lines[i].includes(key)) return i;
  return null;
}

export type EndLocation =
  | { readonly kind: "unique"; readonly line: number; readonly rule: "whole-line" | "first-hit" }
  /** Fragments of the keys whose first hits disagree: each candidate line with the keys that reach it first. */
  | { readonly kind: "many"; readonly candidates: readonly { line: number; keys: string[] }[] }
  | { readonly kind: "none" };

/**
 * `end-keys` (loose first hit, "宽松首次命中"): the first line after `after` that contains
 * the whole parameter as written — a model often copies the block's last line, commas and all —
 * and only when no line does, the first hit of its `|`/`,` fragments. Fragments whose first hits
 * fall on different lines are ambiguous: a guess there could end the block early and cut it short.
 */
export function locateEnd(doc: TextDoc, after: number, last: number, raw: string): EndLocation {
  const whole = raw.includes("\n") ? "" : normalizeForMatch(raw.trim());
  const keys = parseKeys(raw);
  if (whole !== "" && (keys.length !== 1 || keys[0] !== whole)) {
    const line = firstHitAfter(doc, after, last, whole);
    if (line !== null) return { kind: "unique", line, rule: "whole-line" };
  }
  const byLine = new Map<number, string[]>();
  for (const key of keys) {
    const line = firstHitAfter(doc, after, last, key);
    if (line !== null) byLine.set(line, [...(byLine.get(line) ?? []), key]);
  }
  if (byLine.size === 0) return { kind: "none" };
  const candidates = [...byLine].sort(([a], [b]) => a - b).map(([line, keys]) => ({ line, keys }));
  if (candidates.length === 1) return { kind: "unique", line: candidates[0].line, rule: "first-hit" };
  return { kind: "many", candidates };
}

// ---- closest lines, for NoMatch ---------------------------------------------------------------

function bigrams(text: string): Map<string, number> {
  const grams = new Map<string, number>();
  const s = text.replace(/\s+/g, " ");
  for (let i = 0; i < s.length - 1; i++) {
    const g = s.slice(i, i + 2);
    grams.set(g, (grams.get(g) ?? 0) + 1);
  }
  return grams;
}

function gramCount(grams: Map<string, number>): number {
  let n = 0;
  for (const c of grams.values()) n += c;
  return n;
}

/**
 * How much of `key` appears in `line`, 0..1: the share of the key's character pairs found in
 * the line, lowered a little for lines much longer than the key so a long line that merely
 * contains many pairs does not outrank a close one.
 */
export function keySimilarity(key: string, line: string): number {
  const k = bigrams(key);
  const kn = gramCount(k);
  if (kn === 0) return line.includes(key) ? 1 : 0;
  const l = bigrams(line);
  let shared = 0;
  for (const [g, c] of k) shared += Math.min(c, l.get(g) ?? 0);
  const containment = shared / kn;
  const dice = (2 * shared) / (kn + gramCount(l));
  return 0.8 * containment + 0.2 * dice;
}

export interface CloseLine {
  /** 1-based line number in the file. */
  readonly line: number;
  readonly text: string;
  readonly similarity: number;
}

/** The lines of the scope most like any of the keys, best first. */
export function closestLines(doc: TextDoc, scope: Scope, keys: readonly string[], count = 3): CloseLine[] {
  const scored: CloseLine[] = [];
  for (let i = scope.first; i <= scope.last; i++) {
    const line = doc.normalized(i);
    if (line.trim() === "") continue;
    let best = 0;
    for (const key of keys) best = Math.max(best, keySimilarity(key, line));
    if (best >= 0.3) scored.push({ line: i + 1, text: doc.plain(i), similarity: Math.round(best * 100) / 100 });
  }
  scored.sort((a, b) => b.similarity - a.similarity || a.line - b.line);
  return scored.slice(0, count);
}

/** Similarity of two whole lines, 0..1 (Dice coefficient of character pairs, whitespace collapsed). */
export function lineSimilarity(a: string, b: string): number {
  const x = a.trim();
  const y = b.trim();
  if (x === y) return 1;
  if (x.length < 2 || y.length < 2) return 0;
  const ga = bigrams(x);
  const gb = bigrams(y);
  let shared = 0;
  for (const [g, c] of ga) shared += Math.min(c, gb.get(g) ?? 0);
  return (2 * shared) / (gramCount(ga) + gramCount(gb));
}
