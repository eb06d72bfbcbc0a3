/** The edit tool's matching, pure: where each replacement goes and the text that results. */
import { looksBinary } from "./lines.ts";

/** The edits applied to a file's text, or why they cannot be (the tool's error text). */
export type EditPlan =
  | {
    ok: true;
    /** The new file content, byte for byte as it will be written (BOM and CRLF kept). */
    result: string;
    /** The old and new text with line endings normalised to LF: what the diff compares. */
    before: string;
    after: string;
  }
  | { ok: false; error: string };

function failed(error: string): EditPlan {
  return { ok: false, error };
}

/** Line number (1-based) of a character index. */
function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

function findAll(haystack: string, needle: string): number[] {
  const found: number[] = [];
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + 1)) {
    found.push(i);
    if (found.length > 50) break;
  }
  return found;
}

/** Why an oldText was not found, with the most useful hint we can compute. */
function notFoundHint(text: string, oldText: string): string {
  // Whitespace-insensitive: strip all whitespace, remembering each kept UTF-16 unit's line
  // (units, not code points, so indexOf positions in the joined text map back correctly).
  const kept: string[] = [];
  const lines: number[] = [];
  let line = 1;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === "\n") line++;
    if (/\s/.test(ch)) continue;
    kept.push(ch);
    lines.push(line);
  }
  const squashedOld = oldText.replace(/\s+/g, "");
  if (squashedOld !== "") {
    const at = kept.join("").indexOf(squashedOld);
    if (at !== -1) {
      return `it matches at line ${lines[at]} if whitespace is ignored; copy the exact text ` +
        `(indentation and line breaks included) with read`;
    }
  }
  const firstLine = oldText.split("\n").find((l) => l.trim() !== "")?.trim();
  if (firstLine !== undefined) {
    const hits = text.split("\n").flatMap((l, i) => (l.includes(firstLine) ? [i + 1] : []));
    if (hits.length > 0) {
      return `its first line occurs at line ${hits.slice(0, 5).join(", ")} but the rest ` +
        `differs; read the file again and copy the exact text`;
    }
  }
  return "read the file again and copy the exact text";
}

/**
 * Applies `edits` to `text` (the decoded file) as the edit tool does: each oldText must occur
 * exactly once in the original, edits must not overlap, CRLF and a BOM are kept.
 */
export function planEdits(
  text: string,
  edits: ReadonlyArray<{ oldText: string; newText: string }>,
  shown: string,
): EditPlan {
  const bom = text.startsWith("\uFEFF") ? "\uFEFF" : "";
  const body = bom === "" ? text : text.slice(1);
  const crlf = body.includes("\r\n");
  // Match on LF-normalised text; `crAt` holds the normalised index of each "\n" that had a CR.
  const crAt: number[] = [];
  let norm = body;
  if (crlf) {
    const parts: string[] = [];
    let from = 0;
    let removed = 0;
    for (let i = body.indexOf("\r\n"); i !== -1; i = body.indexOf("\r\n", i + 2)) {
      parts.push(body.slice(from, i));
      crAt.push(i - removed);
      removed++;
      from = i + 1;
    }
    parts.push(body.slice(from));
    norm = parts.join("");
  }
  const toOriginal = (i: number): number => {
    let lo = 0;
    let hi = crAt.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((crAt[mid] as number) < i) lo = mid + 1;
      else hi = mid;
    }
    return i + lo;
  };

  const ranges: Array<{ start: number; end: number; newText: string; index: number }> = [];
  for (const [index, edit] of edits.entries()) {
    const n = index + 1;
    const label = edits.length > 1 ? `edit ${n}: ` : "";
    const oldText = edit.oldText.replace(/\r\n/g, "\n");
    const newText = edit.newText.replace(/\r\n/g, "\n");
    if (oldText === "") {
      return failed(
        `Cannot edit "${shown}": ${label}oldText is empty; give the exact text to replace`,
      );
    }
    if (oldText === newText) {
      return failed(
        `Cannot edit "${shown}": ${label}oldText and newText are identical; nothing would change`,
      );
    }
    const hits = findAll(norm, oldText);
    if (hits.length === 0) {
      return failed(
        `Cannot edit "${shown}": ${label}oldText was not found; ${notFoundHint(norm, oldText)}. ` +
          `No edits were applied.`,
      );
    }
    if (hits.length > 1) {
      const lines = hits.slice(0, 10).map((h) => lineAt(norm, h));
      const more = hits.length > 10 ? ", …" : "";
      return failed(
        `Cannot edit "${shown}": ${label}oldText occurs ${
          hits.length > 50 ? "more than 50" : hits.length
        } times (lines ${lines.join(", ")}${more}); include more surrounding lines to make ` +
          `it unique. No edits were applied.`,
      );
    }
    const start = hits[0] as number;
    ranges.push({ start, end: start + oldText.length, newText, index: n });
  }
  const sorted = [...ranges].sort((a, b) => a.start - b.start);
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted[i - 1];
    const cur = sorted[i];
    if (prev && cur && cur.start < prev.end) {
      const [a, b] = [prev.index, cur.index].sort((x, y) => x - y);
      return failed(
        `Cannot edit "${shown}": edits ${a} and ${b} overlap (line ${lineAt(norm, cur.start)}); ` +
          `merge them into one edit. No edits were applied.`,
      );
    }
  }
  // Splice into the original text so bytes outside the replaced regions stay untouched.
  const out: string[] = [];
  const normOut: string[] = [];
  let pos = 0;
  let normPos = 0;
  for (const r of sorted) {
    const s = toOriginal(r.start);
    out.push(body.slice(pos, s), crlf ? r.newText.replace(/\n/g, "\r\n") : r.newText);
    normOut.push(norm.slice(normPos, r.start), r.newText);
    pos = toOriginal(r.end);
    normPos = r.end;
  }
  out.push(body.slice(pos));
  normOut.push(norm.slice(normPos));
  const result = bom + out.join("");
  return { ok: true, result, before: norm, after: normOut.join("") };
}

/** A file's bytes as the text edit works on, or why edit refuses it (the tool's error text). */
export function decodeForEdit(
  bytes: Uint8Array,
  shown: string,
): { ok: true; text: string } | { ok: false; error: string } {
  if (looksBinary(bytes)) {
    return {
      ok: false,
      error: `Cannot edit "${shown}": it is a binary file; edit only text files`,
    };
  }
  try {
    return {
      ok: true,
      text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes),
    };
  } catch {
    return {
      ok: false,
      error: `Cannot edit "${shown}": it is not valid UTF-8, and editing it could corrupt it; ` +
        `use bash for this file`,
    };
  }
}
