/**
 * Exit codes of the moat command: 0 completed · 1 model/provider error · 2 usage/config error or
 * required sandbox unavailable · 3 a limit was reached · 4 denied calls with --fail-on-deny · 5
 * --replay-check found a difference · 6 context exhausted · 7 the answer does not match
 * --output-schema · 130 SIGINT · 143 SIGTERM.
 */
import { type Terminal, writeMessage } from "./io.ts";

/** Exit codes of the moat command. */
export const EXIT = {
  ok: 0,
  modelError: 1,
  usage: 2,
  maxTurns: 3,
  denied: 4,
  replayMismatch: 5,
  /** The conversation does not fit the context window, even compacted (or compaction is off). */
  contextExhausted: 6,
  /** The final answer is not JSON valid against --output-schema, even after asking again. */
  schemaMismatch: 7,
  sigint: 130,
  sigterm: 143,
} as const;

/** Writes a usage error with the pointer to --help; returns the usage exit code. */
export function usageError(terminal: Terminal, message: string): number {
  writeMessage(terminal, `moat: ${message}\nRun 'moat --help' for usage.\n`);
  return EXIT.usage;
}
