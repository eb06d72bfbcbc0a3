/**
 * The interactive prompt's line editor. node:readline does the editing and the history (arrows,
 * Home/End, Ctrl-A/E/B/F/W/U/K/Y, Alt-B/F, up/down through earlier entries); moat decodes the keys
 * itself and hands readline the ones it knows, so it can add what readline lacks: a bracketed paste
 * is inserted (and shown) as it is, newlines included, and Enter sends it; Alt-Enter or a trailing
 * `\` before Enter inserts a newline; Ctrl-C, Ctrl-D and Ctrl-Z act as on a cooked terminal. While
 * a run owns the terminal and nobody waits for a line, typed text is kept but not drawn.
 */
import { EventEmitter } from "node:events";
import { createInterface, emitKeypressEvents } from "node:readline";
import type { RawTerminal } from "./raw_terminal.ts";

/** How many entries the history keeps. */
export const HISTORY_SIZE = 500;

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

/** A piece of raw terminal input: typed keys, or the text of one bracketed paste. */
export type InputPiece = { type: "keys"; text: string } | { type: "paste"; text: string };

/** The length of the longest end of `text` that starts `marker` (a marker cut between reads). */
function cutMarker(text: string, marker: string, shortest: number): number {
  for (let n = Math.min(marker.length - 1, text.length); n >= shortest; n--) {
    if (marker.startsWith(text.slice(text.length - n))) return n;
  }
  return 0;
}

/**
 * Pasted text as it may be inserted: line breaks as "\n", no escape sequences or other control
 * characters (they could redraw the terminal), tabs kept.
 */
export function cleanPaste(text: string): string {
  return text.replace(/\r\n?/g, "\n").replace(ESCAPES, "").replace(CONTROLS, "");
}

// CSI sequences, OSC strings, and any other ESC with the character after it.
// deno-lint-ignore no-control-regex
const ESCAPES = /\x1b\[[0-?]*[ -\/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)?|\x1b[\s\S]?/g;
// deno-lint-ignore no-control-regex
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f]/g;

/**
 * Splits raw input into typed keys and bracketed pastes (ESC[200~ … ESC[201~). A marker cut
 * between two reads is held back until the next one; a lone ESC between keys is not (it is the
 * Escape key).
 */
export function createPasteSplitter(): (chunk: string) => InputPiece[] {
  let held = "";
  let paste: string | undefined;
  return (chunk) => {
    let rest = held + chunk;
    held = "";
    const pieces: InputPiece[] = [];
    for (;;) {
      const marker = paste === undefined ? PASTE_START : PASTE_END;
      const at = rest.indexOf(marker);
      if (at === -1) {
        const cut = cutMarker(rest, marker, paste === undefined ? 2 : 1);
        const text = rest.slice(0, rest.length - cut);
        held = rest.slice(rest.length - cut);
        if (paste !== undefined) paste += text;
        else if (text !== "") pieces.push({ type: "keys", text });
        return pieces;
      }
      const before = rest.slice(0, at);
      rest = rest.slice(at + marker.length);
      if (paste === undefined) {
        if (before !== "") pieces.push({ type: "keys", text: before });
        paste = "";
      } else {
        pieces.push({ type: "paste", text: cleanPaste(paste + before) });
        paste = undefined;
      }
    }
  };
}

/** `entries` without repeats (the first, newest one kept), at most HISTORY_SIZE. */
function distinct(entries: readonly string[]): string[] {
  return [...new Set(entries)].slice(0, HISTORY_SIZE);
}

/** A key as node:readline decodes it. */
interface Key {
  sequence?: string;
  name?: string;
  ctrl?: boolean;
  meta?: boolean;
  shift?: boolean;
}

/**
 * The parts of readline's Interface the editor reads and redraws beyond its typings: public
 * properties and the refresh methods Node keeps for compatibility.
 */
interface ReadlineState {
  line: string;
  cursor: number;
  prevRows?: number;
  setPrompt(prompt: string): void;
  _refreshLine(): void;
  _getDisplayPos(text: string): { cols: number; rows: number };
  on(event: "line", listener: (line: string) => void): void;
  on(event: "history", listener: (history: string[]) => void): void;
  close(): void;
}

/** Options of createLineEditor. */
export interface LineEditorOptions {
  /**
   * Earlier entries, newest first (up arrow); while a promise of them is pending (the history
   * file being read), keys wait, so an early up arrow finds them.
   */
  history?: readonly string[] | Promise<readonly string[]>;
  /** Sees each entry added to the history (to save it). Must not throw. */
  onRemember?: (entry: string) => void;
}

/** A line editor on a raw terminal; see the module comment. */
export interface LineEditor {
  /** Entered lines (a paste, `\` or Alt-Enter makes one with newlines); ends at Ctrl-D. */
  readonly lines: AsyncIterable<string>;
  /**
   * A reader waits for one line: typed text is drawn after what the cursor's line shows (the
   * prompt or question written last); `remember` false keeps the answer out of the history.
   */
  attend(options: { remember: boolean }): void;
  /** Nobody waits any more (a pending readKey resolves null). */
  detach(): void;
  /** The next key press, not given to the line ("enter" for Enter); null once input ended. */
  readKey(): Promise<string | null>;
  /** A run owns the terminal: while nobody waits, typed text is kept but not drawn. */
  setBusy(busy: boolean): void;
  /** Ends the lines and gives the terminal back. Safe to call twice. */
  close(): void;
}

/** The drawing readline does, sent to the terminal only while typed text is shown. */
class EditorOutput extends EventEmitter {
  readonly isTTY = true;
  constructor(private raw: RawTerminal, private visible: () => boolean) {
    super();
  }
  get columns(): number {
    return this.raw.columns();
  }
  write(text: string): boolean {
    if (this.visible()) this.raw.write(text);
    return true;
  }
}

/** Creates the line editor on `raw` (which it closes on close()). */
export function createLineEditor(raw: RawTerminal, options: LineEditorOptions = {}): LineEditor {
  const history: string[] = [];
  let attending: { remember: boolean } | undefined;
  let busy = false;
  let shown = true;
  // What the program wrote after its last line break: the prompt readline redraws with the line.
  let shownLine = "";
  // Output since readline last drew: its idea of the screen must be renewed before it draws again.
  let stale = true;
  let ended = false;
  let closed = false;

  const queue: string[] = [];
  let wake: (() => void) | undefined;
  // A reader of one key (an approval question): keys go to it, not to the line.
  let keyWaiter: ((key: string | null) => void) | undefined;
  // A key answered one in the input read last.
  let answered = false;
  const giveKey = (key: string | null) => {
    const waiter = keyWaiter;
    keyWaiter = undefined;
    waiter?.(key);
  };
  const end = () => {
    ended = true;
    giveKey(null);
    wake?.();
  };
  const lines: AsyncIterable<string> = {
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const line = queue.shift();
        if (line !== undefined) {
          yield line;
          continue;
        }
        if (ended) return;
        await new Promise<void>((resolve) => wake = resolve);
        wake = undefined;
      }
    },
  };

  // readline reads its keys from here; moat decodes the terminal's input and feeds them.
  const input = Object.assign(new EventEmitter(), {
    isTTY: true,
    setRawMode: () => {},
    resume: () => {},
    pause: () => {},
  });
  const output = new EditorOutput(raw, () => shown);
  const rl = createInterface({
    input: input as unknown as NodeJS.ReadableStream,
    output: output as unknown as NodeJS.WritableStream,
    terminal: true,
    history,
    historySize: HISTORY_SIZE,
    removeHistoryDuplicates: true,
    prompt: "",
  }) as unknown as ReadlineState;

  // Draws the prompt's line anew: the cursor is at the end of what the program wrote.
  const resync = () => {
    stale = false;
    rl.setPrompt(shownLine);
    rl.prevRows = rl._getDisplayPos(shownLine).rows;
    if (rl.line !== "") rl._refreshLine();
  };
  const updateShown = () => {
    const visible = attending !== undefined || !busy;
    if (visible === shown) return;
    shown = visible;
    // Drawn again at the next key or reader: the program is about to write its prompt first.
    stale = true;
  };
  const insert = (text: string) => {
    rl.line = rl.line.slice(0, rl.cursor) + text + rl.line.slice(rl.cursor);
    rl.cursor += text.length;
    rl._refreshLine();
  };
  const feed = (s: string | undefined, key: Key) => input.emit("keypress", s, key);

  // Text typed for the prompt, set aside while a question is answered.
  let setAside: { line: string; cursor: number } | undefined;
  const stopAttending = () => {
    attending = undefined;
    if (setAside !== undefined) {
      rl.line = setAside.line;
      rl.cursor = setAside.cursor;
      setAside = undefined;
      stale = true;
    }
    updateShown();
  };

  let firstBefore: string | undefined;
  rl.on("history", (entries) => {
    const entry = entries[0];
    if (entry === undefined || entry === firstBefore) return;
    // An answer to a question is not something to recall later.
    if (attending?.remember === false) entries.shift();
    else options.onRemember?.(entry);
  });
  rl.on("line", (line) => {
    if (shown) {
      // readline ended the line on the screen: the next prompt starts a fresh one.
      shownLine = "";
      rl.setPrompt("");
    }
    // One line answers one waiting reader.
    stopAttending();
    queue.push(line);
    wake?.();
  });

  const onKey = (s: string | undefined, key: Key | undefined) => {
    if (closed) return;
    const k = key ?? {};
    if (!ended && shown && stale) resync();
    if (k.ctrl && k.name === "c") {
      // As on a terminal, the line typed so far is dropped (Ctrl-Y brings it back).
      if (!ended && rl.line !== "") {
        feed(undefined, { ctrl: true, name: "e" });
        feed(undefined, { ctrl: true, name: "u" });
      }
      raw.interrupt();
      return;
    }
    if (ended) return;
    if (k.ctrl && k.name === "d" && rl.line === "") return end();
    if (k.ctrl && k.name === "z") {
      raw.suspend();
      // Back in the foreground on a fresh line (the shell wrote its own): draw the prompt again.
      if (shown) {
        rl.prevRows = 0;
        rl._refreshLine();
      }
      return;
    }
    const enter = k.name === "return" || k.name === "enter";
    if (keyWaiter !== undefined) {
      answered = true;
      return giveKey(enter ? "enter" : s ?? k.name ?? "");
    }
    // "y" and Enter typed together (a line-answer habit): the Enter was part of the answer.
    if (answered && enter && !k.meta) return;
    if (k.meta && (k.name === "return" || k.name === "enter")) return insert("\n");
    if (
      k.name === "return" && !k.ctrl && !k.meta && rl.cursor === rl.line.length &&
      rl.line.endsWith("\\")
    ) {
      // A trailing backslash continues the entry on a new line, as in a shell.
      feed(undefined, { name: "backspace" });
      return insert("\n");
    }
    firstBefore = history[0];
    feed(s, k);
  };
  const decoder = new EventEmitter();
  emitKeypressEvents(decoder as unknown as NodeJS.ReadableStream);
  decoder.on("keypress", onKey);
  const split = createPasteSplitter();
  const onInput = (text: string | null) => {
    if (closed) return;
    answered = false;
    if (text === null) return end();
    for (const piece of split(text)) {
      // A lone ESC in a read is the Escape key (a sequence arrives whole): it stops a run.
      if (piece.type === "keys" && piece.text === "\x1b") {
        if (busy && !ended) raw.interrupt();
      } else if (piece.type === "keys") decoder.emit("data", piece.text);
      else if (!ended) {
        if (shown && stale) resync();
        insert(piece.text);
      }
    }
  };
  const given = options.history ?? [];
  if (given instanceof Promise) {
    const early: Array<string | null> = [];
    raw.onInput((text) => early.push(text));
    given.then((entries) => {
      history.push(...distinct(entries));
      raw.onInput(onInput);
      for (const text of early.splice(0)) onInput(text);
    });
  } else {
    history.push(...distinct(given));
    raw.onInput(onInput);
  }
  raw.onOutput((text) => {
    const cut = Math.max(text.lastIndexOf("\n"), text.lastIndexOf("\r"));
    shownLine = cut === -1 ? shownLine + text : text.slice(cut + 1);
    stale = true;
  });

  return {
    lines,
    attend(opts) {
      attending = opts;
      if (!opts.remember && rl.line !== "" && setAside === undefined) {
        setAside = { line: rl.line, cursor: rl.cursor };
        rl.line = "";
        rl.cursor = 0;
      }
      updateShown();
      if (shown) resync();
    },
    detach() {
      giveKey(null);
      stopAttending();
    },
    readKey: () =>
      ended ? Promise.resolve(null) : new Promise((resolve) => {
        giveKey(null);
        keyWaiter = resolve;
      }),
    setBusy(value) {
      busy = value;
      updateShown();
    },
    close() {
      if (closed) return;
      closed = true;
      end();
      rl.close();
      raw.close();
    },
  };
}
