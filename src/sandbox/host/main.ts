/**
 * The tool host process's entry point: main.ts dispatches `moat __tool-host` here with a dynamic
 * import, so that the sandboxed host loads only its own module graph (not the CLI's). It wires
 * Deno's standard streams and sockets into the host's server.
 */
import { createDenoNetOps } from "../../sys/net.ts";
import { createDenoToolHostIo } from "../../sys/terminal.ts";
import { createDenoTmpScanOps } from "../../sys/tmp_scan.ts";
import { serveToolHost, type ToolHostIo } from "./server.ts";

/**
 * Runs the tool host process on `io` (default: Deno's standard streams) with Deno's sockets until
 * stdin closes; resolves to its exit code. `argv` (after `__tool-host`) takes no options yet.
 * Must not throw.
 */
export function runToolHost(
  _argv: string[],
  io: ToolHostIo = createDenoToolHostIo(),
): Promise<number> {
  return serveToolHost(io, { net: createDenoNetOps(), tmp: createDenoTmpScanOps() });
}
