/**
 * The result of a bash call as the model sees it: both tails in one budget, shown as a terminal
 * shows them, with notes on what was dropped and where it was saved, and how the command ended.
 */
import type { ToolOutput } from "../../agent/tool.ts";
import type { ProcessExit } from "../ops.ts";
import { formatSize } from "../truncate.ts";
import type { StreamCollector } from "./collector.ts";
import { fitTails, type FittedTail } from "./fit.ts";

/** Structured result data of a bash call. */
export interface BashDetails {
  /** Exit code; null when the command was killed, timed out, was aborted or never started. */
  exitCode: number | null;
  /** Signal that ended the command, when one did. */
  signal?: string;
  timedOut?: boolean;
  aborted?: boolean;
  /** Timeout applied, in seconds. */
  timeoutSec: number;
  stdoutBytes: number;
  stderrBytes: number;
  /** True when some output is not in the result. */
  truncated: boolean;
  /** Spill files holding the first 10 MiB of a stream, when one was written. */
  stdoutFile?: string;
  stderrFile?: string;
  /** Most stream bytes held in memory at once (for benchmarks; bounded by design). */
  retainedPeakBytes: number;
}

const STDERR_HEADER = "--- stderr ---";

/** How a call ended: the command exited, timed out or was aborted. */
export type Ending =
  | { type: "exit"; status: ProcessExit }
  | { type: "timeout" }
  | { type: "abort" };

// CSI (colours, cursor moves) and OSC (titles, hyperlinks) escape sequences.
// deno-lint-ignore no-control-regex
const ANSI_ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g;

/**
 * Output as a terminal would show it: escape sequences removed, and text a carriage return went
 * back over (progress bars, spinners) overwritten, so a model does not receive every frame.
 */
export function asTerminalShows(text: string): string {
  if (!text.includes("\r") && !text.includes("\x1b")) return text;
  return text.replace(ANSI_ESCAPES, "").split("\n").map((line) => {
    const body = line.endsWith("\r") ? line.slice(0, -1) : line;
    if (!body.includes("\r")) return body;
    return body.split("\r").reduce((shown, frame) => frame + shown.slice(frame.length), "");
  }).join("\n");
}

/**
 * True when decoded output is mostly not text: it has NUL bytes, or more than a tenth of it is
 * replacement characters (invalid UTF-8) and control characters other than whitespace.
 */
export function looksLikeBinaryText(text: string): boolean {
  if (text.length === 0) return false;
  if (text.includes("\0")) return true;
  let odd = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // Tab, newline, carriage return, form feed and escape are ordinary in terminal output.
    if (
      code === 0xfffd || (code < 32 && code !== 9 && code !== 10 && code !== 12 && code !== 13 &&
        code !== 27)
    ) odd++;
  }
  return odd * 10 > text.length;
}

/** The output of both streams as one text, stderr after its header. */
export function joinStreams(stdout: FittedTail, stderr: FittedTail): string {
  if (stderr.text === "") return stdout.text;
  if (stdout.text === "") return `${STDERR_HEADER}\n${stderr.text}`;
  return `${stdout.text}\n${STDERR_HEADER}\n${stderr.text}`;
}

function streamNote(
  name: "stdout" | "stderr",
  fitted: FittedTail,
  collector: StreamCollector,
): string | null {
  if (!fitted.truncated) return null;
  const parts: string[] = [];
  const lines = fitted.totalLines === 1 ? "1 line" : `${fitted.totalLines} lines`;
  const total = `${lines}, ${formatSize(fitted.totalBytes)}`;
  if (fitted.lineCut) {
    parts.push(
      `${name}: ${total}; showing only the end of its last line (the line is longer than the output budget).`,
    );
  } else {
    parts.push(`${name}: showing the last ${fitted.shownLines} of ${total}.`);
  }
  const path = collector.spillPath;
  if (path !== null) {
    parts.push(
      collector.spillCapped
        ? `The first 10 MiB of ${name} are saved in ${path} (the rest was not kept).`
        : `Full ${name} saved in ${path}.`,
    );
  } else if (collector.spillError !== null) {
    parts.push(`The full ${name} could not be saved: ${collector.spillError}`);
  }
  return `[${parts.join(" ")}]`;
}

function endingLine(ending: Ending, timeoutSec: number): string | null {
  switch (ending.type) {
    case "timeout":
      return `command timed out after ${timeoutSec}s and was killed`;
    case "abort":
      return "command aborted";
    case "exit": {
      const { code, signal } = ending.status;
      if (signal !== null) return `Command was killed by signal ${signal}`;
      if (code === null) return "Command ended without an exit status";
      return code === 0 ? null : `Command exited with code ${code}`;
    }
    default: {
      const never: never = ending;
      return never;
    }
  }
}

/** Builds the call's result once it ended; makes sure dropped output is on disk first. */
export async function buildResult(input: {
  ending: Ending;
  collectors: { stdout: StreamCollector; stderr: StreamCollector };
  notes: string[];
  timeoutSec: number;
  peak: number;
}): Promise<ToolOutput> {
  const { ending, collectors, timeoutSec } = input;
  const fitted = fitTails(collectors.stdout.tail.view(), collectors.stderr.tail.view());
  // Streams that lost output must be on disk for the model to page.
  if (fitted.stdout.truncated) await collectors.stdout.ensureSpilled();
  if (fitted.stderr.truncated) await collectors.stderr.ensureSpilled();
  await collectors.stdout.close();
  await collectors.stderr.close();

  const notes = [...input.notes];
  const outNote = streamNote("stdout", fitted.stdout, collectors.stdout);
  if (outNote !== null) notes.push(outNote);
  const errNote = streamNote("stderr", fitted.stderr, collectors.stderr);
  if (errNote !== null) notes.push(errNote);
  const last = endingLine(ending, timeoutSec);
  const body = joinStreams(
    { ...fitted.stdout, text: shownToModel(fitted.stdout) },
    { ...fitted.stderr, text: shownToModel(fitted.stderr) },
  );

  const sections: string[] = [];
  if (body !== "") sections.push(body);
  const tail = [...notes, ...(last === null ? [] : [last])].join("\n");
  if (tail !== "") sections.push(tail);
  const output = sections.length > 0 ? sections.join("\n\n") : "(no output)";

  const details: BashDetails = {
    exitCode: ending.type === "exit" && ending.status.signal === null ? ending.status.code : null,
    timeoutSec,
    stdoutBytes: fitted.stdout.totalBytes,
    stderrBytes: fitted.stderr.totalBytes,
    truncated: fitted.stdout.truncated || fitted.stderr.truncated,
    retainedPeakBytes: input.peak,
  };
  if (ending.type === "exit" && ending.status.signal !== null) {
    details.signal = ending.status.signal;
  }
  if (ending.type === "timeout") details.timedOut = true;
  if (ending.type === "abort") details.aborted = true;
  if (collectors.stdout.spillPath !== null) details.stdoutFile = collectors.stdout.spillPath;
  if (collectors.stderr.spillPath !== null) details.stderrFile = collectors.stderr.spillPath;

  const isError = ending.type !== "exit" ||
    (ending.status.code === null && ending.status.signal === null);
  return isError ? { output, isError: true, details } : { output, details };
}

/** A stream's tail as the model should see it: as a terminal shows it, and never binary noise. */
export function shownToModel(tail: FittedTail): string {
  if (looksLikeBinaryText(tail.text)) {
    return `[binary output not shown (${formatSize(tail.totalBytes)}); inspect it with ` +
      `"xxd | head" or "od -c | head", or redirect it to a file]`;
  }
  return asTerminalShows(tail.text);
}
