/**
 * The lines interactive mode reads — one source shared by the prompt, the queue and approval
 * questions — and the approval question asked on them.
 */
import type { Approval, ApprovalRequest, Prompter } from "../policy/approve.ts";
import { createAnswerPrompter, type KeyPrompterIo } from "../term/approval_keys.ts";
import { escapeUnsafe } from "../term/terminal_text.ts";

/** Lines from the terminal, shared by the prompt, the queue and approval questions. */
export interface LineSource {
  /**
   * The next line: a buffered one first unless `fresh` (an answer to a question asked now, which
   * stays out of the prompt history); null at end of input or when cancelled.
   */
  next(options?: { fresh?: boolean }): Promise<string | null>;
  /** Takes the buffered lines (typed while nobody was waiting) from the first, while `take` agrees. */
  drain(take?: (line: string) => boolean): string[];
  /** Resolves every pending `next` with null (e.g. an approval question when the run aborts). */
  cancelWaiters(): void;
  /** A run owns the terminal (or no longer): while nobody waits, typed text is not drawn. */
  setBusy(busy: boolean): void;
  /** Sees each line that arrives while nobody waits (it is buffered); returns the unsubscribe. */
  onBuffered(listener: (line: string) => void): () => void;
  /** Stops reading and gives the terminal back; pending and later `next` resolve null. */
  close(): void;
  /** True once the input has ended. */
  readonly ended: boolean;
  /** Number of lines typed while nobody was waiting, not taken yet. */
  readonly buffered: number;
  /** The next key press (on a line editor only); null at end of input or when cancelled. */
  key?(): Promise<string | null>;
}

/** What a line editor adds to plain lines (src/term/line_editor.ts). */
export interface LineControl {
  /** A reader waits; `remember` false keeps its line out of the history. */
  attend(options: { remember: boolean }): void;
  /** Nobody waits any more (a pending readKey resolves null). */
  detach(): void;
  /** The next key press, kept from the line ("enter" for Enter); null once input ended. */
  readKey?(): Promise<string | null>;
  setBusy(busy: boolean): void;
  close(): void;
}

/** Pumps `lines` into a LineSource; `control` is told who waits (a line editor's drawing). */
export function createLineSource(lines: AsyncIterable<string>, control?: LineControl): LineSource {
  const buffer: string[] = [];
  const waiters: Array<(line: string | null) => void> = [];
  const listeners = new Set<(line: string) => void>();
  let ended = false;
  const endAll = () => {
    ended = true;
    for (const waiter of waiters.splice(0)) waiter(null);
  };
  (async () => {
    try {
      for await (const line of lines) {
        if (ended) break;
        const waiter = waiters.shift();
        if (waiter !== undefined) {
          if (waiters.length === 0) control?.detach();
          waiter(line);
        } else {
          buffer.push(line);
          for (const listener of listeners) listener(line);
        }
      }
    } catch {
      // A failing stdin is the end of input.
    }
    endAll();
  })();
  const readKey = control?.readKey?.bind(control);
  return {
    ...(readKey === undefined ? {} : { key: () => ended ? Promise.resolve(null) : readKey() }),
    next(options = {}) {
      if (!options.fresh && buffer.length > 0) return Promise.resolve(buffer.shift() as string);
      if (ended) return Promise.resolve(null);
      return new Promise((resolve) => {
        waiters.push(resolve);
        control?.attend({ remember: !options.fresh });
      });
    },
    drain(take = () => true) {
      const end = buffer.findIndex((line) => !take(line));
      return buffer.splice(0, end === -1 ? buffer.length : end);
    },
    cancelWaiters() {
      for (const waiter of waiters.splice(0)) waiter(null);
      control?.detach();
    },
    setBusy: (busy) => control?.setBusy(busy),
    onBuffered(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      control?.close();
      endAll();
    },
    get ended() {
      return ended;
    },
    get buffered() {
      return buffer.length;
    },
  };
}

/** What createReplPrompter adds to its line source and writer. */
export interface ReplPrompterOptions {
  /** Holds the renderer's output while a question is open (true) and releases it (false). */
  hold?: (held: boolean) => void;
  /** The terminal's width and resizes, for the single-key question (default: 80 columns). */
  view?: Pick<KeyPrompterIo, "columns" | "onResize">;
  /** Lines shown above the question (a write's or an edit's diff). */
  preview?: (request: ApprovalRequest) => Promise<string[]>;
}

/** A Prompter asking on stderr (a key prompter after `preview`'s lines), answered by a fresh line. */
export function createReplPrompter(
  source: LineSource,
  write: (text: string) => void,
  options: ReplPrompterOptions = {},
): Prompter {
  const { hold, view = { columns: () => 80 }, preview } = options;
  const inner = createAnswerPrompter({
    ...(source.key === undefined ? {} : { readKey: source.key.bind(source) }),
    readLine: () => source.next({ fresh: true }),
    write,
    view,
    ...(preview === undefined ? {} : { preview }),
  });
  // Questions from parallel calls are asked one at a time.
  let chain: Promise<unknown> = Promise.resolve();
  return {
    ask(request: ApprovalRequest): Promise<Approval> {
      const answer = chain.then(async () => {
        hold?.(true);
        try {
          // The question holds a path or command chosen by the model: nothing in it may redraw
          // the terminal or pass for another path.
          return await inner.ask({ ...request, question: escapeUnsafe(request.question) });
        } finally {
          hold?.(false);
        }
      });
      chain = answer.catch(() => {});
      return answer;
    },
  };
}
