/**
 * Answers rendered as markdown (interactive mode on a terminal): src/term/markdown.ts is loaded
 * lazily, since marked and highlight.js take tens of ms to load. The load starts with interactive
 * mode; text that arrives before it is done waits, and an answer that ends first is written as
 * the model wrote it.
 */

/** What the answer view uses of src/term/markdown.ts (loaded with a dynamic import). */
export interface MarkdownModule {
  createMarkdownStream(
    options: { width: number; color: boolean; write: (text: string) => void },
  ): { push(delta: string): void; end(): void };
}

/** Markdown rendering of the answer: the module being loaded, and whether it colours. */
export interface MarkdownSetup {
  /** The import of src/term/markdown.ts, started (not awaited) when interactive mode begins. */
  readonly module: Promise<MarkdownModule>;
  /** Style with SGR sequences (decide with `useColor` for stdout; false under NO_COLOR). */
  readonly color: boolean;
}

/** Where rendered answers go. */
export interface MarkdownOutput {
  /** Terminal columns (0 when unknown: 80 are used). */
  columns(): number;
  /** Writes finished, rendered lines (each ending with "\n"). */
  lines(text: string): void;
  /** Writes answer text as the model wrote it (the module could not be loaded in time). */
  raw(text: string): void;
  /** Whether output has stopped for good (the renderer was disposed). */
  disposed(): boolean;
}

/** The answer messages of one renderer, rendered as markdown. */
export interface MarkdownAnswers {
  /** The next piece of the current message's text. */
  push(delta: string): void;
  /** The message ended: writes what is left of it. */
  end(): void;
}

/** Creates the markdown rendering of answers; the module's load is awaited here, never blocked on. */
export function createMarkdownAnswers(setup: MarkdownSetup, out: MarkdownOutput): MarkdownAnswers {
  let loaded: MarkdownModule | undefined;
  let failed = false;
  let stream: ReturnType<MarkdownModule["createMarkdownStream"]> | null = null;
  // The current message's text while the module is loading.
  let waiting: string | null = null;
  const options = () => {
    const columns = out.columns();
    return { width: columns > 0 ? columns : 80, color: setup.color };
  };
  const start = (module: MarkdownModule) => {
    stream = module.createMarkdownStream({ ...options(), write: (text) => out.lines(text) });
    return stream;
  };
  const release = () => {
    const text = waiting;
    waiting = null;
    if (text === null || out.disposed()) return;
    if (loaded !== undefined) start(loaded).push(text);
    else out.raw(text);
  };
  setup.module.then(
    (module) => {
      loaded = module;
      release();
    },
    () => {
      failed = true;
      release();
    },
  );
  return {
    push(delta) {
      if (stream !== null) stream.push(delta);
      else if (loaded !== undefined) start(loaded).push(delta);
      else if (failed) out.raw(delta);
      else waiting = (waiting ?? "") + delta;
    },
    end() {
      // Not loaded yet: the message is written as it is, before anything that follows it.
      if (waiting !== null) {
        out.raw(waiting);
        waiting = null;
      }
      stream?.end();
      stream = null;
    },
  };
}
