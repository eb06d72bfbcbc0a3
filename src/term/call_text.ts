/** One-line descriptions of tool calls and durations for the text output. */
import { isAbsolute } from "node:path";
import { displayPath } from "../tools/mod.ts";
import { escapeUnsafe } from "./terminal_text.ts";

/** Human duration: "3 ms", "1.2 s", "2 min 5 s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

/** Longest target shown in a tool activity line. */
const MAX_TARGET_CHARS = 100;

/**
 * The first line of `text`, at most `max` characters, with control characters (which could move
 * the cursor or recolour the terminal), bidi controls and look-alike slashes written as `\uXXXX`,
 * so one tool call stays one line and shows what it really is.
 */
export function oneLine(text: string, max: number): string {
  const lines = text.trim().split(/\r?\n|\r/);
  const first = escapeUnsafe(lines[0] ?? "");
  const chars = [...first];
  if (chars.length > max) return `${chars.slice(0, max - 1).join("")}…`;
  return lines.length > 1 ? `${first} …` : first;
}

/** A short human description of what a tool call targets, e.g. `src/main.ts` or a command. */
export function describeCall(name: string, args: unknown, cwd: string): string {
  // Arguments that never parsed into an object (invalid JSON arrives as a string).
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return "(invalid arguments)";
  }
  const a = args as Record<string, unknown>;
  // A path is shown whole: a newline in it is escaped, never a reason to cut the rest off.
  const path = (p: unknown) => {
    if (typeof p !== "string" || p === "") return ".";
    return escapeUnsafe(isAbsolute(p) ? displayPath(cwd, p) : p);
  };
  switch (name) {
    case "bash":
      return typeof a.command === "string" ? oneLine(a.command, 80) : "";
    case "grep":
      return oneLine(`${JSON.stringify(a.pattern ?? "")} ${path(a.path)}`, MAX_TARGET_CHARS);
    case "find":
      return oneLine(
        `${typeof a.pattern === "string" ? a.pattern : ""} in ${path(a.path)}`,
        MAX_TARGET_CHARS,
      );
    case "fetch":
      return typeof a.url === "string" ? oneLine(a.url, MAX_TARGET_CHARS) : "";
    case "read":
    case "write":
    case "edit":
    case "ls":
      return oneLine(path(a.path), MAX_TARGET_CHARS);
    default:
      return oneLine(JSON.stringify(args) ?? "", 80);
  }
}

/** A non-zero exit code in a tool result's details (bash), else undefined. */
export function exitCodeOf(details: unknown): number | undefined {
  if (typeof details !== "object" || details === null) return undefined;
  const code = (details as { exitCode?: unknown }).exitCode;
  return typeof code === "number" && code !== 0 ? code : undefined;
}
