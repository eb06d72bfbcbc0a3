/**
 * Styles for rendered markdown and wrapping of styled text: SGR colour codes when colour is on,
 * plain text when off (so NO_COLOR output holds no escape byte); widths and wrapping come from
 * src/term/wrap.ts.
 */
import { displayWidth, wrapText } from "./wrap.ts";

/** Wraps text in one style; the identity when colour is off. */
export type Paint = (text: string) => string;

/** The styles markdown is rendered with. */
export interface MarkdownStyles {
  readonly color: boolean;
  readonly heading: Paint;
  readonly strong: Paint;
  readonly em: Paint;
  readonly strike: Paint;
  readonly code: Paint;
  readonly link: Paint;
  readonly dim: Paint;
  readonly bullet: Paint;
}

function sgr(open: number, close: number): Paint {
  return (text) => `\x1b[${open}m${text}\x1b[${close}m`;
}

const plain: Paint = (text) => text;

/** The styles for `color` on or off. */
export function markdownStyles(color: boolean): MarkdownStyles {
  if (!color) {
    return {
      color,
      heading: plain,
      strong: plain,
      em: plain,
      strike: plain,
      code: plain,
      link: plain,
      dim: plain,
      bullet: plain,
    };
  }
  const bold = sgr(1, 22);
  const cyan = sgr(36, 39);
  return {
    color,
    heading: (text) => bold(cyan(text)),
    strong: bold,
    em: sgr(3, 23),
    strike: sgr(9, 29),
    code: sgr(33, 39),
    link: (text) => sgr(4, 24)(sgr(34, 39)(text)),
    dim: sgr(2, 22),
    bullet: cyan,
  };
}

// deno-lint-ignore no-control-regex
const SGR = /\x1b\[[0-9;]*m/g;

/**
 * Styled `text` wrapped at word boundaries to `width` columns (a word longer than a line is cut).
 * Every line ends with its styles closed and the next reopens them, so a prefix put before a line
 * (a bullet, a quote bar) is never painted by the style of the text around it.
 */
export function wrapStyled(text: string, width: number): string[] {
  return reopenStyles(wrapText(text, { width: Math.max(1, width) }));
}

/** Lines where each closes the styles it leaves open and the next line opens them again. */
function reopenStyles(lines: readonly string[]): string[] {
  let active: string[] = [];
  return lines.map((line) => {
    const start = active.join("");
    for (const code of line.match(SGR) ?? []) active = applySgr(active, code);
    const end = active.length > 0 ? "\x1b[0m" : "";
    return `${start}${line}${end}`;
  });
}

// The code that ends each style this module opens.
function closerOf(code: string): string {
  const n = Number(code.slice(2, -1));
  if (n === 1 || n === 2) return "22";
  if (n === 3 || n === 4 || n === 9) return String(n + 20);
  return "39";
}

// Open styles after `code`: a reset clears them, a closing code drops what it closes.
function applySgr(active: string[], code: string): string[] {
  const n = code.slice(2, -1);
  if (n === "" || n === "0") return [];
  if (!["22", "23", "24", "29", "39"].includes(n)) return [...active, code];
  const i = active.findLastIndex((open) => closerOf(open) === n);
  return i < 0 ? active : [...active.slice(0, i), ...active.slice(i + 1)];
}

/** `text` padded with spaces to `width` visible columns, aligned as given. */
export function pad(text: string, width: number, align: "left" | "right" | "center"): string {
  const gap = Math.max(0, width - displayWidth(text));
  if (align === "right") return " ".repeat(gap) + text;
  if (align === "center") {
    const left = Math.floor(gap / 2);
    return " ".repeat(left) + text + " ".repeat(gap - left);
  }
  return text + " ".repeat(gap);
}
