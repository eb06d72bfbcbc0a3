/**
 * `--replay-check`: compares each live tool result with the one recorded in the replayed session,
 * after replacing the machine-specific parts (paths, spill-file names, durations, timestamps) of
 * each side with placeholders, and keeps the first difference for a human-readable report.
 */
import { structuredPatch } from "diff";
import type {
  AssistantMessage,
  ContentBlock,
  ToolCallBlock,
  ToolResult,
  ToolResultMessage,
} from "../model/types.ts";
import type { RecordedReply } from "../session/recording.ts";

/** Machine-specific parts of one side (recorded or live) that are replaced before comparing. */
export interface NormalizeContext {
  /** The workspace directory (absolute). */
  workspace: string;
  /** The user's home directory. */
  home?: string;
  /** The system temp directory (where bash spill directories live). */
  tmpDir?: string;
}

/** Characters that continue a path segment (besides "." and the separators). */
const P = String.raw`\p{L}\p{N}_\-+@~%`;
/** Not inside a longer path: not preceded by a path character, a dot or a separator. */
const NOT_AFTER_PATH = String.raw`(?<![${P}.\/\\])`;
/** The path ends here: next is a separator, the end, or a character that cannot continue it. */
const PATH_END = String.raw`(?![${P}]|\.[${P}])`;

const SPILL_DIR = new RegExp(
  String.raw`(?:<(?:workspace|home|tmp)>[\/\\]|${NOT_AFTER_PATH}(?:[A-Za-z]:)?)` +
    String.raw`(?:[${P}.\/\\]*[\/\\])?moat-run-[\p{L}\p{N}_\-]+${PATH_END}`,
  "gu",
);
const SPILL_FILE = new RegExp(
  String.raw`(?<![${P}.])bash-[0-9a-z]+-[0-9a-f]{8}\.(stdout|stderr)\.log${PATH_END}`,
  "gu",
);
const TIMESTAMP = new RegExp(
  String.raw`(?<![\p{L}\p{N}])\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?` +
    String.raw`(?:Z|[+\-]\d{2}(?::?\d{2})?)?(?![\p{L}\p{N}])`,
  "gu",
);
const DURATION = new RegExp(
  String.raw`(?<![\p{L}\p{N}_.\/\\\-])(?:\d+h)?(?:\d+m)?\d+(?:\.\d+)? ?` +
    String
      .raw`(?:ns|µs|μs|us|ms|s|secs?|seconds?|milliseconds?)(?![\p{L}\p{N}_\-\/\\]|\.[\p{L}\p{N}])`,
  "gu",
);

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|\/]/g, "\\$&");
}

/** The context's paths as a list of [path, placeholder]. */
function pathReplacements(context: NormalizeContext): Array<[string, string]> {
  const entries: Array<[string, string]> = [];
  if (context.workspace !== undefined) entries.push([context.workspace, "<workspace>"]);
  if (context.home !== undefined) entries.push([context.home, "<home>"]);
  if (context.tmpDir !== undefined) entries.push([context.tmpDir, "<tmp>"]);
  return entries;
}

/**
 * Replaces each whole path `from` (never a part of a longer path such as "/work/main2") with its
 * `to`, longest first; "/" and "" are never replaced. Trailing separators of `from` are ignored.
 */
export function replacePaths(
  text: string,
  replacements: ReadonlyArray<readonly [from: string, to: string]>,
): string {
  const entries: Array<[string, string]> = [];
  for (const [from, to] of replacements) {
    let trimmed = from;
    while (trimmed.length > 1 && /[\/\\]$/.test(trimmed)) trimmed = trimmed.slice(0, -1);
    if (trimmed.length < 2 || /^[A-Za-z]:$/.test(trimmed)) continue;
    if (entries.some(([p]) => p === trimmed)) continue;
    entries.push([trimmed, to]);
  }
  if (entries.length === 0) return text;
  // Stable sort: on equal length the earlier entry wins.
  entries.sort((a, b) => b[0].length - a[0].length);
  // One pass with alternatives longest first: a replacement is never matched again, and a path
  // that fails its end check (e.g. "/work/main2") falls back to a shorter one ("/work").
  const pattern = new RegExp(
    `${NOT_AFTER_PATH}(?:${entries.map(([p]) => escapeRegExp(p)).join("|")})${PATH_END}`,
    "gu",
  );
  const byPath = new Map(entries);
  return text.replace(pattern, (match) => byPath.get(match) ?? match);
}

/** Options of normalizeResultText. */
export interface NormalizeOptions {
  /**
   * The text is a command's output, which shows times that change from run to run: durations
   * and ISO timestamps become placeholders too. Default false, so a changed file is never hidden.
   */
  commandOutput?: boolean;
}

/**
 * Replaces the workspace, home and temp paths and bash spill-file names with placeholders, and
 * for command output also durations and timestamps.
 */
export function normalizeResultText(
  text: string,
  context: NormalizeContext,
  options: NormalizeOptions = {},
): string {
  const out = replacePaths(text, pathReplacements(context))
    .replace(SPILL_DIR, "<spill-dir>")
    .replace(SPILL_FILE, "bash-<id>.$1.log");
  if (options.commandOutput !== true) return out;
  return out
    .replace(TIMESTAMP, "<time>")
    .replace(DURATION, "<duration>");
}

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
  /** What differs: "missing" = the live run has no result for a recorded call (or vice versa). */
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
  /** Recorded results checked against the live run, plus live results with no recorded one. */
  compared: number;
  /** How many of those differed (including missing ones). */
  differing: number;
  /** Live results of replies that were recorded without results (not compared). */
  unrecorded: number;
  first?: ReplayDifference;
}

/** Follows a replay and compares live tool results with the recorded ones. */
export interface ReplayChecker {
  /** The replay client handed out this recorded reply (call before its results arrive). */
  onReply(reply: RecordedReply): void;
  /** The live run saved this toolResult message (answers the last reply given to onReply). */
  onToolResults(message: ToolResultMessage): void;
  /** Counts so far; a handed-out reply whose recorded results got no live answer counts as missing. */
  summary(): ReplayCheckSummary;
}

/** Text shown for the side that has no result at all (aspect "missing"). */
const NO_LIVE_RESULT = "(no live result)";
const NOT_RECORDED = "(no recorded result)";

const MAX_DIFF_LINES = 20;
const MAX_LINE_CHARS = 200;
const MAX_ARGS_CHARS = 120;

/** Decoded size of base64 data without decoding it. */
function base64Bytes(data: string): number {
  const clean = data.replace(/\s+/g, "");
  const padding = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

/** Tools whose results are command output (see NormalizeOptions.commandOutput). */
const COMMAND_TOOLS = ["bash"];

function contentText(result: ToolResult, context: NormalizeContext): string {
  const options = { commandOutput: COMMAND_TOOLS.includes(result.toolName) };
  const content = result.content;
  if (typeof content === "string") return normalizeResultText(content, context, options);
  return content
    .map((block) =>
      block.type === "text"
        ? normalizeResultText(block.text, context, options)
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

function callsOf(message: AssistantMessage): ToolCallBlock[] {
  return message.blocks.filter((b): b is ToolCallBlock => b.type === "toolCall");
}

/** Creates a checker; each side's text is normalised with its own context. */
export function createReplayChecker(
  options: { recorded: NormalizeContext; live: NormalizeContext },
): ReplayChecker {
  let compared = 0;
  let differing = 0;
  let unrecorded = 0;
  let first: ReplayDifference | undefined;
  /** The reply handed out last, and whether the live run has answered it. */
  let current: { reply: RecordedReply; answered: boolean } | undefined;

  const report = (difference: ReplayDifference) => {
    differing++;
    first ??= difference;
  };

  const argsOf = (reply: RecordedReply | undefined, id: string): unknown =>
    reply === undefined ? undefined : callsOf(reply.message).find((c) => c.id === id)?.arguments;

  const missingLive = (reply: RecordedReply, recorded: ToolResult, resultLine: number) => {
    const text = contentText(recorded, options.recorded);
    return {
      toolName: recorded.toolName,
      toolCallId: recorded.toolCallId,
      args: argsOf(reply, recorded.toolCallId),
      replyLine: reply.line,
      resultLine,
      aspect: "missing",
      recorded: text,
      live: NO_LIVE_RESULT,
      diff: firstHunkDiff(text, NO_LIVE_RESULT),
    } satisfies ReplayDifference;
  };

  const extraLive = (reply: RecordedReply | undefined, live: ToolResult) => {
    const text = contentText(live, options.live);
    return {
      toolName: live.toolName,
      toolCallId: live.toolCallId,
      args: argsOf(reply, live.toolCallId),
      replyLine: reply?.line ?? 0,
      resultLine: reply?.results?.line ?? null,
      aspect: "missing",
      recorded: NOT_RECORDED,
      live: text,
      diff: firstHunkDiff(NOT_RECORDED, text),
    } satisfies ReplayDifference;
  };

  const compare = (
    reply: RecordedReply,
    resultLine: number,
    recorded: ToolResult,
    live: ToolResult,
  ): ReplayDifference | undefined => {
    const recordedText = contentText(recorded, options.recorded);
    const liveText = contentText(live, options.live);
    const base = {
      toolName: recorded.toolName,
      toolCallId: recorded.toolCallId,
      args: argsOf(reply, recorded.toolCallId),
      replyLine: reply.line,
      resultLine,
    };
    if (recorded.isError !== live.isError) {
      const status = (isError: boolean) => (isError ? "error" : "ok");
      return {
        ...base,
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
      ...base,
      aspect: "content",
      recorded: recordedText,
      live: liveText,
      diff: recordedText === liveText
        ? "--- recorded\n+++ live\n(same text; the image data differs)"
        : firstHunkDiff(recordedText, liveText),
    };
  };

  /** Differences for a reply whose recorded results got no live answer at all. */
  const unanswered = (state: { reply: RecordedReply; answered: boolean } | undefined) => {
    const results = state?.reply.results;
    if (state === undefined || state.answered || results === undefined) return [];
    return results.message.results.map((r) => missingLive(state.reply, r, results.line));
  };

  return {
    onReply(reply) {
      for (const difference of unanswered(current)) {
        compared++;
        report(difference);
      }
      current = { reply, answered: false };
    },
    onToolResults(message) {
      const state = current;
      if (state === undefined || state.answered) {
        // Results the recording cannot have: nothing was handed out, or this reply was answered.
        for (const live of message.results) {
          compared++;
          report(extraLive(state?.reply, live));
        }
        return;
      }
      state.answered = true;
      const recordedResults = state.reply.results;
      if (recordedResults === undefined) {
        unrecorded += message.results.length;
        return;
      }
      const liveById = new Map(message.results.map((r) => [r.toolCallId, r]));
      const recordedIds = new Set<string>();
      for (const recorded of recordedResults.message.results) {
        recordedIds.add(recorded.toolCallId);
        compared++;
        const live = liveById.get(recorded.toolCallId);
        const difference = live === undefined
          ? missingLive(state.reply, recorded, recordedResults.line)
          : compare(state.reply, recordedResults.line, recorded, live);
        if (difference !== undefined) report(difference);
      }
      for (const live of message.results) {
        if (recordedIds.has(live.toolCallId)) continue;
        compared++;
        report(extraLive(state.reply, live));
      }
    },
    summary() {
      const pending = unanswered(current);
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
      return difference.live === NO_LIVE_RESULT
        ? "the live run has no result for this recorded call"
        : "the live run has a result the recording does not have";
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
