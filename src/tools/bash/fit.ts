/** Fitting the tails of stdout and stderr into one result budget that the two streams share. */
import { byteLength, DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, truncateTail } from "../truncate.ts";
import { tailBytes, type TailView } from "./tail.ts";

/** Result budget shared by stdout and stderr. */
export interface OutputBudget {
  maxLines: number;
  maxBytes: number;
}

/** What is shown of one stream after fitting. */
export interface FittedTail {
  text: string;
  /** Lines shown. */
  shownLines: number;
  /** True when part of the stream is not shown. */
  truncated: boolean;
  /** True when the last shown line is only the end of a longer line. */
  lineCut: boolean;
  totalLines: number;
  totalBytes: number;
}

function splitLineCount(text: string): number {
  if (text === "") return 0;
  const n = text.split("\n").length;
  return text.endsWith("\n") ? n - 1 : n;
}

/**
 * Splits `total` between two needs: each gets what it needs when both fit, otherwise the smaller
 * need is met up to half and the larger takes the rest.
 */
export function splitBudget(needA: number, needB: number, total: number): [number, number] {
  if (needA + needB <= total) return [needA, needB];
  const half = Math.floor(total / 2);
  if (needA <= half) return [needA, total - needA];
  if (needB <= half) return [total - needB, needB];
  return [total - half, half];
}

function fitOne(view: TailView, maxLines: number, maxBytes: number): FittedTail {
  const totals = { totalLines: view.totalLines, totalBytes: view.totalBytes };
  if (view.text === "") {
    return { text: "", shownLines: 0, truncated: !view.complete, lineCut: false, ...totals };
  }
  // Keep the trailing newline out of the budget arithmetic; it is not shown.
  const text = view.text.endsWith("\n") ? view.text.slice(0, -1) : view.text;
  const fitted = truncateTail(text, { maxLines, maxBytes });
  if (fitted.outputLines > 0 || maxLines === 0 || maxBytes === 0) {
    return {
      text: fitted.content,
      shownLines: fitted.outputLines,
      truncated: !view.complete || fitted.truncated,
      lineCut: view.lineCut && fitted.outputLines === fitted.totalLines,
      ...totals,
    };
  }
  // The last line alone is over the byte budget: show its end rather than nothing.
  const lastLine = text.slice(text.lastIndexOf("\n") + 1);
  return {
    text: tailBytes(lastLine, maxBytes),
    shownLines: 1,
    truncated: true,
    lineCut: true,
    ...totals,
  };
}

/**
 * Fits the tails of stdout and stderr into one shared budget of lines and bytes (whole lines from
 * the end; a last line longer than its share is cut to its end).
 */
export function fitTails(
  stdout: TailView,
  stderr: TailView,
  budget: OutputBudget = { maxLines: DEFAULT_MAX_LINES, maxBytes: DEFAULT_MAX_BYTES },
): { stdout: FittedTail; stderr: FittedTail } {
  const outText = stdout.text.endsWith("\n") ? stdout.text.slice(0, -1) : stdout.text;
  const errText = stderr.text.endsWith("\n") ? stderr.text.slice(0, -1) : stderr.text;
  const [outLines, errLines] = splitBudget(
    splitLineCount(outText),
    splitLineCount(errText),
    budget.maxLines,
  );
  const [outBytes, errBytes] = splitBudget(
    byteLength(outText),
    byteLength(errText),
    budget.maxBytes,
  );
  return {
    stdout: fitOne(stdout, outLines, outBytes),
    stderr: fitOne(stderr, errLines, errBytes),
  };
}
