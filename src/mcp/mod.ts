/**
 * The MCP client: configured servers become moat tools named `<server>__<tool>`. Servers start
 * in parallel; one that fails is a status and a warning, never an exception. Spawning is
 * pluggable (`stdioCommand`) so the caller can confine the program and choose its environment.
 */
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport";
import type { AnyTool } from "../agent/tool.ts";
import type { Clock } from "../agent/types.ts";
import { VERSION } from "../version.ts";
import type { McpServerConfig, McpStdioServer } from "./config.ts";
import { createConnection, type McpServerState, type ServerConnection } from "./connection.ts";
import type { McpProcessOps, McpStdioCommand } from "./ops.ts";
import { mcpToolName, toMoatTool, toolAllowed } from "./tools.ts";
import { type McpPromptCommand, promptCommands } from "./prompts.ts";
import { READ_RESOURCE_TOOL } from "./names.ts";
import { createResourceTools, resourceServerOf, resourceServers } from "./resources.ts";
import { createToolSearch, type ToolSearchOptions } from "./tool_search.ts";

export * from "./config.ts";
export type * from "./ops.ts";
export type { McpServerState } from "./connection.ts";
export { mcpToolName, resultToOutput, TOOL_NAME_PATTERN } from "./tools.ts";
export type { McpPromptCommand } from "./prompts.ts";
export * from "./names.ts";
export {
  McpToolSearchSchema,
  type McpToolSearchSetting,
  toolSearchOptions,
} from "./tool_search.ts";

/** PATH given to a stdio server by `defaultStdioCommand` when the caller names none. */
const DEFAULT_MCP_PATH = "/usr/bin:/bin";
/** Seconds a tool call may take unless `callTimeoutSec` says otherwise. */
const DEFAULT_CALL_TIMEOUT_SEC = 600;

/** Options of `createMcpClients`. */
export interface McpClientOptions {
  /** Spawns stdio servers (src/sys/mcp.ts in production). */
  processOps: McpProcessOps;
  /**
   * The program line of a stdio server: wrap it (e.g. in bubblewrap) and build its environment
   * here. Default: `defaultStdioCommand(server, path)`.
   */
  stdioCommand?: (server: McpStdioServer) => McpStdioCommand;
  /** PATH for the default `stdioCommand` (default "/usr/bin:/bin"). */
  path?: string;
  /** fetch for HTTP servers (default: the global one). */
  fetch?: FetchLike;
  /** Seconds a tool call may take before it is cancelled (default 600). */
  callTimeoutSec?: number;
  /** How long a stdio server may take to exit once its stdin closes (default 500 ms). */
  exitGraceMs?: number;
  /** A server failed, crashed or could not refresh its tools. */
  onWarning?: (message: string) => void;
  /**
   * Defers the MCP tools behind `search_mcp_tools` when their schemas exceed the budget
   * (default: never; the CLI passes 10 % of the model's context window).
   */
  toolSearch?: ToolSearchOptions;
  /** What would fix a server that could not start, given why (appended to its error). */
  explainFailure?: (server: McpServerConfig, error: string) => string | undefined;
  /** The timers of the startup timeouts (default: the global ones). */
  clock?: Pick<Clock, "setTimeout" | "clearTimeout">;
  /**
   * After `start()`: a server's tools or prompts changed (list_changed, restart, failure);
   * re-read `tools()` and `promptCommands()`.
   */
  onToolsChanged?: (server: string) => void;
}

/** One server as `moat mcp list` shows it. */
export interface McpServerStatus {
  name: string;
  transport: "stdio" | "http";
  state: McpServerState;
  /** The moat names of the tools offered (after include/exclude). */
  tools: string[];
  /** Why it failed or crashed. */
  error?: string;
}

/** The running MCP servers of one moat process. */
export interface McpClients {
  /** Starts every server in parallel; resolves when each is ready or failed. Never rejects. */
  start(): Promise<void>;
  /**
   * The moat tools of every ready (or crashed, restartable) server, in config order; first the
   * resource tools (when a server offers resources) and, over the search budget, the search
   * tool, with the tools not found yet marked `deferred`. Re-read it before every request.
   */
  tools(): AnyTool[];
  /**
   * The server a call of `toolName` with `args` goes to (whose grant it needs), or undefined:
   * not an MCP tool, or one that needs no grant (listing resources, searching tools).
   */
  serverOf(toolName: string, args?: unknown): string | undefined;
  /** The prompts of every ready server as slash commands, in config order. */
  promptCommands(): McpPromptCommand[];
  /** Each server's state, tools and error, in config order. */
  status(): McpServerStatus[];
  /** Closes every transport; stdio servers' process groups are killed. Never rejects. */
  close(): Promise<void>;
}

/** The default program line: the configured one, with PATH and the server's `env` only. */
function defaultStdioCommand(server: McpStdioServer, path: string): McpStdioCommand {
  return {
    command: server.command,
    args: [...server.args],
    env: { PATH: path, ...server.env },
    ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
  };
}

/** Creates the clients of `servers` (names must be unique; nothing starts before `start()`). */
export function createMcpClients(
  servers: readonly McpServerConfig[],
  options: McpClientOptions,
): McpClients {
  const warn = options.onWarning ?? (() => {});
  const path = options.path ?? DEFAULT_MCP_PATH;
  let startedAll = false;
  let built:
    | { tools: AnyTool[]; names: Map<string, string[]>; servers: Map<string, string> }
    | undefined;
  const search = createToolSearch(options.toolSearch ?? { mode: "never", budgetTokens: 0 });
  const connections: ServerConnection[] = servers.map((server) =>
    createConnection(server, {
      processOps: options.processOps,
      stdioCommand: options.stdioCommand ?? ((s) => defaultStdioCommand(s, path)),
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      callTimeoutMs: (options.callTimeoutSec ?? DEFAULT_CALL_TIMEOUT_SEC) * 1000,
      ...(options.exitGraceMs === undefined ? {} : { exitGraceMs: options.exitGraceMs }),
      ...(options.explainFailure === undefined ? {} : { explainFailure: options.explainFailure }),
      clientInfo: { name: "moat", version: VERSION },
      onWarning: warn,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      onChange: () => {
        built = undefined;
        if (startedAll) options.onToolsChanged?.(server.name);
      },
    })
  );

  const resourceTools = createResourceTools(() => connections);

  /** Names every offered tool; a name already taken gets a hash suffix, then is dropped. */
  function build(): NonNullable<typeof built> {
    if (built !== undefined) return built;
    const tools: AnyTool[] = [];
    const names = new Map<string, string[]>();
    const servers = new Map<string, string>();
    const taken = new Set<string>();
    for (const connection of connections) {
      const server = connection.config.name;
      const own: string[] = [];
      names.set(server, own);
      for (const tool of connection.tools()) {
        if (!toolAllowed(connection.config.tools, tool.name)) continue;
        let name = mcpToolName(server, tool.name);
        if (taken.has(name)) name = mcpToolName(server, tool.name, { hashed: true });
        if (taken.has(name)) {
          warn(
            `MCP tool "${tool.name}" of server "${server}" is skipped: its name "${name}" ` +
              `is already taken by another tool`,
          );
          continue;
        }
        taken.add(name);
        own.push(name);
        servers.set(name, server);
        tools.push(toMoatTool(server, tool, name, connection.call));
      }
    }
    built = { tools, names, servers };
    return built;
  }

  return {
    async start() {
      await Promise.all(connections.map((c) => c.start()));
      startedAll = true;
    },
    tools: () => {
      const { tools, servers } = build();
      const offered = search.offer(tools, (name) => servers.get(name));
      const withResources = resourceServers(connections).length > 0;
      return withResources ? [...resourceTools, ...offered] : offered;
    },
    serverOf: (toolName, args) =>
      toolName === READ_RESOURCE_TOOL
        ? resourceServerOf(connections, args)
        : build().servers.get(toolName),
    promptCommands: () => promptCommands(connections),
    status: () => {
      const names = build().names;
      return connections.map((c) => {
        const error = c.error();
        return {
          name: c.config.name,
          transport: c.config.type,
          state: c.state(),
          tools: [...(names.get(c.config.name) ?? [])],
          ...(error === undefined ? {} : { error }),
        };
      });
    },
    async close() {
      await Promise.all(connections.map((c) => c.close()));
    },
  };
}
