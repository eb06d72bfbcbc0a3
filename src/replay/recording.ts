/**
 * Strict parsing of a session file for replay. Unlike `parseSession` (which skips and repairs so a
 * session can go on), a replay must play back exactly what was recorded, so every problem is an
 * error naming the line, and nothing is repaired.
 */
import type {
  AssistantMessage,
  Message,
  ToolCallBlock,
  ToolResultMessage,
  UserMessage,
} from "../model/types.ts";
import {
  isRecord,
  messageProblem,
  SESSION_FORMAT_VERSION,
  type SessionHeader,
} from "../session/store.ts";

/** One recorded model reply with the tool results recorded right after it (when there were). */
export interface RecordedReply {
  /** The reply exactly as in the file. */
  message: AssistantMessage;
  /** 1-based line number in the file. */
  line: number;
  /** The toolResult message right after the reply; absent when the file has none. */
  results?: { message: ToolResultMessage; line: number };
}

/** One or more consecutive user messages and the replies (with results) that followed them. */
export interface RecordedExchange {
  /** Length >= 1. */
  users: Array<{ message: UserMessage; line: number }>;
  /** May be empty. */
  replies: RecordedReply[];
  /** Line of the last message of this exchange (for "the recording ends after line N"). */
  endLine: number;
}

/** A session file parsed for replay. */
export interface Recording {
  path: string;
  header: SessionHeader;
  /** Length >= 1. */
  exchanges: RecordedExchange[];
  /** Total assistant replies in the file (>= 1). */
  replyCount: number;
}

/** The outcome of parsing a replay file; `error` is a full sentence naming the file and line. */
export type ParseRecordingResult =
  | { ok: true; recording: Recording }
  | { ok: false; line: number | null; error: string };

const RECORD_AGAIN = "record the session again with this moat";

// Not toolCallsOf of src/agent/batch.ts: session/ does not import agent/.
function toolCalls(message: AssistantMessage): ToolCallBlock[] {
  return message.blocks.filter((b): b is ToolCallBlock => b.type === "toolCall");
}

function quoteList(ids: readonly string[]): string {
  return ids.length === 0 ? "none" : ids.map((id) => JSON.stringify(id)).join(", ");
}

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  return typeof value === "string" ? "a string" : `a ${typeof value}`;
}

/** The previous message seen while parsing, with its line. */
type Previous =
  | { role: "user"; line: number }
  | { role: "assistant"; line: number; reply: RecordedReply; calls: ToolCallBlock[] }
  | { role: "toolResult"; line: number };

/**
 * Parses a session file's text for replay. Pure; `path` is only used in messages. Every
 * malformed, version-mismatched or out-of-order line is an error naming the line.
 */
export function parseRecording(path: string, text: string): ParseRecordingResult {
  const fail = (line: number | null, error: string): ParseRecordingResult => ({
    ok: false,
    line,
    error,
  });
  /** The error for `line`: what is wrong, then what to do next. */
  const at = (line: number, error: { problem: string; next: string }): ParseRecordingResult =>
    fail(line, `Replay file "${path}", line ${line}: ${error.problem}: ${error.next}`);
  /** The first line is no session header at all: not a line to fix, but the wrong file. */
  const notSession = (line: number, detail: string): ParseRecordingResult =>
    fail(
      line,
      `Replay file "${path}" is not a moat session file: its first line (line ${line}) is not a ` +
        `session header (${detail}). A session file is the JSONL record moat writes of a run: ` +
        `a header line, then one line per message; every run writes one (see 'moat sessions'), ` +
        `or into the file named with --session FILE. Pass such a file to --replay`,
    );

  // Editors on some systems save a byte-order mark, which JSON does not allow.
  const lines = text.replace(/^\uFEFF/, "").split("\n");
  let lastContentLine = 0;
  for (let i = 0; i < lines.length; i++) {
    if ((lines[i] as string).trim() !== "") lastContentLine = i + 1;
  }
  if (lastContentLine === 0) {
    return fail(
      null,
      `Replay file "${path}" is empty: give a session file written by moat (a header line, then one line per message)`,
    );
  }

  let header: SessionHeader | undefined;
  const exchanges: RecordedExchange[] = [];
  let previous: Previous | undefined;

  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] as string;
    if (raw.trim() === "") continue;
    const line = i + 1;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      if (header === undefined) {
        return notSession(
          line,
          `the line is not valid JSON${e instanceof SyntaxError ? `: ${e.message}` : ""}`,
        );
      }
      const detail = e instanceof SyntaxError ? ` (${e.message})` : "";
      const hint = line === lastContentLine
        ? `a run that crashed or was killed leaves a torn last line: delete line ${line} and replay again`
        : `delete or repair line ${line}, or ${RECORD_AGAIN}`;
      return at(line, { problem: `the line is not valid JSON${detail}`, next: hint });
    }
    if (!isRecord(value)) {
      if (header === undefined) {
        return notSession(line, `the line is ${kindOf(value)}, not an object`);
      }
      return at(line, {
        problem: `the line is ${kindOf(value)}, not a JSON object`,
        next: RECORD_AGAIN,
      });
    }

    if (header === undefined) {
      if (value.type !== "session" && value.type !== "message") {
        const type = typeof value.type === "string" ? JSON.stringify(value.type) : "missing";
        return notSession(line, `its "type" is ${type}, not "session"`);
      }
      const problem = headerProblem(value);
      if (problem !== null) {
        return at(line, {
          problem,
          next: "give a session file written by moat, which starts with one",
        });
      }
      const version = value.version as number;
      if (version > SESSION_FORMAT_VERSION) {
        return at(line, {
          problem:
            `the session has format version "${version}", newer than this moat replays ("${SESSION_FORMAT_VERSION}")`,
          next: `upgrade moat, or ${RECORD_AGAIN}`,
        });
      }
      if (version !== SESSION_FORMAT_VERSION) {
        return at(line, {
          problem:
            `the session has format version "${version}", but this moat replays only version "${SESSION_FORMAT_VERSION}"`,
          next: RECORD_AGAIN,
        });
      }
      header = value as unknown as SessionHeader;
      continue;
    }

    if (value.type === "session") {
      return at(line, {
        problem: "a second session header (a replay file holds exactly one session)",
        next:
          `delete line ${line} and everything after it that belongs to another session, or replay each session from its own file`,
      });
    }
    // A compaction changed what the recorded model saw, not what it replied: the replies after
    // it play on in order (a replay sends nothing to a model, so it has nothing to compact).
    if (value.type === "compaction") continue;
    if (value.type !== "message") {
      const type = typeof value.type === "string"
        ? `"type" ${JSON.stringify(value.type)}`
        : `${value.type === undefined ? "no" : "a non-string"} "type"`;
      return at(line, {
        problem:
          `the line has ${type}, but every line after the header must be a "message" (or "compaction") line`,
        next: `delete line ${line}, or ${RECORD_AGAIN}`,
      });
    }
    const problem = messageProblem(value.message);
    if (problem !== null) {
      return at(line, { problem, next: `repair line ${line}, or ${RECORD_AGAIN}` });
    }
    const message = value.message as Message;
    const current = exchanges.at(-1);
    if (previous === undefined || current === undefined) {
      if (message.role !== "user") {
        const what = message.role === "assistant" ? "a model reply" : "tool results";
        return at(line, {
          problem: `the first message is ${what}, not a user message`,
          next: `a replay starts from what the user asked: ${RECORD_AGAIN}`,
        });
      }
      exchanges.push({ users: [{ message, line }], replies: [], endLine: line });
      previous = { role: "user", line };
      continue;
    }

    switch (message.role) {
      case "user": {
        if (previous.role === "user") {
          // Messages queued while the model was busy are written one after another.
          current.users.push({ message, line });
          current.endLine = line;
        } else {
          exchanges.push({ users: [{ message, line }], replies: [], endLine: line });
        }
        previous = { role: "user", line };
        break;
      }
      case "assistant": {
        if (previous.role === "assistant") {
          const problem = previous.calls.length === 0
            ? `a second model reply right after the reply on line ${previous.line}, with no user message between them`
            : `a model reply where the results of the tool calls made on line ${previous.line} belong`;
          return at(line, { problem, next: `moat never writes that: ${RECORD_AGAIN}` });
        }
        const reply: RecordedReply = { message, line };
        current.replies.push(reply);
        current.endLine = line;
        previous = { role: "assistant", line, reply, calls: toolCalls(message) };
        break;
      }
      case "toolResult": {
        if (previous.role !== "assistant" || previous.calls.length === 0) {
          const before = previous.role === "user"
            ? `line ${previous.line} is a user message`
            : previous.role === "toolResult"
            ? `line ${previous.line} holds tool results already`
            : `the reply on line ${previous.line} made no tool calls`;
          return at(line, {
            problem: `tool results that answer no tool calls (${before})`,
            next: `delete line ${line}, or ${RECORD_AGAIN}`,
          });
        }
        const called = previous.calls.map((c) => c.id);
        const answered = message.results.map((r) => r.toolCallId);
        if (
          called.length !== answered.length || called.some((id, k) => id !== answered[k])
        ) {
          return at(line, {
            problem: `the tool results answer calls ${
              quoteList(answered)
            }, but the reply on line ${previous.line} called ${
              quoteList(called)
            } (same ids in the same order expected)`,
            next: `repair line ${line}, or ${RECORD_AGAIN}`,
          });
        }
        previous.reply.results = { message, line };
        current.endLine = line;
        previous = { role: "toolResult", line };
        break;
      }
      default: {
        const unreachable: never = message;
        throw new Error(`Unhandled message ${JSON.stringify(unreachable)}`);
      }
    }
  }

  if (header === undefined) {
    // Unreachable: a non-blank line exists, and the first one either is a header or failed above.
    throw new Error("parseRecording() finished without a header");
  }
  const replyCount = exchanges.reduce((n, exchange) => n + exchange.replies.length, 0);
  if (replyCount === 0) {
    return fail(
      null,
      `Replay file "${path}" has no model replies, so there is nothing to replay: record a session in which the model answered, and replay that file`,
    );
  }
  return { ok: true, recording: { path, header, exchanges, replyCount } };
}

/** What keeps a parsed line from being a session header, or null when it is one. */
function headerProblem(value: Record<string, unknown>): string | null {
  if (value.type !== "session") {
    return value.type === "message"
      ? "the file starts with a message, not a session header"
      : "the first line is not a moat session header";
  }
  if (typeof value.version !== "number") return `the header's "version" is not a number`;
  // POSIX or Windows (drive or UNC): a recording made on either names its workspace absolutely.
  if (typeof value.cwd !== "string" || !/^(?:\/|[A-Za-z]:[\\/]|\\\\)/.test(value.cwd)) {
    return `the header's "cwd" is not an absolute path`;
  }
  for (const key of ["model", "createdAt"]) {
    if (typeof value[key] !== "string") return `the header's "${key}" is not a string`;
  }
  // Absent in sessions of runs that had no HOME.
  if (value.home !== undefined && typeof value.home !== "string") {
    return `the header's "home" is not a string`;
  }
  return null;
}
