/**
 * Deno implementation of the MCP server forwarder's effects (src/sandbox/net/mcp_forward.ts): its
 * sockets, its environment, and the server it runs with the inherited standard streams.
 */
import type { McpForwardSys } from "../sandbox/net/mcp_forward.ts";
import { createDenoNetOps } from "./net.ts";

/** Creates the forwarder's effects backed by Deno. */
export function createDenoMcpForwardSys(): McpForwardSys {
  return {
    net: createDenoNetOps(),
    env: () => Deno.env.toObject(),
    async run(program, args, env) {
      let child: Deno.ChildProcess;
      try {
        child = new Deno.Command(program, {
          args,
          env,
          clearEnv: true,
          stdin: "inherit",
          stdout: "inherit",
          stderr: "inherit",
        }).spawn();
      } catch (e) {
        if (e instanceof Error) return { ok: false, message: e.message };
        throw e;
      }
      const status = await child.status;
      return { ok: true, code: status.code };
    },
    stderr(text) {
      try {
        Deno.stderr.writeSync(new TextEncoder().encode(text));
      } catch { /* nowhere to say it */ }
    },
  };
}
