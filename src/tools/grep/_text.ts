/** Pure helpers of LineMatcher over decoded blocks of lines. */

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
