/** Deno implementation of the CLI's Terminal: standard streams, TTY state and signals. */
import type { CliSignal, RawTerminal, Terminal } from "../cli/io.ts";
import type { ToolHostIo } from "../sandbox/host/server.ts";

function writeAll(file: { writeSync(p: Uint8Array): number }, text: string): void {
  let bytes = new TextEncoder().encode(text);
  try {
    while (bytes.length > 0) {
      const n = file.writeSync(bytes);
      bytes = bytes.subarray(n);
    }
  } catch (e) {
    // The reader went away (e.g. `moat … | head`): nothing more can be shown; keep running so the
    // session is still saved and the exit code stays honest.
    if (e instanceof Deno.errors.BrokenPipe || e instanceof Deno.errors.BadResource) return;
    throw e;
  }
}

/** Creates the Terminal backed by Deno's stdin/stdout/stderr and signal listeners. */
export function createDenoTerminal(): Terminal {
  // In raw mode Ctrl-C is a key: the line editor runs these handlers instead of a signal.
  const interruptHandlers = new Set<() => void>();
  let raw: RawTerminal | undefined;
  let shown: ((text: string) => void) | undefined;
  return {
    isTty(stream) {
      switch (stream) {
        case "stdin":
          return Deno.stdin.isTerminal();
        case "stdout":
          return Deno.stdout.isTerminal();
        case "stderr":
          return Deno.stderr.isTerminal();
      }
    },
    writeStdout(text) {
      writeAll(Deno.stdout, text);
      shown?.(text);
    },
    writeStderr(text) {
      writeAll(Deno.stderr, text);
      shown?.(text);
    },
    async readStdin(options = {}) {
      const reader = Deno.stdin.readable.getReader();
      const decoder = new TextDecoder();
      const parts: string[] = [];
      const max = options.maxBytes ?? Infinity;
      let bytes = 0;
      let first = true;
      for (;;) {
        let result: ReadableStreamReadResult<Uint8Array> | null;
        if (first && options.firstChunkTimeoutMs !== undefined) {
          let timer: ReturnType<typeof setTimeout> | undefined;
          const timeout = new Promise<null>((resolve) => {
            timer = setTimeout(() => resolve(null), options.firstChunkTimeoutMs);
          });
          result = await Promise.race([reader.read(), timeout]);
          clearTimeout(timer);
          if (result === null) {
            // Nobody is writing to the pipe; give up on it rather than hang the run.
            reader.cancel().catch(() => {});
            return null;
          }
        } else {
          result = await reader.read();
        }
        first = false;
        if (result.done) break;
        if (bytes + result.value.length > max) {
          // Stop reading (an endless producer such as `yes` must not exhaust memory); a
          // character cut in half at the limit is dropped rather than flushed as U+FFFD.
          parts.push(decoder.decode(result.value.subarray(0, max - bytes), { stream: true }));
          await reader.cancel().catch(() => {});
          return { text: parts.join(""), truncated: true };
        }
        bytes += result.value.length;
        parts.push(decoder.decode(result.value, { stream: true }));
      }
      reader.releaseLock();
      parts.push(decoder.decode());
      return { text: parts.join(""), truncated: false };
    },
    async *readLines() {
      const reader = Deno.stdin.readable.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          buffer += value;
          let nl: number;
          while ((nl = buffer.indexOf("\n")) !== -1) {
            yield buffer.slice(0, nl).replace(/\r$/, "");
            buffer = buffer.slice(nl + 1);
          }
        }
        if (buffer !== "") yield buffer;
      } finally {
        reader.releaseLock();
      }
    },
    onSignal(signal: CliSignal, handler: () => void) {
      if (signal === "SIGINT") interruptHandlers.add(handler);
      try {
        Deno.addSignalListener(signal, handler);
      } catch {
        // Not every signal exists on every OS (SIGTERM on Windows): nothing to listen for there.
        return () => interruptHandlers.delete(handler);
      }
      return () => {
        interruptHandlers.delete(handler);
        try {
          Deno.removeSignalListener(signal, handler);
        } catch {
          // Already removed.
        }
      };
    },
    columns: consoleColumns,
    onResize(handler: () => void) {
      try {
        Deno.addSignalListener("SIGWINCH", handler);
      } catch {
        // No SIGWINCH (Windows): the question keeps its first wrapping.
        return () => {};
      }
      return () => Deno.removeSignalListener("SIGWINCH", handler);
    },
    openRaw() {
      if (raw !== undefined || !Deno.stdin.isTerminal()) return undefined;
      const opened = openRawStdin({
        interrupt: () => [...interruptHandlers],
        onOutput: (listener) => shown = listener,
        closed: () => {
          raw = undefined;
          shown = undefined;
        },
      });
      raw = opened;
      return opened;
    },
    release() {
      raw?.close();
    },
  };
}

function consoleColumns(): number {
  try {
    // A pseudo-terminal nobody sized reports 0 columns.
    return Deno.consoleSize().columns || 80;
  } catch {
    return 80;
  }
}

const PASTE_ON = "\x1b[?2004h";
const PASTE_OFF = "\x1b[?2004l";

/** Stdin in raw mode with bracketed paste; input is read as it arrives. */
function openRawStdin(hooks: {
  interrupt: () => Array<() => void>;
  onOutput: (listener: (text: string) => void) => void;
  closed: () => void;
}): RawTerminal {
  // The editor draws where the prompt is: stdout, unless it is redirected.
  const screen = Deno.stdout.isTerminal() ? Deno.stdout : Deno.stderr;
  let listener: ((text: string | null) => void) | undefined;
  const early: Array<string | null> = [];
  const deliver = (text: string | null) =>
    listener === undefined ? early.push(text) : listener(text);
  let closed = false;
  let isRaw = false;
  const setRaw = (on: boolean) => {
    if (isRaw === on) return;
    try {
      Deno.stdin.setRaw(on);
      isRaw = on;
      writeAll(screen, on ? PASTE_ON : PASTE_OFF);
    } catch (e) {
      // A terminal that went away cannot be set back: nothing is left to restore.
      if (!(e instanceof Deno.errors.BadResource || e instanceof Deno.errors.NotConnected)) throw e;
    }
  };
  setRaw(true);
  (async () => {
    const decoder = new TextDecoder();
    const buffer = new Uint8Array(4096);
    try {
      for (;;) {
        const n = await Deno.stdin.read(buffer);
        if (closed) return;
        if (n === null) break;
        deliver(decoder.decode(buffer.subarray(0, n), { stream: true }));
      }
    } catch {
      // A failing stdin is the end of input.
    }
    if (!closed) deliver(null);
  })();
  const close = () => {
    if (closed) return;
    closed = true;
    setRaw(false);
    hooks.closed();
  };
  return {
    onInput(next) {
      listener = next;
      for (const text of early.splice(0)) next(text);
    },
    onOutput: (next) => hooks.onOutput(next),
    write: (text) => writeAll(screen, text),
    columns: consoleColumns,
    interrupt() {
      const handlers = hooks.interrupt();
      for (const handler of handlers) handler();
      if (handlers.length > 0) return;
      // Nobody handles Ctrl-C (e.g. at the trust question): interrupt as the terminal would.
      close();
      Deno.kill(0, "SIGINT");
    },
    suspend() {
      setRaw(false);
      try {
        // Like Ctrl-Z on a cooked terminal: the whole foreground job stops, and this returns
        // once it is continued (or at once when the signal is discarded: an orphaned group).
        Deno.kill(0, "SIGTSTP");
      } catch {
        // No job control here (no SIGTSTP on this OS): Ctrl-Z does nothing.
      }
      if (!closed) setRaw(true);
    },
    close,
  };
}

/** The tool host's standard streams (`moat __tool-host`). */
export function createDenoToolHostIo(): ToolHostIo {
  return {
    stdin: Deno.stdin.readable,
    stdout: Deno.stdout.writable,
    stderr: (text) => writeAll(Deno.stderr, text),
  };
}
