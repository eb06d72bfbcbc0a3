/**
 * The generic cap on tool results: a result longer than its tool's `maxResultChars` (or the run's
 * `maxResultChars` for tools without one) keeps its start and end around an omission marker.
 */
import type { ContentBlock } from "../model/types.ts";

/** Generic cap for results of tools that have none of their own. */
export const DEFAULT_MAX_RESULT_CHARS = 50_000;

/** Text after `truncateMiddle`, and whether anything was cut. */
export interface MiddleTruncation {
  content: string;
  truncated: boolean;
}

/**
 * Keeps the first 60% and the last 40% of `maxChars` characters, joined by a marker saying how
 * many characters were omitted. For results without a cap of their own.
 */
export function truncateMiddle(
  text: string,
  maxChars: number = DEFAULT_MAX_RESULT_CHARS,
): MiddleTruncation {
  if (text.length <= maxChars) return { content: text, truncated: false };
  const headChars = Math.floor(maxChars * 0.6);
  const tailChars = maxChars - headChars;
  const omitted = text.length - headChars - tailChars;
  const content = `${text.slice(0, headChars)}\n[… ${omitted} characters omitted …]\n${
    text.slice(text.length - tailChars)
  }`;
  return { content, truncated: true };
}

/** Caps the text of a result at `limit` characters in total (images are kept). */
export function capContent(
  content: ContentBlock[] | string,
  limit: number,
): ContentBlock[] | string {
  if (typeof content === "string") return truncateMiddle(content, limit).content;
  const total = content.reduce((n, b) => n + (b.type === "text" ? b.text.length : 0), 0);
  if (total <= limit) return content;
  return content.map((block) =>
    block.type === "text"
      ? {
        type: "text",
        text: truncateMiddle(block.text, Math.floor(limit * block.text.length / total)).content,
      }
      : block
  );
}
