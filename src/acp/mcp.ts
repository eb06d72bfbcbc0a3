/**
 * The MCP servers an editor passes in `session/new` / `session/load`: the user's own, so they are
 * added as user-config servers are (confined the same way, and an editor's server replaces a
 * configured one of the same name).
 */
import type * as acp from "@agentclientprotocol/sdk";
import { parseMcpServers } from "../mcp/config.ts";
import { type ConfiguredMcpServer, latestByName } from "../cli/config.ts";

/** Where the editor's servers are said to come from, in messages. */
export const EDITOR_MCP_SOURCE = "the editor's session/new";

/** The configured servers with the editor's added; an error names the server and field. */
export function withEditorServers(
  configured: readonly ConfiguredMcpServer[],
  servers: readonly acp.McpServer[],
): { ok: true; servers: ConfiguredMcpServer[] } | { ok: false; error: string } {
  if (servers.length === 0) return { ok: true, servers: [...configured] };
  const map: Record<string, unknown> = {};
  for (const server of servers) {
    if ("type" in server && server.type === "sse") {
      return {
        ok: false,
        error: `The MCP server "${server.name}" uses SSE, which moat does not speak: give it ` +
          "as a stdio or streamable HTTP server",
      };
    }
    if ("url" in server) {
      map[server.name] = {
        type: "http",
        url: server.url,
        headers: Object.fromEntries(server.headers.map((h) => [h.name, h.value])),
      };
    } else {
      map[server.name] = {
        command: server.command,
        args: server.args,
        env: Object.fromEntries(server.env.map((e) => [e.name, e.value])),
      };
    }
  }
  const parsed = parseMcpServers(map, EDITOR_MCP_SOURCE);
  if (!parsed.ok) return parsed;
  const added = parsed.servers.map((server): ConfiguredMcpServer => ({
    server,
    origin: "user",
    file: EDITOR_MCP_SOURCE,
  }));
  return { ok: true, servers: latestByName([...configured, ...added]) };
}
