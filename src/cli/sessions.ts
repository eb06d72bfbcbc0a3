/**
 * Finding sessions again: `moat sessions` (this workspace's sessions, newest first), `--resume
 * ID|PATH` (bare on a terminal: a numbered picker), and the last exchange shown when a session is
 * resumed. Session files themselves are src/session/'s business.
 */
import { basename, resolve } from "node:path";
import type { Message } from "../model/types.ts";
import {
  findSessionById,
  lastExchange,
  listSessions,
  type SessionSummary,
} from "../session/catalog.ts";
import { sessionDirectory, stateHome } from "../session/store.ts";
import { type CliFlags, parseCliArgs, type ParsedArgs } from "./args.ts";
import type { CliFs } from "./io.ts";
import { escapeUnsafe } from "../term/terminal_text.ts";
import { parseRewindArgs, type RewindArgs } from "./rewind_args.ts";

/** What argv asks for: a run (parseCliArgs), help, the version, or `moat sessions`. */
export type ParsedCommand =
  | ParsedArgs
  | { ok: true; command: "sessions"; flags: CliFlags }
  | { ok: true; command: "mcp"; flags: CliFlags }
  | { ok: true; command: "doctor"; flags: CliFlags }
  | { ok: true; command: "grants"; flags: CliFlags }
  | { ok: true; command: "acp"; flags: CliFlags }
  | { ok: true; command: "rewind"; args: RewindArgs };

/** The option names of CliFlags fields, for messages (`noSession` → `--no-session`). */
function optionName(field: string): string {
  return `--${field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/**
 * Parses argv: `sessions` as the first argument is the `moat sessions` command, which takes only
 * `--cwd DIR` (and `--help`); anything else is parseCliArgs' run. Never throws.
 */
export function parseCommand(argv: readonly string[]): ParsedCommand {
  const args = argv[0] === "--" ? argv.slice(1) : [...argv];
  if (args[0] === "mcp") return parseMcpCommand(args.slice(1));
  if (args[0] === "doctor") return parseDoctorCommand(args.slice(1));
  if (args[0] === "grants") return parseGrantsCommand(args.slice(1));
  if (args[0] === "acp") return parseAcpCommand(args.slice(1));
  if (args[0] === "rewind") return parseRewindArgs(args.slice(1));
  if (args[0] !== "sessions") return parseCliArgs(args);
  const parsed = parseCliArgs(args.slice(1), { subcommand: true });
  if (!parsed.ok || parsed.command !== "run") return parsed;
  const { flags } = parsed;
  if (flags.prompt !== undefined) {
    return {
      ok: false,
      error:
        `'moat sessions' takes no prompt, but got "${flags.prompt}": to send the word as a prompt, run moat -p -- sessions`,
    };
  }
  const given = Object.entries(flags).filter(([field, value]) =>
    field !== "cwd" && field !== "permissions" && value !== undefined && value !== false &&
    !(Array.isArray(value) && value.length === 0)
  ).map(([field]) => optionName(field));
  if (Object.keys(flags.permissions).length > 0) given.push("permission flags");
  if (given.length > 0) {
    return {
      ok: false,
      error: `'moat sessions' takes only '--cwd DIR', not ${
        given.map((g) => g.startsWith("--") ? `'${g}'` : g).join(", ")
      }: leave ${given.length === 1 ? "it" : "them"} out`,
    };
  }
  return { ok: true, command: "sessions", flags };
}

/**
 * `moat mcp list [flags]`: the configured MCP servers, started as a run would start them (the
 * same config, trust, grants and sandbox flags), their state and tools.
 */
function parseMcpCommand(args: readonly string[]): ParsedCommand {
  if (args[0] !== "list") {
    return {
      ok: false,
      error: `'moat mcp' has one subcommand, 'list'${
        args[0] === undefined ? "" : `, not "${args[0]}"`
      }: run 'moat mcp list'`,
    };
  }
  const parsed = parseCliArgs(args.slice(1), { subcommand: true });
  if (!parsed.ok || parsed.command !== "run") return parsed;
  if (parsed.flags.prompt !== undefined) {
    return {
      ok: false,
      error: `'moat mcp list' takes no prompt, but got "${parsed.flags.prompt}"`,
    };
  }
  return { ok: true, command: "mcp", flags: parsed.flags };
}

/** `moat doctor [flags]`: the server profile and request switches a run would use. */
function parseDoctorCommand(args: readonly string[]): ParsedCommand {
  const parsed = parseCliArgs(args, { subcommand: true });
  if (!parsed.ok || parsed.command !== "run") return parsed;
  if (parsed.flags.prompt !== undefined) {
    return { ok: false, error: `'moat doctor' takes no prompt, but got "${parsed.flags.prompt}"` };
  }
  return { ok: true, command: "doctor", flags: parsed.flags };
}

/** `moat grants [-P[=NAME]] [flags]`: what a run would be allowed, in Deno's flags (a dry run). */
function parseGrantsCommand(args: readonly string[]): ParsedCommand {
  const parsed = parseCliArgs(args, { subcommand: true });
  if (!parsed.ok || parsed.command !== "run") return parsed;
  if (parsed.flags.prompt !== undefined) {
    return { ok: false, error: `'moat grants' takes no prompt, but got "${parsed.flags.prompt}"` };
  }
  return { ok: true, command: "grants", flags: parsed.flags };
}

/** `moat acp [flags]`: an Agent Client Protocol agent on stdio (src/acp/); prompts come from the editor. */
function parseAcpCommand(args: readonly string[]): ParsedCommand {
  const parsed = parseCliArgs(args, { subcommand: true });
  if (!parsed.ok || parsed.command !== "run") return parsed;
  if (parsed.flags.prompt !== undefined) {
    return {
      ok: false,
      error: `'moat acp' takes no prompt, but got "${parsed.flags.prompt}": the editor sends ` +
        "the prompts",
    };
  }
  // The editor picks the directory, the session and the output: these flags would fight it.
  const { flags } = parsed;
  const given = (
    [
      "cwd",
      "output",
      "outputSchema",
      "session",
      "resume",
      "replay",
      "replayCheck",
      "continue",
      "includeDeltas",
    ] as const
  ).filter((field) => flags[field] !== undefined && flags[field] !== false).map(optionName);
  if (given.length > 0) {
    return {
      ok: false,
      error: `'moat acp' does not take ${given.map((g) => `'${g}'`).join(", ")}: the editor ` +
        "chooses each session's directory and session, and reads the protocol; leave " +
        `${given.length === 1 ? "it" : "them"} out`,
    };
  }
  return { ok: true, command: "acp", flags };
}

/** The directory holding this workspace's sessions, or undefined without XDG_STATE_HOME or HOME. */
export async function workspaceSessionDir(
  env: Record<string, string>,
  workspace: string,
): Promise<string | undefined> {
  const state = stateHome(env);
  return state === undefined ? undefined : await sessionDirectory(state, workspace);
}

/** `text` on one line (whitespace runs become one space), escaped, cut to `max` characters. */
export function shortLine(text: string, max: number): string {
  const chars = [...escapeUnsafe(text.replace(/\s+/g, " ").trim())];
  return chars.length > max ? `${chars.slice(0, max - 1).join("").trimEnd()}…` : chars.join("");
}

/** Local date and time to the minute: `2025-01-02 03:04`. */
export function localStamp(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${
    two(d.getMinutes())
  }`;
}

/** A file size for people: `812 B`, `12.3 KiB`, `4.0 MiB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** Characters of a first prompt shown in a listing. */
const PROMPT_CHARS = 72;

/** Two lines per session: number, date, messages, size and id; then the first prompt. */
export function sessionEntries(summaries: readonly SessionSummary[]): string {
  const width = String(summaries.length).length;
  return summaries.map((s, i) => {
    const number = `${String(i + 1).padStart(width)}.`;
    const facts = [
      localStamp(s.modifiedMs),
      ...(s.problem === undefined ? [`${s.messages} message${s.messages === 1 ? "" : "s"}`] : []),
      formatSize(s.size),
      s.id,
    ].join(" · ");
    const about = s.problem !== undefined
      ? `(${s.problem})`
      : s.firstPrompt === null
      ? "(no messages yet)"
      : shortLine(s.firstPrompt, PROMPT_CHARS);
    return `${number} ${facts}\n${" ".repeat(width + 2)}${about}\n`;
  }).join("");
}

/** The text of `moat sessions` for a workspace. */
export async function sessionsListing(
  fs: CliFs,
  options: { env: Record<string, string>; workspace: string },
): Promise<string> {
  const dir = await workspaceSessionDir(options.env, options.workspace);
  if (dir === undefined) {
    return "No sessions: neither XDG_STATE_HOME nor HOME is set, so moat saves none.\n";
  }
  const summaries = await listSessions(fs, dir);
  if (summaries.length === 0) {
    return `No sessions of ${options.workspace} yet (moat saves them in ${dir}).\n`;
  }
  return `Sessions of ${options.workspace}, newest first (files in ${dir}):\n\n` +
    sessionEntries(summaries) +
    `\nResume one with: moat --resume ID (or, on a terminal, moat --resume to pick by number).\n`;
}

/** Most sessions the picker offers (the newest); `moat sessions` lists them all. */
export const PICK_LIMIT = 10;

/** How the picker talks to the person at the terminal. */
export interface PickerIo {
  write(text: string): void;
  /** The next typed line, or null at end of input. */
  readLine(): Promise<string | null>;
}

/**
 * Shows the newest sessions numbered and asks for a number; resolves to the chosen path, or null
 * for a new session (an empty answer, end of input, or three answers that are not a number).
 */
export async function pickSession(
  summaries: readonly SessionSummary[],
  io: PickerIo,
): Promise<string | null> {
  const shown = summaries.slice(0, PICK_LIMIT);
  const more = summaries.length - shown.length;
  io.write(
    `Sessions of this workspace, newest first:\n\n${sessionEntries(shown)}` +
      (more > 0 ? `(${more} older: moat sessions lists all, moat --resume ID resumes any)\n` : "") +
      `\nResume which session? Type its number, or press Enter to start a new one: `,
  );
  for (let attempt = 0; attempt < 3; attempt++) {
    const line = await io.readLine();
    if (line === null || line.trim() === "") return null;
    const n = /^\s*(\d+)\s*$/.exec(line)?.[1];
    const chosen = n === undefined ? undefined : shown[Number(n) - 1];
    if (chosen !== undefined) return chosen.path;
    io.write(`Please type a number from 1 to ${shown.length}, or press Enter: `);
  }
  io.write("Starting a new session.\n");
  return null;
}

/** Where to find sessions and how to ask for one, for resolveResume. */
export interface ResumeContext {
  fs: CliFs;
  env: Record<string, string>;
  workspace: string;
  /** The directory moat was started in: a path is relative to it. */
  startCwd: string;
  warn(message: string): void;
  /** The picker's terminal, for a bare `--resume` (interactive mode only). */
  picker?: PickerIo;
}

/** The outcome of resolveResume: the session file, or null to start a new one. */
export type ResumeResult = { ok: true; path: string | null } | { ok: false; error: string };

const LIST_HINT = "run 'moat sessions' to list this workspace's sessions";

/**
 * The session file `--resume` names: a path (containing "/"), an id of this workspace's sessions
 * (the whole id or a unique start of it), or a file in the start directory; `true` asks `picker`.
 */
export async function resolveResume(
  resume: string | true,
  context: ResumeContext,
): Promise<ResumeResult> {
  const { fs } = context;
  const dir = await workspaceSessionDir(context.env, context.workspace);
  if (resume === true) {
    if (context.picker === undefined) {
      return {
        ok: false,
        error: `Option '--resume' needs a session id or path here: ${LIST_HINT}`,
      };
    }
    const summaries = dir === undefined ? [] : await listSessions(fs, dir);
    if (summaries.length === 0) {
      context.warn("No sessions of this workspace yet; starting a new one");
      return { ok: true, path: null };
    }
    return { ok: true, path: await pickSession(summaries, context.picker) };
  }
  const asPath = resolve(context.startCwd, resume);
  if (resume.includes("/")) {
    if (await fs.exists(asPath)) return { ok: true, path: asPath };
    return { ok: false, error: `The session file "${asPath}" does not exist: ${LIST_HINT}` };
  }
  const found = dir === undefined ? undefined : await findSessionById(fs, dir, resume);
  if (found?.ok) return { ok: true, path: found.path };
  if (found?.reason === "ambiguous") {
    const ids = found.ids.slice(0, 5).map((id) => `"${id}"`).join(", ");
    return {
      ok: false,
      error: `Session id "${resume}" matches ${found.ids.length} sessions (${ids}${
        found.ids.length > 5 ? ", …" : ""
      }): give more of the id`,
    };
  }
  if (await fs.exists(asPath)) return { ok: true, path: asPath };
  // `moat --resume "fix the bug"` gives the prompt where the session belongs: the value is never
  // taken for a prompt (it could resume a session nobody chose), but the error shows both ways.
  return {
    ok: false,
    error: `No session "${resume}": it is neither an id of this workspace's sessions nor a ` +
      `file. --resume takes the session, then the prompt (moat --resume ID "prompt"); to ` +
      `continue the newest session, use -c (moat -c ${JSON.stringify(resume)}); ${LIST_HINT}`,
  };
}

/** Lines of an answer shown when a session is resumed. */
const ANSWER_LINES = 3;

/**
 * What interactive mode shows when it resumes a conversation: how many messages, the session's
 * id, and the last exchange (the last request and the final answer, shortened). Empty for none.
 */
export function resumeBanner(history: readonly Message[], path: string | undefined): string {
  if (history.length === 0) return "";
  const id = path === undefined ? "" : ` ${basename(path).replace(/\.jsonl$/, "")}`;
  const { prompt, answer } = lastExchange(history);
  let text = `Continuing session${id} (${history.length} message(s)).`;
  if (prompt === null) return `${text}\n`;
  text += ` Last exchange:\n  you:  ${shortLine(prompt, 100)}\n`;
  if (answer === null) {
    return `${text}  moat: (no answer: the run stopped before the model gave one)\n`;
  }
  const lines = answer.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== "");
  const shown = lines.slice(0, ANSWER_LINES).map((l) => shortLine(l, 100));
  if (lines.length > ANSWER_LINES) shown.push("…");
  return text + shown.map((l, i) => `  ${i === 0 ? "moat:" : "     "} ${l}\n`).join("");
}
