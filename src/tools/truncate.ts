/** Pure truncation helpers shared by tools: bounded output that never cuts inside a line. */

/** Default line budget for one tool result. */
export const DEFAULT_MAX_LINES = 2000;
/** Default byte budget for one tool result (50 KB). */
export const DEFAULT_MAX_BYTES = 51_200;

/** Limits for head/tail truncation. */
export interface TruncateLimits {
  maxLines?: number;
  maxBytes?: number;
}

/** What a truncation kept and what it dropped. */
export interface TruncationResult {
  content: string;
  truncated: boolean;
  /** Which limit cut the text, if any. */
  truncatedBy: "lines" | "bytes" | null;
  totalLines: number;
  totalBytes: number;
  outputLines: number;
  outputBytes: number;
}

const encoder = new TextEncoder();

/** UTF-8 byte length of a string. */
export function byteLength(text: string): number {
  return encoder.encode(text).length;
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  // A trailing newline ends the last line; it does not start a new one.
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Keeps whole lines from the start within both limits. */
export function truncateHead(text: string, limits: TruncateLimits = {}): TruncationResult {
  return keepLines(text, limits, "head");
}

/** Keeps whole lines from the end within both limits. */
export function truncateTail(text: string, limits: TruncateLimits = {}): TruncationResult {
  return keepLines(text, limits, "tail");
}

function keepLines(text: string, limits: TruncateLimits, from: "head" | "tail"): TruncationResult {
  const maxLines = limits.maxLines ?? DEFAULT_MAX_LINES;
  const maxBytes = limits.maxBytes ?? DEFAULT_MAX_BYTES;
  const lines = splitLines(text);
  // Walk from the kept end so the budget always favours the lines nearest to it.
  const ordered = from === "head" ? lines : [...lines].reverse();
  const kept: string[] = [];
  let bytes = 0;
  let truncatedBy: TruncationResult["truncatedBy"] = null;
  for (const line of ordered) {
    if (kept.length >= maxLines) {
      truncatedBy = "lines";
      break;
    }
    const size = byteLength(line) + (kept.length > 0 ? 1 : 0);
    if (bytes + size > maxBytes) {
      truncatedBy = "bytes";
      break;
    }
    kept.push(line);
    bytes += size;
  }
  if (from === "tail") kept.reverse();
  const content = kept.join("\n");
  return {
    content,
    truncated: truncatedBy !== null,
    truncatedBy,
    totalLines: lines.length,
    totalBytes: byteLength(text),
    outputLines: kept.length,
    outputBytes: byteLength(content),
  };
}

/** The kept start of a shortened line followed by the marker giving its full length. */
export function markCutLine(kept: string, fullLength: number): string {
  return `${kept}… [line truncated, ${fullLength} characters in full]`;
}

/** Shortens one line to `maxChars` with a marker giving its full length. */
export function truncateLine(line: string, maxChars: number): { text: string; truncated: boolean } {
  if (line.length <= maxChars) return { text: line, truncated: false };
  return { text: markCutLine(line.slice(0, maxChars), line.length), truncated: true };
}

/** Human-readable size, e.g. "50.0 KB". */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  return `${(bytes / (1024 * 1024 * 1024)).toFixed(1)} GB`;
}
