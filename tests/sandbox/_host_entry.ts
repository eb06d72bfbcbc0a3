/** Test entry: what main.ts does for `__tool-host` (the tool host's own entry), nothing else. */
import { runToolHost } from "../../src/sandbox/host/main.ts";
import { runMcpForwarder } from "../../src/sandbox/host/mcp_forward_main.ts";
import { MCP_FORWARD_OPTION } from "../../src/sandbox/host/protocol.ts";

if (import.meta.main) {
  Deno.exit(
    Deno.args[1] === MCP_FORWARD_OPTION
      ? await runMcpForwarder(Deno.args.slice(2))
      : await runToolHost(Deno.args.slice(1)),
  );
}
