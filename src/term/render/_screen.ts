/**
 * The screen the renderer's parts share: where text goes (stdout, stderr), whether the streamed
 * stdout line has ended, lines waiting for it to end, holding and disposal, colour, width, and the
 * spinner. One object, made once per renderer and passed to each part.
 */
import type { Clock } from "../../agent/mod.ts";
import { oneLine } from "../call_text.ts";
import type { MarkdownSetup } from "./_markdown_answer.ts";

/** Where and how the text renderer writes. */
export interface TextRendererOptions {
  writeStdout: (text: string) => void;
  writeStderr: (text: string) => void;
  stdoutIsTty: boolean;
  stderrIsTty: boolean;
  /** Use ANSI colours on stderr (decide with `useColor`). */
  color: boolean;
  /** Workspace, to show paths relative to it. */
  cwd: string;
  verbose?: boolean;
  /** Timer source for the spinner (only used when stderr is a TTY). */
  clock?: Clock;
  /** Interactive mode: the final text is always streamed, never printed again at the end. */
  interactive?: boolean;
  /** Terminal width; the spinner line is cut to fit (a wrapped line could not be redrawn). */
  columns?: () => number;
  /** Interactive mode: a dim status line after each run (model, context, tokens, cost). */
  statusLine?: boolean;
  /** The workspace is in a git work tree: a capped diff adds "see `git diff`". */
  inGitRepo?: boolean;
  /** Render streamed answers as markdown (interactive mode with stdout a TTY only). */
  markdown?: MarkdownSetup;
}

/** Colour only on a TTY, and never when NO_COLOR is set to a non-empty value. */
export function useColor(isTty: boolean, env: Record<string, string>): boolean {
  return isTty && (env.NO_COLOR === undefined || env.NO_COLOR === "");
}

/** The one spinner line on stderr (a TTY with a clock only), redrawn on the clock's timer. */
export interface Spinner {
  /** What it shows, or null when it is off. */
  readonly label: string | null;
  /**
   * Shows this label (starting the timer), or stops and clears it with null. `since` is when
   * that activity started (the clock's ms); without it a new label starts now and the same
   * label keeps its time.
   */
  set(label: string | null, since?: number): void;
  /** Changes the label of a spinner that is on without redrawing it; an off one stays off. */
  relabel(label: string, since?: number): void;
  /** The tokens the model has streamed so far for this label (shown as `~N tokens`), or null. */
  progress(tokens: number | null): void;
  /**
   * Lines drawn under the spinner line (a live region, e.g. a command's last output lines), asked
   * for on every redraw; null removes them. Each line must fit the width: it is erased and drawn
   * again with cursor-up and clear-line, which a wrapped line would defeat.
   */
  setLive(lines: (() => readonly string[]) | null): void;
}

/** The state and output the renderer's parts share. */
export interface Screen {
  readonly options: TextRendererOptions;
  /** The answer is streamed as it arrives (stdout a TTY, or interactive mode). */
  readonly streaming: boolean;
  /** Wraps text in an ANSI colour code when colour is on. */
  c(code: string, text: string): string;
  /** Whether the last text written to stdout ended its line. */
  atLineStart: boolean;
  readonly held: boolean;
  readonly disposed: boolean;
  readonly spinner: Spinner;
  writeStdout(text: string): void;
  writeStderr(text: string): void;
  /** Ends the stdout line if it is open. */
  endStdoutLine(): void;
  /** One stderr line: ends streamed stderr text and (on a TTY) the stdout line, redraws the spinner. */
  line(text: string): void;
  /** Streams text on stderr (thinking) that gets a line break before the next line. */
  streamStderr(text: string, endsLine: boolean): void;
  /** Ends streamed stderr text with a line break if it is open. */
  endStderrStream(): void;
  /** Queues a stderr line to show once the streamed stdout line ends. */
  queueNote(line: string): void;
  /** Whether lines wait for the stdout line to end. */
  hasWaitingNotes(): boolean;
  /** Shows the waiting lines if the stdout line has ended. */
  showNotes(): void;
  hold(value: boolean): void;
  dispose(): void;
}

const SPINNER_FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** Internal spinner control used by the screen. */
interface SpinnerControl extends Spinner {
  draw(): void;
  clear(): void;
  /** Stops the timer and clears the line, keeping the label (hold). */
  pause(): void;
  readonly on: boolean;
}

/** What the spinner reads of the screen. */
interface SpinnerScreen {
  c(code: string, text: string): string;
  /** Whether the spinner must not draw (held or disposed). */
  paused(): boolean;
  atLineStart(): boolean;
  held(): boolean;
}

/** Elapsed time for the spinner: `0s`, `59s`, `1m 05s`, `1h 02m`. */
export function formatElapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const pad = (n: number) => String(n).padStart(2, "0");
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${pad(s % 60)}s`;
  return `${Math.floor(s / 3600)}h ${pad(Math.floor(s / 60) % 60)}m`;
}

/** The spinner's text: what runs, for how long, and the tokens streamed so far, cut to `max`. */
export function spinnerText(
  label: string,
  progress: { elapsedMs: number; tokens: number | null },
  max: number,
): string {
  const tokens = progress.tokens === null || progress.tokens <= 0
    ? ""
    : ` · ~${progress.tokens.toLocaleString("en-US")} tokens`;
  const suffix = ` · ${formatElapsed(progress.elapsedMs)}${tokens}`;
  // The label gives way first: how long and how much stay readable.
  const room = max - [...suffix].length;
  return room >= 12 ? `${oneLine(label, room)}${suffix}` : oneLine(`${label}${suffix}`, max);
}

function createSpinner(options: TextRendererOptions, screen: SpinnerScreen): SpinnerControl {
  const on = options.stderrIsTty && options.clock !== undefined;
  const now = () => options.clock?.now() ?? 0;
  let label: string | null = null;
  let since = 0;
  let tokens: number | null = null;
  const start = (next: string, at: number | undefined) => {
    if (at !== undefined) since = at;
    else if (next !== label) since = now();
    label = next;
  };
  let timer: unknown = undefined;
  let shown = false;
  let frame = 0;
  let live: (() => readonly string[]) | null = null;
  // Rows of the live region drawn under the spinner line; the cursor ends on the last of them.
  let liveRows = 0;
  const erase = () => shown ? "\r\x1b[K" + "\x1b[A\x1b[K".repeat(liveRows) : "";
  const clear = () => {
    if (shown) {
      options.writeStderr(erase());
      shown = false;
      liveRows = 0;
    }
  };
  const draw = () => {
    if (label === null || screen.paused()) return;
    const glyph = SPINNER_FRAMES[frame++ % SPINNER_FRAMES.length];
    const columns = options.columns?.() ?? 0;
    // An unknown size (0, e.g. a pty nobody sized) means the usual 80 columns.
    const width = columns > 0 ? Math.max(20, columns) : 80;
    const text = spinnerText(label, { elapsedMs: now() - since, tokens }, width - 3);
    const rows = live?.() ?? [];
    options.writeStderr(
      `${erase()}\r\x1b[K${screen.c("36", glyph ?? "")} ${screen.c("2", text)}` +
        rows.map((row) => `\n\x1b[K${row}`).join(""),
    );
    shown = true;
    liveRows = rows.length;
  };
  const tick = () => {
    timer = undefined;
    if (label === null || screen.paused()) return;
    draw();
    timer = options.clock?.setTimeout(tick, 80);
  };
  const stopTimer = () => {
    if (timer !== undefined) options.clock?.clearTimeout(timer);
    timer = undefined;
  };
  return {
    on,
    get label() {
      return label;
    },
    set(next: string | null, at?: number) {
      if (!on) return;
      if (next === null) {
        label = null;
        tokens = null;
        live = null;
        stopTimer();
        clear();
        return;
      }
      if (next !== label) tokens = null;
      start(next, at);
      // Text streaming to the same terminal must not be interleaved with the spinner.
      if (!screen.atLineStart() || screen.held()) return;
      if (timer === undefined) tick();
    },
    relabel(next: string, at?: number) {
      if (label !== null) start(next, at);
    },
    progress(next: number | null) {
      tokens = next;
    },
    setLive(next) {
      live = next;
      // Redrawn now when the spinner shows (a timer tick would redraw it anyway).
      if (shown && label !== null && !screen.paused()) draw();
      else if (next === null) clear();
    },
    draw() {
      if (label !== null && on) draw();
    },
    clear,
    pause() {
      stopTimer();
      clear();
    },
  };
}

/** Creates the shared screen of one renderer. */
export function createScreen(options: TextRendererOptions): Screen {
  let held = false;
  let disposed = false;
  // Streamed reasoning goes to stderr; it ends with a line break before anything else.
  let stderrOpen = false;
  let stderrAtLineStart = true;
  // Notes wait for the streamed line to end: a line cut in two by one would read as two.
  const notes: string[] = [];
  const c = (code: string, text: string) => options.color ? `\x1b[${code}m${text}\x1b[0m` : text;
  const spinner = createSpinner(options, {
    c,
    paused: () => disposed || held,
    atLineStart: () => screen.atLineStart,
    held: () => held,
  });
  const screen: Screen = {
    options,
    streaming: options.stdoutIsTty || options.interactive === true,
    c,
    atLineStart: true,
    get held() {
      return held;
    },
    get disposed() {
      return disposed;
    },
    spinner,
    writeStdout: (text) => options.writeStdout(text),
    writeStderr: (text) => options.writeStderr(text),
    endStdoutLine() {
      if (screen.atLineStart) return;
      options.writeStdout("\n");
      screen.atLineStart = true;
    },
    line(text) {
      screen.endStderrStream();
      spinner.clear();
      if (options.stdoutIsTty) screen.endStdoutLine();
      options.writeStderr(text + "\n");
      spinner.draw();
    },
    streamStderr(text, endsLine) {
      if (!stderrOpen && options.stdoutIsTty) screen.endStdoutLine();
      stderrOpen = true;
      options.writeStderr(text);
      stderrAtLineStart = endsLine;
    },
    endStderrStream() {
      if (!stderrOpen) return;
      if (!stderrAtLineStart) options.writeStderr("\n");
      stderrOpen = false;
      stderrAtLineStart = true;
    },
    queueNote(line) {
      notes.push(line);
    },
    hasWaitingNotes: () => notes.length > 0,
    showNotes() {
      if (!screen.atLineStart) return;
      for (const note of notes.splice(0)) screen.line(note);
    },
    hold(value) {
      if (value === held) return;
      held = value;
      if (held) spinner.pause();
      else if (spinner.label !== null) spinner.set(spinner.label);
    },
    dispose() {
      spinner.set(null);
      disposed = true;
    },
  };
  return screen;
}
