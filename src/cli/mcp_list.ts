/** `moat mcp list`: starts the configured MCP servers as a run would and shows each one's state. */
import { openEngine } from "./engine.ts";
import { EXIT } from "./exit.ts";
import type { Reporter } from "../report/mod.ts";
import type { RunSetup } from "./setup.ts";
import { escapeUnsafe, terminalQuote } from "../term/terminal_text.ts";

/**
 * Prints one block per server (name, transport, state, error, what a stdio one can read, write
 * and reach, tools); exit 0, or 2 on setup errors.
 */
export async function mcpList(setup: RunSetup): Promise<number> {
  const { terminal } = setup;
  const warn = (message: string) => terminal.writeStderr(`moat: warning: ${message}\n`);
  const reporter: Reporter = {
    start() {},
    event() {},
    warning: warn,
    end() {},
    dispose() {},
  };
  const opened = await openEngine(setup, undefined, reporter);
  if (!opened.ok) {
    terminal.writeStderr(`moat: ${opened.error}\n`);
    return EXIT.usage;
  }
  try {
    for (const w of [...opened.engine.startReporting(), ...opened.contextWarnings]) warn(w);
    // The list shows final states: wait for every server (each within its startup timeout).
    await opened.engine.mcp?.whenStarted();
    const statuses = opened.engine.mcp?.status() ?? [];
    if (statuses.length === 0) {
      terminal.writeStdout(
        setup.flags.noMcp
          ? "No MCP server started (--no-mcp).\n"
          : 'No MCP server started: configure "mcpServers" in the user config ' +
            "(or give --mcp-config FILE); warnings above say why a configured one did not start.\n",
      );
      return EXIT.ok;
    }
    for (const s of statuses) {
      terminal.writeStdout(`${terminalQuote(s.name)}  ${s.transport}  ${s.state}\n`);
      if (s.error !== undefined) terminal.writeStdout(`  error: ${terminalQuote(s.error)}\n`);
      if (s.view !== undefined) terminal.writeStdout(`  can: ${escapeUnsafe(s.view)}\n`);
      for (const tool of s.tools) terminal.writeStdout(`  ${terminalQuote(tool)}\n`);
    }
    return EXIT.ok;
  } finally {
    await opened.engine.close();
  }
}
