/**
 * What a call shows under its line in interactive mode: a command's live tail while it runs (the
 * live region), a short preview of its output once it ended, and an edit's or write's diff. Every
 * line is made safe (escape sequences dropped, controls escaped, tabs expanded) and cut to the
 * width, so it never wraps.
 */
import { cutToWidth } from "../diff_view.ts";
import { escapeUnsafe } from "../terminal_text.ts";

/** Output lines the live region shows of a running command. */
const LIVE_TAIL_LINES = 5;
/** Lines of a preview kept from each end of the output. */
const PREVIEW_END_LINES = 2;

/** How the lines are drawn. */
export interface OutputLook {
  c(code: string, text: string): string;
  /** Terminal width; 0 means 80. */
  columns: number;
}

const INDENT = "  ";

// CSI (colours, cursor moves) and OSC (titles, hyperlinks) escape sequences.
// deno-lint-ignore no-control-regex
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g;

/** One output line as a terminal would show it, safe to print and at most `room` columns. */
function safeLine(line: string, room: number): string {
  const frames = line.replace(ESCAPES, "").replace(/\r$/, "").split("\r");
  // A carriage return went back over the line (a progress bar): what is left on screen.
  const shown = frames.reduce((acc, frame) => frame + acc.slice(frame.length), "");
  const expanded = shown.replace(/\t/g, "    ");
  return cutToWidth(escapeUnsafe(expanded), room);
}

function room(look: OutputLook): number {
  const total = look.columns > 0 ? Math.max(20, look.columns) : 80;
  // One column spare: a line filling the last column leaves the cursor in a pending wrap.
  return total - INDENT.length - 1;
}

/** A running call's live region: the last output lines, dimmed, then the elapsed seconds. */
export function liveLines(
  text: string,
  info: { elapsedMs: number; totalLines?: number | undefined },
  look: OutputLook,
): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const tail = lines.slice(-LIVE_TAIL_LINES).map((l) =>
    INDENT + look.c("2", safeLine(l, room(look)))
  );
  const seconds = `${Math.floor(info.elapsedMs / 1000)} s`;
  const total = info.totalLines ?? 0;
  const count = total > 0 ? ` · ${total} line${total === 1 ? "" : "s"}` : "";
  return [...tail, INDENT + look.c("2", cutToWidth(`${seconds}${count}`, room(look)))];
}

/**
 * The output of an ended command, shortened: its first and last lines around "… N lines".
 * `exitCode` (non-zero) drops the result's own "Command exited with code N" line, which the call
 * line already says. Empty when the command printed nothing.
 */
export function previewLines(
  text: string,
  exitCode: number | undefined,
  look: OutputLook,
): string[] {
  if (text.trim() === "(no output)") return [];
  const lines = text.split("\n");
  while (lines.length > 0 && lines.at(-1)?.trim() === "") lines.pop();
  if (exitCode !== undefined && lines.at(-1) === `Command exited with code ${exitCode}`) {
    lines.pop();
    while (lines.length > 0 && lines.at(-1)?.trim() === "") lines.pop();
  }
  const draw = (l: string) => INDENT + look.c("2", safeLine(l, room(look)));
  // Cutting out fewer lines than the note would take is no shortening.
  if (lines.length <= PREVIEW_END_LINES * 2 + 1) return lines.map(draw);
  const hidden = lines.length - PREVIEW_END_LINES * 2;
  return [
    ...lines.slice(0, PREVIEW_END_LINES).map(draw),
    INDENT + look.c("2", `… ${hidden} lines`),
    ...lines.slice(-PREVIEW_END_LINES).map(draw),
  ];
}
