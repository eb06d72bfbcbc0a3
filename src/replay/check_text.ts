/**
 * What a replay check found, as data and as the text moat prints: the part of ./check.ts that
 * reporting needs, without the comparison (diff, normalisation), so that a run that replays
 * nothing does not load it.
 */

/** The first tool result that differs from the recording. */
export interface ReplayDifference {
  toolName: string;
  toolCallId: string;
  /** The recorded call's arguments (undefined when the call is not in the recorded reply). */
  args: unknown;
  /** Line of the recorded reply that made the call (0 when no reply was handed out yet). */
  replyLine: number;
  /** Line of the recorded toolResult message; null when the recording has none. */
  resultLine: number | null;
  /**
   * What differs: "missing" = one side has no result for the call (the live run did not answer
   * a recorded call, never played its reply, or answered a call the recording did not make).
   */
  aspect: "isError" | "content" | "missing";
  /** Normalised recorded text ("ok"/"error" for isError). */
  recorded: string;
  /** Normalised live text ("ok"/"error" for isError). */
  live: string;
  /** Short unified diff (--- recorded / +++ live) of the first differing hunk, at most ~20 lines. */
  diff: string;
}

/** Counts over a whole replay; `first` is set when anything differed. */
export interface ReplayCheckSummary {
  /**
   * Recorded results checked against the live run (including those the live run did not answer
   * or whose reply it never played), plus live results with no recorded one.
   */
  compared: number;
  /** How many of those differed (including missing ones). */
  differing: number;
  /**
   * Live results that were not compared: they answer a reply recorded without results, or one
   * given to onReply with `compare: false`.
   */
  unrecorded: number;
  first?: ReplayDifference;
}

/** The live side of a recorded call whose reply the live run never played. */
export const NOT_PLAYED = "(not played)";
/** The recorded side of a live result the recording does not have. */
export const NOT_RECORDED = "(no recorded result)";
const MAX_ARGS_CHARS = 120;

function compactArgs(args: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(args);
  } catch {
    text = undefined;
  }
  text ??= args === undefined ? "(arguments unknown)" : String(args);
  return text.length > MAX_ARGS_CHARS ? `${text.slice(0, MAX_ARGS_CHARS)}…` : text;
}

function what(difference: ReplayDifference): string {
  switch (difference.aspect) {
    case "isError":
      return `the recorded result was ${difference.recorded === "error" ? "an error" : "ok"}, ` +
        `the live one is ${difference.live === "error" ? "an error" : "ok"}`;
    case "content":
      return "the result's content differs";
    case "missing":
      if (difference.recorded === NOT_RECORDED) {
        return "the live run has a result the recording does not have";
      }
      return difference.live === NOT_PLAYED
        ? "the live run ended before playing the recorded reply that made this call"
        : "the live run has no result for this recorded call";
    default: {
      const never: never = difference.aspect;
      return never;
    }
  }
}

/** Human text for stderr: which call (tool, args, recorded line) and the diff; several lines, ends with \n. */
export function formatReplayDifference(difference: ReplayDifference): string {
  const where = difference.resultLine === null
    ? `recorded reply on line ${difference.replyLine}, no recorded result`
    : `recorded reply on line ${difference.replyLine}, recorded result on line ${difference.resultLine}`;
  const lines = [
    `Tool call "${difference.toolName}" differs from the recording: ${what(difference)}.`,
    `  call: ${difference.toolName} ${
      compactArgs(difference.args)
    } (id "${difference.toolCallId}")`,
    `  ${where}`,
    ...difference.diff.split("\n").map((line) => `  ${line}`),
  ];
  return `${lines.join("\n")}\n`;
}

/** The stderr lines that report a replay check: passed, or the first difference. */
export function replayCheckText(check: ReplayCheckSummary): string {
  const unrecorded = check.unrecorded > 0
    ? `; ${check.unrecorded} result(s) were not compared (the recording has no complete result for them)`
    : "";
  if (check.first === undefined) {
    return `moat: replay check passed: ${check.compared} tool result(s) match the recording${unrecorded}\n`;
  }
  return `moat: replay check failed: ${check.differing} of ${check.compared} tool result(s) differ ` +
    `from the recording${unrecorded}; the first:\n${formatReplayDifference(check.first)}`;
}
