/**
 * `--replay-check`: compares each live tool result with the one recorded in the replayed session,
 * after replacing the machine-specific parts (paths, spill-file names, durations, timestamps) of
 * both sides with placeholders, and keeps the first difference for a human-readable report.
 */
import { structuredPatch } from "diff";
import { toolCallsOf } from "../agent/mod.ts";
import type { ContentBlock, ToolResult, ToolResultMessage } from "../model/types.ts";
import { type NormalizeContext, normalizeWithPaths, pathReplacements } from "./normalize.ts";
import type { RecordedReply } from "./recording.ts";
import {
  NOT_PLAYED,
  NOT_RECORDED,
  type ReplayCheckSummary,
  type ReplayDifference,
} from "./check_text.ts";

/** Options of ReplayChecker.onReply. */
export interface ReplyCheckOptions {
  /**
   * Compare the live results answering this reply with the recorded ones. Default true; false
   * for a reply whose recorded results are not complete (the last reply of an interrupted
   * recorded exchange): its live results count as unrecorded, and no answer is not missing.
   */
  compare?: boolean;
}

/** Follows a replay and compares live tool results with the recorded ones. */
export interface ReplayChecker {
  /** The replay client handed out this recorded reply (call before its results arrive). */
  onReply(reply: RecordedReply, options?: ReplyCheckOptions): void;
  /** The live run saved this toolResult message (answers the last reply given to onReply). */
  onToolResults(message: ToolResultMessage): void;
  /** The live run never played this recorded reply: each of its recorded results is missing. */
  onUnplayed(reply: RecordedReply): void;
  /** Counts so far; a handed-out reply whose recorded results got no live answer counts as missing. */
  summary(): ReplayCheckSummary;
}

/** Text shown for the side that has no result at all (aspect "missing"). */
const NO_LIVE_RESULT = "(no live result)";

const MAX_DIFF_LINES = 20;
const MAX_LINE_CHARS = 200;

/** Decoded size of base64 data without decoding it. */
function base64Bytes(data: string): number {
  const clean = data.replace(/\s+/g, "");
  const padding = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

/**
 * Tools whose results are command output (see NormalizeOptions.commandOutput in normalize.ts):
 * bash, and the job tool's reads of a background command's output and state.
 */
const COMMAND_TOOLS = ["bash", "job"];

/** The result's text normalised with `paths`, images as a type-and-size line. */
function contentText(
  result: ToolResult,
  paths: ReadonlyArray<readonly [string, string]>,
): string {
  const options = { commandOutput: COMMAND_TOOLS.includes(result.toolName) };
  const content = result.content;
  if (typeof content === "string") return normalizeWithPaths(content, paths, options);
  return content
    .map((block) =>
      block.type === "text"
        ? normalizeWithPaths(block.text, paths, options)
        : `[image ${block.mimeType}, ${base64Bytes(block.data)} bytes]`
    )
    .join("\n");
}

function imageKeys(content: ContentBlock[] | string): string[] {
  if (typeof content === "string") return [];
  return content.flatMap((b) => (b.type === "image" ? [`${b.mimeType}\n${b.data}`] : []));
}

function clipLine(line: string): string {
  if (line.length <= MAX_LINE_CHARS) return line;
  return `${line.slice(0, MAX_LINE_CHARS)}… [${line.length - MAX_LINE_CHARS} more chars]`;
}

/** The first hunk of a unified diff, with headers, at most MAX_DIFF_LINES lines. */
function firstHunkDiff(recorded: string, live: string): string {
  const patch = structuredPatch("recorded", "live", recorded, live, undefined, undefined, {
    context: 3,
  });
  const hunk = patch.hunks[0];
  const lines = ["--- recorded", "+++ live"];
  if (hunk === undefined) {
    lines.push("(no line differs)");
    return lines.join("\n");
  }
  lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
  // "\ No newline at end of file" says nothing a reader of a tool result needs.
  const body = cappedRuns(hunk.lines.filter((line) => !line.startsWith("\\")));
  const room = MAX_DIFF_LINES - lines.length;
  const shown = body.length > room ? body.slice(0, room - 1) : body;
  lines.push(...shown.map(clipLine));
  if (shown.length < body.length) lines.push(`… (${body.length - shown.length} more diff lines)`);
  return lines.join("\n");
}

/** Most lines shown of one run of removed or added lines, so both sides of a change fit. */
const MAX_RUN_LINES = 6;

/** Cuts each run of "-" or "+" lines to MAX_RUN_LINES with a note of how many were left out. */
function cappedRuns(hunkLines: readonly string[]): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < hunkLines.length) {
    const mark = (hunkLines[i] as string)[0];
    let end = i;
    while (end < hunkLines.length && (hunkLines[end] as string)[0] === mark) end++;
    const run = hunkLines.slice(i, end);
    if (mark !== " " && run.length > MAX_RUN_LINES) {
      out.push(...run.slice(0, MAX_RUN_LINES - 1));
      out.push(
        `${mark} … (${run.length - MAX_RUN_LINES + 1} more ${
          mark === "-" ? "recorded" : "live"
        } lines)`,
      );
    } else {
      out.push(...run);
    }
    i = end;
  }
  return out;
}

/** What differs about one result: the part of a ReplayDifference that does not locate it. */
type Finding = Pick<ReplayDifference, "aspect" | "recorded" | "live" | "diff">;

/** A finding where one side has no result at all; the texts are already normalised. */
function missing(recorded: string, live: string): Finding {
  return { aspect: "missing", recorded, live, diff: firstHunkDiff(recorded, live) };
}

/**
 * Creates a checker. Both sides are normalised with the paths of both contexts: a file written
 * during the recording holds the recording's paths, and the live run reads the same bytes.
 */
export function createReplayChecker(
  options: { recorded: NormalizeContext; live: NormalizeContext },
): ReplayChecker {
  let compared = 0;
  let differing = 0;
  let unrecorded = 0;
  let first: ReplayDifference | undefined;
  /**
   * The reply handed out last; `settled` once its live results arrived or its recorded ones were
   * counted as missing, `compare` as given to onReply.
   */
  let current: { reply: RecordedReply; settled: boolean; compare: boolean } | undefined;

  const paths = pathReplacements(options.recorded, options.live);
  const textOf = (result: ToolResult) => contentText(result, paths);

  const report = (difference: ReplayDifference) => {
    compared++;
    differing++;
    first ??= difference;
  };

  /** The fields that say which call a result answers and where the recording has it. */
  const located = (reply: RecordedReply | undefined, result: ToolResult) => ({
    toolName: result.toolName,
    toolCallId: result.toolCallId,
    args: reply === undefined
      ? undefined
      : toolCallsOf(reply.message).find((c) => c.id === result.toolCallId)?.arguments,
    replyLine: reply?.line ?? 0,
    resultLine: reply?.results?.line ?? null,
  });

  /** A recorded result of `reply` that has no live counterpart. */
  const missingLive = (
    reply: RecordedReply,
    recorded: ToolResult,
    missingOptions: { live?: string } = {},
  ): ReplayDifference => ({
    ...located(reply, recorded),
    ...missing(textOf(recorded), missingOptions.live ?? NO_LIVE_RESULT),
  });

  const compare = (recorded: ToolResult, live: ToolResult): Finding | undefined => {
    const recordedText = textOf(recorded);
    const liveText = textOf(live);
    if (recorded.isError !== live.isError) {
      const status = (isError: boolean) => (isError ? "error" : "ok");
      return {
        aspect: "isError",
        recorded: status(recorded.isError),
        live: status(live.isError),
        diff: firstHunkDiff(
          `[${status(recorded.isError)}]\n${recordedText}`,
          `[${status(live.isError)}]\n${liveText}`,
        ),
      };
    }
    const recordedImages = imageKeys(recorded.content);
    const liveImages = imageKeys(live.content);
    const sameImages = recordedImages.length === liveImages.length &&
      recordedImages.every((key, i) => key === liveImages[i]);
    if (recordedText === liveText && sameImages) return undefined;
    return {
      aspect: "content",
      recorded: recordedText,
      live: liveText,
      diff: recordedText === liveText
        ? "--- recorded\n+++ live\n(same text; the image data differs)"
        : firstHunkDiff(recordedText, liveText),
    };
  };

  /** Differences for the current reply when its recorded results got no live answer at all. */
  const unanswered = (): ReplayDifference[] => {
    const state = current;
    if (state === undefined || state.settled || !state.compare) return [];
    return (state.reply.results?.message.results ?? []).map((r) => missingLive(state.reply, r));
  };

  /** Counts the current reply's unanswered results as missing, before anything later. */
  const settle = () => {
    for (const difference of unanswered()) report(difference);
    if (current !== undefined) current.settled = true;
  };

  return {
    onReply(reply, replyOptions = {}) {
      settle();
      current = { reply, settled: false, compare: replyOptions.compare ?? true };
    },
    onToolResults(message) {
      const state = current;
      if (state === undefined || state.settled) {
        // Results the recording cannot have: nothing was handed out, or this reply was answered.
        for (const live of message.results) {
          report({ ...located(state?.reply, live), ...missing(NOT_RECORDED, textOf(live)) });
        }
        return;
      }
      state.settled = true;
      const recordedResults = state.reply.results;
      if (recordedResults === undefined || !state.compare) {
        unrecorded += message.results.length;
        return;
      }
      const liveById = new Map(message.results.map((r) => [r.toolCallId, r]));
      const recordedIds = new Set<string>();
      for (const recorded of recordedResults.message.results) {
        recordedIds.add(recorded.toolCallId);
        const live = liveById.get(recorded.toolCallId);
        if (live === undefined) {
          report(missingLive(state.reply, recorded));
          continue;
        }
        const finding = compare(recorded, live);
        if (finding === undefined) compared++;
        else report({ ...located(state.reply, recorded), ...finding });
      }
      for (const live of message.results) {
        if (recordedIds.has(live.toolCallId)) continue;
        report({ ...located(state.reply, live), ...missing(NOT_RECORDED, textOf(live)) });
      }
    },
    onUnplayed(reply) {
      // Anything the reply played before it was missed earlier in the run.
      settle();
      for (const recorded of reply.results?.message.results ?? []) {
        report(missingLive(reply, recorded, { live: NOT_PLAYED }));
      }
    },
    summary() {
      const pending = unanswered();
      const summary: ReplayCheckSummary = {
        compared: compared + pending.length,
        differing: differing + pending.length,
        unrecorded,
      };
      const shown = first ?? pending[0];
      if (shown !== undefined) summary.first = shown;
      return summary;
    },
  };
}
