/**
 * The system prompt: one short paragraph stating the date, the workspace, the tools and the
 * effective grants, then the AGENTS.md context files (user-wide first, then from the git root down
 * to the workspace).
 */
import { dirname, join } from "node:path";
import { type CliFs, readTextOrReason } from "./io.ts";

/** Name of the project context files. */
export const CONTEXT_FILE_NAME = "AGENTS.md";
/** Context files longer than this are cut (with a note) so they cannot crowd out the task. */
export const MAX_CONTEXT_FILE_CHARS = 64_000;

/** One loaded context file. */
export interface ContextFile {
  path: string;
  text: string;
}

/** Inputs of buildSystemPrompt. */
export interface SystemPromptOptions {
  date: Date;
  workspace: string;
  /** Names of the enabled tools. */
  tools: readonly string[];
  /** One-line human summary of the effective grants. */
  grants: string;
  /** MCP servers still starting: their tools come with a later request. */
  mcpStarting?: readonly string[];
  contextFiles?: readonly ContextFile[];
  /** Replaces the built-in paragraph (context files and `append` still follow). */
  override?: string;
  append?: string;
}

/** Builds the system prompt text. Pure. */
export function buildSystemPrompt(options: SystemPromptOptions): string {
  // The user's calendar date (local time), not UTC's: "today" is what the user would say.
  const d = options.date;
  const date = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${
    String(d.getDate()).padStart(2, "0")
  }`;
  const tools = options.tools.length === 0 ? "none" : options.tools.join(", ");
  const base = options.override ??
    `You are moat, a coding agent working in the workspace ${options.workspace} (today is ${date}). ` +
      `Your tools: ${tools}; relative paths are resolved against the workspace. ` +
      `You may touch only what the user granted: ${options.grants}. ` +
      `A call outside these grants is blocked; do not retry it or work around it — say which ` +
      `permission flag would allow it (e.g. --allow-write=PATH) and continue with what you can do. ` +
      `Read files before editing them, keep changes minimal, and finish with a short answer.`;
  const parts = [base];
  const starting = options.mcpStarting ?? [];
  if (options.override === undefined && starting.length > 0) {
    const names = starting.map((s) => `"${s}"`).join(", ");
    parts[0] += ` The MCP server${starting.length > 1 ? "s" : ""} ${names} ` +
      `${starting.length > 1 ? "are" : "is"} still starting: ${
        starting.length > 1 ? "their" : "its"
      } tools are offered with a later request once ready.`;
  }
  for (const file of options.contextFiles ?? []) {
    parts.push(`Instructions from ${file.path}:\n\n${file.text.trim()}`);
  }
  if (options.append !== undefined && options.append.trim() !== "") parts.push(options.append);
  return parts.join("\n\n");
}

/** The nearest of `dir` and its ancestors that holds `.git` (a git work tree's root), if any. */
export async function findGitRoot(fs: CliFs, dir: string): Promise<string | undefined> {
  for (let d = dir;; d = dirname(d)) {
    if (await fs.exists(join(d, ".git"))) return d;
    if (dirname(d) === d) return undefined;
  }
}

/**
 * The AGENTS.md files that apply to a workspace, most general first: the user's
 * `<configDir>/AGENTS.md`, then every AGENTS.md from the git root (the nearest ancestor holding
 * `.git`) down to the workspace; without a git root only the workspace's own.
 */
export async function loadContextFiles(
  fs: CliFs,
  options: { workspace: string; userConfigDir?: string },
): Promise<{ files: ContextFile[]; warnings: string[] }> {
  const candidates: string[] = [];
  if (options.userConfigDir !== undefined) {
    candidates.push(join(options.userConfigDir, CONTEXT_FILE_NAME));
  }
  const gitRoot = await findGitRoot(fs, options.workspace);
  const chain = [options.workspace];
  while (gitRoot !== undefined && chain.at(-1) !== gitRoot) chain.push(dirname(chain.at(-1)!));
  const dirs = gitRoot === undefined ? [options.workspace] : chain.reverse();
  for (const d of dirs) candidates.push(join(d, CONTEXT_FILE_NAME));

  const files: ContextFile[] = [];
  const warnings: string[] = [];
  const seen = new Set<string>();
  for (const path of candidates) {
    if (seen.has(path)) continue;
    seen.add(path);
    const read = await readTextOrReason(fs, path);
    if ("reason" in read) {
      warnings.push(`Skipped context file "${path}": ${read.reason}`);
      continue;
    }
    let text = read.text;
    if (text === null || text.trim() === "") continue;
    if (text.length > MAX_CONTEXT_FILE_CHARS) {
      warnings.push(
        `Context file "${path}" is ${text.length} characters; only the first ${MAX_CONTEXT_FILE_CHARS} are used`,
      );
      text = `${
        text.slice(0, MAX_CONTEXT_FILE_CHARS)
      }\n[… truncated: the file has ${text.length} characters]`;
    }
    files.push({ path, text });
  }
  return { files, warnings };
}
