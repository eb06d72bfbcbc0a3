/**
 * A file change drawn for the terminal: hunk headers, old and new line numbers in a gutter, red
 * and green lines (dim context) with colour, plain `-`/`+` markers without, every line cut to the
 * width, file content escaped so it cannot redraw the terminal, and a cap on the lines shown.
 */
import { parsePatch } from "diff";
import { escapeControls } from "./terminal_text.ts";
import { charWidth, displayWidth } from "./wrap.ts";
import { type FileChange, formatSize } from "../tools/mod.ts";

/** How a diff is drawn. */
export interface DiffViewOptions {
  /** ANSI colour (red/green/dim); without it the `-`/`+` markers carry the meaning. */
  color: boolean;
  /** Terminal width; 0 or absent means 80. Every line is cut to fit (never wrapped). */
  columns?: number;
  /** Lines shown before "… N more lines" (default 40). */
  maxLines?: number;
  /** The file is in a git repository: the cap line adds "see `git diff`". */
  inGitRepo?: boolean;
  /** Put before every line (counted in the width), e.g. "  " to sit under a call line. */
  indent?: string;
  /** Tab stops (default 4). */
  tabWidth?: number;
}

/** Lines shown by default before the cap. */
const DIFF_VIEW_MAX_LINES = 40;

type Row =
  | { kind: "hunk"; text: string }
  | { kind: "line"; mark: " " | "-" | "+"; old: number | null; new: number | null; text: string }
  | { kind: "note"; text: string };

/** Lines added and removed in a unified diff. */
export function diffStat(patch: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const file of parsePatch(patch)) {
    for (const hunk of file.hunks) {
      for (const line of hunk.lines) {
        if (line.startsWith("+")) added++;
        else if (line.startsWith("-")) removed++;
      }
    }
  }
  return { added, removed };
}

/** A FileChange as terminal lines (no trailing newlines); empty when there is nothing to show. */
export function changeLines(change: FileChange, options: DiffViewOptions): string[] {
  const dim = (text: string) => paint(options, "2", text);
  switch (change.kind) {
    case "patch":
      return patchLines(change.patch, options);
    case "unchanged":
      return [fit(options, dim("(no change)"), "(no change)")];
    case "binary":
    case "large": {
      const what = change.kind === "binary" ? "binary file" : "large change";
      const size = change.bytes > 0 ? `, ${formatSize(change.bytes)}` : "";
      const text = `(${what}${size}${change.created ? ", new" : ""}: diff not shown)`;
      return [fit(options, dim(text), text)];
    }
    case "unavailable": {
      const text = `(${change.reason})`;
      const cut = cutToWidth(escapeControls(text), width(options));
      return [(options.indent ?? "") + paint(options, "33", cut)];
    }
    default: {
      const never: never = change;
      throw new Error(`Unknown change: ${JSON.stringify(never)}`);
    }
  }
}

/**
 * A unified diff (the edit tool's `display`, the write tool's, or a FileChange's patch) as
 * terminal lines. A new file (old side empty) shows its first lines with "+" and no hunk header.
 */
export function patchLines(patch: string, options: DiffViewOptions): string[] {
  const rows = patchRows(patch);
  const max = Math.max(1, options.maxLines ?? DIFF_VIEW_MAX_LINES);
  const shown = rows.length > max ? rows.slice(0, max) : rows;
  const last = shown.reduce(
    (n, r) => r.kind === "line" ? Math.max(n, r.old ?? 0, r.new ?? 0) : n,
    0,
  );
  const digits = String(last).length;
  const oldColumn = rows.some((r) => r.kind === "line" && r.old !== null);
  const newColumn = rows.some((r) => r.kind === "line" && r.new !== null);
  const mixedCr = mixedLineEndings(rows);
  const out = shown.map((row) => drawRow(row, { options, digits, oldColumn, newColumn, mixedCr }));
  if (rows.length > shown.length) {
    const more = rows.length - shown.length;
    const text = `… ${more} more line${more === 1 ? "" : "s"}` +
      (options.inGitRepo ? ", see `git diff`" : "");
    out.push(fit(options, paint(options, "2", text), text));
  }
  return out;
}

function patchRows(patch: string): Row[] {
  const rows: Row[] = [];
  for (const file of parsePatch(patch)) {
    const onlyOneSide = file.hunks.every((h) => h.oldLines === 0 || h.newLines === 0);
    for (const hunk of file.hunks) {
      if (!onlyOneSide || file.hunks.length > 1) {
        rows.push({
          kind: "hunk",
          text: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
        });
      }
      let oldNo = hunk.oldLines === 0 ? hunk.oldStart + 1 : hunk.oldStart;
      let newNo = hunk.newLines === 0 ? hunk.newStart + 1 : hunk.newStart;
      for (const line of hunk.lines) {
        const mark = line[0];
        const text = line.slice(1);
        if (mark === "+") rows.push({ kind: "line", mark, old: null, new: newNo++, text });
        else if (mark === "-") rows.push({ kind: "line", mark, old: oldNo++, new: null, text });
        else if (mark === " ") {
          rows.push({ kind: "line", mark, old: oldNo++, new: newNo++, text });
        } else rows.push({ kind: "note", text: line });
      }
    }
  }
  return rows;
}

/** True when some lines end in CR and others do not: then the CR is shown, as "␍". */
function mixedLineEndings(rows: Row[]): boolean {
  let cr = false;
  let lf = false;
  for (const r of rows) {
    if (r.kind !== "line") continue;
    if (r.text.endsWith("\r")) cr = true;
    else lf = true;
  }
  return cr && lf;
}

interface Layout {
  options: DiffViewOptions;
  digits: number;
  oldColumn: boolean;
  newColumn: boolean;
  mixedCr: boolean;
}

function drawRow(row: Row, layout: Layout): string {
  const { options } = layout;
  if (row.kind === "hunk") return fit(options, paint(options, "36", row.text), row.text);
  if (row.kind === "note") {
    const text = escapeControls(row.text);
    return fit(options, paint(options, "2", text), text);
  }
  const num = (n: number | null) => (n === null ? "" : String(n)).padStart(layout.digits);
  const gutter = [
    ...(layout.oldColumn ? [num(row.old)] : []),
    ...(layout.newColumn ? [num(row.new)] : []),
  ].join(" ") + " ";
  const room = width(options) - gutter.length - 1;
  const content = cutToWidth(lineText(row.text, layout), Math.max(1, room));
  const code = row.mark === "+" ? "32" : row.mark === "-" ? "31" : "2";
  return (options.indent ?? "") + paint(options, "2", gutter) +
    paint(options, code, row.mark + content);
}

/** One line of file content made safe to print: tabs expanded, controls escaped. */
function lineText(raw: string, layout: Layout): string {
  let text = raw;
  let crMark = "";
  if (text.endsWith("\r")) {
    text = text.slice(0, -1);
    if (layout.mixedCr) crMark = "␍";
  }
  const tab = Math.max(1, layout.options.tabWidth ?? 4);
  let expanded = "";
  let column = 0;
  for (const ch of text) {
    if (ch === "\t") {
      const pad = tab - (column % tab);
      expanded += " ".repeat(pad);
      column += pad;
    } else {
      expanded += ch;
      column += charWidth(ch);
    }
  }
  // A CR inside a line would move the cursor back: shown as an escape, not dropped.
  return escapeControls(expanded.replaceAll("\r", "\\u000d")) + crMark;
}

function width(options: DiffViewOptions): number {
  const columns = options.columns ?? 0;
  const total = columns > 0 ? Math.max(20, columns) : 80;
  return total - displayWidth(options.indent ?? "");
}

function paint(options: DiffViewOptions, code: string, text: string): string {
  return options.color ? `\x1b[${code}m${text}\x1b[0m` : text;
}

/** `plain` cut to the width; `painted` (the same text coloured) when it fits. */
function fit(options: DiffViewOptions, painted: string, plain: string): string {
  const room = width(options);
  const indent = options.indent ?? "";
  if (displayWidth(plain) <= room) return indent + painted;
  const cut = cutToWidth(plain, room);
  return indent + (options.color && painted !== plain ? painted.replace(plain, cut) : cut);
}

/** `text` (no escape sequences) cut to `room` columns, ending in "…" when cut. */
export function cutToWidth(text: string, room: number): string {
  if (displayWidth(text) <= room) return text;
  let out = "";
  let used = 0;
  for (const ch of text) {
    const w = charWidth(ch);
    if (used + w > room - 1) break;
    out += ch;
    used += w;
  }
  return out + "…";
}
