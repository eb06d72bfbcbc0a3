/**
 * The entry point of `moat __tool-host --mcp-forward` (main.ts dispatches here with a computed
 * import): an MCP server's network forwarder, which loads only its own small module graph.
 */
import { createDenoMcpForwardSys } from "../../sys/mcp_forward.ts";
import { runMcpForward } from "../net/mcp_forward.ts";

/** Runs the MCP server of `argv` (after `--mcp-forward`) behind the forwarder; its exit code. */
export function runMcpForwarder(argv: string[]): Promise<number> {
  return runMcpForward(argv, createDenoMcpForwardSys());
}
