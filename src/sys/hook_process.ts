/**
 * The Deno implementation of HookProcessOps: the one of stdio MCP servers, which fits as it is —
 * a process group of its own (`detached: true`), exactly the given environment (`env -i`), none
 * of moat's inherited descriptors above 2, piped stdio, killed group-wide with SIGKILL.
 */
import type { HookProcessOps } from "../hooks/process_ops.ts";
import { createDenoMcpProcessOps } from "./mcp.ts";

/** Creates Deno-backed process operations for hook commands. */
export function createDenoHookProcessOps(): HookProcessOps {
  return createDenoMcpProcessOps();
}
