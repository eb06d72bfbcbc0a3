/** Shared setup of the MCP tests: the stdio fixture as a configured server, and spawned pids. */
import { fileURLToPath } from "node:url";
import type { McpProcessOps, McpStdioServer } from "../../src/mcp/mod.ts";
import { createDenoMcpProcessOps } from "../../src/sys/mcp.ts";
import type { ToolContext, ToolUpdate } from "../../src/agent/tool.ts";

/** The repository root. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url)).replace(/\/$/, "");
const FIXTURE = `${ROOT}/tests/support/mcp_fixture_server.ts`;

/** Environment variables the fixture's Deno needs to find its module cache. */
export const DENO_ENV_NAMES = ["HOME", "DENO_DIR", "XDG_CACHE_HOME"];

/** The stdio fixture as a configured server. */
export function fixtureServer(
  name = "fixture",
  options: Partial<Omit<McpStdioServer, "name" | "type">> & {
    mode?: string;
    /** More fixture arguments, e.g. "--resources", "--many-tools=40". */
    fixtureArgs?: string[];
    /** The fixture answers nothing until this file exists (a slow start). */
    gate?: string;
  } = {},
): McpStdioServer {
  const env: Record<string, string> = { NO_COLOR: "1" };
  for (const key of DENO_ENV_NAMES) {
    const value = Deno.env.get(key);
    if (value !== undefined) env[key] = value;
  }
  return {
    name,
    type: "stdio",
    command: Deno.execPath(),
    args: [
      "run",
      "--allow-all",
      "--quiet",
      `--config=${ROOT}/deno.json`,
      FIXTURE,
      `--mode=${options.mode ?? "normal"}`,
      ...(options.fixtureArgs ?? []),
      ...(options.gate === undefined ? [] : [`--gate=${options.gate}`]),
    ],
    env: { ...env, ...options.env },
    cwd: ROOT,
    tools: options.tools ?? {},
    startupTimeoutSec: options.startupTimeoutSec ?? 30,
  };
}

/** Deno process ops that remember the pid of every process spawned. */
export function recordingProcessOps(): McpProcessOps & { pids: number[] } {
  const real = createDenoMcpProcessOps();
  const pids: number[] = [];
  return {
    pids,
    spawn(command) {
      const result = real.spawn(command);
      if (result.ok) pids.push(result.child.pid);
      return result;
    },
  };
}

/** Whether process `pid` is still running (a zombie counts as gone). */
export function isRunning(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // The state follows the parenthesised command name.
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}

/** A ToolContext whose updates land in `updates`. */
export function toolContext(updates: ToolUpdate[] = []): ToolContext {
  return { toolCallId: "call-1", onUpdate: (u) => updates.push(u) };
}

/**
 * Whether `pid` is gone within `ms`: a SIGKILLed process that is not our child (a grandchild)
 * dies asynchronously, and on a loaded machine not before `kill` returns.
 */
export async function goneWithin(pid: number, ms = 5000): Promise<boolean> {
  for (let waited = 0; waited < ms; waited += 20) {
    if (!isRunning(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return !isRunning(pid);
}
