/**
 * The first process in a proxied MCP server's bubblewrap sandbox (`__tool-host --mcp-forward`):
 * it listens on 127.0.0.1 of the server's own network namespace, forwards each connection to the
 * server's proxy in moat's main process (src/sandbox/_mcp_net.ts), and runs the server with its
 * standard streams and the proxy variables. When the server exits so does this process, and with
 * it the pid namespace (bubblewrap ends every process left in it).
 */
import { MCP_FORWARD_ENV, type McpForwardConfig } from "../host/protocol.ts";
import type { NetOps } from "../ops.ts";
import { hexToken, proxyEnvironment, startNetForwarder } from "./forward.ts";

/** What the forwarder process does besides its own logic (Deno's: src/sys/mcp_forward.ts). */
export interface McpForwardSys {
  net: NetOps;
  /** The process's environment. */
  env(): Record<string, string>;
  /**
   * Runs `program` with exactly `env` and this process's standard streams; resolves to its exit
   * code (128 + the signal number when a signal ended it), or why it could not start.
   */
  run(
    program: string,
    args: string[],
    env: Record<string, string>,
  ): Promise<{ ok: true; code: number } | { ok: false; message: string }>;
  /** Writes a line for the user (the server's stderr). Must not throw. */
  stderr(text: string): void;
}

/** Runs the server of `argv` (`-- COMMAND ARGS…`) behind the forwarder; resolves to its exit code. */
export async function runMcpForward(argv: string[], sys: McpForwardSys): Promise<number> {
  const command = argv[0] === "--" ? argv.slice(1) : argv;
  const config = parseConfig(sys.env()[MCP_FORWARD_ENV]);
  const [program, ...args] = command;
  if (config === undefined || program === undefined) {
    sys.stderr(`moat: ${MCP_FORWARD_ENV} and a command are needed to run an MCP server\n`);
    return 2;
  }
  const started = startNetForwarder(sys.net, config.socketPath, {
    token: hexToken(config.token),
  });
  if (!started.ok) {
    sys.stderr(`moat: the MCP server's network forwarder cannot start: ${started.message}\n`);
    return 70;
  }
  try {
    const exit = await sys.run(program, args, {
      ...config.env,
      ...mcpProxyEnvironment(started.forwarder.port),
    });
    if (exit.ok) return exit.code;
    sys.stderr(`moat: cannot start the MCP server "${program}": ${exit.message}\n`);
    return 127;
  } finally {
    await started.forwarder.close();
  }
}

/**
 * The proxy variables of an MCP server: bash's HTTP ones (src/sandbox/net/forward.ts) and npm's
 * own names for them (npx fetches through the proxy too), without ALL_PROXY: Deno's fetch would
 * prefer SOCKS5, whose refusal is a bare code, and the server should see the 403 that names the
 * flag to add.
 */
export function mcpProxyEnvironment(port: number): Record<string, string> {
  const { ALL_PROXY: _all, all_proxy: _lower, ...http } = proxyEnvironment(port);
  const url = `http://127.0.0.1:${port}`;
  return { ...http, npm_config_proxy: url, npm_config_https_proxy: url };
}

function parseConfig(text: string | undefined): McpForwardConfig | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as Partial<McpForwardConfig>;
    if (
      typeof value.socketPath !== "string" || typeof value.token !== "string" ||
      typeof value.env !== "object" || value.env === null
    ) return undefined;
    return { socketPath: value.socketPath, token: value.token, env: value.env };
  } catch {
    return undefined;
  }
}
