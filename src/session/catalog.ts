/**
 * The sessions of one workspace's session directory, summarised for `moat sessions` and the
 * `--resume` picker, and found again by id (the file name without `.jsonl`).
 */
import { join } from "node:path";
import type { Message } from "../model/types.ts";
import { parseSession, type SessionFileInfo, type SessionFs } from "./store.ts";

/** One session file, summarised. */
export interface SessionSummary {
  /** The file name without `.jsonl`: what `--resume` takes. */
  id: string;
  path: string;
  /** When the session was last written (its file's modification time). */
  modifiedMs: number;
  /** File size in bytes. */
  size: number;
  /** Messages moat would resume with. */
  messages: number;
  /** The text of the first user message, or null when there is none yet. */
  firstPrompt: string | null;
  /** Set when the file cannot be resumed: why. */
  problem?: string;
}

/** The last exchange of a conversation: the last user message and the answer that followed. */
export interface LastExchange {
  prompt: string | null;
  /** The text of the last model reply after `prompt`, or null when none has text. */
  answer: string | null;
}

/** Newest first (as `--continue` picks), ties by name, newest name first. */
function newestFirst(a: SessionFileInfo, b: SessionFileInfo): number {
  return b.mtimeMs - a.mtimeMs || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0);
}

/** The session files of `dir`, newest first (empty when the directory does not exist). */
export async function sessionFiles(fs: SessionFs, dir: string): Promise<SessionFileInfo[]> {
  const files = (await fs.listFiles(dir))?.filter((f) => f.name.endsWith(".jsonl")) ?? [];
  return files.sort(newestFirst);
}

/** The text of a user or assistant message: its text blocks joined, an image as `[image]`. */
export function messageText(message: Message): string {
  switch (message.role) {
    case "user":
      return typeof message.content === "string"
        ? message.content
        : message.content.map((b) => b.type === "text" ? b.text : "[image]").join("\n");
    case "assistant":
      return message.blocks.map((b) => b.type === "text" ? b.text : "").join("");
    case "toolResult":
      return "";
    default: {
      const never: never = message;
      return never;
    }
  }
}

/** The last user message of a conversation and the last model text after it. */
export function lastExchange(messages: readonly Message[]): LastExchange {
  let prompt: string | null = null;
  let answer: string | null = null;
  for (const message of messages) {
    if (message.role === "user") {
      prompt = messageText(message);
      answer = null;
    } else if (message.role === "assistant") {
      const text = messageText(message);
      if (text.trim() !== "") answer = text;
    }
  }
  return { prompt, answer };
}

/** Summarises the sessions of `dir`, newest first; a file moat cannot read is listed with why. */
export async function listSessions(fs: SessionFs, dir: string): Promise<SessionSummary[]> {
  const out: SessionSummary[] = [];
  for (const file of await sessionFiles(fs, dir)) {
    const path = join(dir, file.name);
    const summary: SessionSummary = {
      id: file.name.replace(/\.jsonl$/, ""),
      path,
      modifiedMs: file.mtimeMs,
      size: file.size,
      messages: 0,
      firstPrompt: null,
    };
    let text: string | null;
    try {
      text = await fs.readTextFile(path);
    } catch (e) {
      summary.problem = `cannot be read: ${e instanceof Error ? e.message : String(e)}`;
      out.push(summary);
      continue;
    }
    // Removed since it was listed: leave it out.
    if (text === null) continue;
    const parsed = parseSession(path, text);
    if (!parsed.ok) {
      summary.problem = "not a moat session";
    } else {
      const messages = parsed.session.messages;
      summary.messages = messages.length;
      const first = messages.find((m) => m.role === "user");
      if (first !== undefined) summary.firstPrompt = messageText(first);
    }
    out.push(summary);
  }
  return out;
}

/** The outcome of looking a session id up. */
export type FindSessionResult =
  | { ok: true; path: string }
  | { ok: false; reason: "none" }
  | { ok: false; reason: "ambiguous"; ids: string[] };

/** The session of `dir` with this id (file name with or without `.jsonl`), or a unique prefix. */
export async function findSessionById(
  fs: SessionFs,
  dir: string,
  id: string,
): Promise<FindSessionResult> {
  const wanted = id.replace(/\.jsonl$/, "");
  const ids = (await sessionFiles(fs, dir)).map((f) => f.name.replace(/\.jsonl$/, ""));
  if (ids.includes(wanted)) return { ok: true, path: join(dir, `${wanted}.jsonl`) };
  const matches = ids.filter((candidate) => candidate.startsWith(wanted));
  if (matches.length === 1) return { ok: true, path: join(dir, `${matches[0]}.jsonl`) };
  return matches.length === 0 ? { ok: false, reason: "none" } : {
    ok: false,
    reason: "ambiguous",
    ids: matches,
  };
}
