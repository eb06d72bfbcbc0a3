/** Pure helpers of LineMatcher over decoded blocks of lines. */
import type { Needle } from "./pattern.ts";

/** Start of the first line at or after `from` longer than `maxChars` (CR excluded), or the end. */
export function nextLongLine(text: string, from: number, maxChars: number): number {
  const len = text.length;
  let start = from;
  while (start < len) {
    const nl = text.indexOf("\n", start);
    const end = nl === -1 ? len : nl;
    const length = end - start - (end > start && text.charCodeAt(end - 1) === 0x0d ? 1 : 0);
    if (length > maxChars) return start;
    start = end + 1;
  }
  return len;
}

/**
 * A flat copy of `text`, so that a row does not keep the whole decoded block it was sliced from
 * alive (V8 slices share their parent string's memory).
 */
export function detach(text: string): string {
  if (text.length < 16) return text;
  const joined = ` ${text}`;
  joined.charCodeAt(1); // flattens the concatenation into a fresh string
  return joined.slice(1);
}

/**
 * Index of the first occurrence of `needle` at or after `from` in `text`, or -1: searched by the
 * character at `rare` (V8 finds one character fast; a common first character would make
 * `indexOf(needle)` stop everywhere), each hit checked for the whole needle.
 */
export function findNeedle(text: string, from: number, needle: string, rare: number): number {
  if (rare === 0) return text.indexOf(needle, from);
  const c = needle[rare] as string;
  for (let i = text.indexOf(c, from + rare); i !== -1; i = text.indexOf(c, i + 1)) {
    if (text.startsWith(needle, i - rare)) return i - rare;
  }
  return -1;
}

/**
 * The candidate search of a LineMatcher: the start of the next candidate at or after `from` in a
 * block, or -1; by the needle when there is one, else by the finder; null: test every line.
 */
export function candidateSearch(
  finder: RegExp | null,
  needle: Needle | null,
): ((text: string, from: number) => number) | null {
  if (needle !== null) {
    const { text, rare } = needle;
    return (block, from) => findNeedle(block, from, text, rare);
  }
  if (finder === null) return null;
  return (block, from) => {
    finder.lastIndex = from;
    const m = finder.exec(block);
    return m === null ? -1 : m.index;
  };
}
