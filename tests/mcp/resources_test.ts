/** MCP resources through the real SDK: the stdio fixture's resources listed and read. */
import assert from "node:assert/strict";
import type { AnyTool } from "../../src/agent/tool.ts";
import {
  createMcpClients,
  LIST_RESOURCES_TOOL,
  type McpClients,
  READ_RESOURCE_TOOL,
} from "../../src/mcp/mod.ts";
import { readResultToOutput } from "../../src/mcp/resources.ts";
import { runAgentLoop } from "../../src/agent/mod.ts";
import type { Message } from "../../src/model/types.ts";
import { systemClock } from "../../src/sys/clock.ts";
import { scripted, ScriptedModelClient } from "../support/scripted_model.ts";
import { fixtureServer, recordingProcessOps, toolContext } from "./_helpers.ts";

async function start(
  servers = [fixtureServer("fx", { fixtureArgs: ["--resources"] })],
): Promise<McpClients & AsyncDisposable> {
  const mcp = createMcpClients(servers, {
    processOps: recordingProcessOps(),
    path: Deno.env.get("PATH") ?? "/usr/bin:/bin",
  });
  await mcp.start();
  return Object.assign(mcp, { [Symbol.asyncDispose]: () => mcp.close() });
}

function tool(mcp: McpClients, name: string): AnyTool {
  const found = mcp.tools().find((t) => t.name === name);
  assert.ok(found, `tool "${name}" among ${mcp.tools().map((t) => t.name).join(", ")}`);
  return found;
}

const run = (mcp: McpClients, name: string, args: unknown) =>
  tool(mcp, name).execute(args, new AbortController().signal, toolContext());

Deno.test("the resource tools are offered only while a server has the resources capability", async () => {
  await using plain = await start([fixtureServer("plain")]);
  const names = plain.tools().map((t) => t.name);
  assert.ok(!names.includes(LIST_RESOURCES_TOOL) && !names.includes(READ_RESOURCE_TOOL));
  await using mcp = await start([
    fixtureServer("plain"),
    fixtureServer("fx", { fixtureArgs: ["--resources"] }),
  ]);
  assert.deepEqual(mcp.tools().slice(0, 2).map((t) => t.name), [
    LIST_RESOURCES_TOOL,
    READ_RESOURCE_TOOL,
  ]);
  assert.equal(tool(mcp, READ_RESOURCE_TOOL).kind, "read");
  // Only the server that offers resources is listed.
  const listed = await run(mcp, LIST_RESOURCES_TOOL, {});
  assert.ok(listed.output.includes(`MCP server "fx":`), listed.output);
  assert.ok(!listed.output.includes(`"plain"`), listed.output);
  const refused = await run(mcp, LIST_RESOURCES_TOOL, { server: "plain" });
  assert.equal(refused.isError, true);
  assert.equal(
    refused.output,
    `MCP server "plain" offers no resources: servers with resources: "fx".`,
  );
});

Deno.test("list_mcp_resources lists resources, templates and the cursor of the next page", async () => {
  await using mcp = await start();
  const first = await run(mcp, LIST_RESOURCES_TOOL, { server: "fx" });
  assert.equal(first.isError, undefined);
  assert.equal(
    first.output,
    [
      `MCP server "fx":`,
      "  - <fixture://notes.txt> notes.txt (text/plain) — Notes.",
      "  - <fixture://pixel.png> pixel.png (image/png)",
      `  More resources follow: call again with server "fx" and cursor "2".`,
      "  Resource templates (fill in the {placeholders} to read):",
      "  - <fixture://notes/{topic}> notes by topic — Notes about one topic.",
    ].join("\n"),
  );
  const second = await run(mcp, LIST_RESOURCES_TOOL, { server: "fx", cursor: "2" });
  assert.equal(
    second.output,
    `MCP server "fx":\n  - <fixture://data.bin> data.bin (application/octet-stream)`,
  );
  const noServer = await run(mcp, LIST_RESOURCES_TOOL, { cursor: "2" });
  assert.equal(noServer.isError, true);
  assert.match(noServer.output, /give the "server" too/);
});

Deno.test("read_mcp_resource returns text, an image as image content, and describes other blobs", async () => {
  await using mcp = await start();
  const text = await run(mcp, READ_RESOURCE_TOOL, { server: "fx", uri: "fixture://notes.txt" });
  assert.deepEqual(text, {
    output: "[Resource <fixture://notes.txt> (text/plain)]\nthe notes",
    details: { server: "fx", uri: "fixture://notes.txt" },
  });
  const templated = await run(mcp, READ_RESOURCE_TOOL, {
    server: "fx",
    uri: "fixture://notes/deno",
  });
  assert.equal(templated.output, "[Resource <fixture://notes/deno>]\nnotes about deno");
  const image = await run(mcp, READ_RESOURCE_TOOL, { server: "fx", uri: "fixture://pixel.png" });
  assert.equal(image.content?.[0]?.type, "image");
  assert.equal(image.output, "[Image: image/png]");
  const blob = await run(mcp, READ_RESOURCE_TOOL, { server: "fx", uri: "fixture://data.bin" });
  assert.equal(
    blob.output,
    "[Resource <fixture://data.bin> (application/octet-stream, 6 bytes) not shown.]",
  );
  assert.equal(blob.content, undefined);
  const missing = await run(mcp, READ_RESOURCE_TOOL, { server: "fx", uri: "fixture://nope" });
  assert.equal(missing.isError, true);
  assert.match(
    missing.output,
    /MCP server "fx" refused the read of "fixture:\/\/nope": .*not found/,
  );
  const unknown = await run(mcp, READ_RESOURCE_TOOL, { server: "zz", uri: "fixture://notes.txt" });
  assert.equal(unknown.isError, true);
  assert.match(unknown.output, /"zz" offers no resources/);
});

Deno.test("serverOf() names the server a resource read needs the grant of; listing needs none", async () => {
  await using mcp = await start();
  assert.equal(mcp.serverOf(READ_RESOURCE_TOOL, { server: "fx", uri: "x" }), "fx");
  assert.equal(mcp.serverOf(READ_RESOURCE_TOOL, { server: "zz", uri: "x" }), undefined);
  assert.equal(mcp.serverOf(LIST_RESOURCES_TOOL, { server: "fx" }), undefined);
  assert.equal(mcp.serverOf("fx__echo", { text: "a" }), "fx");
  assert.equal(mcp.serverOf("read", { path: "a" }), undefined);
});

Deno.test("readResultToOutput() says when a resource has no content", () => {
  assert.deepEqual(readResultToOutput({ contents: [] }), {
    output: "(The resource has no content.)",
  });
});

Deno.test("a large resource is capped in history like any tool result", async () => {
  await using mcp = await start();
  const history: Message[] = [];
  await runAgentLoop({ history, prompt: { role: "user", content: "read" } }, {
    model: new ScriptedModelClient([
      scripted.toolCalls([{
        name: READ_RESOURCE_TOOL,
        args: { server: "fx", uri: "fixture://big.txt" },
      }]),
      scripted.text("done"),
    ]),
    tools: mcp.tools(),
    system: "test",
    clock: systemClock,
  });
  const result = history.filter((m) => m.role === "toolResult").flatMap((m) => m.results)[0];
  const content = String(result?.content);
  assert.ok(content.length < 60_000, `${content.length} characters`);
  assert.match(content, /characters omitted/);
});
