/**
 * Where the terminal's lines come from: on a terminal, the line editor (src/term/line_editor.ts)
 * with the workspace's prompt history; otherwise (a pipe, a dumb terminal, a test) plain lines.
 *
 * The history lives next to the workspace's sessions (`<state>/moat/sessions/<hash>/history`),
 * one JSON string per line, oldest first, private to the user (0600); it holds only what was typed
 * at the prompt (never answers to questions) and keeps the last HISTORY_SIZE entries. A history
 * that cannot be read or written is a warning, never an error.
 */
import { dirname, join } from "node:path";
import { sessionDirectory, stateHome } from "../session/store.ts";
import { type CliFs, type Terminal, writeMessage } from "./io.ts";
import { createLineEditor, HISTORY_SIZE } from "../term/line_editor.ts";
import { createLineSource, type LineSource } from "./repl.ts";

/** The history file of `workspace`, or undefined when there is no state directory. */
export async function historyPath(
  env: Record<string, string>,
  workspace: string,
): Promise<string | undefined> {
  const state = stateHome(env);
  return state === undefined
    ? undefined
    : join(await sessionDirectory(state, workspace), "history");
}

/** The entries of a history file's text, newest first (lines that are not JSON strings skipped). */
export function parseHistory(text: string): string[] {
  const entries: string[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const entry: unknown = JSON.parse(line);
      if (typeof entry === "string" && entry.trim() !== "") entries.push(entry);
    } catch {
      // A torn or foreign line: skip it, keep the rest.
    }
  }
  return entries.reverse();
}

/** The history file's line for one entry. */
export function historyLine(entry: string): string {
  return JSON.stringify(entry) + "\n";
}

/** The history file of one workspace: read once, appended to as entries are made. */
export interface HistoryFile {
  /** The saved entries, newest first (at most HISTORY_SIZE); [] when unreadable. */
  load(): Promise<string[]>;
  /** Appends an entry (in order, in the background); a failure is warned about once. */
  append(entry: string): void;
  /** Resolves once every append so far has been written (or has failed). */
  flushed(): Promise<void>;
}

/** Opens the history file at `path` (a promise: the path needs a hash) through `fs`. */
export function createHistoryFile(
  fs: CliFs,
  path: Promise<string | undefined>,
  warn: (message: string) => void,
): HistoryFile {
  let warned = false;
  const fail = (what: string, file: string, e: unknown) => {
    if (warned) return;
    warned = true;
    warn(
      `Cannot ${what} the prompt history "${file}": ${
        e instanceof Error ? e.message : String(e)
      }; the up arrow recalls only this session's entries`,
    );
  };
  let writes: Promise<void> = Promise.resolve();
  return {
    async load() {
      const file = await path;
      if (file === undefined) return [];
      let text: string | null;
      try {
        text = await fs.readTextFile(file);
      } catch (e) {
        fail("read", file, e);
        return [];
      }
      if (text === null) return [];
      const entries = parseHistory(text);
      if (entries.length > HISTORY_SIZE) {
        const kept = entries.slice(0, HISTORY_SIZE);
        // Trimmed in place (the rename keeps the file's private mode), behind pending appends.
        writes = writes.then(() =>
          fs.writeTextFile(file, kept.toReversed().map(historyLine).join(""))
            .catch((e) => fail("trim", file, e))
        );
        return kept;
      }
      return entries;
    },
    append(entry) {
      writes = writes.then(async () => {
        const file = await path;
        if (file === undefined) return;
        try {
          await fs.mkdirp(dirname(file));
          await fs.appendTextFile(file, historyLine(entry));
        } catch (e) {
          fail("save", file, e);
        }
      });
    },
    flushed: () => writes,
  };
}

/** Options of openLineSource. */
export interface LineInputOptions {
  env: Record<string, string>;
  workspace: string;
  fs: CliFs;
}

/** The line source of a run: the line editor on a terminal, else plain lines from stdin. */
export function openLineSource(terminal: Terminal, options: LineInputOptions): LineSource {
  const raw = options.env.TERM === "dumb" || !terminal.isTty("stdin")
    ? undefined
    : terminal.openRaw?.();
  if (raw === undefined) return createLineSource(terminal.readLines());
  const file = createHistoryFile(
    options.fs,
    historyPath(options.env, options.workspace),
    (message) => writeMessage(terminal, `moat: warning: ${message}\n`),
  );
  const editor = createLineEditor(raw, {
    history: file.load(),
    onRemember: (entry) => file.append(entry),
  });
  return createLineSource(editor.lines, editor);
}
