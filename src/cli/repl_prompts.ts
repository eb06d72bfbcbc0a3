/** The slash commands a REPL host adds (MCP prompts): their shape and their /help lines. */
import type { McpPromptCommand } from "../mcp/prompts.ts";
import { escapeControls } from "../term/terminal_text.ts";

/** A slash command whose expansion is sent as the request (an MCP prompt). */
export type PromptCommand = McpPromptCommand;

/** /help: `help` (the built-in commands), then the host's prompt commands. */
export function helpWithPrompts(help: string, prompts: readonly PromptCommand[]): string {
  if (prompts.length === 0) return help;
  const lines = prompts.map((p) => {
    const usage = `  ${p.usage}`;
    const pad = usage.length < 17 ? " ".repeat(17 - usage.length) : `\n${" ".repeat(17)}`;
    return p.description === "" ? usage : `${usage}${pad}${p.description}`;
  });
  return `${help}\nMCP prompts (/<server>:<prompt>; arguments in order, or name=value; ` +
    // Names and descriptions come from the servers: nothing in them may drive the terminal.
    `quotes keep spaces):\n${escapeControls(lines.join("\n"))}`;
}
