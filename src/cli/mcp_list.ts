/** `moat mcp list`: starts the configured MCP servers as a run would and shows each one's state. */
import { openEngine } from "./engine.ts";
import { EXIT } from "./exit.ts";
import { writeMessage } from "./io.ts";
import type { Reporter } from "../report/mod.ts";
import type { RunSetup } from "./setup.ts";
import { escapeUnsafe, terminalQuote } from "../term/terminal_text.ts";

/**
 * Prints one block per server (name, transport, state, error, what a stdio one can read, write
 * and reach, tools); exit 0, or 2 on setup errors.
 */
export async function mcpList(setup: RunSetup): Promise<number> {
  const { terminal } = setup;
  const warn = (message: string) => writeMessage(terminal, `moat: warning: ${message}\n`);
  const reporter: Reporter = {
    start() {},
    event() {},
    warning: warn,
    end() {},
    dispose() {},
  };
  const opened = await openEngine(setup, undefined, reporter);
  if (!opened.ok) {
    writeMessage(terminal, `moat: ${opened.error}\n`);
    return EXIT.usage;
  }
  try {
    for (const w of [...opened.engine.startReporting(), ...opened.contextWarnings]) warn(w);
    // The list shows final states: wait for every server (each within its startup timeout).
    await opened.engine.mcp?.whenStarted();
    const statuses = opened.engine.mcp?.status() ?? [];
    const out = (text: string) => writeMessage(terminal, text, "stdout");
    if (statuses.length === 0) {
      out(
        setup.flags.noMcp
          ? "No MCP server started (--no-mcp).\n"
          : 'No MCP server started: configure "mcpServers" in the user config ' +
            "(or give --mcp-config FILE); warnings above say why a configured one did not start.\n",
      );
      return EXIT.ok;
    }
    for (const s of statuses) {
      out(`${terminalQuote(s.name)}  ${s.transport}  ${s.state}\n`);
      if (s.error !== undefined) out(`  error: ${terminalQuote(s.error)}\n`);
      if (s.view !== undefined) out(`  can: ${escapeUnsafe(s.view)}\n`);
      for (const tool of s.tools) out(`  ${terminalQuote(tool)}\n`);
    }
    return EXIT.ok;
  } finally {
    await opened.engine.close();
  }
}
