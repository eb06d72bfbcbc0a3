/**
 * A small MCP server for tests, built with the official SDK. Run over stdio with
 * `deno run --allow-all tests/support/mcp_fixture_server.ts [--mode=normal|malformed|hang]`, or
 * imported (`createFixtureServer`) and served over streamable HTTP in-process.
 *
 * Modes: `normal` serves; `malformed` writes a line that is not JSON-RPC to stdout first, then
 * serves; `hang` never answers (it does not even read stdin). With `--gate=<path>` it starts
 * serving (answers `initialize`) only once that file exists, so a test decides when it is ready;
 * with `--listed=<path>` it creates that file when it has answered its first `tools/list`.
 *
 * Tools: echo (read-only), add (a schema with types and `required`), image (a 1×1 PNG), slow
 * (progress notifications; with `ticks` it ends, without it waits for cancellation), stats (what
 * the server saw cancelled), content (resource, resource link, audio), structured (only
 * structuredContent), crash (exits with code 3), pid, spawn_sleeper (a `sleep` grandchild),
 * add_tool (registers a tool and sends notifications/tools/list_changed), add_prompt (the same
 * for a prompt), and for escape tests under bubblewrap read_file, write_file, connect, env and
 * fetch, which report what happened as text.
 *
 * Prompts (always): greet (required `name`, optional `style`), with an assistant message and an
 * image; review (optional `focus`). With `--resources`: resources notes.txt (text), pixel.png (an
 * image blob), data.bin (another blob), the template `fixture://notes/{topic}`, paged two per
 * page. With `--many-tools=N`: N more tools `bulk_<i>`, each with a large schema.
 *
 * The SDK's high-level McpServer takes zod schemas only; zod is not a dependency of moat, so
 * this uses the SDK's low-level Server with plain JSON Schema.
 */
import process from "node:process";
import { Server } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/server/stdio"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type {
  CallToolResult,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  Tool,
} from "@modelcontextprotocol/sdk/types";

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
    name: "add_prompt",
    description: "Registers a prompt named `name` and announces the change.",
    inputSchema: obj({ name: str }, ["name"]),
  },
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

/** The fixture's resources; listed two per page. */
const RESOURCES: Resource[] = [
  { uri: "fixture://notes.txt", name: "notes.txt", mimeType: "text/plain", description: "Notes." },
  { uri: "fixture://pixel.png", name: "pixel.png", mimeType: "image/png" },
  { uri: "fixture://data.bin", name: "data.bin", mimeType: "application/octet-stream" },
];

const PROMPTS: Prompt[] = [
  {
    name: "greet",
    description: "Greets someone.",
    arguments: [
      { name: "name", description: "Who to greet", required: true },
      { name: "style", description: "How" },
    ],
  },
  { name: "review", description: "Asks for a review.", arguments: [{ name: "focus" }] },
];

/** `tools/list` tool `bulk_<i>` with a schema of about 2,000 characters. */
function bulkTool(i: number): Tool {
  const properties: Record<string, object> = {};
  for (let p = 0; p < 12; p++) {
    properties[`field_${p}`] = {
      type: "string",
      description: `Field ${p} of bulk record ${i}: a long description that takes space.`,
    };
  }
  return {
    name: `bulk_${i}`,
    description: i === 7 ? "Uploads a spreadsheet to the archive." : `Bulk operation ${i}.`,
    inputSchema: obj(properties),
  };
}

function readResource(uri: string): ReadResourceResult {
  if (uri === "fixture://notes.txt") {
    return { contents: [{ uri, mimeType: "text/plain", text: "the notes" }] };
  }
  if (uri === "fixture://pixel.png") {
    return { contents: [{ uri, mimeType: "image/png", blob: FIXTURE_PNG }] };
  }
  // Not listed: 200,000 characters, to see that the result is capped.
  if (uri === "fixture://big.txt") {
    return { contents: [{ uri, mimeType: "text/plain", text: "x".repeat(200_000) }] };
  }
  if (uri === "fixture://data.bin") {
    return { contents: [{ uri, mimeType: "application/octet-stream", blob: "AAECAwQF" }] };
  }
  const topic = /^fixture:\/\/notes\/(.+)$/.exec(uri)?.[1];
  if (topic !== undefined) return { contents: [{ uri, text: `notes about ${topic}` }] };
  throw new McpError(-32002, `Resource not found: ${uri}`);
}

function getPrompt(name: string, args: Record<string, string>): GetPromptResult {
  if (name === "greet") {
    if (args.name === undefined) throw new McpError(-32602, "greet needs a name");
    return {
      messages: [
        {
          role: "user",
          content: { type: "text", text: `Greet ${args.name} ${args.style ?? "warmly"}.` },
        },
        { role: "assistant", content: { type: "text", text: "Sure." } },
        { role: "user", content: { type: "image", data: FIXTURE_PNG, mimeType: "image/png" } },
      ],
    };
  }
  if (name === "review") {
    return {
      messages: [{
        role: "user",
        content: { type: "text", text: `Review: ${args.focus ?? "all"}` },
      }],
    };
  }
  throw new McpError(-32602, `Unknown prompt ${name}`);
}

/** The fixture server (not connected); see the module doc for the options. */
export function createFixtureServer(
  options: { resources?: boolean; manyTools?: number; onListed?: () => void } = {},
): Server {
  const server = new Server(
    { name: "moat-fixture", version: "1.0.0" },
    {
      capabilities: {
        tools: { listChanged: true },
        prompts: {},
        ...(options.resources ? { resources: {} } : {}),
      },
    },
  );
  const tools = [...BASE_TOOLS];
  const prompts = [...PROMPTS];
  for (let i = 0; i < (options.manyTools ?? 0); i++) tools.push(bulkTool(i));
  let cancelled = 0;

  server.setRequestHandler(ListToolsRequestSchema, () => {
    options.onListed?.();
    return { tools };
  });
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts }));
  server.setRequestHandler(
    GetPromptRequestSchema,
    (request) => getPrompt(request.params.name, request.params.arguments ?? {}),
  );
  if (options.resources) {
    server.setRequestHandler(ListResourcesRequestSchema, (request) => {
      const start = Number(request.params?.cursor ?? "0");
      const next = start + 2 < RESOURCES.length ? String(start + 2) : undefined;
      return {
        resources: RESOURCES.slice(start, start + 2),
        ...(next === undefined ? {} : { nextCursor: next }),
      };
    });
    server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
      resourceTemplates: [{
        uriTemplate: "fixture://notes/{topic}",
        name: "notes by topic",
        description: "Notes about one topic.",
      }],
    }));
    server.setRequestHandler(
      ReadResourceRequestSchema,
      (request) => readResource(request.params.uri),
    );
  }
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
      case "add_prompt": {
        prompts.push({ name: String(args.name), description: "Added at run time." });
        await server.sendPromptListChanged();
        return text(`added prompt ${String(args.name)}`);
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

/** Resolves once `path` exists (checked every 20 ms). */
async function waitForFile(path: string): Promise<void> {
  for (;;) {
    try {
      await Deno.stat(path);
      return;
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

if (import.meta.main) {
  const option = (name: string) =>
    Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(`--${name}=`.length);
  const mode = option("mode") ?? "normal";
  const gate = option("gate");
  if (gate !== undefined) await waitForFile(gate);
  if (mode === "hang") {
    // Never answers: keeps running without reading stdin.
    setInterval(() => {}, 60_000);
  } else {
    if (mode === "malformed") {
      Deno.stdout.writeSync(new TextEncoder().encode("this is not JSON-RPC\n"));
    }
    process.stdin.on("end", () => Deno.exit(0));
    const many = option("many-tools");
    const listed = option("listed");
    await createFixtureServer({
      resources: Deno.args.includes("--resources"),
      manyTools: many === undefined ? 0 : Number(many),
      ...(listed === undefined ? {} : { onListed: () => Deno.writeTextFileSync(listed, "") }),
    }).connect(new StdioServerTransport());
  }
}
