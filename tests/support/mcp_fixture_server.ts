/**
 * A small MCP server for tests, built with the official SDK. Run over stdio with
 * `deno run --allow-all tests/support/mcp_fixture_server.ts [--mode=normal|malformed|hang]`, or
 * imported (`createFixtureServer`) and served over streamable HTTP in-process.
 *
 * Modes: `normal` serves; `malformed` writes a line that is not JSON-RPC to stdout first, then
 * serves; `hang` never answers (it does not even read stdin).
 *
 * Tools: echo (read-only), add (a schema with types and `required`), image (a 1×1 PNG), slow
 * (progress notifications; with `ticks` it ends, without it waits for cancellation), stats (what
 * the server saw cancelled), content (resource, resource link, audio), structured (only
 * structuredContent), crash (exits with code 3), pid, spawn_sleeper (a `sleep` grandchild),
 * add_tool (registers a tool and sends notifications/tools/list_changed), and for escape tests
 * under bubblewrap read_file, write_file, connect, env and fetch, which report what happened as
 * text.
 *
 * The SDK's high-level McpServer takes zod schemas only; zod is not a dependency of moat, so
 * this uses the SDK's low-level Server with plain JSON Schema.
 */
import process from "node:process";
import { Server } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/server/stdio"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types";

/** A 1×1 red PNG, base64. */
export const FIXTURE_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

const obj = (properties: Record<string, object>, required: string[] = []) => ({
  type: "object" as const,
  properties,
  required,
  additionalProperties: false,
});
const str = { type: "string" };

const BASE_TOOLS: Tool[] = [
  {
    name: "echo",
    description: "Returns the text it is given.",
    inputSchema: obj({ text: str }, ["text"]),
    annotations: { readOnlyHint: true, title: "Echo" },
  },
  {
    name: "add",
    description: "Adds two numbers.",
    inputSchema: obj({ a: { type: "number" }, b: { type: "number" } }, ["a", "b"]),
  },
  { name: "image", description: "Returns a 1×1 PNG.", inputSchema: obj({}) },
  {
    name: "slow",
    description: "Sends progress; ends after `ticks` ticks, or waits for cancellation.",
    inputSchema: obj({ ticks: { type: "integer", minimum: 1 } }),
  },
  { name: "stats", description: "What the server saw.", inputSchema: obj({}) },
  { name: "content", description: "Resource, link and audio content.", inputSchema: obj({}) },
  {
    name: "structured",
    description: "Returns only structured content.",
    inputSchema: obj({}),
    outputSchema: obj({ value: { type: "number" } }, ["value"]),
  },
  { name: "crash", description: "Exits the server with code 3.", inputSchema: obj({}) },
  { name: "pid", description: "The server's process id.", inputSchema: obj({}) },
  { name: "spawn_sleeper", description: "Starts `sleep 60`; its pid.", inputSchema: obj({}) },
  {
    name: "add_tool",
    description: "Registers a tool named `name` and announces the change.",
    inputSchema: obj({ name: str }, ["name"]),
  },
  { name: "read_file", description: "Reads a file.", inputSchema: obj({ path: str }, ["path"]) },
  {
    name: "write_file",
    description: "Writes a file.",
    inputSchema: obj({ path: str, text: str }, ["path", "text"]),
  },
  {
    name: "connect",
    description: "Opens a TCP connection.",
    inputSchema: obj({ host: str, port: { type: "integer" } }, ["host", "port"]),
  },
  {
    name: "env",
    description: "An environment variable.",
    inputSchema: obj({ name: str }, ["name"]),
  },
  {
    name: "fetch",
    description: "Fetches a URL with Deno's fetch (which honours HTTP_PROXY).",
    inputSchema: obj({ url: str }, ["url"]),
  },
];

const text = (t: string, isError = false): CallToolResult => ({
  content: [{ type: "text", text: t }],
  ...(isError ? { isError: true } : {}),
});

function failure(what: string, e: unknown): CallToolResult {
  return text(`${what} failed: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
}

/** The fixture server (not connected). */
export function createFixtureServer(): Server {
  const server = new Server(
    { name: "moat-fixture", version: "1.0.0" },
    { capabilities: { tools: { listChanged: true } } },
  );
  const tools = [...BASE_TOOLS];
  let cancelled = 0;

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    const progress = (progress: number, total?: number) => {
      const token = request.params._meta?.progressToken;
      if (token === undefined) return Promise.resolve();
      return extra.sendNotification({
        method: "notifications/progress",
        params: {
          progressToken: token,
          progress,
          ...(total === undefined ? {} : { total }),
          message: `tick ${progress}`,
        },
      });
    };
    switch (request.params.name) {
      case "echo":
        return text(String(args.text));
      case "add":
        return text(String(Number(args.a) + Number(args.b)));
      case "image":
        return {
          content: [{ type: "text", text: "a red pixel" }, {
            type: "image",
            data: FIXTURE_PNG,
            mimeType: "image/png",
          }],
        };
      case "slow": {
        const ticks = typeof args.ticks === "number" ? args.ticks : undefined;
        // Counted when the cancellation arrives, so a later `stats` call sees it.
        extra.signal.addEventListener("abort", () => cancelled++, { once: true });
        const aborted = new Promise<void>((resolve) =>
          extra.signal.addEventListener("abort", () => resolve(), { once: true })
        );
        for (let i = 1; (ticks === undefined || i <= ticks) && !extra.signal.aborted; i++) {
          await progress(i, ticks);
          let timer: ReturnType<typeof setTimeout> | undefined;
          await Promise.race([
            aborted,
            new Promise((resolve) => timer = setTimeout(resolve, ticks === undefined ? 100 : 10)),
          ]);
          clearTimeout(timer);
        }
        return text(`done after ${ticks} ticks`);
      }
      case "stats":
        return text(JSON.stringify({ cancelled }));
      case "content":
        return {
          content: [
            {
              type: "resource",
              resource: { uri: "file:///notes.txt", mimeType: "text/plain", text: "note body" },
            },
            {
              type: "resource_link",
              uri: "file:///big.log",
              name: "big.log",
              mimeType: "text/plain",
            },
            { type: "audio", data: "AAAA", mimeType: "audio/wav" },
          ],
        };
      case "structured":
        return { content: [], structuredContent: { value: 42 } };
      case "crash":
        Deno.stderr.writeSync(new TextEncoder().encode("fixture crashing on purpose\n"));
        return Deno.exit(3);
      case "pid":
        return text(String(Deno.pid));
      case "spawn_sleeper": {
        const child = new Deno.Command("sleep", {
          args: ["60"],
          stdin: "null",
          stdout: "null",
          stderr: "null",
        })
          .spawn();
        child.unref();
        return text(String(child.pid));
      }
      case "add_tool": {
        const name = String(args.name);
        tools.push({ name, description: `Added at run time.`, inputSchema: obj({}) });
        await server.sendToolListChanged();
        return text(`added ${name}`);
      }
      case "read_file":
        try {
          const data = await Deno.readTextFile(String(args.path));
          return text(`read ${data.length} characters: ${data.slice(0, 200)}`);
        } catch (e) {
          return failure("read", e);
        }
      case "write_file":
        try {
          await Deno.writeTextFile(String(args.path), String(args.text));
          return text(`wrote ${String(args.path)}`);
        } catch (e) {
          return failure("write", e);
        }
      case "connect":
        try {
          const conn = await Deno.connect({ hostname: String(args.host), port: Number(args.port) });
          conn.close();
          return text(`connected to ${String(args.host)}:${String(args.port)}`);
        } catch (e) {
          return failure("connect", e);
        }
      case "env":
        return text(Deno.env.get(String(args.name)) ?? "(unset)");
      case "fetch":
        try {
          const response = await fetch(String(args.url));
          return text(`status ${response.status}: ${await response.text()}`);
        } catch (e) {
          return failure("fetch", e instanceof Error && e.cause !== undefined ? e.cause : e);
        }
      default:
        if (tools.some((t) => t.name === request.params.name)) {
          return text(`dynamic tool ${request.params.name}`);
        }
        return text(`unknown tool ${request.params.name}`, true);
    }
  });
  return server;
}

if (import.meta.main) {
  const mode = Deno.args.find((a) => a.startsWith("--mode="))?.slice("--mode=".length) ?? "normal";
  if (mode === "hang") {
    // Never answers: keeps running without reading stdin.
    setInterval(() => {}, 60_000);
  } else {
    if (mode === "malformed") {
      Deno.stdout.writeSync(new TextEncoder().encode("this is not JSON-RPC\n"));
    }
    process.stdin.on("end", () => Deno.exit(0));
    await createFixtureServer().connect(new StdioServerTransport());
  }
}
