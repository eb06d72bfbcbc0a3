/** The CLI terminal as `moat acp` lends it to the run code: stdout belongs to the protocol. */
import type { Terminal } from "../cli/io.ts";

/** A terminal whose stdout writes go to stderr, with no input and no TTY; keeps its last text. */
export function protocolTerminal(terminal: Terminal): Terminal & { lastText(): string } {
  let last = "";
  const write = (text: string) => {
    last = (last + text).slice(-2000);
    terminal.writeStderr(text);
  };
  return {
    isTty: () => false,
    writeStdout: write,
    writeStderr: write,
    readStdin: () => Promise.resolve(null),
    readLines: () => ({
      [Symbol.asyncIterator]: () => ({
        next: () => Promise.resolve({ done: true as const, value: undefined }),
      }),
    }),
    onSignal: (signal, handler) => terminal.onSignal(signal, handler),
    columns: () => 80,
    lastText() {
      const text = last;
      last = "";
      return text;
    },
  };
}
