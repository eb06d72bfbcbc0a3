/**
 * Append-only JSONL sessions: a header line, then one line per message, each written as soon as
 * the message completes, so a crash or kill loses at most the message in flight.
 */
import { join } from "node:path";
import type { Message, ToolResult } from "../model/types.ts";
import { isMessage, isRecord } from "./validate.ts";

export { isRecord, messageProblem } from "./validate.ts";

/** Session file format version written in every header. */
export const SESSION_FORMAT_VERSION = 1;

/** The first line of a session file. */
export interface SessionHeader {
  type: "session";
  /** SESSION_FORMAT_VERSION at the time of writing. */
  version: number;
  moatVersion: string;
  createdAt: string;
  cwd: string;
  model: string;
  /** The effective grants of the run that created the session. */
  grants: unknown;
  /** HOME of the run that created the session (a replay check maps it to the live one). */
  home?: string;
  /** Set when the session was written by a replay: the recording it played back. */
  replayOf?: string;
}

/** Every later line of a session file. */
export interface SessionMessageLine {
  type: "message";
  time: string;
  message: Message;
}

/**
 * A compaction: from this line on the history is `messages` (later message lines append to it).
 * The lines before stay in the file, so nothing the user saw is lost.
 */
export interface SessionCompactionLine {
  type: "compaction";
  time: string;
  /** Why it ran: "threshold", "overflow" or "manual" (/compact). */
  reason: string;
  /** "prune" (old tool results became stubs) or "summary" (a model-written summary). */
  method?: string;
  /** The summary text, when one was written. */
  summary?: string;
  tokensBefore: number;
  tokensAfter: number;
  /** How many messages the compacted history replaced. */
  replaced: number;
  messages: Message[];
}

/** A file in a session directory. */
export interface SessionFileInfo {
  name: string;
  mtimeMs: number;
  /** Size in bytes. */
  size: number;
}

/** The file operations sessions need; the Deno default is src/sys/session_fs.ts. */
export interface SessionFs {
  /** The file's text, or null when it does not exist. */
  readTextFile(path: string): Promise<string | null>;
  /** Appends text to the file (creating it); resolves once the OS has the bytes. */
  appendTextFile(path: string, text: string): Promise<void>;
  /** Creates a directory and its parents. */
  mkdirp(path: string): Promise<void>;
  /** The regular files of a directory, or null when it does not exist. */
  listFiles(path: string): Promise<SessionFileInfo[] | null>;
  /** The file's bytes, or null when it does not exist. */
  readBytes(path: string): Promise<Uint8Array | null>;
  /** Appends bytes to the file (creating it, private to the user). */
  appendBytes(path: string, bytes: Uint8Array): Promise<void>;
  /** Cuts the file to its first `length` bytes. */
  truncateFile(path: string, length: number): Promise<void>;
}

/** A session read back from disk. */
export interface LoadedSession {
  path: string;
  header: SessionHeader;
  messages: Message[];
  /** Human-readable notes about skipped lines or repaired history. */
  warnings: string[];
  /** True when the file does not end with a newline (a torn last line): append one first. */
  needsNewline: boolean;
  /** Set when the last line is torn (no newline, not JSON): its line number and its warning. */
  torn?: { line: number; warning: string };
}

/** The outcome of loading a session file. */
export type LoadSessionResult =
  | { ok: true; session: LoadedSession }
  | { ok: false; error: string };

/** `$XDG_STATE_HOME` or `~/.local/state`, or undefined when neither can be determined. */
export function stateHome(env: Record<string, string>): string | undefined {
  const xdg = env.XDG_STATE_HOME;
  if (xdg !== undefined && xdg.startsWith("/")) return xdg;
  const home = env.HOME ?? env.USERPROFILE;
  return home === undefined || home === "" ? undefined : join(home, ".local", "state");
}

/** Short stable hash of a workspace path (first 16 hex digits of its SHA-256). */
export async function workspaceHash(workspace: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(workspace));
  return Array.from(new Uint8Array(digest).slice(0, 8), (b) => b.toString(16).padStart(2, "0"))
    .join("");
}

/** The directory holding the sessions of one workspace. */
export async function sessionDirectory(stateDir: string, workspace: string): Promise<string> {
  return join(stateDir, "moat", "sessions", await workspaceHash(workspace));
}

/** A sortable file name for a new session started at `date`. */
export function sessionFileName(date: Date, suffix: string = ""): string {
  const stamp = date.toISOString().replace(/:/g, "-").replace(".", "-");
  return `${stamp}${suffix === "" ? "" : `-${suffix}`}.jsonl`;
}

/** The most recently written session in `dir`, or null when there is none. */
export async function findLatestSession(fs: SessionFs, dir: string): Promise<string | null> {
  const files = (await fs.listFiles(dir))?.filter((f) => f.name.endsWith(".jsonl")) ?? [];
  if (files.length === 0) return null;
  files.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.name < b.name ? 1 : -1));
  return join(dir, (files[0] as SessionFileInfo).name);
}

/** Parses a session file's text. Pure; `path` is only used in messages. */
export function parseSession(path: string, text: string): LoadSessionResult {
  const warnings: string[] = [];
  const lines = text.split("\n");
  const endsWithNewline = text.endsWith("\n");
  if (endsWithNewline) lines.pop();
  let header: SessionHeader | undefined;
  let torn: LoadedSession["torn"];
  const messages: Message[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.trim() === "") continue;
    const isLast = i === lines.length - 1;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      if (isLast && !endsWithNewline) {
        const warning =
          `Session "${path}": skipped a torn last line (${line.length} characters); the message in flight was lost`;
        warnings.push(warning);
        torn = { line: i + 1, warning };
      } else {
        warnings.push(`Session "${path}": skipped unreadable line ${i + 1}`);
      }
      continue;
    }
    if (header === undefined) {
      if (!isRecord(value) || value.type !== "session" || typeof value.version !== "number") {
        return {
          ok: false,
          error: `"${path}" is not a moat session file: line ${i + 1} is not a session header`,
        };
      }
      if (value.version > SESSION_FORMAT_VERSION) {
        return {
          ok: false,
          error:
            `Session "${path}" has format version ${value.version}, newer than this moat supports (${SESSION_FORMAT_VERSION}): upgrade moat`,
        };
      }
      header = value as unknown as SessionHeader;
      continue;
    }
    if (isRecord(value) && value.type === "message" && isMessage(value.message)) {
      messages.push(value.message);
    } else if (
      isRecord(value) && value.type === "compaction" && Array.isArray(value.messages) &&
      value.messages.every(isMessage)
    ) {
      messages.splice(0, messages.length, ...value.messages);
    } else {
      warnings.push(`Session "${path}": skipped line ${i + 1} (not a message)`);
    }
  }
  if (header === undefined) {
    return { ok: false, error: `"${path}" is not a moat session file: it has no header line` };
  }
  const repaired = repairHistory(messages);
  if (repaired.changes > 0) {
    warnings.push(
      `Session "${path}": repaired ${repaired.changes} tool call/result mismatch(es): calls without a stored result are marked as interrupted, results without their call are dropped`,
    );
  }
  return {
    ok: true,
    session: {
      path,
      header,
      messages: repaired.messages,
      warnings,
      needsNewline: text !== "" && !endsWithNewline,
      ...(torn === undefined ? {} : { torn }),
    },
  };
}

const NO_RESULT = "(no result recorded: the session ended before this tool finished)";

/**
 * Makes a history the OpenAI API accepts: every tool call is answered exactly once by the
 * toolResult message that follows it (missing answers become error results), stray results go.
 */
export function repairHistory(
  messages: readonly Message[],
): { messages: Message[]; changes: number } {
  const out: Message[] = [];
  let changes = 0;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i] as Message;
    if (message.role === "toolResult") {
      // Answered results were consumed together with their assistant message below.
      changes++;
      continue;
    }
    out.push(message);
    if (message.role !== "assistant") continue;
    const calls = message.blocks.filter((b) => b.type === "toolCall");
    if (calls.length === 0) continue;
    const next = messages[i + 1];
    const given = next?.role === "toolResult" ? next.results : [];
    if (next?.role === "toolResult") i++;
    const results: ToolResult[] = [];
    for (const call of calls) {
      const found = given.find((r) => r.toolCallId === call.id);
      if (found === undefined) {
        changes++;
        results.push({
          toolCallId: call.id,
          toolName: call.name,
          content: NO_RESULT,
          isError: true,
        });
      } else {
        results.push(found);
      }
    }
    if (given.length > results.length) changes += given.length - results.length;
    out.push({ role: "toolResult", results });
  }
  return { messages: out, changes };
}

/** Reads and parses a session file; a missing file is an error naming it. */
export async function loadSession(fs: SessionFs, path: string): Promise<LoadSessionResult> {
  const text = await fs.readTextFile(path);
  if (text === null) return { ok: false, error: `Session file "${path}" does not exist` };
  return parseSession(path, text);
}

/** Appends messages to one session file, in order, one line each. */
export interface SessionWriter {
  readonly path: string;
  /** Queues the header of a new file, so the session exists before its first message. */
  begin(): void;
  /** Queues the message; it is on disk once `flush()` resolves. Never rejects. */
  append(message: Message): void;
  /** Queues a compaction line (the history from here on). Never rejects. */
  appendCompaction(entry: Omit<SessionCompactionLine, "type" | "time">): void;
  /** Waits until every appended message is written. Never rejects. */
  flush(): Promise<void>;
}

/** Options for createSessionWriter. */
export interface SessionWriterOptions {
  /** Written before the first message when the file is new. */
  header?: SessionHeader;
  /** The file ends in a torn line: terminate it first so the next line stays readable. */
  needsNewline?: boolean;
  /** Called once per failed write (e.g. disk full); the run goes on. */
  onError?: (message: string) => void;
  /** Timestamp source for message lines. */
  now?: () => Date;
}

/** Creates a writer that appends each message as one JSON line as soon as it is given. */
export function createSessionWriter(
  fs: SessionFs,
  path: string,
  options: SessionWriterOptions = {},
): SessionWriter {
  let chain: Promise<void> = Promise.resolve();
  let prefix = options.needsNewline ? "\n" : "";
  let header = options.header;
  let failed = false;
  const now = options.now ?? (() => new Date());
  const write = async (text: string) => {
    if (failed) return;
    try {
      await fs.appendTextFile(path, text);
    } catch (e) {
      failed = true;
      options.onError?.(
        `Could not write session "${path}": ${e instanceof Error ? e.message : String(e)}`,
      );
    }
  };
  // The torn-line terminator and the header go out once, before whatever is written first.
  const preamble = () => {
    let text = prefix;
    prefix = "";
    if (header !== undefined) {
      text += JSON.stringify(header) + "\n";
      header = undefined;
    }
    return text;
  };
  return {
    path,
    begin() {
      const text = preamble();
      if (text !== "") chain = chain.then(() => write(text));
    },
    append(message) {
      const line: SessionMessageLine = { type: "message", time: now().toISOString(), message };
      const text = preamble() + JSON.stringify(line) + "\n";
      chain = chain.then(() => write(text));
    },
    appendCompaction(entry) {
      const line: SessionCompactionLine = {
        type: "compaction",
        time: now().toISOString(),
        ...entry,
      };
      const text = preamble() + JSON.stringify(line) + "\n";
      chain = chain.then(() => write(text));
    },
    flush() {
      return chain;
    },
  };
}
