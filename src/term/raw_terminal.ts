/** The raw terminal the line editor draws on and reads keys from (src/term/line_editor.ts). */

/** A terminal in raw mode: keys arrive as typed (Ctrl-C is a key, not a signal). */
export interface RawTerminal {
  /** Receives input as it arrives (keys, escape sequences, pastes); null once input ended. */
  onInput(listener: (text: string | null) => void): void;
  /** Receives what the program writes to the terminal (not the editor's own drawing). */
  onOutput(listener: (text: string) => void): void;
  /** Draws the editor's line. Must not throw. */
  write(text: string): void;
  /** Terminal width in columns (80 when unknown). */
  columns(): number;
  /** Ctrl-C: runs the SIGINT handlers; with none, interrupts like a terminal would. */
  interrupt(): void;
  /** Ctrl-Z: stops like a terminal would (cooked mode meanwhile); returns once continued. */
  suspend(): void;
  /** Cooked mode and bracketed paste off again; input stops. Safe to call twice. */
  close(): void;
}
