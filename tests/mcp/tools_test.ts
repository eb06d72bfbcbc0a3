import assert from "node:assert/strict";
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types";
import { mcpToolName, resultToOutput, TOOL_NAME_PATTERN } from "../../src/mcp/mod.ts";
import { type McpCall, toMoatTool, toolAllowed } from "../../src/mcp/tools.ts";
import type { ToolOutput } from "../../src/agent/tool.ts";
import { toolContext } from "./_helpers.ts";

const noCall: McpCall = () => Promise.reject(new Error("not called in this test"));

function mcpTool(name: string, inputSchema: Record<string, unknown>, extra: Partial<McpTool> = {}) {
  return { name, inputSchema, ...extra } as McpTool;
}

Deno.test("mcpToolName() prefixes the server, sanitises, and cuts long names with a stable hash", () => {
  assert.equal(mcpToolName("files", "read_file"), "files__read_file");
  assert.equal(mcpToolName("files", "read.file/v2 now"), "files__read_file_v2_now");
  const long = mcpToolName("server", "t".repeat(80));
  assert.equal(long.length, 64);
  assert.match(long, TOOL_NAME_PATTERN);
  assert.match(long, /^server__t+_[0-9a-f]{8}$/);
  assert.equal(mcpToolName("server", "t".repeat(80)), long, "deterministic");
  assert.notEqual(mcpToolName("server", "t".repeat(81)), long, "different tools, different names");
  // A name taken already gets the hash even when short.
  assert.match(mcpToolName("files", "a.b", { hashed: true }), /^files__a_b_[0-9a-f]{8}$/);
});

Deno.test("toolAllowed() applies include, then exclude, by exact name", () => {
  assert.equal(toolAllowed({}, "x"), true);
  assert.equal(toolAllowed({ include: ["x"] }, "x"), true);
  assert.equal(toolAllowed({ include: ["x"] }, "y"), false);
  assert.equal(toolAllowed({ include: ["x"], exclude: ["x"] }, "x"), false);
  assert.equal(toolAllowed({ exclude: ["x*"] }, "xy"), true, "no globs");
});

Deno.test("an MCP tool becomes a moat tool: described, typed by kind, read-only hint → parallel", () => {
  const tool = toMoatTool(
    "files",
    mcpTool("list", { type: "object" }, {
      description: "Lists files.",
      annotations: { readOnlyHint: true, title: "List files" },
    }),
    "files__list",
    noCall,
  );
  assert.equal(tool.name, "files__list");
  assert.equal(tool.label, "List files");
  assert.equal(tool.description, `(MCP server "files", tool "list") Lists files.`);
  assert.equal(tool.kind, "execute");
  assert.equal(tool.concurrencySafe, true);
  assert.deepEqual(tool.parameters, { type: "object" });
  const plain = toMoatTool("files", mcpTool("rm", { type: "object" }), "files__rm", noCall);
  assert.equal(plain.concurrencySafe, false);
  assert.equal(plain.description, `(MCP server "files", tool "rm") No description given.`);
});

Deno.test("validateArguments() reports every problem against the server's JSON Schema", () => {
  const tool = toMoatTool(
    "calc",
    mcpTool("add", {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
      additionalProperties: false,
    }),
    "calc__add",
    noCall,
  );
  assert.deepEqual(tool.validateArguments!({ a: 1, b: 2 }), []);
  assert.deepEqual(tool.validateArguments!({ a: "1", c: 3 }), [
    "/: must have required property 'b'",
    `/: must NOT have additional properties "c"`,
    "/a: must be number",
  ]);
});

Deno.test("validateArguments() follows the schema's dialect (2020-12 prefixItems)", () => {
  const tool = toMoatTool(
    "s",
    mcpTool("t", {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: {
        pair: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }] },
      },
    }),
    "s__t",
    noCall,
  );
  assert.deepEqual(tool.validateArguments!({ pair: ["a", 1] }), []);
  assert.deepEqual(tool.validateArguments!({ pair: [1, 1] }), ["/pair/0: must be string"]);
});

Deno.test("a tool whose schema does not compile refuses every call with the reason", async () => {
  let called = false;
  const tool = toMoatTool(
    "s",
    mcpTool("broken", { type: "object", properties: { a: { type: "no-such-type" } } }),
    "s__broken",
    () => {
      called = true;
      return Promise.resolve({ output: "ran" });
    },
  );
  const problems = tool.validateArguments!({ a: 1 });
  assert.equal(problems.length, 1);
  assert.match(
    problems[0]!,
    /^MCP tool "broken" of server "s" cannot be called: its input schema is not valid JSON Schema: /,
  );
  const result = await tool.execute({ a: 1 }, new AbortController().signal, toolContext());
  assert.equal(result.isError, true);
  assert.equal(result.output, problems[0]);
  assert.equal(called, false);
});

Deno.test("execute() calls through with the MCP name and adds the server and tool to details", async () => {
  const seen: unknown[] = [];
  const tool = toMoatTool("s", mcpTool("t.x", { type: "object" }), "s__t_x", (name, args) => {
    seen.push(name, args);
    return Promise.resolve({ output: "fine" } satisfies ToolOutput);
  });
  const result = await tool.execute({ q: 1 }, new AbortController().signal, toolContext());
  assert.deepEqual(seen, ["t.x", { q: 1 }]);
  assert.deepEqual(result, { output: "fine", details: { server: "s", tool: "t.x" } });
});

Deno.test("resultToOutput() maps text, images, resources, links and audio", () => {
  const out = resultToOutput({
    content: [
      { type: "text", text: "hello" },
      { type: "image", data: "iVBO", mimeType: "image/png" },
      { type: "resource", resource: { uri: "file:///a.txt", mimeType: "text/plain", text: "A" } },
      { type: "resource", resource: { uri: "file:///b.bin", blob: "AAAA" } },
      { type: "resource", resource: { uri: "file:///c.png", mimeType: "image/png", blob: "iVBO" } },
      { type: "resource_link", uri: "file:///big.log", name: "big.log", description: "Logs" },
      { type: "audio", data: "AAAAAAAA", mimeType: "audio/wav" },
      { type: "video" },
    ],
  });
  assert.deepEqual(out.content, [
    { type: "text", text: "hello" },
    { type: "image", data: "iVBO", mimeType: "image/png" },
    { type: "text", text: "[Resource <file:///a.txt> (text/plain)]\nA" },
    { type: "text", text: "[Resource <file:///b.bin> (binary, 3 bytes) not shown.]" },
    { type: "image", data: "iVBO", mimeType: "image/png" },
    { type: "text", text: "[Resource link: big.log <file:///big.log> — Logs]" },
    {
      type: "text",
      text: "[Audio (audio/wav, 6 bytes) not shown: moat cannot pass audio to the model.]",
    },
    { type: "text", text: `[Content of unsupported type "video"]` },
  ]);
  assert.equal(out.isError, undefined);
  assert.match(out.output, /^hello\n\[Image: image\/png\]\n\[Resource <file:\/\/\/a\.txt>/);
});

Deno.test("resultToOutput() keeps isError, shows structured content without text, and never is empty", () => {
  assert.deepEqual(resultToOutput({ content: [{ type: "text", text: "no" }], isError: true }), {
    output: "no",
    isError: true,
  });
  assert.deepEqual(resultToOutput({ content: [], structuredContent: { value: 42 } }), {
    output: `{\n  "value": 42\n}`,
  });
  assert.deepEqual(
    resultToOutput({ content: [{ type: "text", text: "t" }], structuredContent: { v: 1 } }),
    { output: "t" },
  );
  assert.deepEqual(resultToOutput({ content: [] }), { output: "(The tool returned no content.)" });
});
