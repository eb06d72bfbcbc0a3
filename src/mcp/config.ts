/**
 * MCP server configuration: the `mcpServers` map people know from `.mcp.json` (a program over
 * stdio, or a streamable-HTTP URL), plus moat's per-server tool filters and startup timeout.
 */
import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

/** What a server name may look like: it becomes the prefix of its tools' names. */
const MCP_SERVER_NAME_PATTERN = "^[A-Za-z0-9_-]{1,40}$";
const SERVER_NAME = new RegExp(MCP_SERVER_NAME_PATTERN);
/** Seconds a server has to answer `initialize` and `tools/list` unless configured. */
const DEFAULT_STARTUP_TIMEOUT_SEC = 10;

const ToolFilterSchema = Type.Object({
  include: Type.Optional(
    Type.Array(Type.String({ minLength: 1 }), {
      description: "Only these MCP tool names (exact, no globs) are offered to the model.",
    }),
  ),
  exclude: Type.Optional(
    Type.Array(Type.String({ minLength: 1 }), {
      description: "These MCP tool names (exact, no globs) are never offered to the model.",
    }),
  ),
}, { additionalProperties: false, description: "Which of the server's tools moat offers." });

const commonFields = {
  tools: Type.Optional(ToolFilterSchema),
  startupTimeoutSec: Type.Optional(
    Type.Number({
      exclusiveMinimum: 0,
      description: "Seconds the server has to start and list its tools (default 10).",
    }),
  ),
};

const permissionList = (description: string) =>
  Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description }));

/** A stdio server's own grants, in the vocabulary of a Deno permission set (deno.json). */
const McpPermissionsSchema = Type.Object({
  read: permissionList(
    "More paths the server may read (`~` is HOME, relative paths are relative to the " +
      "workspace), in its view only.",
  ),
  write: permissionList(
    "More paths the server may read and write, in its view only; protected paths (git hooks " +
      "and config, moat's config) stay read-only.",
  ),
  net: permissionList(
    "Hosts the server may reach (`host` or `host:port`), e.g. registry.npmjs.org.",
  ),
  env: permissionList(
    "Variables passed from moat's environment (a trailing `*` matches a prefix); never the " +
      "API key.",
  ),
  run: permissionList(
    "Programs (names on PATH or paths) the server runs: they become readable in its view.",
  ),
}, {
  additionalProperties: false,
  description: "User config and --mcp-config only: the server's grants on top of the tools' " +
    "(a project's are ignored).",
});

/** One server run as a program that speaks MCP over stdin/stdout. */
const McpStdioServerSchema = Type.Object({
  type: Type.Optional(
    Type.Literal("stdio", { description: "Transport; inferred from `command`." }),
  ),
  command: Type.String({ minLength: 1, description: "Program to run (looked up in PATH)." }),
  args: Type.Optional(
    Type.Array(Type.String(), { description: "Arguments passed to the program." }),
  ),
  env: Type.Optional(
    Type.Record(Type.String({ pattern: "^[A-Za-z_][A-Za-z0-9_]*$" }), Type.String(), {
      description: "Environment of the server; nothing else is inherited except PATH.",
    }),
  ),
  cwd: Type.Optional(
    Type.String({
      minLength: 1,
      description: "Working directory of the server (default: moat's working directory).",
    }),
  ),
  permissions: Type.Optional(McpPermissionsSchema),
  ...commonFields,
}, { additionalProperties: false, description: "A server spawned as a program over stdio." });

/** One server reached over streamable HTTP. */
const McpHttpServerSchema = Type.Object({
  type: Type.Optional(Type.Literal("http", { description: "Transport; inferred from `url`." })),
  url: Type.String({
    pattern: "^https?://",
    description: "Endpoint of the server (streamable HTTP), e.g. https://example.com/mcp.",
  }),
  headers: Type.Optional(
    Type.Record(Type.String({ minLength: 1 }), Type.String(), {
      description: "HTTP headers sent with every request, e.g. Authorization.",
    }),
  ),
  ...commonFields,
}, { additionalProperties: false, description: "A server reached over streamable HTTP." });

/** The `mcpServers` map: server name → how to reach it. */
export const McpServersSchema = Type.Record(
  Type.String({ pattern: MCP_SERVER_NAME_PATTERN }),
  Type.Union([McpStdioServerSchema, McpHttpServerSchema]),
  { description: "MCP servers by name; the name prefixes their tools (`<name>__<tool>`)." },
);

/** Which of a server's tools are offered: exact MCP tool names. */
export interface McpToolFilter {
  include?: string[];
  exclude?: string[];
}

/** A stdio server's own grants as configured (paths not yet resolved). */
export type McpPermissions = Static<typeof McpPermissionsSchema>;

/** A stdio server, validated, defaults filled in. */
export interface McpStdioServer {
  name: string;
  type: "stdio";
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  /** Its own grants (from the user's config or --mcp-config; a project's are dropped). */
  permissions?: McpPermissions;
  tools: McpToolFilter;
  startupTimeoutSec: number;
}

/** An HTTP server, validated, defaults filled in. */
export interface McpHttpServer {
  name: string;
  type: "http";
  url: string;
  headers: Record<string, string>;
  tools: McpToolFilter;
  startupTimeoutSec: number;
}

/** One configured server, validated, defaults filled in. */
export type McpServerConfig = McpStdioServer | McpHttpServer;

/** A parse outcome: the servers in file order, or what is wrong and where. */
export type McpServersParse =
  | { ok: true; servers: McpServerConfig[] }
  | { ok: false; error: string };

/**
 * Validates an `mcpServers` value (the map, not the file around it) read from `source`. Pure;
 * the error names the file, the server and the field.
 */
export function parseMcpServers(value: unknown, source: string): McpServersParse {
  const fail = (error: string): McpServersParse => ({
    ok: false,
    error: `Invalid MCP server config in "${source}": ${error}`,
  });
  if (!isRecord(value)) return fail(`"mcpServers" must be an object of servers by name`);
  const servers: McpServerConfig[] = [];
  for (const [name, entry] of Object.entries(value)) {
    if (!SERVER_NAME.test(name)) {
      return fail(
        `server name "${name}" is invalid: use 1 to 40 letters, digits, "_" or "-" ` +
          `(it prefixes the server's tool names)`,
      );
    }
    const server = parseServer(name, entry);
    if (typeof server === "string") return fail(`server "${name}": ${server}`);
    servers.push(server);
  }
  return { ok: true, servers };
}

/** Validates the text of a `.mcp.json` file (`{"mcpServers": {…}}`) read from `source`. Pure. */
export function parseMcpJson(text: string, source: string): McpServersParse {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return {
      ok: false,
      error: `Invalid MCP server config in "${source}": not valid JSON: ${
        e instanceof Error ? e.message : String(e)
      }`,
    };
  }
  if (!isRecord(data)) {
    return {
      ok: false,
      error: `Invalid MCP server config in "${source}": the top level must be an object ` +
        `with "mcpServers"`,
    };
  }
  const unknown = Object.keys(data).find((k) => k !== "mcpServers" && k !== "$schema");
  if (unknown !== undefined) {
    return {
      ok: false,
      error: `Invalid MCP server config in "${source}": unknown field "${unknown}" ` +
        `(known fields: mcpServers)`,
    };
  }
  return parseMcpServers(data.mcpServers ?? {}, source);
}

/** The server's config, or what is wrong with it. */
function parseServer(name: string, entry: unknown): McpServerConfig | string {
  if (!isRecord(entry)) return `must be an object with "command" (stdio) or "url" (http)`;
  const type = entry.type ?? ("url" in entry && !("command" in entry) ? "http" : "stdio");
  if (type !== "stdio" && type !== "http") {
    return `field "type": expected "stdio" or "http", got ${JSON.stringify(type)}` +
      (type === "sse" ? ` (the SSE transport is not supported; use the server's "http" URL)` : "");
  }
  if (type === "stdio" && !("command" in entry) && !("url" in entry)) {
    return `needs "command" (a program over stdio) or "url" (streamable HTTP)`;
  }
  const problem = type === "stdio"
    ? firstProblem(McpStdioServerSchema, entry)
    : firstProblem(McpHttpServerSchema, entry);
  if (problem !== undefined) return problem;
  const tools = (entry.tools ?? {}) as McpToolFilter;
  const startupTimeoutSec = (entry.startupTimeoutSec as number | undefined) ??
    DEFAULT_STARTUP_TIMEOUT_SEC;
  if (type === "http") {
    const e = entry as Static<typeof McpHttpServerSchema>;
    if (!URL.canParse(e.url)) return `field "url": ${JSON.stringify(e.url)} is not a valid URL`;
    return { name, type, url: e.url, headers: e.headers ?? {}, tools, startupTimeoutSec };
  }
  const e = entry as Static<typeof McpStdioServerSchema>;
  return {
    name,
    type,
    command: e.command,
    args: e.args ?? [],
    env: e.env ?? {},
    ...(e.cwd === undefined ? {} : { cwd: e.cwd }),
    ...(e.permissions === undefined ? {} : { permissions: e.permissions }),
    tools,
    startupTimeoutSec,
  };
}

/** The first schema violation as `field "a.b": problem`, or undefined. */
function firstProblem(
  schema: TSchema & { properties: object },
  value: unknown,
): string | undefined {
  const first = Value.Errors(schema, value).First();
  if (first === undefined) return undefined;
  const field = first.path.replace(/^\//, "").replace(/\//g, ".");
  const known = (first.schema as { properties?: object }).properties ?? schema.properties;
  const problem = first.message === "Unexpected property"
    ? `unknown field (known fields: ${Object.keys(known).join(", ")})`
    : field === "url" && typeof first.value === "string"
    ? `expected an http:// or https:// URL, got ${JSON.stringify(first.value)}`
    : first.message.charAt(0).toLowerCase() + first.message.slice(1);
  return field === "" ? problem : `field "${field}": ${problem}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
