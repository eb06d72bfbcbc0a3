/**
 * Other programs' run-later files: entries at the root of a workspace or git work tree that make
 * another program run commands later, outside moat's sandbox — another coding agent's project
 * settings (hooks, MCP servers), workspace MCP servers, editor tasks and run configurations,
 * direnv's `.envrc`, git's `.gitmodules`. The one table of them; src/policy/protected.ts protects
 * each (existing or not) inside the write grants.
 */

/** Why a run-later entry is protected. */
export type RunLaterWhy = "agent_config" | "mcp_config" | "editor_config" | "direnv" | "gitmodules";

/** One run-later entry: its name at a root, why, and the sentence a denial gives. */
export interface RunLaterEntry {
  name: string;
  why: RunLaterWhy;
  /** Completes "… is protected because …". */
  sentence: string;
}

const AGENT = "whose hooks and MCP servers run outside the sandbox once the project is trusted";

/** Every run-later entry, in the order they are looked up. */
export const RUN_LATER: readonly RunLaterEntry[] = [
  { name: ".claude", why: "agent_config", sentence: `it holds Claude Code's settings, ${AGENT}` },
  { name: ".codex", why: "agent_config", sentence: `it holds Codex CLI's settings, ${AGENT}` },
  { name: ".agents", why: "agent_config", sentence: `it holds coding agents' settings, ${AGENT}` },
  { name: ".gemini", why: "agent_config", sentence: `it holds Gemini CLI's settings, ${AGENT}` },
  { name: ".qwen", why: "agent_config", sentence: `it holds Qwen Code's settings, ${AGENT}` },
  { name: ".cursor", why: "agent_config", sentence: `it holds Cursor's settings, ${AGENT}` },
  {
    name: "opencode.json",
    why: "agent_config",
    sentence: `it holds opencode's settings, ${AGENT}`,
  },
  {
    name: "opencode.jsonc",
    why: "agent_config",
    sentence: `it holds opencode's settings, ${AGENT}`,
  },
  { name: ".opencode", why: "agent_config", sentence: `it holds opencode's settings, ${AGENT}` },
  { name: ".pi", why: "agent_config", sentence: `it holds pi's settings, ${AGENT}` },
  {
    name: ".mcp.json",
    why: "mcp_config",
    sentence: "it names MCP servers that other coding agents start outside the sandbox",
  },
  {
    name: ".vscode",
    why: "editor_config",
    sentence: "VS Code runs its tasks (on folder open), terminal profiles and launch " +
      "configurations outside the sandbox",
  },
  {
    name: ".idea",
    why: "editor_config",
    sentence: "JetBrains IDEs run its run configurations outside the sandbox",
  },
  {
    name: ".devcontainer",
    why: "editor_config",
    sentence: "dev container tools run its commands (postCreateCommand, …) outside the sandbox",
  },
  { name: ".envrc", why: "direnv", sentence: "direnv runs it outside the sandbox on cd" },
  {
    name: ".gitmodules",
    why: "gitmodules",
    sentence: "it sets the URLs and update commands git uses for submodules outside the sandbox",
  },
];

const BY_NAME = new Map(RUN_LATER.map((entry) => [entry.name, entry]));

/** The run-later entry named `name` (a path's last segment), if any. */
export function runLaterEntry(name: string): RunLaterEntry | undefined {
  return BY_NAME.get(name);
}
