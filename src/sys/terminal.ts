/** Deno implementation of the CLI's Terminal: standard streams, TTY state and signals. */
import type { CliSignal, Terminal } from "../cli/io.ts";
import type { ToolHostIo } from "../sandbox/host.ts";

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
    writeStdout: (text) => writeAll(Deno.stdout, text),
    writeStderr: (text) => writeAll(Deno.stderr, text),
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
      try {
        Deno.addSignalListener(signal, handler);
      } catch {
        // Not every signal exists on every OS (SIGTERM on Windows): nothing to listen for there.
        return () => {};
      }
      return () => {
        try {
          Deno.removeSignalListener(signal, handler);
        } catch {
          // Already removed.
        }
      };
    },
    columns() {
      try {
        // A pseudo-terminal nobody sized reports 0 columns.
        return Deno.consoleSize().columns || 80;
      } catch {
        return 80;
      }
    },
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
