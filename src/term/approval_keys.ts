/**
 * The approval question on a terminal with a line editor: one key answers it (y, a, d, n; Enter
 * is no, the safe default), the choice is echoed after the question, other keys are ignored, and
 * the question wraps at word boundaries to the terminal's width.
 */
import {
  type Approval,
  type ApprovalRequest,
  createLinePrompter,
  type Prompter,
} from "../policy/approve.ts";
import { displayWidth, wrapText } from "./wrap.ts";

/** What the key prompter needs: one key press at a time, the output, the terminal's width. */
export interface KeyPrompterIo {
  /** The next key ("enter" for Enter, else the typed text); null when input ended or cancelled. */
  readKey(): Promise<string | null>;
  write(text: string): void;
  /** Terminal width in columns (0 or less: unknown, 80 is used). */
  columns(): number;
  /** Subscribes to the window's resizes (SIGWINCH); returns the unsubscribe function. */
  onResize?(listener: () => void): () => void;
  /** Lines shown before the question (a write's or edit's diff, src/term/approval_diff.ts). */
  preview?(request: ApprovalRequest): Promise<string[]>;
}

/** `text` wrapped at spaces to `columns` (at least 20; 0 or less: unknown, 80 is used). */
export function wrapWords(text: string, columns: number): string {
  return wrapText(text, { width: columns > 0 ? Math.max(20, columns) : 80 }).join("\n");
}

const ECHO: Record<Approval, string> = {
  once: "yes, once",
  always: "always",
  directory: "directory",
  deny: "no",
};

/** The answer a key gives, or undefined for a key that answers nothing (it is ignored). */
function keyAnswer(key: string, directory: boolean): Approval | undefined {
  switch (key.toLowerCase()) {
    case "y":
      return "once";
    case "a":
      return "always";
    case "d":
      return directory ? "directory" : undefined;
    case "n":
    case "enter":
      return "deny";
    default:
      return undefined;
  }
}

/** The rows `shown` (its cursor after it) takes once a terminal reflowed it to `columns`. */
function rowsAt(shown: string, columns: number): number {
  const width = columns > 0 ? columns : 80;
  return shown.split("\n").reduce(
    (rows, line) => rows + Math.max(1, Math.ceil(displayWidth(line) / width)),
    0,
  );
}

/** A prompter answered by a single key (see the module comment); redrawn when resized. */
export function createKeyPrompter(io: KeyPrompterIo): Prompter {
  return {
    async ask(request: ApprovalRequest): Promise<Approval> {
      const before = await io.preview?.(request) ?? [];
      if (before.length > 0) io.write(before.join("\n") + "\n");
      let shown = wrapWords(request.question, io.columns()) + " ";
      io.write(shown);
      // Resized: back to the question's first row, erase it, and draw it wrapped anew.
      const off = io.onResize?.(() => {
        const up = rowsAt(shown, io.columns()) - 1;
        shown = wrapWords(request.question, io.columns()) + " ";
        io.write(`\r${up > 0 ? `\x1b[${up}A` : ""}\x1b[J${shown}`);
      });
      try {
        return await answerOf(io, request);
      } finally {
        off?.();
      }
    },
  };
}

/** Reads keys until one answers `request`; echoes the answer. */
async function answerOf(io: KeyPrompterIo, request: ApprovalRequest): Promise<Approval> {
  const directory = request.location !== undefined && "path" in request.location &&
    request.location.path !== "/";
  for (;;) {
    const key = await io.readKey();
    const answer = key === null ? "deny" : keyAnswer(key, directory);
    if (answer === undefined) continue;
    io.write(`→ ${ECHO[answer]}\n`);
    return answer;
  }
}

/** What createAnswerPrompter needs: keys when there is a line editor, else typed lines. */
export interface AnswerIo {
  readKey?: () => Promise<string | null>;
  readLine: () => Promise<string | null>;
  write: (text: string) => void;
  view: Pick<KeyPrompterIo, "columns" | "onResize">;
  /** Lines before a key question (none before a typed-line one: piped output stays as it was). */
  preview?: KeyPrompterIo["preview"];
}

/** A line editor answers with one key; plain lines (a pipe) with a typed line, as before. */
export function createAnswerPrompter(io: AnswerIo): Prompter {
  const { readKey, view } = io;
  if (readKey === undefined) return createLinePrompter({ write: io.write, readLine: io.readLine });
  return createKeyPrompter({
    readKey,
    write: io.write,
    columns: () => view.columns(),
    ...(io.preview === undefined ? {} : { preview: io.preview }),
    ...(view.onResize === undefined ? {} : { onResize: view.onResize.bind(view) }),
  });
}
