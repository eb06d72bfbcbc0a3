/**
 * The CLI's view of the outside world: files (config, AGENTS.md, sessions) and the terminal.
 * Deno defaults live in src/sys/session_fs.ts and src/sys/terminal.ts; tests pass fakes.
 */
import type { SessionFs } from "../session/store.ts";
import type { RawTerminal } from "../term/raw_terminal.ts";
import { wrapText } from "../term/wrap.ts";

export type { RawTerminal };

/** File operations the CLI needs beyond sessions. */
export interface CliFs extends SessionFs {
  /** True when `path` is an existing directory (false when it cannot be examined). */
  isDirectory(path: string): Promise<boolean>;
  /** True when `path` exists (file, directory or anything else). */
  exists(path: string): Promise<boolean>;
  /** The canonical path (symlinks resolved), or null when it does not exist or cannot be examined. */
  realPath(path: string): Promise<string | null>;
  /** Creates a fresh private temporary directory; returns its real path. */
  makeTempDir(prefix: string): Promise<string>;
  /** Replaces the file's text atomically (a temporary file renamed over it), keeping its mode. */
  writeTextFile(path: string, text: string): Promise<void>;
  /** Removes a directory tree; a missing one is fine. Must not reject. */
  removeTree(path: string): Promise<void>;
}

/** The file's text (null when it does not exist), or why it could not be read. */
export async function readTextOrReason(
  fs: SessionFs,
  path: string,
): Promise<{ text: string | null } | { reason: string }> {
  try {
    return { text: await fs.readTextFile(path) };
  } catch (e) {
    // Whatever the OS said (permission denied, not a file, invalid UTF-8) is the reason shown.
    return { reason: e instanceof Error ? e.message : String(e) };
  }
}

/** Signals the CLI reacts to. */
export type CliSignal = "SIGINT" | "SIGTERM";

/** What was read from a piped stdin. */
export interface PipedInput {
  text: string;
  /** True when stdin held more than the `maxBytes` that were read. */
  truncated: boolean;
}

/** The process's standard streams, TTY state and signals. */
export interface Terminal {
  /** Whether the stream is attached to a terminal. */
  isTty(stream: "stdin" | "stdout" | "stderr"): boolean;
  /** Writes all of `text` to stdout. Must not throw (a closed pipe drops the text). */
  writeStdout(text: string): void;
  /** Writes all of `text` to stderr. Must not throw. */
  writeStderr(text: string): void;
  /**
   * Reads stdin to its end, or to `maxBytes` (then stops reading; `truncated` is set). With
   * `firstChunkTimeoutMs`, resolves null when nothing arrived by then (a pipe nobody writes to
   * must not hang a run).
   */
  readStdin(
    options?: { firstChunkTimeoutMs?: number; maxBytes?: number },
  ): Promise<PipedInput | null>;
  /** Lines typed on stdin (without the newline); ends at end of input. */
  readLines(): AsyncIterable<string>;
  /** Subscribes to a signal; returns the unsubscribe function. */
  onSignal(signal: CliSignal, handler: () => void): () => void;
  /** Terminal width in columns (80 when unknown). */
  columns(): number;
  /** Subscribes to window resizes (SIGWINCH); returns the unsubscribe function. */
  onResize?(handler: () => void): () => void;
  /**
   * Puts a terminal stdin in raw mode with bracketed paste for the line editor (src/term/
   * line_editor.ts); undefined when stdin is not a terminal. At most one is open at a time.
   */
  openRaw?(): RawTerminal | undefined;
  /** Gives the terminal back: closes the raw terminal, if one is open. Safe to call twice. */
  release?(): void;
}

/**
 * Writes a message (an error, a warning, a question, a listing) to `stream`: on a terminal wrapped
 * at word boundaries to its width, each line going on under its own indent; elsewhere as given.
 */
export function writeMessage(
  terminal: Terminal,
  text: string,
  stream: "stdout" | "stderr" = "stderr",
): void {
  const shown = terminal.isTty(stream) ? wrapMessage(text, terminal.columns()) : text;
  if (stream === "stdout") terminal.writeStdout(shown);
  else terminal.writeStderr(shown);
}

/**
 * `text` wrapped to `columns`: each line a paragraph whose further lines keep its indent; the
 * spaces it ends with (after a question) are kept.
 */
export function wrapMessage(text: string, columns: number): string {
  const tail = /[ \t]*$/.exec(text)?.[0] ?? "";
  return text.slice(0, text.length - tail.length).split("\n").map((line) => {
    const indent = /^ */.exec(line)?.[0] ?? "";
    return wrapText(line.slice(indent.length), { width: columns, indent }).join("\n");
  }).join("\n") + tail;
}
