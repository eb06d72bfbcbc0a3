/**
 * MCP resources as two moat tools, offered while a ready server declares the `resources`
 * capability: `list_mcp_resources` (resources and resource templates of one server or all) and
 * `read_mcp_resource` (one resource: text as text, images as image content, other blobs
 * described). Reading needs the MCP grant of the server named in the arguments; listing is
 * metadata, like the tool list, and needs none.
 */
import { type Static, Type } from "@sinclair/typebox";
import type {
  ReadResourceResult,
  Resource,
  ResourceTemplate,
} from "@modelcontextprotocol/sdk/types";
import type { AnyTool, Tool, ToolOutput } from "../agent/tool.ts";
import type { ServerConnection } from "./connection.ts";
import { LIST_RESOURCES_TOOL, READ_RESOURCE_TOOL } from "./names.ts";
import { resultToOutput } from "./tools.ts";

/** What the resource tools need of a server's connection. */
export type ResourceServer = Pick<ServerConnection, "config" | "capabilities" | "request">;

const ListParams = Type.Object({
  server: Type.Optional(
    Type.String({ description: "The MCP server to list; omit to list every server's." }),
  ),
  cursor: Type.Optional(
    Type.String({
      description: "The cursor a previous listing gave, to list the next page of that server.",
    }),
  ),
}, { additionalProperties: false });

const ReadParams = Type.Object({
  server: Type.String({ description: "The MCP server that offers the resource." }),
  uri: Type.String({
    description: "The resource's URI, as listed (or a resource template filled in).",
  }),
}, { additionalProperties: false });

/** The servers that offer resources now, in config order. */
export function resourceServers<S extends ResourceServer>(servers: readonly S[]): S[] {
  return servers.filter((s) => s.capabilities()?.resources !== undefined);
}

/** The server a `read_mcp_resource` call reads from (its `server` argument, when it exists). */
export function resourceServerOf(
  servers: readonly ResourceServer[],
  args: unknown,
): string | undefined {
  const named = (args as { server?: unknown } | null)?.server;
  return servers.find((s) => s.config.name === named)?.config.name;
}

/** The two resource tools over `servers` (re-read on every call: servers come and go). */
export function createResourceTools(servers: () => readonly ResourceServer[]): AnyTool[] {
  const list: Tool<typeof ListParams> = {
    name: LIST_RESOURCES_TOOL,
    label: "MCP resources",
    description: "Lists the resources (documents, files, records: each a URI with a name and a " +
      "type) and resource templates (URI patterns to fill in) that MCP servers offer. Read one " +
      `with ${READ_RESOURCE_TOOL}. Give "server" to list one server only; when a listing says ` +
      `more follow, call again with that server and the "cursor" it gives.`,
    parameters: ListParams,
    kind: "read",
    concurrencySafe: true,
    async execute(args: Static<typeof ListParams>, signal) {
      const offering = resourceServers(servers());
      if (args.server === undefined && args.cursor !== undefined) {
        return error(`A "cursor" belongs to one server's listing: give the "server" too.`);
      }
      const chosen = args.server === undefined
        ? offering
        : offering.filter((s) => s.config.name === args.server);
      if (chosen.length === 0) {
        return error(`MCP server "${args.server}" offers no resources: ${namesOf(offering)}.`);
      }
      const parts = await Promise.all(chosen.map((s) => listServer(s, args.cursor, signal)));
      return {
        output: parts.map((p) => p.text).join("\n\n"),
        ...(parts.every((p) => !p.ok) ? { isError: true } : {}),
      };
    },
  };
  const read: Tool<typeof ReadParams> = {
    name: READ_RESOURCE_TOOL,
    label: "MCP resource",
    description: `Reads one resource of an MCP server (find them with ${LIST_RESOURCES_TOOL}): ` +
      "text comes back as text, images as images, other binary content is only described.",
    parameters: ReadParams,
    kind: "read",
    concurrencySafe: true,
    async execute(args: Static<typeof ReadParams>, signal) {
      const offering = resourceServers(servers());
      const server = offering.find((s) => s.config.name === args.server);
      if (server === undefined) {
        return error(`MCP server "${args.server}" offers no resources: ${namesOf(offering)}.`);
      }
      const done = await server.request(
        `read of "${args.uri}"`,
        (client, options) => client.readResource({ uri: args.uri }, options),
        signal,
      );
      if (!done.ok) return error(`${done.error}.`);
      return {
        ...readResultToOutput(done.value),
        details: { server: args.server, uri: args.uri },
      };
    },
  };
  return [list, read];
}

/** Maps a `resources/read` result to a tool output: text, images, other blobs described. */
export function readResultToOutput(result: Pick<ReadResourceResult, "contents">): ToolOutput {
  if (result.contents.length === 0) return { output: "(The resource has no content.)" };
  return resultToOutput({
    content: result.contents.map((resource) => ({ type: "resource", resource })),
  });
}

/** One server's listing as text, or why there is none. */
async function listServer(
  server: ResourceServer,
  cursor: string | undefined,
  signal: AbortSignal,
): Promise<{ ok: boolean; text: string }> {
  const name = server.config.name;
  const [resources, templates] = await Promise.all([
    server.request(
      "listing of its resources",
      (client, options) => client.listResources(cursor === undefined ? {} : { cursor }, options),
      signal,
    ),
    // Templates are few: their first page comes with the first page of resources.
    cursor !== undefined ? undefined : server.request(
      "listing of its resource templates",
      (client, options) => client.listResourceTemplates({}, options),
      signal,
    ),
  ]);
  if (!resources.ok) {
    return {
      ok: false,
      text: `Listing the resources of MCP server "${name}" failed: ${resources.error}.`,
    };
  }
  const lines = [`MCP server "${name}":`];
  const shown = resources.value.resources.map(resourceLine);
  lines.push(shown.length === 0 ? "  (no resources)" : shown.join("\n"));
  const next = resources.value.nextCursor;
  if (next !== undefined && next !== "") {
    lines.push(`  More resources follow: call again with server "${name}" and cursor "${next}".`);
  }
  if (templates !== undefined && templates.ok && templates.value.resourceTemplates.length > 0) {
    lines.push("  Resource templates (fill in the {placeholders} to read):");
    lines.push(templates.value.resourceTemplates.map(templateLine).join("\n"));
  } else if (templates !== undefined && !templates.ok) {
    lines.push(`  Resource templates: listing them failed: ${templates.error}`);
  }
  return { ok: true, text: lines.join("\n") };
}

function resourceLine(r: Resource): string {
  return `  - <${r.uri}> ${r.title ?? r.name}${r.mimeType === undefined ? "" : ` (${r.mimeType})`}${
    r.size === undefined ? "" : `, ${r.size} bytes`
  }${describe(r.description)}`;
}

function templateLine(t: ResourceTemplate): string {
  return `  - <${t.uriTemplate}> ${t.title ?? t.name}${
    t.mimeType === undefined ? "" : ` (${t.mimeType})`
  }${describe(t.description)}`;
}

function describe(description: string | undefined): string {
  const text = description?.trim().replace(/\s+/g, " ") ?? "";
  return text === "" ? "" : ` — ${text}`;
}

function namesOf(servers: readonly ResourceServer[]): string {
  return servers.length === 0
    ? "no server offers any now"
    : `servers with resources: ${servers.map((s) => `"${s.config.name}"`).join(", ")}`;
}

function error(output: string): ToolOutput {
  return { isError: true, output };
}
