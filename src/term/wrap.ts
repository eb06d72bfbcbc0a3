/**
 * Text as a terminal shows it: how many columns it takes (escape sequences none, wide CJK
 * characters and emoji two, combining marks none) and wrapped at word boundaries to a width,
 * never inside an escape sequence or a character. The one place moat measures and wraps text:
 * messages (src/cli/io.ts), rendered markdown and diffs use it.
 */
import { eastAsianWidth } from "get-east-asian-width";

/** How `wrapText` wraps. */
export interface WrapOptions {
  /** Columns a line may take, the indent included (at least one column is left for text). */
  readonly width: number;
  /** Put before the first line of each paragraph (each line of the text as given). */
  readonly indent?: string;
  /** Put before every further line a paragraph wraps onto; `indent` when not given. */
  readonly hangingIndent?: string;
}

// Terminal escape sequences: CSI (SGR colours, cursor moves), OSC (titles, hyperlinks) ended by
// BEL or ST, and two-character escapes. Each is kept whole and takes no column.
const ESCAPE =
  // deno-lint-ignore no-control-regex
  /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[ -~]?/y;

// Characters that take no column: combining marks, zero-width spaces and joiners, variation
// selectors, other controls.
// deno-lint-ignore no-control-regex
const ZERO = /^[\p{M}\u200b-\u200f\u2060-\u2064\ufe00-\ufe0f\u0000-\u001f\u007f-\u009f]$/u;

let graphemes: Intl.Segmenter | undefined;

/** Columns one character (a grapheme: a base with its marks, an emoji sequence) takes. */
export function charWidth(char: string): number {
  // An emoji in emoji presentation (U+FE0F) takes two columns whatever its base.
  if (char.includes("\ufe0f")) return 2;
  let width = 0;
  for (const c of char) {
    if (ZERO.test(c)) continue;
    width = Math.max(width, eastAsianWidth(c.codePointAt(0) ?? 0));
  }
  return width;
}

/** A piece of text: an escape sequence (no column) or one character. */
interface Piece {
  readonly text: string;
  readonly width: number;
  readonly space: boolean;
}

/** `text` cut into escape sequences and characters. */
function pieces(text: string): Piece[] {
  const out: Piece[] = [];
  let plain = "";
  const flush = () => {
    if (plain === "") return;
    graphemes ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
    for (const { segment } of graphemes.segment(plain)) {
      out.push({ text: segment, width: charWidth(segment), space: segment === " " });
    }
    plain = "";
  };
  let i = 0;
  while (i < text.length) {
    if (text[i] === "\x1b") {
      ESCAPE.lastIndex = i;
      const m = ESCAPE.exec(text);
      const seq = m?.[0] ?? "\x1b";
      flush();
      out.push({ text: seq, width: 0, space: false });
      i += seq.length;
      continue;
    }
    plain += text[i];
    i++;
  }
  flush();
  return out;
}

/** `text` without escape sequences (what a terminal shows of it). */
export function stripEscapes(text: string): string {
  return pieces(text).filter((p) => !p.text.startsWith("\x1b")).map((p) => p.text).join("");
}

/** Columns `text` takes on a terminal: escape sequences none, wide characters two. */
export function displayWidth(text: string): number {
  let n = 0;
  for (const p of pieces(text)) n += p.width;
  return n;
}

/**
 * `text` wrapped at word boundaries (spaces) to `options.width` columns: each of its lines is a
 * paragraph, a word longer than a line is cut (a path or URL that fits on a line of its own goes
 * there whole), the spaces a line ends with are dropped. Escape sequences are kept whole and
 * take no column; styles are not reopened on the next line (see src/term/_markdown_style.ts).
 */
export function wrapText(text: string, options: WrapOptions): string[] {
  const first = options.indent ?? "";
  const hanging = options.hangingIndent ?? first;
  const room = (indent: string) => Math.max(1, options.width - displayWidth(indent));
  const out: string[] = [];
  for (const paragraph of text.split("\n")) {
    if (paragraph === "") {
      out.push("");
      continue;
    }
    const lines = wrapParagraph(pieces(paragraph), room(first), room(hanging));
    lines.forEach((line, i) => out.push((i === 0 ? first : hanging) + line));
  }
  return out;
}

// Greedy: words (with the spaces after them) fill a line until the next would not fit.
function wrapParagraph(all: Piece[], firstRoom: number, nextRoom: number): string[] {
  const lines: string[] = [];
  let line: Piece[] = [];
  let used = 0;
  let room = firstRoom;
  const newLine = () => {
    lines.push(trimEnd(line));
    line = [];
    used = 0;
    room = nextRoom;
  };
  for (const word of words(all)) {
    const wordWidth = word.reduce((n, p) => n + (p.space ? 0 : p.width), 0);
    if (used > 0 && used + wordWidth > room) newLine();
    if (wordWidth > room) {
      for (const p of word) {
        if (used + p.width > room && p.width > 0 && !p.space) newLine();
        line.push(p);
        used += p.width;
      }
      continue;
    }
    line.push(...word);
    for (const p of word) used += p.width;
  }
  lines.push(trimEnd(line));
  return lines;
}

// Words: what comes before a space, with the spaces after it.
function words(all: Piece[]): Piece[][] {
  const out: Piece[][] = [];
  let word: Piece[] = [];
  all.forEach((p, i) => {
    word.push(p);
    const next = all[i + 1];
    if (p.space && (next === undefined || !next.space)) {
      out.push(word);
      word = [];
    }
  });
  if (word.length > 0) out.push(word);
  return out;
}

// The line without the spaces it ends with (escape sequences among them are kept).
function trimEnd(line: Piece[]): string {
  let end = line.length;
  while (end > 0 && (line[end - 1]?.space || line[end - 1]?.width === 0)) end--;
  return line.slice(0, end).map((p) => p.text).join("") +
    line.slice(end).filter((p) => !p.space).map((p) => p.text).join("");
}
